package api

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit is the optional per-key limit on management calls (off when
// PerSecond is 0). Telemetry queries against the database are never
// throttled per query or per endpoint; this only bounds one key's calls.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// limiters holds one token bucket per authenticated key; keys are few, so
// the map stays small.
type limiters struct {
	cfg RateLimit
	mu  sync.Mutex
	m   map[string]*rate.Limiter
}

// allow takes a token for identity and sets the RateLimit-* headers; it
// reports false (and has answered 429) when none is left.
func (l *limiters) allow(w http.ResponseWriter, f form, identity string) bool {
	if l == nil || l.cfg.PerSecond <= 0 {
		return true
	}
	l.mu.Lock()
	lim, ok := l.m[identity]
	if !ok {
		lim = rate.NewLimiter(rate.Limit(l.cfg.PerSecond), max(l.cfg.Burst, 1))
		l.m[identity] = lim
	}
	l.mu.Unlock()
	now := time.Now()
	allowed := lim.AllowN(now, 1)
	tokens := lim.TokensAt(now)
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(max(l.cfg.Burst, 1)))
	h.Set("RateLimit-Remaining", strconv.Itoa(int(math.Max(0, math.Floor(tokens)))))
	// Seconds until one more call is allowed.
	reset := int(math.Ceil(math.Max(0, 1-tokens) / l.cfg.PerSecond))
	h.Set("RateLimit-Reset", strconv.Itoa(reset))
	if !allowed {
		h.Set("Retry-After", strconv.Itoa(max(reset, 1)))
		writeFail(w, f, http.StatusTooManyRequests, "rate limit exceeded for this key")
	}
	return allowed
}

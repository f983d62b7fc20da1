// Package authfail reports refused credentials: each one is counted (the
// caller's metric), and logged at most once a minute per client address,
// so a guesser or a misconfigured agent shows in the log without flooding
// it. Keys are never logged, only where they came from.
package authfail

import (
	"sync"
	"time"

	"go.uber.org/zap"
)

// Every is how often at most one address's failures are logged.
const Every = time.Minute

// maxAddrs bounds the addresses remembered (a scan from many addresses
// forgets the oldest instead of growing).
const maxAddrs = 10_000

// Log writes a failure per address at most once per Every, with how many
// were not written since.
type Log struct {
	logger *zap.Logger
	now    func() time.Time
	mu     sync.Mutex
	seen   map[string]*entry
}

type entry struct {
	logged     time.Time
	suppressed int
}

// New logs through logger.
func New(logger *zap.Logger) *Log {
	return &Log{logger: logger, now: time.Now, seen: map[string]*entry{}}
}

// Failed records a refused credential from addr at door (ingestion, api,
// …) for reason; it tells whether the failure was written to the log.
func (l *Log) Failed(door, addr, reason string) bool {
	l.mu.Lock()
	now := l.now()
	e := l.seen[addr]
	if e != nil && now.Sub(e.logged) < Every {
		e.suppressed++
		l.mu.Unlock()
		return false
	}
	if len(l.seen) >= maxAddrs {
		for a, old := range l.seen {
			if now.Sub(old.logged) >= Every || len(l.seen) >= maxAddrs {
				delete(l.seen, a)
			}
		}
	}
	suppressed := 0
	if e != nil {
		suppressed = e.suppressed
	}
	l.seen[addr] = &entry{logged: now}
	l.mu.Unlock()
	l.logger.Warn("credentials refused", zap.String("door", door), zap.String("client", addr), zap.String("reason", reason),
		zap.Int("refused_since_last_logged", suppressed))
	return true
}

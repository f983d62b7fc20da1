package accounts

import (
	"sync"
	"time"
)

// throttle slows repeated failed logins, per account and per client
// address: after freeFailures failures the next attempt must wait 1 s,
// then 2, 4, … up to maxWait; a success clears the count. It is kept in
// memory per replica (a guesser spreading tries over N replicas gets N
// times the rate), bounded in size.
type throttle struct {
	mu  sync.Mutex
	m   map[string]*failures
	now func() time.Time
}

type failures struct {
	n    int
	last time.Time
}

const (
	freeFailures = 5
	maxWait      = 15 * time.Minute
	// forgetAfter clears a count with no failure for this long.
	forgetAfter = time.Hour
	maxTracked  = 100_000
)

func newThrottle() *throttle {
	return &throttle{m: map[string]*failures{}, now: time.Now}
}

// wait is how long the keys must still wait before another attempt.
func (t *throttle) wait(keys ...string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	var longest time.Duration
	for _, k := range keys {
		f := t.m[k]
		if f == nil || f.n < freeFailures {
			continue
		}
		d := time.Second << min(f.n-freeFailures, 20)
		if d > maxWait {
			d = maxWait
		}
		if left := f.last.Add(d).Sub(now); left > longest {
			longest = left
		}
	}
	return longest
}

func (t *throttle) fail(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.m) >= maxTracked {
		for k, f := range t.m {
			if now.Sub(f.last) > forgetAfter || len(t.m) >= maxTracked {
				delete(t.m, k)
			}
		}
	}
	for _, k := range keys {
		f := t.m[k]
		if f == nil || now.Sub(f.last) > forgetAfter {
			f = &failures{}
			t.m[k] = f
		}
		f.n++
		f.last = now
	}
}

func (t *throttle) clear(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		delete(t.m, k)
	}
}

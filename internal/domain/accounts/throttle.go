package accounts

import (
	"sync"
	"time"
)

// throttle slows repeated sign-in attempts. Each attempt is counted when
// it starts, before its password is hashed, as a failure until it proves
// right (a success clears the counts it names): a guesser sending many
// attempts at once is then counted for every one in flight, not only for
// those that finished. A key's first budget.free attempts pass at once;
// after that each must wait 1 s after the key's last attempt, then 2, 4,
// … up to budget.max. Counts live in memory per replica (a guesser
// spreading tries over N replicas gets N times the rate), bounded in size.
type throttle struct {
	mu  sync.Mutex
	m   map[string]*failures
	now func() time.Time
}

type failures struct {
	n    int
	last time.Time
}

// budget is how many attempts a key has before it is slowed, and the
// longest it is then made to wait.
type budget struct {
	free int
	max  time.Duration
}

// tkey is one count an attempt is charged to.
type tkey struct {
	name string
	budget
}

// The budgets (docs/security.md, "Sign-in"). pair is one client address
// at one account; address is one client address at every account (a
// sprayer); device is a browser that signed in to the account before;
// account is every client without such a browser, from any address. The
// account's budget is larger and its wait short: it bounds what a
// guesser with many addresses gets (at most one guess a minute once it
// is spent) while a stranger's guesses cannot keep the owner out for
// minutes, and never out of a browser the owner signed in from before.
var (
	pairBudget    = budget{free: 5, max: 15 * time.Minute}
	addressBudget = budget{free: 20, max: 15 * time.Minute}
	deviceBudget  = budget{free: 5, max: 15 * time.Minute}
	accountBudget = budget{free: 20, max: time.Minute}
)

const (
	// forgetAfter clears a count with no attempt for this long.
	forgetAfter = time.Hour
	maxTracked  = 100_000
)

func newThrottle() *throttle {
	return &throttle{m: map[string]*failures{}, now: time.Now}
}

// begin charges an attempt to every key, or answers how long the
// attempt must still wait (charging nothing) when any key is spent.
func (t *throttle) begin(keys ...tkey) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	var longest time.Duration
	for _, k := range keys {
		f := t.m[k.name]
		if f == nil || now.Sub(f.last) > forgetAfter || f.n < k.free {
			continue
		}
		d := min(time.Second<<min(f.n-k.free, 20), k.max)
		if left := f.last.Add(d).Sub(now); left > longest {
			longest = left
		}
	}
	if longest > 0 {
		return longest
	}
	if len(t.m) >= maxTracked {
		for name, f := range t.m {
			if now.Sub(f.last) > forgetAfter || len(t.m) >= maxTracked {
				delete(t.m, name)
			}
		}
	}
	for _, k := range keys {
		f := t.m[k.name]
		if f == nil || now.Sub(f.last) > forgetAfter {
			f = &failures{}
			t.m[k.name] = f
		}
		f.n++
		f.last = now
	}
	return 0
}

// succeeded settles an attempt that proved right: the counts of the
// client's own keys (mine) are forgotten, and the attempt is taken back
// from the shared ones, which keep the failures others charged them.
func (t *throttle) succeeded(mine []string, shared []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range mine {
		delete(t.m, k)
	}
	for _, k := range shared {
		if f := t.m[k]; f != nil && f.n > 0 {
			f.n--
		}
	}
}

// Package admission bounds what the requests in progress may hold in
// memory at once. Each request enters with a weight (its body and what it
// decodes to, or simply 1 to count requests) and waits for room in arrival
// order, so a heavy request is not starved by light ones, up to a set
// time; past it the caller refuses the request as retryable.
package admission

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// Room is a bound shared by the requests in progress; a nil Room admits
// everything.
type Room struct {
	sem     *semaphore.Weighted
	size    int64
	wait    time.Duration
	waiting atomic.Int64
}

// New returns a room of size (nil, no bound, for size <= 0) where a
// request waits at most wait.
func New(size int64, wait time.Duration) *Room {
	if size <= 0 {
		return nil
	}
	return &Room{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// ErrWaitersFull refuses a request without waiting: the requests already
// waiting hold as much as the room itself.
var ErrWaitersFull = errors.New("the requests waiting hold as much as the bound")

// ErrTimedOut refuses a request that found no room for the whole wait.
var ErrTimedOut = errors.New("no room for the whole wait")

// Enter takes room for weight, of which held bytes are already in memory
// while the request waits; their sum over the waiting requests is bounded
// by the room's size too. It returns the room taken, for Leave, or
// ErrWaitersFull, ErrTimedOut, or ctx's error when the sender gave up.
func (r *Room) Enter(ctx context.Context, weight, held int64) (int64, error) {
	if r == nil {
		return 0, nil
	}
	weight = min(max(weight, 1), r.size) // one request alone always fits
	if r.sem.TryAcquire(weight) {
		return weight, nil
	}
	if r.waiting.Add(held) > r.size {
		r.waiting.Add(-held)
		return 0, ErrWaitersFull
	}
	defer r.waiting.Add(-held)
	wctx, cancel := context.WithTimeout(ctx, r.wait)
	defer cancel()
	if err := r.sem.Acquire(wctx, weight); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, ErrTimedOut
	}
	return weight, nil
}

// Leave gives back the room Enter took.
func (r *Room) Leave(taken int64) {
	if r != nil && taken > 0 {
		r.sem.Release(taken)
	}
}

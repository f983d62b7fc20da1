// Package admission bounds what the requests in progress may hold in
// memory at once. Each request enters with a weight (its body and what it
// decodes to, or simply 1 to count requests) and waits for room in arrival
// order, so a heavy request is not starved by light ones, up to a set
// time; past it the caller refuses the request as retryable.
package admission

import (
	"context"
	"errors"
	"math"
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
// waiting, or being read (Hold), hold as much as the room itself.
var ErrWaitersFull = errors.New("the requests waiting or being read hold as much as the bound")

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
	if err := r.Hold(held); err != nil {
		return 0, err
	}
	defer r.Release(held)
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

// Hold counts n bytes of a request not yet admitted, such as its body as
// it is read, with those of the requests waiting, and refuses them with
// ErrWaitersFull past the room's size: a body has to be in memory before
// it can be weighed, and many arriving at once would otherwise be
// unbounded. Release gives them back.
func (r *Room) Hold(n int64) error {
	if r == nil || n <= 0 {
		return nil
	}
	if r.waiting.Add(n) > r.size {
		r.waiting.Add(-n)
		return ErrWaitersFull
	}
	return nil
}

// Release gives back bytes Hold counted.
func (r *Room) Release(n int64) {
	if r != nil && n > 0 {
		r.waiting.Add(-n)
	}
}

// Size is the room's bound (the largest int64 for no bound).
func (r *Room) Size() int64 {
	if r == nil {
		return math.MaxInt64
	}
	return r.size
}

// Waiting is what Hold counts now: the bytes of requests not yet admitted.
func (r *Room) Waiting() int64 {
	if r == nil {
		return 0
	}
	return r.waiting.Load()
}

// Leave gives back the room Enter took.
func (r *Room) Leave(taken int64) {
	if r != nil && taken > 0 {
		r.sem.Release(taken)
	}
}

package otlpbudgetextension

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// admission bounds what the requests being decoded and consumed at once
// may take (max_decoded_in_flight). A request enters with its weight, its
// body plus what that decodes to, and waits for room in arrival order, so
// a large request is not starved by small ones. The bodies that wait are
// held in memory too; their sum has the same bound, and a request that
// would exceed it is refused at once.
type admission struct {
	room    *semaphore.Weighted
	limit   int64
	wait    time.Duration
	waiting atomic.Int64
}

// newAdmission returns nil, which admits everything, for limit <= 0.
func newAdmission(limit int64, wait time.Duration) *admission {
	if limit <= 0 {
		return nil
	}
	return &admission{room: semaphore.NewWeighted(limit), limit: limit, wait: wait}
}

// enter takes room for weight, of which held bytes are already in memory
// while the request waits. It returns the room taken, for leave.
func (a *admission) enter(ctx context.Context, weight, held int64) (int64, error) {
	if a == nil {
		return 0, nil
	}
	weight = min(max(weight, 1), a.limit) // one request alone always fits
	if a.room.TryAcquire(weight) {
		return weight, nil
	}
	if a.waiting.Add(held) > a.limit {
		a.waiting.Add(-held)
		return 0, a.busy("the requests waiting hold")
	}
	defer a.waiting.Add(-held)
	ctx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	if a.room.Acquire(ctx, weight) != nil {
		return 0, a.busy(fmt.Sprintf("for %s, the requests being decoded held", a.wait))
	}
	return weight, nil
}

// leave gives back the room enter took.
func (a *admission) leave(taken int64) {
	if a != nil && taken > 0 {
		a.room.Release(taken)
	}
}

func (a *admission) busy(what string) error {
	return fmt.Errorf("%s %d MiB, the most allowed in memory at once (otlp_budget max_decoded_in_flight); retry later", what, a.limit>>20)
}

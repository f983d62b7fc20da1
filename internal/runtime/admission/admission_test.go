package admission

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOffAdmitsEverything(t *testing.T) {
	r := New(0, time.Second)
	assert.Nil(t, r)
	taken, err := r.Enter(context.Background(), 1<<40, 1<<40)
	require.NoError(t, err)
	r.Leave(taken)
}

// TestWaitsForRoom: a request that does not fit waits for room given back,
// and gets it.
func TestWaitsForRoom(t *testing.T) {
	r := New(100, 5*time.Second)
	first, err := r.Enter(context.Background(), 70, 10)
	require.NoError(t, err)
	go func() {
		time.Sleep(50 * time.Millisecond)
		r.Leave(first)
	}()
	second, err := r.Enter(context.Background(), 70, 10)
	require.NoError(t, err, "admitted once the first left")
	assert.Equal(t, int64(70), second)
	assert.Zero(t, r.waiting.Load(), "no longer counted as waiting")
}

func TestTimesOut(t *testing.T) {
	r := New(100, 30*time.Millisecond)
	_, err := r.Enter(context.Background(), 80, 1)
	require.NoError(t, err)
	start := time.Now()
	_, err = r.Enter(context.Background(), 30, 1)
	require.ErrorIs(t, err, ErrTimedOut)
	assert.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond, "after the whole wait")
}

// TestCountsRequests: weight 1 each makes the room a number of requests.
func TestCountsRequests(t *testing.T) {
	r := New(2, 20*time.Millisecond)
	a, err := r.Enter(context.Background(), 1, 0)
	require.NoError(t, err)
	b, err := r.Enter(context.Background(), 1, 0)
	require.NoError(t, err)
	_, err = r.Enter(context.Background(), 1, 0)
	require.ErrorIs(t, err, ErrTimedOut)
	r.Leave(a)
	c, err := r.Enter(context.Background(), 1, 0)
	require.NoError(t, err)
	r.Leave(b)
	r.Leave(c)
}

// TestBoundsWaitingBodies: the bodies of waiting requests are in memory,
// so past the same sum a request is refused without waiting.
func TestBoundsWaitingBodies(t *testing.T) {
	r := New(100, 5*time.Second)
	full, err := r.Enter(context.Background(), 100, 0)
	require.NoError(t, err)
	waited := make(chan error, 1)
	go func() {
		taken, err := r.Enter(context.Background(), 10, 60)
		r.Leave(taken)
		waited <- err
	}()
	require.Eventually(t, func() bool { return r.waiting.Load() == 60 }, 5*time.Second, time.Millisecond)
	start := time.Now()
	_, err = r.Enter(context.Background(), 10, 60)
	require.ErrorIs(t, err, ErrWaitersFull)
	assert.Less(t, time.Since(start), time.Second, "refused at once")
	r.Leave(full)
	require.NoError(t, <-waited)
}

// TestLargerThanTheBound: one request alone always fits, whatever its
// weight, and a sender that leaves stops waiting with its context's error.
func TestLargerThanTheBound(t *testing.T) {
	r := New(100, 5*time.Second)
	taken, err := r.Enter(context.Background(), 1000, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(100), taken)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err = r.Enter(ctx, 1, 1)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)
	r.Leave(taken)
	taken, err = r.Enter(context.Background(), 100, 0)
	require.NoError(t, err, "all the room was given back")
	r.Leave(taken)
}

// TestHoldCountsBodiesBeingRead: bytes held while a body is read count
// with the waiting bodies, so past the bound both are refused at once.
func TestHoldCountsBodiesBeingRead(t *testing.T) {
	r := New(100, 5*time.Second)
	require.NoError(t, r.Hold(60))
	require.ErrorIs(t, r.Hold(50), ErrWaitersFull, "60 read plus 50 more is past 100")
	assert.Equal(t, int64(60), r.Waiting(), "a refused hold is not kept")

	full, err := r.Enter(context.Background(), 100, 0)
	require.NoError(t, err)
	start := time.Now()
	_, err = r.Enter(context.Background(), 10, 50)
	require.ErrorIs(t, err, ErrWaitersFull, "a waiting body counts with the bodies being read")
	assert.Less(t, time.Since(start), time.Second, "refused at once")
	r.Leave(full)

	r.Release(60)
	assert.Zero(t, r.Waiting())
	require.NoError(t, r.Hold(100), "all of it was given back")
	r.Release(100)

	var off *Room
	require.NoError(t, off.Hold(1<<40), "no bound, nothing held")
	assert.Zero(t, off.Waiting())
}

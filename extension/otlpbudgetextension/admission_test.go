package otlpbudgetextension

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdmissionOffAdmitsEverything(t *testing.T) {
	a := newAdmission(0, time.Second)
	assert.Nil(t, a)
	taken, err := a.enter(context.Background(), 1<<40, 1<<40)
	require.NoError(t, err)
	a.leave(taken)
}

// TestAdmissionWaitsForRoom: a request that does not fit waits for room
// given back, and gets it.
func TestAdmissionWaitsForRoom(t *testing.T) {
	a := newAdmission(100, 5*time.Second)
	first, err := a.enter(context.Background(), 70, 10)
	require.NoError(t, err)
	go func() {
		time.Sleep(50 * time.Millisecond)
		a.leave(first)
	}()
	second, err := a.enter(context.Background(), 70, 10)
	require.NoError(t, err, "admitted once the first left")
	assert.Equal(t, int64(70), second)
	assert.Zero(t, a.waiting.Load(), "no longer counted as waiting")
}

func TestAdmissionTimesOut(t *testing.T) {
	a := newAdmission(100<<20, 30*time.Millisecond)
	_, err := a.enter(context.Background(), 80<<20, 1)
	require.NoError(t, err)
	_, err = a.enter(context.Background(), 30<<20, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "for 30ms, the requests being decoded held 100 MiB")
	assert.Contains(t, err.Error(), "max_decoded_in_flight")
}

// TestAdmissionBoundsWaitingBodies: the bodies of waiting requests are in
// memory, so past the same sum a request is refused without waiting.
func TestAdmissionBoundsWaitingBodies(t *testing.T) {
	a := newAdmission(100, 5*time.Second)
	full, err := a.enter(context.Background(), 100, 0)
	require.NoError(t, err)
	waited := make(chan error, 1)
	go func() {
		taken, err := a.enter(context.Background(), 10, 60)
		a.leave(taken)
		waited <- err
	}()
	require.Eventually(t, func() bool { return a.waiting.Load() == 60 }, 5*time.Second, time.Millisecond)
	start := time.Now()
	_, err = a.enter(context.Background(), 10, 60)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the requests waiting hold")
	assert.Less(t, time.Since(start), time.Second, "refused at once")
	a.leave(full)
	require.NoError(t, <-waited)
}

// TestAdmissionLargerThanTheBound: one request alone always fits, whatever
// its weight, and a sender that leaves stops waiting.
func TestAdmissionLargerThanTheBound(t *testing.T) {
	a := newAdmission(100, 5*time.Second)
	taken, err := a.enter(context.Background(), 1000, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(100), taken)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err = a.enter(ctx, 1, 1)
	require.Error(t, err)
	assert.Less(t, time.Since(start), time.Second)
	a.leave(taken)
	taken, err = a.enter(context.Background(), 100, 0)
	require.NoError(t, err, "all the room was given back")
	a.leave(taken)
}

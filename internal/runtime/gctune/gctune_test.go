package gctune

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{live: 32 * mib, floor: 128 * mib, want: 300},  // next cycle at the floor
		{live: 25 * mib, floor: 128 * mib, want: 412},  // rounded down: never past it
		{live: 64 * mib, floor: 128 * mib, want: 100},  // twice the live heap reaches the floor
		{live: 900 * mib, floor: 128 * mib, want: 100}, // a large heap keeps the default pace
		{live: 0, floor: 128 * mib, want: 3200},        // before the first cycle: the runtime's minimum, scaled to the floor
		{live: 1 * mib, floor: 128 * mib, want: 3200},  // tiny: capped the same way
		{live: 1 * mib, floor: 6 * mib, want: 100},     // a floor under twice the minimum changes nothing
	} {
		t.Run(fmt.Sprintf("live %dMiB floor %dMiB", c.live/mib, c.floor/mib), func(t *testing.T) {
			assert.Equal(t, c.want, Percent(c.live, c.floor), "live %d MiB, floor %d MiB", c.live/mib, c.floor/mib)
		})
	}
}

func TestFloor(t *testing.T) {
	const mib, none = 1 << 20, math.MaxUint64
	assert.EqualValues(t, 64*mib, Floor(none, none), "no limit")
	assert.EqualValues(t, 64*mib, Floor(math.MaxInt64, none), "GOMEMLIMIT unset reads as MaxInt64")
	assert.EqualValues(t, 50*mib, Floor(100*mib, none), "half of GOMEMLIMIT")
	assert.EqualValues(t, 64*mib, Floor(4096*mib, none))
	assert.EqualValues(t, 32*mib, Floor(none, 128*mib), "a quarter of the container's limit")
	assert.EqualValues(t, 64*mib, Floor(none, 9223372036854771712), "cgroup v1's 'unlimited'")
	assert.EqualValues(t, 64*mib, Floor(512*mib, 128*mib), "GOMEMLIMIT, when set, is the user's word")
}

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// The tuner follows the live heap from one collection to the next, and
// Stop gives the process its pace back.
func TestTunerFollowsTheLiveHeap(t *testing.T) {
	before := gogc()
	tu := Start(256 << 20)
	defer tu.Stop()

	runtime.GC()
	waitFor(t, func() bool { return gogc() > 400 }, "a small heap under a 256 MiB floor")

	held := make([][]byte, 0, 200)
	for range 200 {
		held = append(held, make([]byte, 1<<20))
	}
	runtime.GC()
	waitFor(t, func() bool { return gogc() == 100 }, "a 200 MiB live heap")
	runtime.KeepAlive(held)

	held = nil //nolint:ineffassign // drops the only reference, so the heap can shrink
	runtime.GC()
	waitFor(t, func() bool { return gogc() > 400 }, "the heap small again")

	tu.Stop()
	assert.Equal(t, before, gogc())
}

// waitFor polls: the tuner runs after a collection, on the runtime's
// cleanup goroutine, not within runtime.GC.
func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	for range 500 {
		if ok() {
			return
		}
		runtime.Gosched()
		runtime.GC()
	}
	t.Fatalf("GOGC is %d after %s", gogc(), what)
}

// Package gctune sets the garbage collector's pace for a process whose
// live heap is small but which allocates fast, as a collector does: every
// request builds pdata that is garbage once exported. With the default
// GOGC=100 and a live heap of some tens of MiB, the collector runs a cycle
// every few dozen requests and spends a large share of the CPU on it. The
// collector project once shipped a "memory ballast" for this; the tuner
// gets the same effect without holding memory: after each cycle it sets
// GOGC so that the next cycle starts at the floor, or at twice the live
// heap once that is larger (the runtime's own default pace).
package gctune

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/otelhouse/otelhouse/internal/runtime/memlimit"
)

// DefaultFloor is the heap size below which a process started with
// FromEnv does not collect.
const DefaultFloor = 64 << 20

// heapMinimum is the runtime's smallest heap goal at GOGC=100; it scales
// with GOGC, so GOGC is capped where that minimum reaches the floor.
const heapMinimum = 4 << 20

// FromEnv starts a tuner with DefaultFloor unless GOGC is set, which says
// the user has chosen a pace. With a memory limit (GOMEMLIMIT), the floor
// is at most half of it; in a container with a memory limit and no
// GOMEMLIMIT, at most a quarter of the container's, so a small container
// does not run out of memory for want of a collection.
func FromEnv() {
	if os.Getenv("GOGC") != "" {
		return
	}
	Start(Floor(uint64(debug.SetMemoryLimit(-1)), memlimit.Container(memlimit.CgroupFiles())))
}

// Floor is DefaultFloor under a Go memory limit and a container's limit
// (each math.MaxInt64 or more when there is none).
func Floor(goLimit, containerLimit uint64) uint64 {
	floor := uint64(DefaultFloor)
	if goLimit < math.MaxInt64 {
		return min(floor, goLimit/2)
	}
	if containerLimit < math.MaxInt64 {
		floor = min(floor, containerLimit/4)
	}
	return floor
}

// Tuner adjusts GOGC after each garbage collection.
type Tuner struct {
	floor uint64
	prev  int // GOGC before Start
	// mu orders an adjustment after a collection with Stop.
	mu      sync.Mutex
	stopped bool
	sample  []metrics.Sample
}

// sentinel is allocated once per cycle; its cleanup runs after the cycle
// that found it unreachable. It holds a pointer so the runtime never
// batches it with other small objects (which would delay the cleanup).
type sentinel struct{ _ *byte }

// Start sets GOGC for the current live heap and keeps it set after every
// garbage collection until Stop.
func Start(floor uint64) *Tuner {
	t := &Tuner{floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.prev = debug.SetGCPercent(t.percent())
	t.arm()
	return t
}

// Stop restores the GOGC the process had before Start.
func (t *Tuner) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.prev)
	}
}

func (t *Tuner) arm() {
	runtime.AddCleanup(&sentinel{}, func(t *Tuner) { t.adjust() }, t)
}

func (t *Tuner) adjust() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	debug.SetGCPercent(t.percent())
	t.arm()
}

// percent is the GOGC that puts the next cycle at the floor, and never
// below the default pace.
func (t *Tuner) percent() int {
	metrics.Read(t.sample)
	return Percent(t.sample[0].Value.Uint64(), t.floor)
}

// Percent is the GOGC for a live heap of live bytes under a floor.
func Percent(live, floor uint64) int {
	if floor <= 2*live || floor < 2*heapMinimum {
		return 100
	}
	most := floor * 100 / heapMinimum
	if live == 0 {
		return int(most)
	}
	return int(min((floor-live)*100/live, most))
}

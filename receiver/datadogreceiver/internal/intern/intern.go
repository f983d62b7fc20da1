// Package intern copies each distinct string of a request once: keys,
// names and tag values repeat across the spans, records and series of a
// payload. A table lives for one request (or one pooled batch, Reset
// between requests), so it grows with the body, never beyond.
package intern

import (
	"encoding/binary"
	"sync"
)

// Table maps the bytes of a string to the one copy handed out.
type Table struct {
	m map[string]string
	// recent is a direct-mapped cache of the strings last handed out: a
	// payload repeats its keys, names and tags, and one comparison
	// answers most lookups without the map's hash. Slots are picked by
	// the length and the first and last eight bytes, mixed, because a
	// payload's strings (hosts, pods, tags) often differ by a digit or two
	// in the middle (BenchmarkTableSeries, docs/performance.md).
	recent [1024]string
	// conv copies bytes into the string handed out (nil: as they are).
	conv func([]byte) string
}

// New returns a table that copies strings as they are.
func New() *Table { return &Table{m: map[string]string{}} }

// NewWith returns a table whose copies are made by conv (for example,
// replacing invalid UTF-8 as Datadog's own decoders do).
func NewWith(conv func([]byte) string) *Table { return &Table{m: map[string]string{}, conv: conv} }

// String returns b as a string, copied on first sight only.
func (t *Table) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	slot := &t.recent[recentSlot(b)]
	if *slot == string(b) { // no copy to compare
		return *slot
	}
	s, ok := t.m[string(b)] // no copy to look up
	if !ok {
		if t.conv == nil {
			s = string(b)
			t.m[s] = s
		} else {
			s = t.conv(b)
			t.m[string(b)] = s
		}
	}
	*slot = s
	return s
}

// recentSlot picks b's slot in recent (b is not empty).
func recentSlot(b []byte) uint {
	n := len(b)
	var x uint64
	if n >= 8 {
		x = binary.LittleEndian.Uint64(b) ^ binary.LittleEndian.Uint64(b[n-8:])*0x9e3779b97f4a7c15
	} else {
		x = uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16
	}
	x = (x ^ uint64(n)) * 0xff51afd7ed558ccd
	return uint(x >> 54) // the top ten bits: 1024 slots
}

// Len is how many distinct strings the table holds.
func (t *Table) Len() int { return len(t.m) }

// keepStrings is the most distinct strings whose room Reset keeps: a
// table that held more drops its map, so that one large body does not pin
// it for the life of the process.
const keepStrings = 1 << 14

// Reset empties the table for another request, keeping the room of a
// usual one.
func (t *Table) Reset() {
	if len(t.m) == 0 {
		return // nothing was handed out, so no slot holds anything
	}
	if len(t.m) > keepStrings {
		t.m = map[string]string{}
	} else {
		clear(t.m)
	}
	clear(t.recent[:])
}

// Pool keeps tables between requests, for decoders made per request: a
// table is 16 KiB of recent slots before its first string.
type Pool struct{ p sync.Pool }

// NewPool returns a pool of tables whose copies are made by conv (nil: as
// they are).
func NewPool(conv func([]byte) string) *Pool {
	return &Pool{p: sync.Pool{New: func() any { return NewWith(conv) }}}
}

// Get returns an empty table.
func (p *Pool) Get() *Table { return p.p.Get().(*Table) }

// Put empties t and keeps it for a later Get; t must not be used after.
func (p *Pool) Put(t *Table) {
	t.Reset()
	p.p.Put(t)
}

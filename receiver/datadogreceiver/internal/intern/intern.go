// Package intern copies each distinct string of a request once: keys,
// names and tag values repeat across the spans, records and series of a
// payload. A table lives for one request (or one pooled batch, Reset
// between requests), so it grows with the body, never beyond.
package intern

// Table maps the bytes of a string to the one copy handed out.
type Table struct {
	m map[string]string
	// recent is a direct-mapped cache of the strings last handed out: a
	// payload repeats a few keys and levels, and one comparison answers
	// most lookups without hashing. A series payload repeats a dozen tags
	// per series: 256 slots, picked by the length and three bytes, kept
	// more of them than 64 picked by two (BenchmarkSeriesV2 −8%).
	recent [256]string
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
	slot := &t.recent[(uint(len(b))*31+uint(b[0])*7+uint(b[len(b)-1])*3+uint(b[len(b)/2])*11)%uint(len(t.recent))]
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

// Len is how many distinct strings the table holds.
func (t *Table) Len() int { return len(t.m) }

// Reset empties the table for another request, keeping its room.
func (t *Table) Reset() {
	clear(t.m)
	clear(t.recent[:])
}

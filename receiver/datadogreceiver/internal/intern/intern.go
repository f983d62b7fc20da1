// Package intern copies each distinct string of a request once: keys,
// names and tag values repeat across the spans and series of a payload.
// A table lives for one request, so it grows with the body, never beyond.
package intern

// Table maps the bytes of a string to the one copy handed out.
type Table map[string]string

// String returns b as a string, copied on first sight only.
func (t Table) String(b []byte) string {
	if s, ok := t[string(b)]; ok { // no copy to look up
		return s
	}
	s := string(b)
	t[s] = s
	return s
}

package logs

// Nested objects as dotted keys. Datadog addresses a log's nested
// attribute by its path (@http.status_code), and its facets, monitors and
// saved views are written that way. Stored as one map under "http", the
// store would keep it as one JSON string that an attribute lookup cannot
// match and a skip index cannot serve; stored as http.status_code, it is
// an attribute like any other.

import (
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
)

// Datadog documents the same bounds for a log: fewer than 256 attributes,
// nested fewer than 10 levels. An object whose flattening would take a
// record past maxFlatKeys attributes stays one map value (stored as its
// JSON text); an object maxFlatDepth levels down stays one map value under
// the dotted key that leads to it. Either way nothing is dropped.
const (
	maxFlatKeys  = 256
	maxFlatDepth = 10
)

// leaves counts the attributes flattening the object at s.pos writes: its
// scalars, arrays and empty objects, and its objects at maxFlatDepth as
// one each. It stops counting past limit (the caller only compares), and
// leaves s anywhere: the caller scans the object again from its start.
func leaves(s *scanner, depth, limit int) int {
	s.pos++ // '{', already validated
	if s.peek() == '}' {
		s.pos++
		return 1 // kept as an empty map
	}
	n := 0
	for s.err == nil && n <= limit && s.peek() == s.quote() {
		s.skipStr()
		if s.peek() != ':' {
			return n
		}
		s.pos++
		if s.kindAt() == kindObject && depth+1 < maxFlatDepth {
			n += leaves(s, depth+1, limit-n)
			// leaves stops after the closing brace only when it counted
			// the whole object; past the limit the count is all we need.
			if n > limit {
				return n
			}
		} else {
			n++
			s.value(depth) // objects and arrays are skipped whole
		}
		if s.peek() != ',' {
			s.pos++
			return n
		}
		s.pos++
	}
	return n
}

// flatten writes the members of the object at s.pos under b.key, the
// dotted path that leads to it, recursively; b.key is restored after
// each member. Values are taken from the budget as build takes them.
func (b *batch) flatten(w *attrmap.Writer, s *scanner, depth int) {
	s.pos++ // '{'
	if s.peek() == '}' {
		s.pos++
		if b.bud.Values(1) {
			w.Put(b.intern(b.key)).SetEmptyMap()
		} else {
			s.fail("over budget")
		}
		return
	}
	for s.err == nil && s.peek() == s.quote() {
		key := s.str()
		if s.peek() != ':' {
			s.fail("expected ':'")
			return
		}
		s.pos++
		mark := len(b.key)
		b.key = append(append(b.key, '.'), key...)
		if s.kindAt() == kindObject && depth+1 < maxFlatDepth {
			b.flatten(w, s, depth+1)
		} else {
			b.build(w.Put(b.intern(b.key)), s)
		}
		b.key = b.key[:mark]
		if s.peek() != ',' {
			s.pos++
			return
		}
		s.pos++
	}
}

// putObject writes the object attribute a, the record having n
// attributes besides it: flattened to dotted keys when that keeps the
// record within maxFlatKeys, else as one map. It returns the number of
// attributes written.
func (b *batch) putObject(w *attrmap.Writer, a *attr, n int) int {
	limit := maxFlatKeys - n
	s := scanner{buf: a.raw, tmp: &b.tmp, esc: a.esc}
	count := 0
	if limit > 0 {
		count = leaves(&s, 1, limit)
	}
	if count == 0 || count > limit || s.err != nil {
		b.setValue(w.Put(a.key), a.kind, a.raw, a.esc)
		return 1
	}
	s = scanner{buf: a.raw, tmp: &b.tmp, esc: a.esc}
	b.key = append(b.key[:0], a.key...)
	b.flatten(w, &s, 1)
	return count
}

package logs

// Field values as OpenTelemetry values: text, numbers, nested objects and
// arrays, timestamps in any of the units senders use.

import (
	"math"
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
)

var (
	litTrue, litFalse, litNull = []byte("true"), []byte("false"), []byte("null")
	syslogLevels               = [...][]byte{[]byte("0"), []byte("1"), []byte("2"), []byte("3"), []byte("4"), []byte("5"), []byte("6"), []byte("7")}
)

// scalar is a string, number or bool as text (nil for anything else).
func scalar(f *field) []byte {
	switch f.kind {
	case kindString, kindNumber:
		return f.raw
	case kindTrue:
		return litTrue
	case kindFalse:
		return litFalse
	}
	return nil
}

// statusText is a status as text; numbers count only as syslog levels 0–7.
func statusText(f *field) []byte {
	if f.kind == kindNumber {
		if v := float(f.raw); v >= 0 && v <= 7 && v == float64(int(v)) {
			return syslogLevels[int(v)]
		}
		return nil
	}
	return scalar(f)
}

// idBytes is the text of an id, string or number.
func idBytes(f *field) []byte {
	if f.kind == kindString || f.kind == kindNumber {
		return f.raw
	}
	return nil
}

// text is the message of a non-string "message": its JSON text.
func (b *batch) text(f *field) []byte {
	switch f.kind {
	case kindTrue:
		return litTrue
	case kindFalse:
		return litFalse
	case kindNull:
		return litNull
	}
	if f.esc {
		return b.unquote(f.raw)
	}
	return f.raw
}

// unquote unescapes text read in esc mode into tmp.
func (b *batch) unquote(text []byte) []byte {
	mark := len(b.tmp)
	b.tmp = unquote(b.tmp, text)
	return b.tmp[mark:]
}

// parseTimestamp reads epoch numbers (s, ms, µs or ns, told apart by
// magnitude) and RFC 3339 strings.
func parseTimestamp(f *field) (pcommon.Timestamp, bool) {
	var v float64
	switch f.kind {
	case kindNumber:
		v = float(f.raw)
	case kindString:
		if n, err := strconv.ParseFloat(view(f.raw), 64); err == nil {
			v = n
			break
		}
		t, err := time.Parse(time.RFC3339Nano, view(f.raw))
		if err != nil || !Storable(t) {
			return 0, false
		}
		return pcommon.NewTimestampFromTime(t), true
	default:
		return 0, false
	}
	var ns float64
	switch {
	case v <= 0 || math.IsNaN(v):
		return 0, false
	case v >= 1e17:
		ns = v
	case v >= 1e14:
		ns = v * 1e3
	case v >= 1e11:
		ns = v * 1e6
	default:
		ns = v * 1e9
	}
	// A time the store cannot hold (1e300, or past 2262 in any unit) is no
	// timestamp: converted, it wrapped to a time in 1677 or 1970. The field
	// stays an attribute and the record takes the receive time.
	if ns >= maxStorableNS {
		return 0, false
	}
	if v >= 1e11 && v < 1e14 {
		// Datadog's own unit, milliseconds: whole ones, exactly.
		return pcommon.Timestamp(int64(v) * 1e6), true
	}
	return pcommon.Timestamp(ns), true
}

// maxStorableNS is 2^63 ns after 1970 (2262-04-11): the tables store
// DateTime64(9), nanoseconds in an Int64, and pdata's unsigned times past
// it wrap to negative there.
const maxStorableNS = float64(1 << 63)

// Storable tells whether t fits the store's DateTime64(9): from 1970
// (pdata holds no earlier time) to 2262-04-11.
func Storable(t time.Time) bool {
	return !t.Before(time.Unix(0, 0)) && !t.After(time.Unix(0, math.MaxInt64))
}

// setValue stores a JSON value with its type: integers as Int, other
// numbers as Double, objects as Map, arrays as Slice, null as empty.
func (b *batch) setValue(dst pcommon.Value, k kind, raw []byte, esc bool) {
	switch k {
	case kindString:
		dst.SetStr(b.strs.string(raw))
	case kindNumber:
		setNumber(dst, raw)
	case kindTrue:
		dst.SetBool(true)
	case kindFalse:
		dst.SetBool(false)
	case kindObject, kindArray:
		s := scanner{buf: raw, tmp: &b.tmp, esc: esc}
		b.build(dst, &s)
	}
}

// build stores the (already validated) value at s.pos, recursively, each
// nested value taken from the budget.
func (b *batch) build(dst pcommon.Value, s *scanner) {
	if !b.bud.Values(1) {
		s.fail("over budget")
		return
	}
	switch k := s.kindAt(); k {
	case kindObject:
		w := attrmap.NewWriter(dst.SetEmptyMap())
		defer w.Flush()
		s.pos++
		if s.peek() == '}' {
			s.pos++
			return
		}
		for s.err == nil && s.peek() == s.quote() {
			key := s.str()
			if s.peek() != ':' {
				s.fail("expected ':'")
				return
			}
			s.pos++
			b.build(w.Put(b.intern(key)), s)
			if s.peek() != ',' {
				s.pos++
				return
			}
			s.pos++
		}
	case kindArray:
		sl := dst.SetEmptySlice()
		s.array(func(int) { b.build(sl.AppendEmpty(), s) })
	default:
		_, raw := s.value(maxDepth)
		b.setValue(dst, k, raw, s.esc)
	}
}

// setNumber keeps whole numbers as Int (within int64, or when the value is
// exact in a float64) and the rest as Double.
func setNumber(dst pcommon.Value, num []byte) {
	if i, ok := smallInt(num, 18); ok {
		dst.SetInt(i)
		return
	}
	if isInt(num) {
		if i, err := strconv.ParseInt(view(num), 10, 64); err == nil {
			dst.SetInt(i)
			return
		}
		dst.SetDouble(float(num))
		return
	}
	f := float(num)
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		dst.SetInt(int64(f))
		return
	}
	dst.SetDouble(f)
}

func first(vs ...[]byte) []byte {
	for _, v := range vs {
		if len(v) > 0 {
			return v
		}
	}
	return nil
}

package logs

import (
	"encoding/binary"
	"encoding/hex"
	"math/bits"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// parseTraceID reads a trace id as loggers inject it: decimal (the lower 64
// bits, or a full 128-bit number) or hex (16 or 32 digits). high, if not
// empty, is the hex upper half carried separately (`_dd.p.tid`).
func parseTraceID(s, high []byte) (pcommon.TraceID, bool) {
	var id pcommon.TraceID
	var hi, lo uint64
	switch {
	case len(s) == 0:
		return id, false
	case isDecimal(s):
		var ok bool
		if hi, lo, ok = parseDecimal128(s); !ok {
			return id, false
		}
	case len(s) == 32:
		if _, err := hex.Decode(id[:], s); err != nil {
			return pcommon.TraceID{}, false
		}
		return id, !id.IsEmpty()
	case len(s) <= 16:
		v, ok := parseHex64(s)
		if !ok {
			return id, false
		}
		lo = v
	default:
		return id, false
	}
	if hi == 0 && len(high) > 0 && len(high) <= 16 {
		hi, _ = parseHex64(high)
	}
	binary.BigEndian.PutUint64(id[:8], hi)
	binary.BigEndian.PutUint64(id[8:], lo)
	return id, !id.IsEmpty()
}

// parseSpanID reads a span id in decimal or (16-digit) hex.
func parseSpanID(s []byte) (pcommon.SpanID, bool) {
	var id pcommon.SpanID
	var v uint64
	ok := false
	if isDecimal(s) {
		var hi uint64
		hi, v, ok = parseDecimal128(s)
		ok = ok && hi == 0
	} else if len(s) <= 16 {
		v, ok = parseHex64(s)
	}
	if !ok || v == 0 {
		return id, false
	}
	binary.BigEndian.PutUint64(id[:], v)
	return id, true
}

func isDecimal(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

func parseHex64(s []byte) (uint64, bool) {
	if len(s) == 0 || len(s) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(c)
	}
	return v, true
}

// parseDecimal128 parses an unsigned decimal of up to 128 bits.
func parseDecimal128(s []byte) (hi, lo uint64, ok bool) {
	if v, ok := decimal(s, 19); ok {
		return 0, v, true
	}
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		// (hi,lo) = (hi,lo)*10 + d, failing on overflow.
		h1, l1 := bits.Mul64(lo, 10)
		h2, h := bits.Mul64(hi, 10)
		if h2 != 0 {
			return 0, 0, false
		}
		var c uint64
		h, c = bits.Add64(h, h1, 0)
		if c != 0 {
			return 0, 0, false
		}
		l1, c = bits.Add64(l1, d, 0)
		h, c2 := bits.Add64(h, 0, c)
		if c2 != 0 {
			return 0, 0, false
		}
		hi, lo = h, l1
	}
	return hi, lo, true
}

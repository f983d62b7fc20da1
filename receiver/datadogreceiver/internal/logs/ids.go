package logs

import (
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// parseTraceID reads a trace id as loggers inject it: decimal (the lower 64
// bits, or a full 128-bit number) or hex (16 or 32 digits). high, if not
// empty, is the hex upper half carried separately (`_dd.p.tid`).
func parseTraceID(s, high string) (pcommon.TraceID, bool) {
	var id pcommon.TraceID
	var hi, lo uint64
	switch {
	case s == "":
		return id, false
	case isDecimal(s):
		var ok bool
		if hi, lo, ok = parseDecimal128(s); !ok {
			return id, false
		}
	case len(s) == 32:
		if _, err := hex.Decode(id[:], []byte(s)); err != nil {
			return pcommon.TraceID{}, false
		}
		return id, !id.IsEmpty()
	case len(s) <= 16:
		v, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			return id, false
		}
		lo = v
	default:
		return id, false
	}
	if hi == 0 && high != "" {
		hi, _ = strconv.ParseUint(high, 16, 64)
	}
	binary.BigEndian.PutUint64(id[:8], hi)
	binary.BigEndian.PutUint64(id[8:], lo)
	return id, !id.IsEmpty()
}

// parseSpanID reads a span id in decimal or (16-digit) hex.
func parseSpanID(s string) (pcommon.SpanID, bool) {
	var id pcommon.SpanID
	var v uint64
	var err error
	if isDecimal(s) {
		v, err = strconv.ParseUint(s, 10, 64)
	} else if len(s) <= 16 {
		v, err = strconv.ParseUint(s, 16, 64)
	} else {
		return id, false
	}
	if err != nil || v == 0 {
		return id, false
	}
	binary.BigEndian.PutUint64(id[:], v)
	return id, true
}

func isDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseDecimal128 parses an unsigned decimal of up to 128 bits.
func parseDecimal128(s string) (hi, lo uint64, ok bool) {
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

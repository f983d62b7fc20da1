package logs

// Numbers: validated as JSON, and the short decimals and integers logs
// carry parsed without strconv's allocations.

import (
	"bytes"
	"strconv"
)

func (s *scanner) number() []byte {
	b, start := s.buf, s.pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		s.fail("invalid number")
		return nil
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(b, i+1); i < 0 {
			s.fail("invalid number")
			return nil
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(b, i); i < 0 {
			s.fail("invalid number")
			return nil
		}
	}
	s.pos = i
	return b[start:i]
}

// digits steps over one or more digits from i; -1 if there is none.
func digits(b []byte, i int) int {
	d := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == d {
		return -1
	}
	return i
}

// isInt reports whether a JSON number's text has no fraction or exponent.
func isInt(num []byte) bool {
	for _, c := range num {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// float converts a JSON number's text; out-of-range values become ±Inf
// (or 0), as strconv returns them.
func float(num []byte) float64 {
	// Integers of up to 15 digits are exact in a float64, and far cheaper
	// to read by hand: timestamps and statuses are.
	if i, ok := smallInt(num, 15); ok && (i != 0 || num[0] != '-') {
		return float64(i)
	}
	// So are short decimals (latencies, epoch seconds with milliseconds):
	// digits and scale both exact, one division rounds correctly, as
	// strconv's own exact path does.
	if m, scale, ok := shortDecimal(num); ok {
		return m / pow10[scale]
	}
	f, _ := strconv.ParseFloat(view(num), 64)
	return f
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// shortDecimal reads [-]digits.digits of at most 15 digits in all as their
// integer value and the count of digits after the point.
func shortDecimal(num []byte) (float64, int, bool) {
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	dot := bytes.IndexByte(num, '.')
	if dot < 0 || len(num)-1 > 15 {
		return 0, 0, false
	}
	whole, ok := decimal(num[:dot], 15)
	frac, ok2 := decimal(num[dot+1:], 15)
	if !ok || !ok2 {
		return 0, 0, false
	}
	scale := len(num) - dot - 1
	m := float64(whole*uint64(pow10[scale]) + frac) // < 10^15: exact
	if neg {
		m = -m
	}
	return m, scale, true
}

// smallInt reads a JSON integer of at most maxDigits (≤ 18) digits.
func smallInt(num []byte, maxDigits int) (int64, bool) {
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	v, ok := decimal(num, maxDigits)
	if neg {
		return -int64(v), ok
	}
	return int64(v), ok
}

// decimal reads 1 to maxDigits (≤ 19) decimal digits.
func decimal(s []byte, maxDigits int) (uint64, bool) {
	if len(s) == 0 || len(s) > maxDigits {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

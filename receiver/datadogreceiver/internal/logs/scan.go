package logs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The logs path reads each field of a record once and copies only what the
// record keeps. A tree parser (fastjson) allocates a node per value and
// walks the tree a second time, which was most of the cost per record; this
// scanner reads one object's fields into a reusable list instead. Nested
// objects and arrays are validated and kept as text, decoded again only if
// they become attributes.

type kind uint8

const (
	kindString kind = iota + 1
	kindNumber
	kindTrue
	kindFalse
	kindNull
	kindObject
	kindArray
)

var kindNames = [...]string{kindString: "string", kindNumber: "number", kindTrue: "true", kindFalse: "false",
	kindNull: "null", kindObject: "object", kindArray: "array"}

func (k kind) String() string { return kindNames[k] }

// maxDepth bounds nesting, so a hostile body cannot recurse without limit.
const maxDepth = 128

// field is one member of an object: a string's unescaped content, a
// number's text, or an object's or array's whole text.
type field struct {
	key  []byte
	kind kind
	// esc: raw is text read in place from inside a string, its quotes
	// still written \" (see scanner.esc).
	esc bool
	// lifted: raw is a "message" string read as the JSON object it
	// holds, still escaped; the object's members are in the scanner's lift.
	lifted bool
	raw    []byte
}

// scanner reads JSON text. The first error sticks: every later call returns
// zero values, so loops end without checking at each step.
type scanner struct {
	buf []byte
	pos int
	err error
	// tmp receives unescaped strings; scanners of one record share it. It
	// only grows until its owner resets it, so every slice handed out stays
	// valid until then.
	tmp *[]byte
	// esc: buf is JSON text inside a JSON string, read without unescaping
	// it first: its quotes are written \" and it may hold no other escape
	// (the scanner fails on one, and its caller unescapes and reads again).
	esc bool
	// lift, when set, receives the members of an object's first "message"
	// string that holds a JSON object, read in place (see liftMessage).
	lift *[]field
}

// errEscape fails a scanner in esc mode on what only unescaping can read.
var errEscape = errors.New("escape inside escaped JSON")

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%s at offset %d", fmt.Sprintf(format, args...), s.pos)
	}
}

func (s *scanner) ws() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek skips blanks and returns the next byte (0 at the end or after an
// error).
func (s *scanner) peek() byte {
	// Agents send no blanks between tokens: one test usually answers.
	if s.pos < len(s.buf) && s.buf[s.pos] > ' ' && s.err == nil {
		return s.buf[s.pos]
	}
	return s.peekBlank()
}

func (s *scanner) peekBlank() byte {
	s.ws()
	if s.err != nil || s.pos >= len(s.buf) {
		return 0
	}
	return s.buf[s.pos]
}

// quote is the byte that opens a string: '"', or in esc mode the
// backslash of \" (str checks the quote that follows it).
func (s *scanner) quote() byte {
	if s.esc {
		return '\\'
	}
	return '"'
}

// atEnd reports whether only blanks are left.
func (s *scanner) atEnd() bool {
	s.ws()
	return s.err == nil && s.pos == len(s.buf)
}

// kindAt names the value starting at the next byte.
func (s *scanner) kindAt() kind {
	switch c := s.peek(); {
	case c == s.quote():
		return kindString
	case c == '{':
		return kindObject
	case c == '[':
		return kindArray
	case c == 't':
		return kindTrue
	case c == 'f':
		return kindFalse
	case c == 'n':
		return kindNull
	case c == '-' || c >= '0' && c <= '9':
		return kindNumber
	}
	return 0
}

// object reads the object at pos and appends its members to dst.
func (s *scanner) object(dst []field) []field {
	if s.peek() != '{' {
		s.fail("expected an object")
		return dst
	}
	s.pos++
	if s.peek() == '}' {
		s.pos++
		return dst
	}
	tried := false // only the first "message": lift holds one object
	for s.err == nil {
		if s.peek() != s.quote() {
			s.fail("expected a member name")
			break
		}
		key := s.str()
		if s.peek() != ':' {
			s.fail("expected ':' after a member name")
			break
		}
		s.pos++
		if s.lift != nil && !tried && string(key) == "message" {
			tried = true
			if raw, ok := s.liftMessage(); ok {
				dst = append(dst, field{key: key, kind: kindString, lifted: true, raw: raw})
				if s.next() {
					continue
				}
				return dst
			}
		}
		k, raw := s.value(1)
		dst = append(dst, field{key: key, kind: k, esc: s.esc, raw: raw})
		if !s.next() {
			return dst
		}
	}
	return dst
}

// next steps over the comma after an object's member and reports whether
// another follows; false at the closing brace or an error.
func (s *scanner) next() bool {
	switch s.peek() {
	case ',':
		s.pos++
		return true
	case '}':
		s.pos++
		return false
	}
	s.fail("expected ',' or '}' in an object")
	return false
}

// array calls fn for each element of the array at pos, positioned at the
// element; fn must consume it.
func (s *scanner) array(fn func(i int)) {
	if s.peek() != '[' {
		s.fail("expected an array")
		return
	}
	s.pos++
	if s.peek() == ']' {
		s.pos++
		return
	}
	for i := 0; s.err == nil; i++ {
		fn(i)
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return
		default:
			s.fail("expected ',' or ']' in an array")
		}
	}
}

// value reads any value; objects and arrays are validated and returned as
// text.
func (s *scanner) value(depth int) (kind, []byte) {
	k := s.kindAt()
	switch k {
	case kindString:
		return k, s.str()
	case kindNumber:
		return k, s.number()
	case kindTrue:
		s.literal("true")
	case kindFalse:
		s.literal("false")
	case kindNull:
		s.literal("null")
	case kindObject, kindArray:
		start := s.pos
		s.skip(depth)
		return k, s.buf[start:s.pos]
	default:
		if s.pos >= len(s.buf) {
			s.fail("unexpected end of JSON")
		} else {
			s.fail("unexpected character %q", s.buf[s.pos])
		}
	}
	return k, nil
}

func (s *scanner) literal(lit string) {
	if !bytes.HasPrefix(s.buf[s.pos:], []byte(lit)) {
		s.fail("invalid literal, expected %s", lit)
		return
	}
	s.pos += len(lit)
}

// skip validates and steps over an object or array.
func (s *scanner) skip(depth int) {
	if depth > maxDepth {
		s.fail("JSON nested deeper than %d levels", maxDepth)
		return
	}
	close := byte('}')
	if s.buf[s.pos] == '[' {
		close = ']'
	}
	s.pos++
	if s.peek() == close {
		s.pos++
		return
	}
	for s.err == nil {
		if close == '}' {
			if s.peek() != s.quote() {
				s.fail("expected a member name")
				return
			}
			s.skipStr()
			if s.peek() != ':' {
				s.fail("expected ':' after a member name")
				return
			}
			s.pos++
		}
		switch s.kindAt() {
		case kindString:
			s.skipStr()
		case kindObject, kindArray:
			s.skip(depth + 1)
		default:
			s.value(depth + 1)
		}
		switch c := s.peek(); c {
		case ',':
			s.pos++
		case close:
			s.pos++
			return
		default:
			s.fail("expected ',' or '%c'", close)
		}
	}
}

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

// str reads the string at pos and returns its content: a slice of the
// input when it has no escapes, else of tmp.
func (s *scanner) str() []byte {
	if s.esc {
		return s.escStr()
	}
	start := s.pos + 1
	j := special(s.buf, start)
	if j < len(s.buf) && s.buf[j] == '"' {
		s.pos = j + 1
		return s.buf[start:j]
	}
	return s.unescape(start, j)
}

// unescape decodes the string that starts at start and has its first
// escape (or its end) at j.
func (s *scanner) unescape(start, j int) []byte {
	b, t := s.buf, *s.tmp
	mark := len(t)
	defer func() { *s.tmp = t }()
	i := start
	for {
		t = append(t, b[i:j]...)
		if j >= len(b) {
			s.pos = j
			s.fail("unterminated string")
			return nil
		}
		if b[j] == '"' {
			s.pos = j + 1
			return t[mark:]
		}
		if j+1 >= len(b) {
			s.pos = j
			s.fail("unterminated string")
			return nil
		}
		i = j + 2
		switch b[j+1] {
		case '"', '\\', '/':
			t = append(t, b[j+1])
		case 'b':
			t = append(t, '\b')
		case 'f':
			t = append(t, '\f')
		case 'n':
			t = append(t, '\n')
		case 'r':
			t = append(t, '\r')
		case 't':
			t = append(t, '\t')
		case 'u':
			r, ok := hex4(b, j+2)
			if !ok {
				s.pos = j
				s.fail("invalid \\u escape")
				return nil
			}
			i = j + 6
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; a lone half is replaced, as
				// encoding/json does.
				r2, ok := rune(0), false
				if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
					r2, ok = hex4(b, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			t = utf8.AppendRune(t, r)
		default:
			s.pos = j
			s.fail("invalid escape \\%c", b[j+1])
			return nil
		}
		j = special(b, i)
	}
}

const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = '"' * ones
	slashs = '\\' * ones
)

// special returns the index of the first '"' or '\\' at or after i, or
// len(b). It tests eight bytes per step: strings are most of a log
// payload, and one pass beats searching for each byte separately.
func special(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, e := x^quotes, x^slashs
		// A zero byte in q or e is a match; the lowest flagged byte is
		// exact (borrows only flag bytes above a real zero).
		if m := ((q-ones)&^q | (e-ones)&^e) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return i
}

// skipStr validates the string at pos and steps over it.
func (s *scanner) skipStr() {
	if s.esc {
		s.escStr()
		return
	}
	b := s.buf
	j := special(b, s.pos+1)
	for {
		if j < len(b) && b[j] == '"' {
			s.pos = j + 1
			return
		}
		if j+1 >= len(b) {
			s.pos = j
			s.fail("unterminated string")
			return
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j = special(b, j+2)
		case 'u':
			if _, ok := hex4(b, j+2); !ok {
				s.pos = j
				s.fail("invalid \\u escape")
				return
			}
			j = special(b, j+6)
		default:
			s.pos = j
			s.fail("invalid escape \\%c", b[j+1])
			return
		}
	}
}

// escStr reads a string in esc mode, from its \" to the next: the content
// in between, which may hold no escape of its own.
func (s *scanner) escStr() []byte {
	start := s.pos + 2
	if start <= len(s.buf) && s.buf[start-1] == '"' {
		j := special(s.buf, start)
		if j+1 < len(s.buf) && s.buf[j] == '\\' && s.buf[j+1] == '"' {
			s.pos = j + 2
			return s.buf[start:j]
		}
	}
	if s.err == nil {
		s.err = errEscape
	}
	return nil
}

// liftMessage reads the string value at pos, when it holds a JSON object,
// as that object, in place: its members go to lift and it returns the
// object's text, still escaped. A log agent's JSON message escapes every
// quote it holds, so unescaping it and then reading the copy, as
// decodeJSONMessage does, stops at each of them twice. It reports false,
// having stepped over blanks at most, when the string is not exactly such
// an object.
func (s *scanner) liftMessage() ([]byte, bool) {
	if s.esc || s.peek() != '"' || s.pos+1 >= len(s.buf) || s.buf[s.pos+1] != '{' {
		return nil, false
	}
	in := scanner{buf: s.buf, pos: s.pos + 1, tmp: s.tmp, esc: true}
	*s.lift = in.object((*s.lift)[:0])
	in.ws()
	if in.err != nil || in.pos >= len(s.buf) || s.buf[in.pos] != '"' {
		return nil, false
	}
	raw := s.buf[s.pos+1 : in.pos]
	s.pos = in.pos + 1
	return raw, true
}

// unquote is text read in esc mode, unescaped: its only escapes are \".
func unquote(dst, text []byte) []byte {
	for {
		i := bytes.IndexByte(text, '\\')
		if i < 0 {
			return append(dst, text...)
		}
		dst = append(append(dst, text[:i]...), '"')
		text = text[i+2:]
	}
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, ok := parseHex64(b[i : i+4])
	return rune(v), ok
}

// view is b as a string for a call that does not keep it.
func view(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
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

// smallInt reads a JSON integer of at most max (≤ 18) digits.
func smallInt(num []byte, max int) (int64, bool) {
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	v, ok := decimal(num, max)
	if neg {
		return -int64(v), ok
	}
	return int64(v), ok
}

// decimal reads 1 to max (≤ 19) decimal digits.
func decimal(s []byte, max int) (uint64, bool) {
	if len(s) == 0 || len(s) > max {
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

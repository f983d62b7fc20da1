package logs

import (
	"bytes"
	"errors"
	"fmt"
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

var kindNames = [...]string{
	kindString: "string", kindNumber: "number", kindTrue: "true", kindFalse: "false",
	kindNull: "null", kindObject: "object", kindArray: "array",
}

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
	closing := byte('}')
	if s.buf[s.pos] == '[' {
		closing = ']'
	}
	s.pos++
	if s.peek() == closing {
		s.pos++
		return
	}
	for s.err == nil {
		if closing == '}' {
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
		case closing:
			s.pos++
			return
		default:
			s.fail("expected ',' or '%c'", closing)
		}
	}
}

// view is b as a string for a call that does not keep it.
func view(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b)) //nolint:gosec // a lookup key only, dropped before b changes
}

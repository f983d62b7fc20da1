package logs

// Strings: located in the body without a copy, unescaped only when they
// hold escapes; a message that is itself JSON is lifted out of its quotes.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

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

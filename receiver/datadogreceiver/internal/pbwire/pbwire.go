// Package pbwire reads protobuf messages field by field, by the rules of
// the decoders that gogo/protobuf and vtprotobuf generate (Datadog's
// payload types use both), so that a decoder built on it accepts exactly
// the bodies those accept: a varint may run to ten bytes with the excess
// dropped, a known field of the wrong wire type is an error, unknown
// fields are skipped (groups included), and a map entry reads its key and
// value within the enclosing message. Decoders that translate Datadog
// payloads straight into pdata use it in place of the generated structs.
package pbwire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/planetscale/vtprotobuf/protohelpers"
)

// Varint reads the varint at b[i:] and returns it and where it ends.
func Varint(b []byte, i int) (uint64, int, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, i, protohelpers.ErrIntOverflow
		}
		if i >= len(b) {
			return 0, i, io.ErrUnexpectedEOF
		}
		c := b[i]
		i++
		v |= uint64(c&0x7F) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
}

// Tag reads a field's key: its number and wire type.
func Tag(b []byte, i int) (num int32, typ int, next int, err error) {
	// A key of one byte (fields 1 to 15) needs no varint loop.
	if i < len(b) {
		if c := b[i]; c < 0x80 && c>>3 != 0 && c&7 != 4 {
			return int32(c >> 3), int(c & 7), i + 1, nil
		}
	}
	w, next, err := Varint(b, i)
	if err != nil {
		return 0, 0, next, err
	}
	num, typ = int32(w>>3), int(w&7)
	switch {
	case typ == 4:
		err = errors.New("wiretype end group for non-group")
	case num <= 0:
		err = fmt.Errorf("illegal tag %d (wire type %d)", num, typ)
	}
	return num, typ, next, err
}

// Field checks that a known field is length-delimited and returns its
// value and where it ends.
func Field(b []byte, i, typ int, num int32) ([]byte, int, error) {
	if typ != 2 {
		return nil, i, wrongType(typ, num)
	}
	s, e, err := Len(b, i)
	if err != nil {
		return nil, i, err
	}
	return b[s:e], e, nil
}

// wrongType is the generated decoders' error for a known field read with
// another wire type than its own.
func wrongType(typ int, num int32) error {
	return fmt.Errorf("wrong wireType = %d for field %d", typ, num)
}

// Len reads a length prefix and returns the bounds of the value it heads.
func Len(b []byte, i int) (start, end int, err error) {
	// Nor does a length of one byte.
	if i < len(b) && b[i] < 0x80 && i+1+int(b[i]) <= len(b) {
		return i + 1, i + 1 + int(b[i]), nil
	}
	n, i, err := Varint(b, i)
	if err != nil {
		return 0, 0, err
	}
	l := int(n)
	if l < 0 || i+l < 0 {
		return 0, 0, protohelpers.ErrInvalidLength
	}
	if i+l > len(b) {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return i, i + l, nil
}

// VarintField checks that a known field is a varint and reads it.
func VarintField(b []byte, i, typ int, num int32) (uint64, int, error) {
	if typ != 0 {
		return 0, i, wrongType(typ, num)
	}
	return Varint(b, i)
}

// Fixed64 checks that a known field is a fixed64 and reads its bits.
func Fixed64(b []byte, i, typ int, num int32) (uint64, int, error) {
	if typ != 1 {
		return 0, i, wrongType(typ, num)
	}
	if i+8 > len(b) {
		return 0, i, io.ErrUnexpectedEOF
	}
	return binary.LittleEndian.Uint64(b[i:]), i + 8, nil
}

// Fields calls field for each field of message b with its number, wire
// type and where its value starts; field returns where the next field
// starts. Unknown fields are skipped here, where field returns skip.
func Fields(b []byte, field func(num int32, typ, i int) (int, error)) error {
	for i := 0; i < len(b); {
		num, typ, next, err := Tag(b, i)
		if err != nil {
			return err
		}
		if next, err = field(num, typ, next); err == ErrSkip { //nolint:errorlint // field returns ErrSkip bare; == keeps a field's cost
			next, err = Skip(b, i)
		}
		if err != nil {
			return err
		}
		i = next
	}
	return nil
}

// ErrSkip tells Fields that a field is not one its caller reads.
var ErrSkip = errors.New("unknown field")

// Skip steps over the unknown field whose key starts at pre.
func Skip(b []byte, pre int) (int, error) {
	n, err := protohelpers.Skip(b[pre:])
	if err != nil {
		return pre, err
	}
	if n < 0 || pre+n < 0 {
		return pre, protohelpers.ErrInvalidLength
	}
	if pre+n > len(b) {
		return pre, io.ErrUnexpectedEOF
	}
	return pre + n, nil
}

// MapEntry reads the map entry at i and hands fn (if any) its key and
// value: bytes, or with fixed the bits of a fixed64. An entry may leave out
// either; the last of each wins.
func MapEntry(b []byte, i, typ int, num int32, fixed bool, fn func(k, v []byte, bits uint64)) (int, error) {
	v, end, err := Field(b, i, typ, num)
	if err != nil {
		return i, err
	}
	start := end - len(v) // reads go on within b, not v
	var key, val []byte
	var bits uint64
	for i = start; i < end; {
		pre := i
		w, next, err := Varint(b, i)
		if err != nil {
			return i, err
		}
		i = next
		switch int32(w >> 3) {
		case 1:
			var s, e int
			if s, e, err = Len(b, i); err != nil {
				return i, err
			}
			key, i = b[s:e], e
		case 2:
			if fixed {
				if i+8 > len(b) {
					return i, io.ErrUnexpectedEOF
				}
				bits, i = binary.LittleEndian.Uint64(b[i:]), i+8
				break
			}
			var s, e int
			if s, e, err = Len(b, i); err != nil {
				return i, err
			}
			val, i = b[s:e], e
		default:
			n, err := protohelpers.Skip(b[pre:])
			if err != nil {
				return i, err
			}
			if n < 0 || pre+n < 0 {
				return i, protohelpers.ErrInvalidLength
			}
			if pre+n > end {
				return i, io.ErrUnexpectedEOF
			}
			i = pre + n
		}
	}
	if fn != nil {
		fn(key, val, bits)
	}
	return end, nil
}

// Reader reads a message's fields in order, by the rules Fields follows,
// for loops that read every field of every item without a callback: a
// call through a closure for each of a series' twenty-odd fields was a
// tenth of the wire's cost. The zero value reads an empty message.
//
//	for r := pbwire.NewReader(b); r.Next(); {
//		switch r.Num {
//		case 1:
//			name = string(r.Bytes())
//		default:
//			r.Skip()
//		}
//	}
//	return r.Err()
type Reader struct {
	b []byte
	// at is where the current field's key starts; next where its value
	// starts, then, once it is read, where the next field starts.
	at, next int
	// Num and Typ are the current field's number and wire type.
	Num int32
	Typ int
	err error
}

// NewReader returns a Reader of message b.
func NewReader(b []byte) Reader { return Reader{b: b} }

// Next reads the next field's key: false at the message's end or once
// reading failed. Each field must be read or skipped before the next.
func (r *Reader) Next() bool {
	i := r.next
	if r.err != nil || i >= len(r.b) {
		return false
	}
	r.at = i
	// A valid key of one byte is read here, the rest by Tag: this much
	// is small enough for the profile-guided build to inline into the
	// decoders' loops.
	if c := r.b[i]; c < 0x80 && c>>3 != 0 && c&7 != 4 {
		r.Num, r.Typ, r.next = int32(c>>3), int(c&7), i+1
		return true
	}
	r.Num, r.Typ, r.next, r.err = Tag(r.b, i)
	return r.err == nil
}

// Bytes reads the current field, which must be length-delimited.
func (r *Reader) Bytes() []byte {
	// A length of one byte, within the message, is read here (see Next).
	if i := r.next; r.Typ == 2 && i < len(r.b) {
		if e := i + 1 + int(r.b[i]); r.b[i] < 0x80 && e <= len(r.b) {
			r.next = e
			return r.b[i+1 : e]
		}
	}
	v, next, err := Field(r.b, r.next, r.Typ, r.Num)
	r.next, r.err = next, err
	return v
}

// Varint reads the current field, which must be a varint.
func (r *Reader) Varint() uint64 {
	v, next, err := VarintField(r.b, r.next, r.Typ, r.Num)
	r.next, r.err = next, err
	return v
}

// Fixed64 reads the current field's bits, which must be a fixed64.
func (r *Reader) Fixed64() uint64 {
	v, next, err := Fixed64(r.b, r.next, r.Typ, r.Num)
	r.next, r.err = next, err
	return v
}

// AppendVarints reads the current field, a repeated varint field, onto
// dst: a packed run (wire type 2) or one element (wire type 0), as the
// generated decoders accept either. Like theirs, a run's last varint may
// carry on past the run's length into the rest of the message, and
// reading resumes where it ended.
func (r *Reader) AppendVarints(dst []uint64) []uint64 {
	if r.Typ != 2 {
		v := r.Varint() // one element, or the wrong wire type's error
		if r.err == nil {
			dst = append(dst, v)
		}
		return dst
	}
	i, end, err := Len(r.b, r.next)
	for err == nil && i < end {
		var v uint64
		if v, i, err = Varint(r.b, i); err == nil {
			dst = append(dst, v)
		}
	}
	r.next, r.err = i, err
	return dst
}

// MapEntry reads the current field as a map entry (see MapEntry).
func (r *Reader) MapEntry(fixed bool, fn func(k, v []byte, bits uint64)) {
	r.next, r.err = MapEntry(r.b, r.next, r.Typ, r.Num, fixed, fn)
}

// Skip steps over the current field, one the caller does not read.
func (r *Reader) Skip() { r.next, r.err = Skip(r.b, r.at) }

// Fail stops the reader with the caller's own error, unless it failed
// already.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Err is why reading stopped early, or nil.
func (r *Reader) Err() error { return r.err }

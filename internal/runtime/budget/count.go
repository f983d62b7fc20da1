package budget

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/tinylib/msgp/msgp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Bodies that Datadog's own decoders (msgpack, protobuf) or a JSON parser
// turn into structs are counted before they are decoded, from their
// encoding: the structs would be built before a translator sees any of
// them. Each counter stops quietly at the first malformed byte, which the
// decoder then reports with its own message; what precedes it is counted.

// maxDepth bounds the counters' recursion; the decoders have their own,
// lower limits.
const maxDepth = 256

// Msgpack takes what a msgpack decoder builds from body: an item and a
// value per map entry for each map (a struct or Go map), a node and a slot
// per element for each array.
func (b *Budget) Msgpack(body []byte) error {
	if b != nil {
		b.msgpack(body, 0)
	}
	return b.Err()
}

func (b *Budget) msgpack(p []byte, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return nil, false
	}
	var n, each uint32
	var err error
	switch msgp.NextType(p) {
	case msgp.MapType:
		n, p, err = msgp.ReadMapHeaderBytes(p)
		if err != nil || int64(n)*2 > int64(len(p)) || !b.Take(Item+mul(int(n), Value)) {
			return nil, false
		}
		each = 2
	case msgp.ArrayType:
		n, p, err = msgp.ReadArrayHeaderBytes(p)
		if err != nil || int64(n) > int64(len(p)) || !b.Take(Node+mul(int(n), Slot)) {
			return nil, false
		}
		each = 1
	default:
		p, err = msgp.Skip(p)
		return p, err == nil
	}
	ok := true
	for i := uint64(0); ok && i < uint64(n)*uint64(each); i++ {
		p, ok = b.msgpack(p, depth+1)
	}
	return p, ok
}

// Proto takes what a protobuf decoder builds from body, a message of type
// md: per message, the struct its fields make; a value per map entry; a
// slot per string of a repeated field. Packed numbers are not counted: each
// takes at most eight bytes for at least one on the wire.
func (b *Budget) Proto(md protoreflect.MessageDescriptor, body []byte) error {
	if b != nil {
		b.proto(schemaOf(md), body, 0)
	}
	return b.Err()
}

func (b *Budget) proto(s *schema, p []byte, depth int) bool {
	if depth > maxDepth {
		return false
	}
	for len(p) > 0 {
		num, typ, n := protowire.ConsumeTag(p)
		if n < 0 {
			return false
		}
		p = p[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, p); n < 0 {
				return false
			}
			p = p[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(p)
		if n < 0 {
			return false
		}
		p = p[n:]
		f := s.field(num)
		if f == nil {
			continue
		}
		if !b.Take(f.cost) {
			return false
		}
		if f.child != nil && !b.proto(f.child, v, depth+1) {
			return false
		}
	}
	return true
}

// schema is a message type compiled for counting: what each of its
// length-delimited fields costs and, for a message, its own schema.
// Looking fields up by descriptor for every field of every message cost
// as much as decoding the body.
type schema struct {
	fields []*fieldSchema // by field number, for numbers up to maxIndexed
	more   map[protowire.Number]*fieldSchema
}

type fieldSchema struct {
	cost  int64
	child *schema // a message or map entry's own fields
}

const maxIndexed = 64

func (s *schema) field(num protowire.Number) *fieldSchema {
	if int(num) < len(s.fields) {
		return s.fields[num]
	}
	return s.more[num]
}

var schemas sync.Map // protoreflect.MessageDescriptor → *schema

func schemaOf(md protoreflect.MessageDescriptor) *schema {
	if s, ok := schemas.Load(md); ok {
		return s.(*schema)
	}
	s := compile(md, map[protoreflect.FullName]*schema{})
	schemas.Store(md, s)
	return s
}

// compile builds md's schema; seen ties recursive types (an OTLP AnyValue
// holds arrays of AnyValues) to the one schema being built.
func compile(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]*schema) *schema {
	if s, ok := seen[md.FullName()]; ok {
		return s
	}
	s := &schema{}
	seen[md.FullName()] = s
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		var f *fieldSchema
		switch {
		case fd.IsMap():
			f = &fieldSchema{cost: Value, child: compile(fd.Message(), seen)}
		case fd.Message() != nil:
			f = &fieldSchema{cost: structSize(fd.Message()), child: compile(fd.Message(), seen)}
		case fd.IsList() && (fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind):
			f = &fieldSchema{cost: Slot}
		default:
			continue
		}
		if num := int(fd.Number()); num < maxIndexed {
			if num >= len(s.fields) {
				s.fields = append(s.fields, make([]*fieldSchema, num+1-len(s.fields))...)
			}
			s.fields[num] = f
		} else {
			if s.more == nil {
				s.more = map[protowire.Number]*fieldSchema{}
			}
			s.more[fd.Number()] = f
		}
	}
	return s
}

// structSize estimates the Go struct a message decodes to: a header and
// pointer, and a slot per field, a oneof's members sharing one (a Datadog
// span is 272 bytes, an OTLP KeyValue 64, an AnyValue 48).
func structSize(md protoreflect.MessageDescriptor) int64 {
	fields := md.Fields()
	slots := md.Oneofs().Len()
	for i := range fields.Len() {
		if fields.Get(i).ContainingOneof() == nil {
			slots++
		}
	}
	return 2*Slot + int64(slots)*Slot
}

// Per JSON value, what a parser builds.
const (
	// Node is a value decoded into a struct field, slice or map, and a
	// msgpack array's slice.
	Node = 64
	// TreeNode is a value in fastjson's tree: an 80-byte Value in a cache
	// that, as it grows, keeps every earlier copy alive (Go grows a large
	// slice by a quarter, so all copies come to five times the last).
	TreeNode = 5 * 80
)

// JSON takes what a JSON parser builds from body: perValue per value, at
// least an item per object, and a slot per member. Strings are skipped
// whole.
func (b *Budget) JSON(body []byte, perValue int64) error {
	if b == nil {
		return nil
	}
	var values, objects, members int
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			end := closingQuote(body, i+1)
			if end < 0 {
				i = len(body)
				break
			}
			i = end
			if j := skipBlanks(body, i+1); j < len(body) && body[j] == ':' {
				members++ // a key, not a value
				i = j
				continue
			}
			values++
		case '{':
			objects++
			values++
		case '[':
			values++
		case 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			values++
			for i+1 < len(body) && !isDelimiter(body[i+1]) {
				i++
			}
		}
	}
	b.Take(mul(values, perValue))
	b.Take(mul(objects, max(Item-perValue, 0)))
	b.Take(mul(members, Slot))
	return b.Err()
}

// JSONText is JSON for text held as a string.
func (b *Budget) JSONText(s string, perValue int64) error {
	return b.JSON(unsafe.Slice(unsafe.StringData(s), len(s)), perValue) //nolint:gosec // read only, never kept
}

// closingQuote returns the index of the quote that ends the string whose
// content starts at i, or -1.
func closingQuote(body []byte, i int) int {
	for {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			return -1
		}
		j += i
		k := j
		for k > i && body[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j
		}
		i = j + 1
	}
}

func skipBlanks(body []byte, i int) int {
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	return i
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\n', '\r', ':':
		return true
	}
	return false
}

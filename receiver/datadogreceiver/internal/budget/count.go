package budget

import (
	"bytes"
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

const (
	// node is a msgpack array as a decoder holds it.
	node = 64
	// maxDepth bounds the counters' recursion; the decoders have their
	// own, lower limits.
	maxDepth = 256
)

// Msgpack takes what a msgpack decoder builds from body: an item and a
// value per map entry for each map (a struct or Go map), a slot per
// element for each array.
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
		if err != nil || int64(n) > int64(len(p)) || !b.Take(node+mul(int(n), Slot)) {
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
// md: an item per message, a value per map entry, a slot per string of a
// repeated field. Packed numbers are not counted: each takes at most eight
// bytes for at least one on the wire.
func (b *Budget) Proto(md protoreflect.MessageDescriptor, body []byte) error {
	if b != nil {
		b.proto(md, body, 0)
	}
	return b.Err()
}

func (b *Budget) proto(md protoreflect.MessageDescriptor, p []byte, depth int) bool {
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
		fd := md.Fields().ByNumber(num)
		switch {
		case fd == nil:
		case fd.IsMap():
			if !b.Take(Value) || !b.proto(fd.Message(), v, depth+1) {
				return false
			}
		case fd.Message() != nil:
			if !b.Take(Item) || !b.proto(fd.Message(), v, depth+1) {
				return false
			}
		case fd.IsList() && (fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind):
			if !b.Take(Slot) {
				return false
			}
		}
	}
	return true
}

// Per JSON value, what a parser builds.
const (
	// Node is a value decoded into a struct field, slice or map.
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
	return b.JSON(unsafe.Slice(unsafe.StringData(s), len(s)), perValue)
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

package pbwire

import (
	"fmt"
	"io"
	"testing"

	"github.com/planetscale/vtprotobuf/protohelpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVarint(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want uint64
		err  error
	}{
		{[]byte{0x01}, 1, nil},
		{[]byte{0xac, 0x02}, 300, nil},
		// The tenth byte's excess bits are dropped, not refused.
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 1<<64 - 1, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, protohelpers.ErrIntOverflow},
		{[]byte{0x80}, 0, io.ErrUnexpectedEOF},
	} {
		t.Run(fmt.Sprintf("%x", c.in), func(t *testing.T) {
			v, _, err := Varint(c.in, 0)
			assert.Equal(t, c.err, err, "%x", c.in)
			if c.err == nil {
				assert.Equal(t, c.want, v, "%x", c.in)
			}
		})
	}
}

func TestTag(t *testing.T) {
	num, typ, next, err := Tag([]byte{0x2a}, 0)
	require.NoError(t, err)
	assert.Equal(t, []int{5, 2, 1}, []int{int(num), typ, next})
	_, _, _, err = Tag([]byte{0x0c}, 0)
	require.EqualError(t, err, "wiretype end group for non-group")
	_, _, _, err = Tag([]byte{0x02}, 0)
	assert.EqualError(t, err, "illegal tag 0 (wire type 2)")
}

func TestFields(t *testing.T) {
	// field 1 varint 7, unknown field 3 (a group holding a varint), field 2
	// bytes "hi".
	msg := []byte{0x08, 0x07, 0x1b, 0x08, 0x01, 0x1c, 0x12, 0x02, 'h', 'i'}
	var got []string
	err := Fields(msg, func(num int32, typ, i int) (int, error) {
		switch num {
		case 1:
			v, end, err := VarintField(msg, i, typ, num)
			got = append(got, string(rune('0'+v)))
			return end, err
		case 2:
			v, end, err := Field(msg, i, typ, num)
			got = append(got, string(v))
			return end, err
		}
		return i, ErrSkip
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"7", "hi"}, got, "the group was skipped")

	err = Fields([]byte{0x0d, 0, 0, 0, 0}, func(num int32, typ, i int) (int, error) {
		_, end, err := Field(msg, i, typ, num)
		return end, err
	})
	assert.EqualError(t, err, "wrong wireType = 5 for field 1")
}

func TestMapEntry(t *testing.T) {
	// A map field (number 10) of two entries, the second with its value
	// first and an unknown field between.
	msg := []byte{
		0x52, 0x06, 0x0a, 0x01, 'k', 0x12, 0x01, 'v',
		0x52, 0x08, 0x12, 0x01, 'w', 0x18, 0x05, 0x0a, 0x01, 'j',
	}
	var got [][2]string
	i := 0
	for i < len(msg) {
		num, typ, next, err := Tag(msg, i)
		require.NoError(t, err)
		i, err = MapEntry(msg, next, typ, num, false, func(k, v []byte, _ uint64) {
			got = append(got, [2]string{string(k), string(v)})
		})
		require.NoError(t, err)
	}
	assert.Equal(t, [][2]string{{"k", "v"}, {"j", "w"}}, got)

	got = nil
	for r := NewReader(msg); r.Next(); {
		r.MapEntry(false, func(k, v []byte, _ uint64) { got = append(got, [2]string{string(k), string(v)}) })
		require.NoError(t, r.Err())
	}
	assert.Equal(t, [][2]string{{"k", "v"}, {"j", "w"}}, got, "read by a Reader")

	// A key whose length runs past its entry, within the message, is read
	// as the generated decoders read it; past the message it is refused.
	overrun := []byte{0x52, 0x02, 0x0a, 0x03, 'a', 'b', 'c'}
	_, err := MapEntry(overrun, 1, 2, 10, false, func(k, _ []byte, _ uint64) { assert.Equal(t, "abc", string(k)) })
	require.NoError(t, err)
	_, err = MapEntry(overrun[:5], 1, 2, 10, false, nil)
	assert.Error(t, err)
}

// TestReaderReadsAsFields reads messages with a Reader and with Fields:
// the same values, the same errors.
func TestReaderReadsAsFields(t *testing.T) {
	for name, msg := range map[string][]byte{
		// field 1 varint 7, unknown field 3 (a group holding a varint),
		// field 2 bytes "hi", field 4 fixed64, field 20 (a two-byte key).
		"valid":            {0x08, 0x07, 0x1b, 0x08, 0x01, 0x1c, 0x12, 0x02, 'h', 'i', 0x21, 1, 0, 0, 0, 0, 0, 0, 0, 0xa2, 0x01, 0x01, 'x'},
		"long length":      append([]byte{0x12, 0x80, 0x01}, make([]byte, 128)...),
		"wrong wire type":  {0x0d, 0, 0, 0, 0},
		"truncated bytes":  {0x12, 0x05, 'h'},
		"truncated fixed":  {0x21, 1, 2},
		"end group":        {0x0c},
		"field zero":       {0x02, 0x00},
		"truncated varint": {0x08, 0x80},
		"empty":            {},
	} {
		var viaFields, viaReader []string
		errFields := Fields(msg, func(num int32, typ, i int) (int, error) {
			switch num {
			case 1:
				v, end, err := VarintField(msg, i, typ, num)
				viaFields = append(viaFields, fmt.Sprint(v))
				return end, err
			case 2, 20:
				v, end, err := Field(msg, i, typ, num)
				viaFields = append(viaFields, string(v))
				return end, err
			case 4:
				v, end, err := Fixed64(msg, i, typ, num)
				viaFields = append(viaFields, fmt.Sprint(v))
				return end, err
			}
			return i, ErrSkip
		})
		r := NewReader(msg)
		for r.Next() {
			switch r.Num {
			case 1:
				viaReader = append(viaReader, fmt.Sprint(r.Varint()))
			case 2, 20:
				viaReader = append(viaReader, string(r.Bytes()))
			case 4:
				viaReader = append(viaReader, fmt.Sprint(r.Fixed64()))
			default:
				r.Skip()
			}
		}
		assert.Equal(t, viaFields, viaReader, name)
		assert.Equal(t, errFields, r.Err(), name)
	}
	r := NewReader([]byte{0x08, 0x01, 0x08, 0x02})
	require.True(t, r.Next())
	r.Varint()
	r.Fail(ErrSkip)
	assert.False(t, r.Next(), "a caller's failure stops the reader")
	assert.Equal(t, ErrSkip, r.Err())
}

func TestReaderAppendVarints(t *testing.T) {
	read := func(msg []byte) ([]uint64, error) {
		var out []uint64
		r := NewReader(msg)
		for r.Next() {
			out = r.AppendVarints(out)
		}
		return out, r.Err()
	}
	// One element, then a packed run of two, then a run whose last varint
	// carries on past its length (as generated decoders read it) to 128.
	got, err := read([]byte{1 << 3, 5, 1<<3 | 2, 2, 7, 9, 1<<3 | 2, 1, 0x80, 0x01})
	require.NoError(t, err)
	assert.Equal(t, []uint64{5, 7, 9, 128}, got)
	_, err = read([]byte{1<<3 | 1, 0, 0, 0, 0, 0, 0, 0, 0})
	require.EqualError(t, err, "wrong wireType = 1 for field 1")
	_, err = read([]byte{1<<3 | 2, 3, 0x80})
	require.Error(t, err, "a run longer than the message")
}

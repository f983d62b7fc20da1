package intern

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

func TestTableCopiesOnce(t *testing.T) {
	tb := New()
	b := []byte("service.name")
	first := tb.String(b)
	b[0] = 'X' // the caller's buffer is reused for the next payload
	assert.Equal(t, "service.name", first, "a copy, not a view of the buffer")
	again := tb.String([]byte("service.name"))
	assert.Equal(t, unsafe.StringData(first), unsafe.StringData(again), "the same copy handed out again")
	assert.Equal(t, "", tb.String(nil))
	for i := range 400 { // past the recent cache's slots
		tb.String([]byte(strings.Repeat("k", i+1)))
	}
	assert.Equal(t, unsafe.StringData(first), unsafe.StringData(tb.String([]byte("service.name"))))
	assert.Equal(t, 401, tb.Len())
	tb.Reset()
	assert.Equal(t, 0, tb.Len())
}

func TestTableWithConversion(t *testing.T) {
	tb := NewWith(func(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") })
	bad := []byte{'a', 0xff, 'b'}
	assert.Equal(t, "a\uFFFDb", tb.String(bad))
	assert.Equal(t, "a\uFFFDb", tb.String(bad), "found by the bytes it came from")
	assert.Equal(t, 1, tb.Len())
}

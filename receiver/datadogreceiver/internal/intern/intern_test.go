package intern

import (
	"fmt"
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
	assert.Empty(t, tb.String(nil))
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

// BenchmarkTableSeries interns what a series payload of the perf corpus's
// shape repeats: 500 series of a name, a host and nine tags, over 60
// names, 40 hosts, 40 pods, six services and three zones (about 150
// distinct strings alike but for a digit or two).
func BenchmarkTableSeries(b *testing.B) {
	var in [][]byte
	for i := range 500 {
		in = append(in, fmt.Appendf(nil, "system.metric.%d", i%60), fmt.Appendf(nil, "ip-10-0-%d-%d", i%4, i%40),
			[]byte("env:prod"), fmt.Appendf(nil, "service:svc-%d", i%6), []byte("version:1.42.0"),
			[]byte("region:us-east-1"), fmt.Appendf(nil, "availability-zone:us-east-1%c", 'a'+i%3),
			fmt.Appendf(nil, "pod_name:web-store-%05d", i%40), []byte("team:core"), []byte("host"), []byte("System"))
	}
	tb := New()
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range in {
			tb.String(s)
		}
		tb.Reset()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(in)), "ns/string")
}

func TestPoolHandsOutEmptyTables(t *testing.T) {
	p := NewPool(func(b []byte) string { return strings.ToUpper(string(b)) })
	tb := p.Get()
	assert.Equal(t, "ABC", tb.String([]byte("abc")), "the pool's conversion")
	p.Put(tb)
	again := p.Get()
	assert.Equal(t, 0, again.Len())
	assert.Equal(t, "XYZ", again.String([]byte("xyz")))
}

func TestResetDropsALargeTablesMap(t *testing.T) {
	tb := New()
	for i := range keepStrings + 1 {
		tb.String(fmt.Appendf(nil, "s%d", i))
	}
	tb.Reset()
	assert.Equal(t, 0, tb.Len())
	assert.Equal(t, "s1", tb.String([]byte("s1")))
}

package attrmap

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// TestWriterMatchesPdata replays random puts and tags (with repeated
// keys) through a Writer and straight into a pcommon.Map: same content.
func TestWriterMatchesPdata(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{3, direct, direct + 1, 500, 5000} {
		want, got := pcommon.NewMap(), pcommon.NewMap()
		got.PutStr("pre", "existing")
		want.PutStr("pre", "existing")
		w := NewWriter(got)
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("k%d", r.IntN(n))
			switch r.IntN(4) {
			case 0:
				w.PutStr(k, "s")
				want.PutStr(k, "s")
			case 1:
				w.Put(k).SetInt(int64(i))
				want.PutInt(k, int64(i))
			case 2:
				w.AddTag(k, fmt.Sprint(i))
				tags.Put(want, k, fmt.Sprint(i))
			default:
				w.Put(k).SetEmptyMap().PutStr("nested", k)
				want.PutEmptyMap(k).PutStr("nested", k)
			}
		}
		w.Flush()
		require.Equal(t, want.Len(), got.Len(), n)
		assert.Equal(t, want.AsRaw(), got.AsRaw(), n)
	}
}

func TestWriterKeepsWhatTheMapHad(t *testing.T) {
	m := pcommon.NewMap()
	for i := 0; i < direct; i++ {
		m.PutInt(fmt.Sprint("old", i), int64(i))
	}
	w := NewWriter(m)
	for i := 0; i < 3*direct; i++ {
		w.PutStr(fmt.Sprint("new", i), "v")
	}
	w.PutStr("old1", "replaced")
	w.Flush()
	assert.Equal(t, 4*direct, m.Len())
	v, _ := m.Get("old0")
	assert.Equal(t, int64(0), v.Int())
	v, _ = m.Get("old1")
	assert.Equal(t, "replaced", v.Str())
}

// BenchmarkWriterLarge fills maps of 100,000 distinct keys: linear, where
// pdata's own puts would make 5·10⁹ key comparisons.
func BenchmarkWriterLarge(b *testing.B) {
	keys := make([]string, 100000)
	for i := range keys {
		keys[i] = fmt.Sprint("key", i)
	}
	for b.Loop() {
		w := NewWriter(pcommon.NewMap())
		for _, k := range keys {
			w.PutStr(k, "v")
		}
		w.Flush()
	}
}

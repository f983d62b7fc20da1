package metrics

import (
	"fmt"
	"hash/maphash"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// TestGroupsTellCollidingKeysApart files keys under one hash, as a
// collision would: each is still found by its own key, never another's.
func TestGroupsTellCollidingKeysApart(t *testing.T) {
	g := newGroups()
	keys := [][]byte{[]byte("host-a\x00\x00"), []byte("host-b\x00\x00"), []byte("host-c\x00\x00")}
	_, h, ok := g.resource(keys[1])
	require.False(t, ok)
	for i, k := range keys {
		require.Equal(t, i, g.addResource(k, h, pmetric.NewMetricSlice()))
	}
	// keys[1] hashes to h, the head of a chain of three: found by its key.
	i, _, ok := g.resource(keys[1])
	require.True(t, ok)
	assert.Equal(t, 1, i)
	_, _, ok = g.resource([]byte("host-d\x00\x00"))
	assert.False(t, ok)

	ms := pmetric.NewMetricSlice()
	a, b := metricKey{res: 1, name: "cpu", typ: Gauge}, metricKey{res: 1, name: "cpu", typ: Count}
	_, hb, found := g.metric(b)
	require.False(t, found)
	ma, mb := ms.AppendEmpty(), ms.AppendEmpty()
	ma.SetName("a")
	mb.SetName("b")
	g.addMetric(b, hb, mb)
	g.addMetric(a, hb, ma) // a filed under b's hash: b is now second in the chain
	m, _, found := g.metric(b)
	require.True(t, found)
	assert.Equal(t, "b", m.Name())
}

// TestGroupsKeysEncodeApart: keys whose fields concatenate alike are
// different groups.
func TestGroupsKeysEncodeApart(t *testing.T) {
	g := newGroups()
	keys := []metricKey{
		{name: "ab", unit: "c"},
		{name: "a", unit: "bc"},
		{name: "abc"},
		{name: "ab", unit: "c", res: 1},
		{name: "ab", unit: "c", interval: 10},
		{name: "ab", unit: "c", typ: Rate},
	}
	ms := pmetric.NewMetricSlice()
	for i, k := range keys {
		_, h, found := g.metric(k)
		require.False(t, found, k)
		m := ms.AppendEmpty()
		m.SetName(fmt.Sprint(i))
		g.addMetric(k, h, m)
	}
	for i, k := range keys {
		m, _, found := g.metric(k)
		require.True(t, found, k)
		assert.Equal(t, fmt.Sprint(i), m.Name())
	}
}

func TestGroupsResetDropsALargeRequestsRoom(t *testing.T) {
	g := newGroups()
	for i := range keepAtMost + 1 {
		k := fmt.Appendf(nil, "host-%d", i)
		_, h, _ := g.resource(k)
		g.addResource(k, h, pmetric.NewMetricSlice())
	}
	g.reset()
	assert.Zero(t, cap(g.resources), "room past keepAtMost is dropped")
	_, _, ok := g.resource([]byte("host-1"))
	assert.False(t, ok)

	k := []byte("host-1")
	_, h, _ := g.resource(k)
	g.addResource(k, h, pmetric.NewMetricSlice())
	g.reset()
	assert.NotZero(t, cap(g.resources), "a usual request's room is kept")
	_, _, ok = g.resource(k)
	assert.False(t, ok)
	assert.Equal(t, maphash.Bytes(g.seed, k), h, "the seed lives as long as the groups")
}

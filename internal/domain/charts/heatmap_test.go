package charts

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// TestHeatmapAgainstIndependentCounts: each cell holds the spans of its
// minute whose duration falls between the cell's bounds, on either scale,
// and every span is counted once.
func TestHeatmapAgainstIndependentCounts(t *testing.T) {
	rows, src := seedSpans(t)
	db := chtest.DB(t)
	for _, log := range []bool{false, true} {
		q := HeatmapQuery{Source: src, Value: "Duration", Where: "StatusCode:Ok", Log: log, Rows: 10}
		hm, err := RunHeatmap(context.Background(), db, q, t0, t0.Add(8*time.Minute), time.Minute, 0)
		require.NoError(t, err)
		require.Len(t, hm.Times, 8)
		require.Len(t, hm.Bounds, 11)
		want := make([][]float64, 8)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rows {
			if r.status == "Ok" {
				lo, hi = math.Min(lo, float64(r.duration)), math.Max(hi, float64(r.duration))
			}
		}
		assert.Equal(t, lo, hm.Bounds[0])
		assert.Equal(t, hi, hm.Bounds[10])
		total := 0.0
		for i := range want {
			want[i] = make([]float64, 10)
		}
		for _, r := range rows {
			if r.status != "Ok" {
				continue
			}
			total++
			d := float64(r.duration)
			cell := 9
			for j := 0; j < 10; j++ {
				if d < hm.Bounds[j+1] {
					cell = j
					break
				}
			}
			want[int(r.ts.Sub(t0)/time.Minute)][cell]++
		}
		// A value on a computed edge may fall either side of it by a
		// rounding; the totals per minute are exact.
		got := 0.0
		for i := range want {
			var w, g float64
			for j := range want[i] {
				w += want[i][j]
				g += hm.Counts[i][j]
				assert.InDelta(t, want[i][j], hm.Counts[i][j], 1, "log=%v minute %d bucket %d", log, i, j)
			}
			assert.Equal(t, w, g, "log=%v minute %d", log, i)
			got += g
		}
		assert.Equal(t, total, got)
	}
	// Nothing matches: no bounds, no cells.
	hm, err := RunHeatmap(context.Background(), db, HeatmapQuery{Source: src, Value: "Duration", Where: "StatusCode:Nope", Rows: 10}, t0, t0.Add(8*time.Minute), time.Minute, 0)
	require.NoError(t, err)
	assert.Empty(t, hm.Bounds)
	assert.Empty(t, hm.Counts)
}

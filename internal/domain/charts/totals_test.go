package charts

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// TestTotalsHaving: a table's totals are each group's values over the
// whole range (an average is not a sum of bucket averages), and a having
// keeps only the groups that satisfy it, by alias or by aggregate.
func TestTotalsHaving(t *testing.T) {
	db := chtest.DB(t)
	rows, src := seed(t, db)
	ctx := context.Background()
	type tot struct{ n, errors, latSum, latN float64 }
	want := map[string]*tot{}
	for _, r := range rows {
		g := want[r.service]
		if g == nil {
			g = &tot{}
			want[r.service] = g
		}
		g.n++
		if r.level == "error" {
			g.errors++
			g.latSum += float64(r.latency)
			g.latN++
		}
	}
	require.Len(t, want, 2)
	series := []Series{
		{Source: src, AggFn: "count", GroupBy: []string{"service"}, Alias: "n"},
		{Source: src, AggFn: "avg", Field: "Attr.latency", Where: "level:error", GroupBy: []string{"service"}, Alias: "error latency"},
	}
	start, end := t0, t0.Add(10*time.Minute)
	pts, err := Totals(ctx, db, series, "", start, end, time.Minute)
	require.NoError(t, err)
	require.Len(t, pts, 2)
	for _, p := range pts {
		w := want[p.Group[0]]
		require.NotNil(t, w, p.Group)
		assert.Equal(t, start.UnixMilli(), p.Bucket)
		assert.Equal(t, w.n, *p.Values[0], p.Group)
		assert.InDelta(t, w.latSum/w.latN, *p.Values[1], 1e-9, p.Group)
	}
	// A threshold between the two groups' counts keeps the larger one.
	big, small := "api", "worker"
	if want[big].n < want[small].n {
		big, small = small, big
	}
	mid := (want[big].n + want[small].n) / 2
	for _, having := range []string{
		"n > " + ftoa(mid),
		"count() > " + ftoa(mid),
		"count(*) > " + ftoa(mid) + " AND `error latency` > 0",
		"countIf(ServiceName = '" + big + "') > 0",
	} {
		pts, err := Totals(ctx, db, series, having, start, end, time.Minute)
		require.NoError(t, err, having)
		if assert.Len(t, pts, 1, having) {
			assert.Equal(t, []string{big}, pts[0].Group, having)
			assert.Equal(t, want[big].n, *pts[0].Values[0], having)
		}
	}
	for having, why := range map[string]string{
		"ServiceName = 'api'": "not a select item's alias",
		"count() > (SELECT count() FROM charts_test.otel_logs)": "sub-queries",
		"sum(file('/etc/passwd')) > 0":                          "file",
		"count() >":                                             "syntax error",
	} {
		_, err := Totals(ctx, db, series, having, start, end, time.Minute)
		var qe query.Error
		if assert.ErrorAs(t, err, &qe, having) {
			assert.Contains(t, err.Error(), why, having)
		}
	}
}

func ftoa(f float64) string { return fmt.Sprint(f) }

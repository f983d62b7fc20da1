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
		// A grouped field, by the name the groupBy gives it.
		"service = '" + big + "'",
		"service != '" + small + "' AND n > 0",
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

// TestTotalsEveryAggFn: each aggFn's range value over the rows of its
// where, against Go's; a where keeping nothing is 0 for the counts and
// null for the others (not avg's nan, not min's 0).
func TestTotalsEveryAggFn(t *testing.T) {
	db := chtest.DB(t)
	rows, src := seed(t, db)
	ctx := context.Background()
	var lats []float64
	teams := map[string]bool{}
	var last logRow
	for _, r := range rows {
		if r.service == "api" && r.level == "error" {
			lats = append(lats, float64(r.latency))
			teams[r.team] = true
			if !r.ts.Before(last.ts) {
				last = r
			}
		}
	}
	require.NotEmpty(t, lats)
	sum, lo, hi := 0.0, lats[0], lats[0]
	for _, v := range lats {
		sum += v
		lo, hi = min(lo, v), max(hi, v)
	}
	want := map[string]float64{
		"count": float64(len(lats)), "count_distinct": float64(len(teams)), "sum": sum, "avg": sum / float64(len(lats)),
		"min": lo, "max": hi, "last_value": float64(last.latency),
	}
	var series []Series
	fns := []string{"count", "count_distinct", "sum", "avg", "min", "max", "last_value"}
	for _, fn := range fns {
		field := "Attr.latency"
		if fn == "count_distinct" {
			field = "Attr.team"
		}
		series = append(series, Series{Source: src, AggFn: fn, Field: field, Where: "level:error service:api", GroupBy: []string{"service"}})
	}
	pts, err := Totals(ctx, db, series[:5], "", t0, t0.Add(10*time.Minute), time.Minute)
	require.NoError(t, err)
	more, err := Totals(ctx, db, append(series[5:], Series{Source: src, AggFn: "quantile", Level: 0.5, Field: "Attr.latency", Where: "level:error service:api", GroupBy: []string{"service"}}),
		"", t0, t0.Add(10*time.Minute), time.Minute)
	require.NoError(t, err)
	for _, p := range append(pts, more...) {
		if p.Group[0] != "api" {
			continue
		}
		vals := p.Values
		names := fns[:5]
		if len(vals) == 3 {
			names = []string{"max", "last_value"}
			require.NotNil(t, vals[2], "quantile")
			assert.True(t, *vals[2] >= lo && *vals[2] <= hi, "the median is within the values")
		}
		for i, fn := range names {
			if assert.NotNil(t, vals[i], fn) {
				assert.InDelta(t, want[fn], *vals[i], 1e-9, fn)
			}
		}
	}
	none := []Series{
		{Source: src, AggFn: "count", Where: "level:nosuch", GroupBy: []string{"service"}},
		{Source: src, AggFn: "avg", Field: "Attr.latency", Where: "level:nosuch", GroupBy: []string{"service"}},
		{Source: src, AggFn: "min", Field: "Attr.latency", Where: "level:nosuch", GroupBy: []string{"service"}},
	}
	pts, err = Totals(ctx, db, none, "", t0, t0.Add(10*time.Minute), time.Minute)
	require.NoError(t, err)
	require.Len(t, pts, 2, "the groups are the range's, whatever the items' wheres (HyperDX's aggCondition)")
	for _, p := range pts {
		require.NotNil(t, p.Values[0])
		assert.Equal(t, 0.0, *p.Values[0])
		assert.Nil(t, p.Values[1], "avg of nothing")
		assert.Nil(t, p.Values[2], "min of nothing")
	}
}

// TestTotalsRefuses: what range totals do not compute is a mistake of
// the request, said so.
func TestTotalsRefuses(t *testing.T) {
	db := chtest.DB(t)
	_, src := seed(t, db)
	other := src
	other.Table = "other"
	hist := src
	hist.MetricType = "histogram"
	for why, series := range map[string][]Series{
		"Datadog metric query": {{Source: src, Query: "avg:cpu{*}"}},
		"one source":           {{Source: src, AggFn: "count"}, {Source: other, AggFn: "count"}},
		"histogram metric":     {{Source: hist, AggFn: "quantile", Level: 0.5}},
		"names another series": {{Source: src, AggFn: "count", Alias: "n"}, {Source: src, AggFn: "count", Alias: "n"}},
	} {
		_, err := Totals(context.Background(), db, series, "", t0, t0.Add(time.Minute), time.Minute)
		var qe query.Error
		if assert.ErrorAs(t, err, &qe, why) {
			assert.Contains(t, err.Error(), why)
		}
	}
}

// TestTotalsHavingOnGroupedFields: a having names a grouped field as the
// groupBy spells it (a role, an attribute).
func TestTotalsHavingOnGroupedFields(t *testing.T) {
	db := chtest.DB(t)
	_, src := seed(t, db)
	ctx := context.Background()
	for having, want := range map[string][][]string{
		"Attr.team = 'y'":                      {{"api", "y"}, {"worker", "y"}},
		"Attr.team = 'z' AND service = 'api'":  {{"api", "z"}},
		"`Attr.team` IN ('x') AND count() > 0": {{"api", "x"}, {"worker", "x"}},
	} {
		pts, err := Totals(ctx, db, []Series{{Source: src, AggFn: "count", GroupBy: []string{"service", "Attr.team"}}}, having, t0, t0.Add(10*time.Minute), time.Minute)
		require.NoError(t, err, having)
		var got [][]string
		for _, p := range pts {
			got = append(got, p.Group)
		}
		assert.Equal(t, want, got, having)
	}
}

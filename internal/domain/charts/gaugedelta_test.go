package charts

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// TestGaugeDelta: a gauge item with Delta (HyperDX's periodAggFn "delta")
// measures each series' change over a bucket, scaled from the seconds
// between its first and last point to the bucket, then aggregates across
// the series; other items ignore it.
func TestGaugeDelta(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_delta",
		`CREATE TABLE IF NOT EXISTS charts_delta.otel_metrics_gauge (MetricName String, ServiceName String, Attributes Map(String, String),
		  ResourceAttributes Map(String, String), TimeUnix DateTime64(9), Value Float64) ENGINE = MergeTree ORDER BY TimeUnix`,
		`CREATE TABLE IF NOT EXISTS charts_delta.otel_metrics_sum (MetricName String, ServiceName String, Attributes Map(String, String),
		  ResourceAttributes Map(String, String), TimeUnix DateTime64(9), Value Float64, AggregationTemporality Int32) ENGINE = MergeTree ORDER BY TimeUnix`,
		"TRUNCATE TABLE charts_delta.otel_metrics_gauge",
		"TRUNCATE TABLE charts_delta.otel_metrics_sum",
		// Host a: +10 over 30 s, then -15 over 40 s, then one point.
		// Host b: +30 over 45 s, then +3 over 30 s. Another metric beside.
		`INSERT INTO charts_delta.otel_metrics_gauge VALUES
		  ('used','api',{'host':'a'},{},'2026-11-01 12:00:00',10), ('used','api',{'host':'a'},{},'2026-11-01 12:00:30',20),
		  ('used','api',{'host':'a'},{},'2026-11-01 12:01:00',20), ('used','api',{'host':'a'},{},'2026-11-01 12:01:40',5),
		  ('used','api',{'host':'a'},{},'2026-11-01 12:02:10',7),
		  ('used','api',{'host':'b'},{},'2026-11-01 12:00:00',100), ('used','api',{'host':'b'},{},'2026-11-01 12:00:45',130),
		  ('used','api',{'host':'b'},{},'2026-11-01 12:01:00',1), ('used','api',{'host':'b'},{},'2026-11-01 12:01:30',4),
		  ('free','api',{'host':'a'},{},'2026-11-01 12:00:00',0), ('free','api',{'host':'a'},{},'2026-11-01 12:00:30',1000)`,
		`INSERT INTO charts_delta.otel_metrics_sum VALUES
		  ('requests','api',{},{},'2026-11-01 12:00:00',10,2), ('requests','api',{},{},'2026-11-01 12:00:30',15,2),
		  ('requests','api',{},{},'2026-11-01 12:01:00',25,2)`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	gauge := query.Source{
		Database: "charts_delta", Table: "otel_metrics_gauge", TimestampColumn: "TimeUnix", ServiceColumn: "ServiceName",
		AttributesMap: "Attributes", ResourceMap: "ResourceAttributes", MetricType: "gauge",
	}
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	item := func(aggFn, name, typ string, delta bool, groupBy ...string) Series {
		s, err := MetricItem(Series{Source: gauge, AggFn: aggFn, Field: "Value", GroupBy: groupBy, Delta: delta}, name, typ, "Value")
		require.NoError(t, err)
		return s
	}
	for _, tc := range []struct {
		name string
		s    Series
		step time.Duration
		want map[string][]any // by group, one value a bucket
	}{
		{
			"sum of the series' deltas", item("sum", "used", "gauge", true), time.Minute,
			map[string][]any{"": {20.0 + 40, -22.5 + 6, 0.0}},
		},
		{
			"max of the series' deltas", item("max", "used", "gauge", true), time.Minute,
			map[string][]any{"": {40.0, 6.0, 0.0}},
		},
		{
			"avg of the series' deltas", item("avg", "used", "gauge", true), time.Minute,
			map[string][]any{"": {30.0, -8.25, 0.0}},
		},
		{
			"count: the series with a delta", item("count", "used", "gauge", true), time.Minute,
			map[string][]any{"": {2.0, 2.0, 1.0}},
		},
		{
			"per group", item("max", "used", "gauge", true, "host"), time.Minute,
			map[string][]any{"a": {20.0, -22.5, 0.0}, "b": {40.0, 6.0, nil}},
		},
		{
			"scaled to a wider bucket", item("max", "used", "gauge", true, "host"), 2 * time.Minute,
			map[string][]any{"a": {-5.0 * 120 / 100, 0.0}, "b": {-96.0 * 120 / 90, nil}},
		},
		{
			"without delta: the series' last values", item("sum", "used", "gauge", false), time.Minute,
			map[string][]any{"": {150.0, 9.0, 7.0}},
		},
		{
			"a sum item ignores it, as HyperDX's renderer does", item("sum", "requests", "sum", true), time.Minute,
			map[string][]any{"": {5.0, 10.0, 0.0}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			points, err := Run(ctx, db, []Series{tc.s}, start, start.Add(3*time.Minute), tc.step, time.Minute)
			require.NoError(t, err)
			got := map[string][]any{}
			for _, p := range points {
				g := ""
				if len(p.Group) > 0 {
					g = p.Group[0]
				}
				if p.Values[0] == nil {
					got[g] = append(got[g], nil)
				} else {
					got[g] = append(got[g], *p.Values[0])
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

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

func TestMetricSemantics(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_metrics",
		`CREATE TABLE IF NOT EXISTS charts_metrics.otel_metrics_sum (MetricName String, ServiceName String, Attributes Map(String, String),
		  ResourceAttributes Map(String, String), TimeUnix DateTime64(9), Value Float64, AggregationTemporality Int32) ENGINE = MergeTree ORDER BY TimeUnix`,
		`CREATE TABLE IF NOT EXISTS charts_metrics.otel_metrics_histogram (MetricName String, ServiceName String, Attributes Map(String, String),
		  ResourceAttributes Map(String, String), TimeUnix DateTime64(9), BucketCounts Array(UInt64), ExplicitBounds Array(Float64)) ENGINE = MergeTree ORDER BY TimeUnix`,
		"TRUNCATE TABLE charts_metrics.otel_metrics_sum",
		"TRUNCATE TABLE charts_metrics.otel_metrics_histogram",
		// A cumulative counter with a reset at 90 s, and a delta counter.
		`INSERT INTO charts_metrics.otel_metrics_sum VALUES
		  ('requests','api',{'route':'/a'},{},'2026-11-01 12:00:00',10,2), ('requests','api',{'route':'/a'},{},'2026-11-01 12:00:30',15,2),
		  ('requests','api',{'route':'/a'},{},'2026-11-01 12:01:00',25,2), ('requests','api',{'route':'/a'},{},'2026-11-01 12:01:30',5,2),
		  ('requests','api',{'route':'/a'},{},'2026-11-01 12:02:00',12,2),
		  ('jobs','api',{},{},'2026-11-01 12:00:10',3,1), ('jobs','api',{},{},'2026-11-01 12:01:10',4,1)`,
		`INSERT INTO charts_metrics.otel_metrics_histogram VALUES
		  ('latency','api',{},{},'2026-11-01 12:00:10',[1,2,3,4],[1,5,10]), ('latency','api',{},{},'2026-11-01 12:00:40',[0,1,1,0],[1,5,10])`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	sum := query.Source{
		Database: "charts_metrics", Table: "otel_metrics_sum", TimestampColumn: "TimeUnix", ServiceColumn: "ServiceName",
		AttributesMap: "Attributes", ResourceMap: "ResourceAttributes", MetricType: "sum",
	}
	values := func(s Series) []any {
		points, err := Run(ctx, db, []Series{s}, start, start.Add(3*time.Minute), time.Minute, time.Minute)
		require.NoError(t, err)
		var out []any
		for _, p := range points {
			if p.Values[0] == nil {
				out = append(out, nil)
			} else {
				out = append(out, *p.Values[0])
			}
		}
		return out
	}
	assert.Equal(t, []any{5.0, 15.0, 7.0}, values(Series{Source: sum, AggFn: "sum", Where: "MetricName:requests"}),
		"cumulative: increases, the reset counted from zero")
	assert.Equal(t, []any{3.0, 4.0, 0.0}, values(Series{Source: sum, AggFn: "sum", Where: "MetricName:jobs"}), "delta: as is")
	assert.Equal(t, []any{15.0, 25.0, 12.0}, values(Series{Source: sum, AggFn: "max", Field: "Value", Where: "MetricName:requests"}),
		"other functions read the values as they are")

	hist := query.Source{
		Database: "charts_metrics", Table: "otel_metrics_histogram", TimestampColumn: "TimeUnix", ServiceColumn: "ServiceName",
		AttributesMap: "Attributes", MetricType: "histogram",
	}
	// Merged buckets [1,3,4,4] over bounds [1,5,10]: p10 in (1,5], p50 in (5,10], p99 in the +Inf bucket.
	assert.Equal(t, []any{5.0, nil, nil}, values(Series{Source: hist, AggFn: "quantile", Level: 0.1}))
	assert.Equal(t, []any{10.0, nil, nil}, values(Series{Source: hist, AggFn: "quantile", Level: 0.5}))
	assert.Equal(t, []any{10.0, nil, nil}, values(Series{Source: hist, AggFn: "quantile", Level: 0.99}))
}

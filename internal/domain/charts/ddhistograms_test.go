package charts

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// Percentiles and the other aggregators on histogram metrics: OTLP
// histograms (explicit bounds) and exponential histograms (the Agent's
// sketches), in the exporter's tables beside the gauge source's.
func TestDatadogMetricQueriesOnHistograms(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_ddh",
		`CREATE TABLE IF NOT EXISTS charts_ddh.otel_metrics_gauge (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9), Value Float64) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)`,
		`CREATE TABLE IF NOT EXISTS charts_ddh.otel_metrics_histogram (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9), Count UInt64, Sum Float64,
		  BucketCounts Array(UInt64), ExplicitBounds Array(Float64), Min Float64, Max Float64) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)`,
		`CREATE TABLE IF NOT EXISTS charts_ddh.otel_metrics_exponential_histogram (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime, Count UInt64, Sum Float64, Scale Int32, ZeroCount UInt64,
		  PositiveOffset Int32, PositiveBucketCounts Array(UInt64), NegativeOffset Int32, NegativeBucketCounts Array(UInt64), Min Float64, Max Float64)
		  ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)`,
		"TRUNCATE TABLE charts_ddh.otel_metrics_gauge",
		"TRUNCATE TABLE charts_ddh.otel_metrics_histogram",
		"TRUNCATE TABLE charts_ddh.otel_metrics_exponential_histogram",
		`INSERT INTO charts_ddh.otel_metrics_gauge VALUES ({'host.name':'a'},'','system.cpu.user',{},'2026-11-01 12:00:00',1)`,
		// host a: 10 values, 5 ≤ 1, 3 in (1,5], 1 in (5,10], 1 above; host b:
		// 10 values, 8 in (5,10], 2 above.
		`INSERT INTO charts_ddh.otel_metrics_histogram VALUES
		  ({'host.name':'a'},'shop','http.server.duration',{},'2026-11-01 12:00:10',10,30,[5,3,1,1],[1,5,10],0.5,20),
		  ({'host.name':'b'},'shop','http.server.duration',{},'2026-11-01 12:00:20',10,100,[0,0,8,2],[1,5,10],6,50)`,
		// Scale 0 (base 2): 1 zero, (1,2] 1, (2,4] 2, (4,8] 1, and 2 in
		// [-2,-1); scale 1 (base √2), offset 2: 4 in (2, 2√2].
		`INSERT INTO charts_ddh.otel_metrics_exponential_histogram VALUES
		  ({'host.name':'a'},'','trace.sketch',{},'2026-11-01 12:00:00',7,12,0,1,0,[1,2,1],0,[2],-2,8),
		  ({'host.name':'a'},'','fine.sketch',{},'2026-11-01 12:00:00',4,10,1,0,2,[4],0,[],2.1,2.8)`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	src := query.Source{
		Database: "charts_ddh", Table: "otel_metrics_gauge", TimestampColumn: "TimeUnix", ServiceColumn: "ServiceName",
		AttributesMap: "Attributes", ResourceMap: "ResourceAttributes", MetricType: "gauge",
	}
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	run := func(q string) (map[string]float64, error) {
		points, err := Run(ctx, db, []Series{{Source: src, Query: q}}, start, start.Add(time.Minute), time.Minute, time.Minute)
		out := map[string]float64{}
		for _, p := range points {
			if p.Values[0] != nil {
				out[strings.Join(p.Group, ",")] = math.Round(*p.Values[0]*1e4) / 1e4
			}
		}
		return out, err
	}
	for _, tc := range []struct {
		query string
		want  map[string]float64
	}{
		// Merged: 5 ≤ 1, 3 ≤ 5, 9 ≤ 10, 3 above; the 10th of 20 is ≤ 10.
		{"p50:http.server.duration{*}", map[string]float64{"": 10}},
		{"p50:http.server.duration{*} by {host}", map[string]float64{"a": 1, "b": 10}},
		{"p75:http.server.duration{host:a}", map[string]float64{"": 5}},
		{"p90:http.server.duration{host:a}", map[string]float64{"": 10}},
		{"p99:http.server.duration{host:a}", map[string]float64{"": 10}}, // above the last bound: the last bound
		{"avg:http.server.duration{*}", map[string]float64{"": 6.5}},
		{"avg:http.server.duration{*} by {host}", map[string]float64{"a": 3, "b": 10}},
		{"sum:http.server.duration{*}", map[string]float64{"": 130}},
		{"min:http.server.duration{*}", map[string]float64{"": 0.5}},
		{"max:http.server.duration{*}", map[string]float64{"": 50}},
		// Sorted: -1 (2), 0 (1), 2 (1), 4 (2), 8 (1); the 3.5th of 7 is ≤ 2.
		{"p50:trace.sketch{*}", map[string]float64{"": 2}},
		{"p95:trace.sketch{*}", map[string]float64{"": 8}},
		{"p99:trace.sketch{*} by {host}", map[string]float64{"a": 8}},
		{"avg:trace.sketch{*}", map[string]float64{"": 1.7143}},
		{"p50:fine.sketch{*}", map[string]float64{"": math.Round(2*math.Sqrt2*1e4) / 1e4}},
		{"p50:no.such.metric{*}", map[string]float64{}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got, err := run(tc.query)
			require.NoError(t, err, tc.query)
			assert.Equal(t, tc.want, got, tc.query)
		})
	}
	for q, why := range map[string]string{
		"p95:system.cpu.user{*}": "percentiles read histogram metrics",
		"p42:trace.sketch{*}":    "must be one of avg, sum, min, max, p50",
	} {
		_, err := run(q)
		require.Error(t, err, q)
		assert.Contains(t, err.Error(), why, q)
	}
}

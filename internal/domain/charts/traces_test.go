package charts

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

type spanRow struct {
	ts       time.Time
	service  string
	name     string
	duration int64 // ns
	status   string
}

// seedSpans writes 480 spans over 8 minutes into a table shaped like the
// exporter's otel_traces.
func seedSpans(t *testing.T) ([]spanRow, query.Source) {
	t.Helper()
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_test",
		`CREATE TABLE IF NOT EXISTS charts_test.otel_traces (Timestamp DateTime64(9), TraceId String, SpanId String,
			SpanName LowCardinality(String), ServiceName LowCardinality(String), Duration UInt64, StatusCode LowCardinality(String),
			SpanAttributes Map(LowCardinality(String), String), ResourceAttributes Map(LowCardinality(String), String))
			ENGINE = MergeTree ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))`,
		"TRUNCATE TABLE charts_test.otel_traces",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	r := rand.New(rand.NewPCG(21, 22))
	var rows []spanRow
	var sb strings.Builder
	for i := 0; i < 480; i++ {
		row := spanRow{
			ts:       t0.Add(time.Duration(i) * time.Second),
			service:  []string{"web", "db"}[r.IntN(2)],
			name:     []string{"GET /users", "SELECT users", "POST /checkout"}[r.IntN(3)],
			duration: int64(1+r.IntN(5000)) * int64(time.Microsecond),
			status:   []string{"Ok", "Ok", "Ok", "Error"}[r.IntN(4)],
		}
		rows = append(rows, row)
		b, _ := json.Marshal(map[string]any{
			"Timestamp": row.ts.Format("2006-01-02 15:04:05.000000000"), "TraceId": fmt.Sprintf("%032x", i),
			"SpanId": fmt.Sprintf("%016x", i), "SpanName": row.name, "ServiceName": row.service, "Duration": row.duration,
			"StatusCode": row.status, "SpanAttributes": map[string]string{"http.route": row.name},
		})
		sb.Write(b)
		sb.WriteByte('\n')
	}
	insertJSON(t, "charts_test.otel_traces (Timestamp,TraceId,SpanId,SpanName,ServiceName,Duration,StatusCode,SpanAttributes)", sb.String())
	// The shape of the default traces source.
	return rows, query.Source{
		Database: "charts_test", Table: "otel_traces", TimestampColumn: "Timestamp", BodyColumn: "SpanName",
		ServiceColumn: "ServiceName", Duration: "Duration", AttributesMap: "SpanAttributes", ResourceMap: "ResourceAttributes",
	}
}

// interpolated is the quantile of the engine's quantile() while every
// value fits its reservoir: linear interpolation at level·(n-1).
func interpolated(vs []float64, level float64) float64 {
	slices.Sort(vs)
	pos := level * float64(len(vs)-1)
	lo := int(pos)
	if lo+1 >= len(vs) {
		return vs[lo]
	}
	return vs[lo] + (pos-float64(lo))*(vs[lo+1]-vs[lo])
}

func TestTraceChartsAgainstIndependentCounts(t *testing.T) {
	rows, src := seedSpans(t)
	db := chtest.DB(t)
	durations := func(rs []spanRow) []float64 {
		var out []float64
		for _, r := range rs {
			out = append(out, float64(r.duration))
		}
		return out
	}
	cases := []struct {
		name  string
		s     Series
		keep  func(spanRow) bool
		group func(spanRow) string
		value func([]spanRow) float64
	}{
		{
			"bare term in span name",
			Series{AggFn: "count", Where: "users"},
			func(r spanRow) bool { return strings.Contains(r.name, "users") }, nil, func(rs []spanRow) float64 { return float64(len(rs)) },
		},
		{
			"p95 duration by service",
			Series{AggFn: "quantile", Level: 0.95, Field: "duration", GroupBy: []string{"service"}},
			nil, func(r spanRow) string { return r.service }, func(rs []spanRow) float64 { return interpolated(durations(rs), 0.95) },
		},
		{
			"p50 duration of errors",
			Series{AggFn: "quantile", Level: 0.5, Field: "Duration", Where: "StatusCode:Error"},
			func(r spanRow) bool { return r.status == "Error" }, nil, func(rs []spanRow) float64 { return interpolated(durations(rs), 0.5) },
		},
		{
			"avg duration by span name",
			Series{AggFn: "avg", Field: "duration", GroupBy: []string{"SpanName"}},
			nil, func(r spanRow) string { return r.name }, func(rs []spanRow) float64 {
				var s float64
				for _, r := range rs {
					s += float64(r.duration)
				}
				return s / float64(len(rs))
			},
		},
		{
			"min over an attribute filter",
			Series{AggFn: "min", Field: "duration", Where: `Attr.http.route:"POST /checkout"`},
			func(r spanRow) bool { return r.name == "POST /checkout" }, nil, func(rs []spanRow) float64 { return slices.Min(durations(rs)) },
		},
		{
			"last_value",
			Series{AggFn: "last_value", Field: "duration", Where: "service:db"},
			func(r spanRow) bool { return r.service == "db" }, nil, func(rs []spanRow) float64 { return float64(rs[len(rs)-1].duration) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Source = src
			points, err := Run(context.Background(), db, []Series{s}, t0, t0.Add(8*time.Minute), time.Minute, time.Minute)
			require.NoError(t, err)
			byKey := map[string][]spanRow{}
			for _, r := range rows {
				if tc.keep == nil || tc.keep(r) {
					g := ""
					if tc.group != nil {
						g = tc.group(r)
					}
					k := fmt.Sprintf("%d|%s", r.ts.Truncate(time.Minute).UnixMilli(), g)
					byKey[k] = append(byKey[k], r)
				}
			}
			seen := 0
			for _, p := range points {
				k := fmt.Sprintf("%d|%s", p.Bucket, strings.Join(p.Group, ","))
				rs := byKey[k]
				if len(rs) == 0 {
					continue
				}
				seen++
				require.NotNil(t, p.Values[0], k)
				assert.InDelta(t, tc.value(rs), *p.Values[0], 1e-6, k)
			}
			assert.Equal(t, len(byKey), seen, "every bucket and group with data is returned")
		})
	}
}

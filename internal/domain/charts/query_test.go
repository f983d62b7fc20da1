package charts

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

type logRow struct {
	ts       time.Time
	service  string
	level    string
	body     string
	team     string
	latency  int
	resource string
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// seed writes 600 logs over 10 minutes into a table shaped like the
// exporter's otel_logs, and returns them for independent counting.
func seed(t *testing.T, db *sql.DB) ([]logRow, query.Source) {
	t.Helper()
	ctx := context.Background()
	_, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS charts_test")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS charts_test.otel_logs (
		Timestamp DateTime64(9), TimestampTime DateTime DEFAULT toDateTime(Timestamp), ServiceName LowCardinality(String),
		SeverityText LowCardinality(String), Body String, LogAttributes Map(LowCardinality(String), String),
		ResourceAttributes Map(LowCardinality(String), String)) ENGINE = MergeTree ORDER BY Timestamp`)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "TRUNCATE TABLE charts_test.otel_logs")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(11, 12))
	var rows []logRow
	var sb strings.Builder
	for i := 0; i < 600; i++ {
		row := logRow{
			ts:      t0.Add(time.Duration(i) * time.Second),
			service: []string{"api", "worker"}[r.IntN(2)],
			level:   []string{"info", "info", "warn", "error"}[r.IntN(4)],
			team:    []string{"x", "y", "z"}[r.IntN(3)],
			latency: 1 + r.IntN(1000),
		}
		row.body = fmt.Sprintf("request %d done", i)
		if i%7 == 0 {
			row.body = fmt.Sprintf("Request %d TIMEOUT after retry", i)
		}
		row.resource = "eu"
		if i%2 == 0 {
			row.resource = "us"
		}
		rows = append(rows, row)
		b, _ := json.Marshal(map[string]any{
			"Timestamp": row.ts.Format("2006-01-02 15:04:05.000000000"), "ServiceName": row.service,
			"SeverityText": row.level, "Body": row.body, "LogAttributes": map[string]string{"team": row.team, "latency": fmt.Sprint(row.latency)},
			"ResourceAttributes": map[string]string{"region": row.resource},
		})
		sb.Write(b)
		sb.WriteByte('\n')
	}
	insertJSON(t, "charts_test.otel_logs (Timestamp,ServiceName,SeverityText,Body,LogAttributes,ResourceAttributes)", sb.String())
	return rows, query.Source{
		Database: "charts_test", Table: "otel_logs", TimestampColumn: "TimestampTime", BodyColumn: "Body",
		ServiceColumn: "ServiceName", SeverityColumn: "SeverityText", AttributesMap: "LogAttributes", ResourceMap: "ResourceAttributes",
	}
}

// insertJSON posts JSONEachRow lines over the HTTP interface, as the
// exporter does.
func insertJSON(t *testing.T, into, lines string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+chtest.Endpoint(t)+"/?query="+
		url.QueryEscape("INSERT INTO "+into+" FORMAT JSONEachRow"), strings.NewReader(lines))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// expect counts rows per minute bucket (and group) in Go.
func expect(rows []logRow, keep func(logRow) bool, group func(logRow) string, value func([]logRow) float64) map[string]float64 {
	byKey := map[string][]logRow{}
	for _, r := range rows {
		if keep(r) {
			k := fmt.Sprintf("%d|%s", r.ts.Truncate(time.Minute).UnixMilli(), group(r))
			byKey[k] = append(byKey[k], r)
		}
	}
	out := map[string]float64{}
	for k, rs := range byKey {
		out[k] = value(rs)
	}
	return out
}

func count(rs []logRow) float64 { return float64(len(rs)) }

func TestChartsAgainstIndependentCounts(t *testing.T) {
	db := chtest.DB(t)
	rows, src := seed(t, db)
	all := func(logRow) bool { return true }
	none := func(logRow) string { return "" }
	cases := []struct {
		name    string
		s       Series
		keep    func(logRow) bool
		group   func(logRow) string
		value   func([]logRow) float64
		nullGap bool
	}{
		{"count", Series{AggFn: "count"}, all, none, count, false},
		{"field:value", Series{AggFn: "count", Where: "level:error"}, func(r logRow) bool { return r.level == "error" }, none, count, false},
		{
			"NOT and OR",
			Series{AggFn: "count", Where: "-level:info AND (service:api OR Attr.team:z)"},
			func(r logRow) bool { return r.level != "info" && (r.service == "api" || r.team == "z") }, none, count, false,
		},
		{
			"group by",
			Series{AggFn: "count", Where: "level:warn", GroupBy: []string{"service"}},
			func(r logRow) bool { return r.level == "warn" }, func(r logRow) string { return r.service }, count, false,
		},
		{"bare term", Series{AggFn: "count", Where: "timeout"}, func(r logRow) bool { return strings.Contains(strings.ToLower(r.body), "timeout") }, none, count, false},
		{"phrase", Series{AggFn: "count", Where: `body:"request 7 done"`}, func(r logRow) bool { return r.body == "request 7 done" }, none, count, false},
		{"wildcard", Series{AggFn: "count", Where: "service:wor*"}, func(r logRow) bool { return r.service == "worker" }, none, count, false},
		{"range", Series{AggFn: "count", Where: "Attr.latency:[100 TO 200]"}, func(r logRow) bool { return r.latency >= 100 && r.latency <= 200 }, none, count, false},
		{"negated range", Series{AggFn: "count", Where: "-Attr.latency:[100 TO 200]"}, func(r logRow) bool { return r.latency < 100 || r.latency > 200 }, none, count, false},
		{"comparison", Series{AggFn: "count", Where: "Attr.latency:>900"}, func(r logRow) bool { return r.latency > 900 }, none, count, false},
		{"resource map", Series{AggFn: "count", Where: "Resource.region:us"}, func(r logRow) bool { return r.resource == "us" }, none, count, false},
		{"bare key in the record attributes", Series{AggFn: "count", Where: "team:z"}, func(r logRow) bool { return r.team == "z" }, none, count, false},
		{"bare key falls back to the resource", Series{AggFn: "count", Where: "region:us"}, func(r logRow) bool { return r.resource == "us" }, none, count, false},
		{"negated fallback", Series{AggFn: "count", Where: "-region:us"}, func(r logRow) bool { return r.resource != "us" }, none, count, false},
		{"fallback wildcard and presence", Series{AggFn: "count", Where: "region:e* AND region:*"}, func(r logRow) bool { return r.resource == "eu" }, none, count, false},
		{"group by a fallback key", Series{AggFn: "count", GroupBy: []string{"region"}}, all, func(r logRow) string { return r.resource }, count, false},
		{"sum", Series{AggFn: "sum", Field: "Attr.latency"}, all, none, func(rs []logRow) float64 {
			var s float64
			for _, r := range rs {
				s += float64(r.latency)
			}
			return s
		}, false},
		{"max", Series{AggFn: "max", Field: "Attr.latency", Where: "level:error"}, func(r logRow) bool { return r.level == "error" }, none, func(rs []logRow) float64 {
			m := 0.0
			for _, r := range rs {
				m = max(m, float64(r.latency))
			}
			return m
		}, true},
		{
			"count_distinct",
			Series{AggFn: "count_distinct", Field: "Attr.team", GroupBy: []string{"service"}},
			all,
			func(r logRow) string { return r.service }, func(rs []logRow) float64 {
				seen := map[string]bool{}
				for _, r := range rs {
					seen[r.team] = true
				}
				return float64(len(seen))
			}, false,
		},
		{
			"sql where",
			Series{AggFn: "count", WhereLanguage: "sql", Where: "SeverityText = 'error' AND ServiceName = 'api'"},
			func(r logRow) bool { return r.level == "error" && r.service == "api" }, none, count, false,
		},
	}
	start, end := t0.Add(-2*time.Minute), t0.Add(12*time.Minute)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Source = src
			points, err := Run(context.Background(), db, []Series{s}, start, end, time.Minute, time.Minute)
			require.NoError(t, err)
			want := expect(rows, tc.keep, tc.group, tc.value)
			buckets := map[int64]bool{}
			for _, p := range points {
				buckets[p.Bucket] = true
				k := fmt.Sprintf("%d|%s", p.Bucket, strings.Join(p.Group, ","))
				w, ok := want[k]
				if !ok {
					if tc.nullGap {
						assert.Nil(t, p.Values[0], "empty bucket %s is null", k)
					} else {
						assert.Equal(t, 0.0, *p.Values[0], "empty bucket %s is 0", k)
					}
					continue
				}
				require.NotNil(t, p.Values[0], k)
				assert.InDelta(t, w, *p.Values[0], 1e-9, k)
				delete(want, k)
			}
			assert.Empty(t, want, "every expected bucket is returned")
			assert.Len(t, buckets, 14, "every bucket of the range is present")
		})
	}
}

func TestTwoSeriesShareBuckets(t *testing.T) {
	db := chtest.DB(t)
	_, src := seed(t, db)
	points, err := Run(context.Background(), db, []Series{
		{Source: src, AggFn: "count"}, {Source: src, AggFn: "avg", Field: "Attr.latency", Where: "level:error"},
	}, t0, t0.Add(10*time.Minute), 5*time.Minute, time.Minute)
	require.NoError(t, err)
	require.Len(t, points, 2)
	assert.Equal(t, 300.0, *points[0].Values[0])
	assert.NotNil(t, points[0].Values[1])
}

// Grouped by a value with many distinct values, the filled answer is
// buckets × groups points: bounded, and refused past the bound rather
// than built in memory (a trace id over a day would be billions).
func TestAnswerIsBounded(t *testing.T) {
	db := chtest.DB(t)
	_, src := seed(t, db) // 600 distinct bodies
	run := func(buckets int, groupBy string) ([]Point, error) {
		return Run(context.Background(), db, []Series{{Source: src, AggFn: "count", GroupBy: []string{groupBy}}},
			t0, t0.Add(time.Duration(buckets)*30*time.Second), 30*time.Second, time.Minute)
	}
	points, err := run(333, "body")
	require.NoError(t, err)
	assert.Len(t, points, 333*600, "199,800 points: under MaxPoints")

	_, err = run(334, "body")
	var qe query.Error
	require.ErrorAs(t, err, &qe, "200,400 points: a request to narrow, a 400")
	assert.Contains(t, err.Error(), "more than 200000 points (334 buckets")

	points, err = run(334, "service")
	require.NoError(t, err)
	assert.Len(t, points, 334*2)
}

func TestChartErrors(t *testing.T) {
	db := chtest.DB(t)
	_, src := seed(t, db)
	for name, s := range map[string]Series{
		"unknown agg":      {AggFn: "median", Field: "Attr.latency"},
		"missing field":    {AggFn: "avg"},
		"bad lucene":       {AggFn: "count", Where: "(level:error"},
		"sql subquery":     {AggFn: "count", WhereLanguage: "sql", Where: "1 IN (SELECT 1)"},
		"sql settings":     {AggFn: "count", WhereLanguage: "sql", Where: "1) SETTINGS max_threads = 1 --"},
		"quantile level":   {AggFn: "quantile", Field: "Attr.latency", Level: 2},
		"unknown language": {AggFn: "count", WhereLanguage: "kql"},
	} {
		s.Source = src
		_, err := Run(context.Background(), db, []Series{s}, t0, t0.Add(time.Minute), time.Minute, time.Minute)
		require.Error(t, err, name)
	}
	// A condition the engine cannot run is the caller's to fix (the API's
	// 400), not a server failure (502).
	for _, w := range []string{"Body = ", "Body = 1", "lower(Body, Body) = 'x'", "length(Body) > 'a'", "toUInt8(Body) = 1"} {
		_, err := Run(context.Background(), db, []Series{{Source: src, AggFn: "count", WhereLanguage: "sql", Where: w}},
			t0, t0.Add(time.Minute), time.Minute, time.Minute)
		var qe query.Error
		require.ErrorAs(t, err, &qe, w)
	}
	// Injection attempts through values only ever match nothing.
	points, err := Run(context.Background(), db, []Series{{Source: src, AggFn: "count", Where: `level:"x' OR '1'='1"`}},
		t0, t0.Add(time.Minute), time.Minute, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 0.0, *points[0].Values[0])
	_, err = Bucket("3m", t0, t0)
	require.Error(t, err)
	d, err := Bucket("auto", t0, t0.Add(24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 15*time.Minute, d)
}

// TestUserQueriesAreReadOnly: the engine itself refuses a write or a DDL
// statement run with the settings of queries that carry a user's text,
// and the sessions that served them still write afterwards.
func TestUserQueriesAreReadOnly(t *testing.T) {
	db := chtest.DB(t)
	chtest.FreshDatabase(t, "ro")
	_, err := db.Exec("CREATE DATABASE ro")
	require.NoError(t, err)
	_, err = db.Exec("CREATE TABLE ro.t (x UInt8) ENGINE = MergeTree ORDER BY x")
	require.NoError(t, err)
	ro := clickhouse.Context(context.Background(), clickhouse.WithSettings(query.UserQuerySettings(time.Minute)))
	for _, stmt := range []string{
		"INSERT INTO ro.t SELECT 1", "CREATE TABLE ro.u (x UInt8) ENGINE = Memory", "DROP TABLE ro.t",
		"SELECT 1 SETTINGS readonly = 0",
	} {
		_, err := db.ExecContext(ro, stmt)
		require.ErrorContains(t, err, "readonly", stmt)
	}
	for range 8 { // more than the engine's sessions
		_, err = db.Exec("INSERT INTO ro.t SELECT 1")
		require.NoError(t, err)
		rows, err := db.QueryContext(ro, "SELECT count() FROM ro.t")
		require.NoError(t, err)
		require.NoError(t, rows.Close())
	}
	var n uint64
	require.NoError(t, db.QueryRow("SELECT count() FROM ro.t").Scan(&n))
	assert.Equal(t, uint64(8), n)
}

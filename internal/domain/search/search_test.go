package search

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func logsScope(t *testing.T, db *sql.DB) *query.Scope {
	t.Helper()
	ctx := context.Background()
	chtest.FreshDatabase(t, "search_test")
	_, err := db.ExecContext(ctx, "CREATE DATABASE search_test")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE search_test.otel_logs (
		Timestamp DateTime64(9), ServiceName LowCardinality(String), SeverityText LowCardinality(String), Body String,
		TraceId String, LogAttributes Map(LowCardinality(String), String), ResourceAttributes Map(LowCardinality(String), String))
		ENGINE = MergeTree ORDER BY (ServiceName, Timestamp)`)
	require.NoError(t, err)
	// 250 logs a second apart; every tenth shares its timestamp with the
	// next, so pages must split ties without losing or repeating a row.
	var vals []string
	for i := 0; i < 250; i++ {
		ts := t0.Add(time.Duration(i/2*2) * time.Second)
		if i%10 != 0 {
			ts = t0.Add(time.Duration(i) * time.Second)
		}
		svc := []string{"api", "worker"}[i%2]
		lvl := []string{"info", "error"}[i%3/2]
		vals = append(vals, fmt.Sprintf("(%d, '%s', '%s', 'event %d', '%032x', map('n', '%d'), map('host.name', 'h%d'))",
			ts.UnixNano(), svc, lvl, i, i%5, i, i%3))
	}
	_, err = db.ExecContext(ctx, "INSERT INTO search_test.otel_logs VALUES "+strings.Join(vals, ","))
	require.NoError(t, err)
	sc, err := query.OpenScope(ctx, db, query.Source{
		Database: "search_test", Table: "otel_logs", TimestampColumn: "Timestamp",
		BodyColumn: "Body", ServiceColumn: "ServiceName", SeverityColumn: "SeverityText", AttributesMap: "LogAttributes", ResourceMap: "ResourceAttributes",
	})
	require.NoError(t, err)
	return sc
}

// Paging newest first through every matching row, with ties at page
// edges, returns each row once and in order, with the same where
// semantics as charts.
func TestSearchPagesEveryRowOnce(t *testing.T) {
	db := chtest.DB(t)
	sc := logsScope(t, db)
	ctx := context.Background()
	for _, tc := range []struct {
		where, lang string
		want        func(i int) bool
	}{
		{"", "", func(int) bool { return true }},
		{"service:api", "lucene", func(i int) bool { return i%2 == 0 }},
		{"level:error -service:worker", "lucene", func(i int) bool { return i%3 == 2 && i%2 == 0 }},
		{"Resource.host.name:h1", "lucene", func(i int) bool { return i%3 == 1 }},
		// HyperDX's column-dot-key form, and severity without regard to case.
		{"ResourceAttributes.host.name:h1 LogAttributes.n:31", "lucene", func(i int) bool { return i == 31 }},
		{"level:ERROR service:api", "lucene", func(i int) bool { return i%3 == 2 && i%2 == 0 }},
		{"SeverityText:Error", "lucene", func(i int) bool { return i%3 == 2 }},
		{"LogAttributes['n'] IN ('3', '30', '31')", "sql", func(i int) bool { return i == 3 || i == 30 || i == 31 }},
	} {
		t.Run(tc.lang+" "+tc.where, func(t *testing.T) {
			var seen []int
			last := int64(1<<63 - 1)
			cursor := ""
			for pages := 0; pages < 100; pages++ {
				p, err := Search(ctx, db, sc, Request{Start: t0, End: t0.Add(time.Hour), Where: tc.where, WhereLanguage: tc.lang, Limit: 7, Cursor: cursor}, time.Minute)
				require.NoError(t, err, tc.where)
				for _, r := range p.Rows {
					n, _ := strconv.Atoi(strings.TrimPrefix(r["Body"].(string), "event "))
					seen = append(seen, n)
					ns, err := strconv.ParseInt(r["__ts_ns"].(string), 10, 64)
					require.NoError(t, err)
					assert.LessOrEqual(t, ns, last, "newest first")
					last = ns
					assert.IsType(t, map[string]string{}, r["LogAttributes"])
				}
				if cursor = p.NextCursor; cursor == "" {
					break
				}
			}
			var want []int
			for i := 249; i >= 0; i-- {
				if tc.want(i) {
					want = append(want, i)
				}
			}
			assert.ElementsMatch(t, want, seen, tc.where)
			assert.Len(t, seen, len(want), "%s: no row twice", tc.where)
		})
	}
}

func TestSearchRefusesWhatItCannotRun(t *testing.T) {
	db := chtest.DB(t)
	sc := logsScope(t, db)
	ctx := context.Background()
	for _, req := range []Request{
		{Start: t0.Add(time.Hour), End: t0},
		{Start: t0, End: t0.Add(time.Hour), Limit: MaxRows + 1},
		{Start: t0, End: t0.Add(time.Hour), Where: "nosuchfield:x AND"},
		{Start: t0, End: t0.Add(time.Hour), Where: "1 = 1; DROP TABLE x", WhereLanguage: "sql"},
		{Start: t0, End: t0.Add(time.Hour), Cursor: "not-a-cursor"},
	} {
		_, err := Search(ctx, db, sc, req, time.Minute)
		var qe query.Error
		assert.ErrorAs(t, err, &qe, "%+v", req)
	}
}

func TestTraceAndItsLogs(t *testing.T) {
	db := chtest.DB(t)
	logs := logsScope(t, db)
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `CREATE TABLE search_test.otel_traces (
		Timestamp DateTime64(9), TraceId String, SpanId String, ParentSpanId String, SpanName LowCardinality(String),
		ServiceName LowCardinality(String), Duration UInt64, StatusCode LowCardinality(String),
		SpanAttributes Map(LowCardinality(String), String), ResourceAttributes Map(LowCardinality(String), String),
		`+"`Events.Timestamp`"+` Array(DateTime64(9)), `+"`Events.Name`"+` Array(LowCardinality(String)),
		`+"`Events.Attributes`"+` Array(Map(LowCardinality(String), String)))
		ENGINE = MergeTree ORDER BY (ServiceName, Timestamp)`)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE search_test.otel_traces_trace_id_ts (TraceId String, Start DateTime, End DateTime)
		ENGINE = MergeTree ORDER BY (TraceId, Start)`)
	require.NoError(t, err)
	id := fmt.Sprintf("%032x", 3)
	_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO search_test.otel_traces VALUES
		(%[1]d, '%[2]s', 'a', '', 'GET /', 'front', 5000000, 'Error', map('http.route', '/'), map(), [%[1]d], ['exception'], [map('exception.message', 'boom')]),
		(%[3]d, '%[2]s', 'b', 'a', 'SELECT', 'db', 1000000, 'Unset', map(), map(), [], [], []),
		(%[3]d, '%[4]s', 'c', '', 'other trace', 'front', 1, 'Unset', map(), map(), [], [], [])`,
		t0.Add(3*time.Second).UnixNano(), id, t0.Add(3*time.Second+time.Millisecond).UnixNano(), fmt.Sprintf("%032x", 4)))
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO search_test.otel_traces_trace_id_ts VALUES ('%s', %d, %d)`, id, t0.Add(3*time.Second).Unix(), t0.Add(3*time.Second).Unix()))
	require.NoError(t, err)
	spans, err := query.OpenScope(ctx, db, query.Source{
		Database: "search_test", Table: "otel_traces", TimestampColumn: "Timestamp",
		BodyColumn: "SpanName", ServiceColumn: "ServiceName", Duration: "Duration",
	})
	require.NoError(t, err)

	tr, err := GetTrace(ctx, db, spans, TraceRequest{TraceID: strings.ToUpper(id), TraceColumn: "TraceId", LogTraceColumn: "TraceId", Logs: logs}, time.Minute)
	require.NoError(t, err)
	require.Len(t, tr.Spans, 2)
	assert.Equal(t, "a", tr.Spans[0]["SpanId"], "oldest first")
	assert.Equal(t, []string{"exception"}, tr.Spans[0]["Events.Name"])
	assert.Equal(t, []map[string]string{{"exception.message": "boom"}}, tr.Spans[0]["Events.Attributes"])
	// Logs 3, 8, 13, … carry trace id 3; those within an hour of the trace.
	require.NotEmpty(t, tr.Logs)
	for _, l := range tr.Logs {
		assert.Equal(t, id, l["TraceId"])
	}

	_, err = GetTrace(ctx, db, spans, TraceRequest{TraceID: fmt.Sprintf("%032x", 99), TraceColumn: "TraceId"}, time.Minute)
	require.ErrorIs(t, err, ErrNoTrace)
	_, err = GetTrace(ctx, db, spans, TraceRequest{TraceID: "' OR 1=1 --", TraceColumn: "TraceId"}, time.Minute)
	require.ErrorAs(t, err, new(query.Error))

	f, err := Fields(ctx, db, logs, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{"n"}, f.Attributes)
	assert.Equal(t, []string{"host.name"}, f.Resource)
	assert.Contains(t, f.Columns, Column{Name: "Body", Type: "String"})
}

// Services counts requests, not spans: a service's entry spans (server
// or consumer kind, or a root), never the database or client calls made
// while serving one, with a row per operation (issue 42.4).
func TestServicesCountEntrySpans(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	chtest.FreshDatabase(t, "services_test")
	_, err := db.ExecContext(ctx, "CREATE DATABASE services_test")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE services_test.otel_traces (
		Timestamp DateTime64(9), TraceId String, SpanId String, ParentSpanId String, SpanName LowCardinality(String),
		SpanKind LowCardinality(String), ServiceName LowCardinality(String), Duration UInt64, StatusCode LowCardinality(String))
		ENGINE = MergeTree ORDER BY (ServiceName, Timestamp)`)
	require.NoError(t, err)
	// Ten checkout requests, each calling payments (server span, 2 of 10
	// failing) and its database (a client span, which fails too, and an
	// internal span); payments also consumes 5 queue messages.
	var vals []string
	ts := t0.Add(time.Second).UnixNano()
	for i := 0; i < 10; i++ {
		tr := fmt.Sprintf("%032x", i+1)
		failed := map[bool]string{true: "Error", false: "Unset"}[i < 2]
		vals = append(vals,
			fmt.Sprintf("(%d, '%s', 'a%d', '', 'POST /checkout', 'Server', 'checkout', 9000000, 'Unset')", ts, tr, i),
			fmt.Sprintf("(%d, '%s', 'b%d', 'a%d', 'charge', 'Client', 'checkout', 8000000, '%s')", ts, tr, i, i, failed),
			fmt.Sprintf("(%d, '%s', 'c%d', 'b%d', 'payments.charge', 'Server', 'payments', 7000000, '%s')", ts, tr, i, i, failed),
			fmt.Sprintf("(%d, '%s', 'd%d', 'c%d', 'INSERT charges', 'Client', 'payments', 1000000, '%s')", ts, tr, i, i, failed),
			fmt.Sprintf("(%d, '%s', 'e%d', 'c%d', 'validate', 'Internal', 'payments', 10000, 'Unset')", ts, tr, i, i))
	}
	for i := 0; i < 5; i++ {
		vals = append(vals, fmt.Sprintf("(%d, '%032x', 'q%d', 'p%d', 'refund', 'SPAN_KIND_CONSUMER', 'payments', 500000, 'Unset')", ts, 100+i, i, i))
	}
	_, err = db.ExecContext(ctx, "INSERT INTO services_test.otel_traces VALUES "+strings.Join(vals, ","))
	require.NoError(t, err)
	sc, err := query.OpenScope(ctx, db, query.Source{
		Database: "services_test", Table: "otel_traces", TimestampColumn: "Timestamp",
		BodyColumn: "SpanName", ServiceColumn: "ServiceName", Duration: "Duration",
	})
	require.NoError(t, err)
	cols := ServiceColumns{Service: "ServiceName", Duration: "Duration", Status: "StatusCode", Name: "SpanName", Kind: "SpanKind", Parent: "ParentSpanId"}
	svcs, err := Services(ctx, db, sc, cols, t0, t0.Add(time.Hour), time.Minute)
	require.NoError(t, err)
	require.Len(t, svcs, 2)
	byName := map[string]map[string]any{}
	for _, s := range svcs {
		byName[s["service"].(string)] = s
	}
	assert.EqualValues(t, 15, byName["payments"]["requests"], "10 charges and 5 messages; not the database calls")
	assert.EqualValues(t, 2, byName["payments"]["errors"])
	assert.EqualValues(t, 10, byName["checkout"]["requests"])
	assert.EqualValues(t, 0, byName["checkout"]["errors"], "its failed client call is payments' error, not a failed checkout")
	ops := byName["payments"]["operations"].([]map[string]any)
	require.Len(t, ops, 2)
	assert.Equal(t, "payments.charge", ops[0]["operation"])
	assert.EqualValues(t, 10, ops[0]["requests"])
	assert.EqualValues(t, 2, ops[0]["errors"])
	assert.EqualValues(t, 7000000, ops[0]["p50"])
	assert.Equal(t, "refund", ops[1]["operation"])

	// Without a kind column, a trace's roots are its requests.
	cols.Kind = ""
	svcs, err = Services(ctx, db, sc, cols, t0, t0.Add(time.Hour), time.Minute)
	require.NoError(t, err)
	require.Len(t, svcs, 1)
	assert.EqualValues(t, 10, svcs[0]["requests"])
}

// TestDurationsInTheSourcesUnit: a source whose Duration counts
// milliseconds (HyperDX's durationPrecision 3) answers its latencies and
// its traces' lengths in nanoseconds, as every other source does.
func TestDurationsInTheSourcesUnit(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	chtest.FreshDatabase(t, "duration_ms")
	_, err := db.ExecContext(ctx, "CREATE DATABASE duration_ms")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE duration_ms.spans (
		Timestamp DateTime64(9), TraceId String, SpanId String, ParentSpanId String, SpanName LowCardinality(String),
		ServiceName LowCardinality(String), DurationMs UInt64, StatusCode LowCardinality(String))
		ENGINE = MergeTree ORDER BY (ServiceName, Timestamp)`)
	require.NoError(t, err)
	ts := t0.Add(time.Second).UnixNano()
	_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO duration_ms.spans VALUES
		(%d, 't1', 'a', '', 'GET /', 'web', 250, 'Unset'), (%d, 't1', 'b', 'a', 'query', 'web', 40, 'Unset')`, ts, ts))
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		scale int64
		p50   float64 // nanoseconds
	}{
		{"nanoseconds", 0, 250},
		{"milliseconds", int64(time.Millisecond), 250e6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := query.OpenScope(ctx, db, query.Source{
				Database: "duration_ms", Table: "spans", TimestampColumn: "Timestamp",
				BodyColumn: "SpanName", ServiceColumn: "ServiceName", Duration: "DurationMs", DurationScale: tc.scale,
			})
			require.NoError(t, err)
			svcs, err := Services(ctx, db, sc, ServiceColumns{Service: "ServiceName", Duration: "DurationMs", Status: "StatusCode", Parent: "ParentSpanId"}, t0, t0.Add(time.Hour), time.Minute)
			require.NoError(t, err)
			require.Len(t, svcs, 1)
			assert.EqualValues(t, tc.p50, svcs[0]["p50"])
			page, err := TraceList(ctx, db, sc, TraceColumns{Trace: "TraceId", Parent: "ParentSpanId", Name: "SpanName", Service: "ServiceName", Duration: "DurationMs", Status: "StatusCode"},
				Request{Start: t0, End: t0.Add(time.Hour)}, time.Minute)
			require.NoError(t, err)
			require.Len(t, page.Traces, 1)
			// Both spans start together: the trace lasts its longest.
			assert.Equal(t, max(tc.scale, 1)*250, page.Traces[0].Duration)
		})
	}
}

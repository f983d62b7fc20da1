package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// POST /api/v2/search/traces: one row per trace with a span matching the
// where, summarised over all its spans (a match on a child still answers
// the root), newest first (by its newest matching span) and paged; with
// the exporter's lookup table beside the spans, and without it.
func TestTraceList(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS otel",
		"DROP TABLE IF EXISTS otel.tl_spans",
		"DROP TABLE IF EXISTS otel.tl_spans_trace_id_ts",
		"CREATE TABLE otel.tl_spans (Timestamp DateTime64(9), TraceId String, SpanId String, ParentSpanId String, ServiceName String," +
			" SpanName String, SpanKind String, Duration UInt64, StatusCode String, SpanAttributes Map(String, String)) ENGINE = MergeTree ORDER BY Timestamp",
		// t1: checkout → payments (failed) → db; t2: cart alone; t3: a
		// trace whose root is missing; a span without a trace id.
		"INSERT INTO otel.tl_spans VALUES" +
			" ('2026-11-01 12:00:10', 't1', 'a', '', 'checkout', 'POST /pay', 'Server', 300000000, 'Unset', {})," +
			" ('2026-11-01 12:00:10.010', 't1', 'b', 'a', 'payments', 'charge', 'Server', 250000000, 'Error', {'card':'visa'})," +
			" ('2026-11-01 12:00:10.020', 't1', 'c', 'b', 'payments', 'INSERT', 'Client', 400000000, 'Unset', {})," +
			" ('2026-11-01 12:00:20', 't2', 'd', '', 'cart', 'GET /cart', 'Server', 5000000, 'Unset', {})," +
			" ('2026-11-01 12:00:30', 't3', 'e', 'gone', 'search', 'query', 'Server', 1000000, 'Unset', {})," +
			" ('2026-11-01 12:00:40', '', 'f', '', 'search', 'orphan', 'Server', 1000000, 'Unset', {})," +
			// t4 starts before t5 but its last span is after t5's.
			" ('2026-11-01 12:10:00', 't4', 'g', '', 'batch', 'nightly', 'Server', 9000000000, 'Unset', {})," +
			" ('2026-11-01 12:10:08', 't4', 'h', 'g', 'batch', 'flush', 'Internal', 1000000, 'Unset', {})," +
			" ('2026-11-01 12:10:05', 't5', 'i', '', 'cart', 'GET /cart', 'Server', 1000000, 'Unset', {})",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "tl", "kind": "trace", "database": "otel",
		"table": "tl_spans", "timestampColumn": "Timestamp", "serviceColumn": "ServiceName", "durationColumn": "Duration", "bodyColumn": "SpanName",
		"traceIdColumn": "TraceId", "spanIdColumn": "SpanId", "parentSpanIdColumn": "ParentSpanId", "statusCodeColumn": "StatusCode", "attributesMap": "SpanAttributes",
	})
	require.Equal(t, http.StatusOK, src.status, src.body)
	id := item(src)["id"].(string)
	list := func(body map[string]any) resp {
		body["sourceId"] = id
		if body["startTime"] == nil {
			body["startTime"], body["endTime"] = "2026-11-01T12:00:00Z", "2026-11-01T12:05:00Z"
		}
		return call(t, http.MethodPost, fx.url+"/api/v2/search/traces", bearer(fx.keyA), body)
	}

	check := func(lookup string) {
		r := list(map[string]any{})
		require.Equal(t, http.StatusOK, r.status, r.body)
		rows := r.body["data"].([]any)
		require.Len(t, rows, 3, "%s: one row per trace, the span without a trace id left out", lookup)
		var ids []string
		for _, x := range rows {
			ids = append(ids, x.(map[string]any)["traceId"].(string))
		}
		assert.Equal(t, []string{"t3", "t2", "t1"}, ids, "%s: newest first", lookup)
		t3 := rows[0].(map[string]any)
		assert.Equal(t, "query", t3["rootName"], "a trace without its root: its first span")

		// A match on a child answers the whole trace.
		r = list(map[string]any{"where": "card:visa"})
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.Len(t, r.body["data"], 1)
		t1 := r.body["data"].([]any)[0].(map[string]any)
		assert.Equal(t, "t1", t1["traceId"])
		assert.Equal(t, "POST /pay", t1["rootName"], lookup)
		assert.Equal(t, "checkout", t1["rootService"])
		assert.EqualValues(t, 3, t1["spans"])
		assert.EqualValues(t, 1, t1["errors"])
		assert.EqualValues(t, 420000000, t1["duration"], "%s: from the first start to the last end (the db call outlives its parent)", lookup)
		assert.Equal(t, []any{"checkout", "payments"}, t1["services"])
		assert.Equal(t, "2026-11-01T12:00:10Z", t1["start"])

		// Paging: one trace a page, each once.
		var seen []string
		body := map[string]any{"maxResults": 1}
		for range 5 {
			r = list(body)
			require.Equal(t, http.StatusOK, r.status, r.body)
			for _, x := range r.body["data"].([]any) {
				seen = append(seen, x.(map[string]any)["traceId"].(string))
			}
			next, _ := r.body["nextCursor"].(string)
			if next == "" {
				break
			}
			body = map[string]any{"maxResults": 1, "cursor": next}
		}
		assert.Equal(t, []string{"t3", "t2", "t1"}, seen, lookup)

		// An hour whose newest minute holds the page: it is read from
		// that slice, and the next page from the rest.
		hour := map[string]any{"startTime": "2026-11-01T11:00:00Z", "endTime": "2026-11-01T12:00:31Z", "maxResults": 2}
		r = list(hour)
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.Len(t, r.body["data"], 2)
		assert.Equal(t, "t2", r.body["data"].([]any)[1].(map[string]any)["traceId"])
		hour = map[string]any{"startTime": "2026-11-01T11:00:00Z", "endTime": "2026-11-01T12:00:31Z", "maxResults": 2, "cursor": r.body["nextCursor"]}
		r = list(hour)
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.Len(t, r.body["data"], 1)
		assert.Equal(t, "t1", r.body["data"].([]any)[0].(map[string]any)["traceId"])
		assert.Nil(t, r.body["nextCursor"])

		// Rows are listed by the start they show, newest first, not by
		// their newest span.
		r = list(map[string]any{"startTime": "2026-11-01T12:09:00Z", "endTime": "2026-11-01T12:11:00Z"})
		require.Equal(t, http.StatusOK, r.status, r.body)
		var starts []string
		ids = nil
		for _, x := range r.body["data"].([]any) {
			ids = append(ids, x.(map[string]any)["traceId"].(string))
			starts = append(starts, x.(map[string]any)["start"].(string))
		}
		assert.Equal(t, []string{"t5", "t4"}, ids, "%s: by start", lookup)
		assert.Equal(t, []string{"2026-11-01T12:10:05Z", "2026-11-01T12:10:00Z"}, starts, lookup)
	}
	check("without a lookup table")
	for _, q := range []string{
		"CREATE TABLE otel.tl_spans_trace_id_ts (TraceId String, Start DateTime, End DateTime) ENGINE = MergeTree ORDER BY (TraceId, Start)",
		"INSERT INTO otel.tl_spans_trace_id_ts SELECT TraceId, min(Timestamp), max(Timestamp) FROM otel.tl_spans WHERE TraceId != '' GROUP BY TraceId",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	check("with the lookup table")

	r := list(map[string]any{"startTime": "2026-11-01T13:00:00Z", "endTime": "2026-11-01T14:00:00Z"})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Empty(t, r.body["data"], "no trace in the range")
	for msg, body := range map[string]map[string]any{
		"maxResults must be from 1 to 500":          {"maxResults": 501},
		"incomplete expression":                     {"where": "a AND"},
		"cursor is not one a trace list answered":   {"cursor": "x"},
		"the start of the range must be before its": {"startTime": "2026-11-01T12:05:00Z", "endTime": "2026-11-01T12:00:00Z"},
	} {
		r := list(body)
		assert.Equal(t, http.StatusBadRequest, r.status, msg)
		assert.Contains(t, r.body["message"], msg)
	}
	logs := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "tl logs", "kind": "log", "database": "otel",
		"table": "tl_spans", "timestampColumn": "Timestamp", "bodyColumn": "SpanName",
	})
	require.Equal(t, http.StatusOK, logs.status, logs.body)
	r = call(t, http.MethodPost, fx.url+"/api/v2/search/traces", bearer(fx.keyA), map[string]any{
		"sourceId":  item(logs)["id"],
		"startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z",
	})
	assert.Equal(t, http.StatusBadRequest, r.status, "a log source has no traces: %v", r.body)
}

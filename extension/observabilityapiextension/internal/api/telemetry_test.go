package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// The reads the UI's trace, services and search pages make, over REST: a
// trace with the logs carrying its id, services counting entry spans
// only, and the columns a picker offers.
func TestTraceServicesAndColumns(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS otel",
		"DROP TABLE IF EXISTS otel.api_spans",
		"CREATE TABLE otel.api_spans (Timestamp DateTime64(9), TraceId String, SpanId String, ParentSpanId String, ServiceName String," +
			" SpanName String, SpanKind String, Duration UInt64, StatusCode String, SpanAttributes Map(String, String)) ENGINE = MergeTree ORDER BY Timestamp",
		"INSERT INTO otel.api_spans VALUES ('2026-11-01 12:00:10', 'abc123', 's1', '', 'checkout', 'POST /pay', 'Server', 3000000, 'Error', {'http.route':'/pay'})," +
			" ('2026-11-01 12:00:10.001', 'abc123', 's2', 's1', 'checkout', 'SELECT', 'Client', 1000000, 'Unset', {})",
		"DROP TABLE IF EXISTS otel.api_span_logs",
		"CREATE TABLE otel.api_span_logs (Timestamp DateTime64(9), TraceId String, Body String) ENGINE = MergeTree ORDER BY Timestamp",
		"INSERT INTO otel.api_span_logs VALUES ('2026-11-01 12:00:10.002', 'abc123', 'card declined')",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	spans := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "spans", "kind": "trace", "database": "otel",
		"table": "api_spans", "timestampColumn": "Timestamp", "serviceColumn": "ServiceName", "durationColumn": "Duration", "bodyColumn": "SpanName",
		"traceIdColumn": "TraceId", "spanIdColumn": "SpanId", "parentSpanIdColumn": "ParentSpanId", "statusCodeColumn": "StatusCode", "attributesMap": "SpanAttributes",
	})
	require.Equal(t, http.StatusOK, spans.status, spans.body)
	logs := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "span logs", "kind": "log", "database": "otel",
		"table": "api_span_logs", "timestampColumn": "Timestamp", "bodyColumn": "Body", "traceIdColumn": "TraceId",
	})
	require.Equal(t, http.StatusOK, logs.status, logs.body)
	spansID, logsID := item(spans)["id"].(string), item(logs)["id"].(string)

	r := call(t, http.MethodGet, fx.url+"/api/v2/traces/abc123?sourceId="+spansID+"&logSourceId="+logsID, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	tr := r.body["data"].(map[string]any)
	assert.Len(t, tr["spans"], 2)
	require.Len(t, tr["logs"], 1)
	assert.Equal(t, "card declined", tr["logs"].([]any)[0].(map[string]any)["Body"])
	r = call(t, http.MethodGet, fx.url+"/api/v2/traces/ffff?sourceId="+spansID, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusNotFound, r.status, r.body)
	r = call(t, http.MethodGet, fx.url+"/api/v2/traces/not-hex?sourceId="+spansID, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	r = call(t, http.MethodGet, fx.url+"/api/v2/traces/abc123?sourceId="+logsID, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusBadRequest, r.status, "a log source is no trace source: %v", r.body)

	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	rng := fmt.Sprintf("startTime=%d&endTime=%d", m0.UnixMilli(), m0.Add(time.Minute).UnixMilli())
	r = call(t, http.MethodGet, fx.url+"/api/v2/services?sourceId="+spansID+"&"+rng, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	svcs := r.body["data"].([]any)
	require.Len(t, svcs, 1)
	svc := svcs[0].(map[string]any)
	assert.Equal(t, "checkout", svc["service"])
	assert.EqualValues(t, 1, svc["requests"], "the client span is part of the request, not another one")
	assert.Len(t, svc["operations"], 1)
	r = call(t, http.MethodGet, fx.url+"/api/v2/services?sourceId="+spansID+"&startTime=2026-11-02T00:00:00Z&endTime=2026-11-01T00:00:00Z", bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusBadRequest, r.status, "a reversed range: %v", r.body)

	r = call(t, http.MethodGet, fx.url+"/api/v2/sources/"+spansID+"/columns", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	cols := r.body["data"].(map[string]any)
	assert.Contains(t, fmt.Sprint(cols["columns"]), "SpanKind")
	assert.Equal(t, []any{"http.route"}, cols["attributes"])
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodGet, fx.url+"/api/v2/sources/nope/columns", bearer(fx.keyA), nil).status)
}

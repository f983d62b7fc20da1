package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

func TestChartSeriesEndpoint(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		"CREATE TABLE IF NOT EXISTS api_charts.events (ts DateTime, svc String, msg String, attrs Map(String, String)) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_charts.events",
		"INSERT INTO api_charts.events VALUES ('2026-11-01 12:00:10','a','boom',{'k':'1'}), ('2026-11-01 12:00:20','b','ok',{'k':'2'}), ('2026-11-01 12:02:00','a','boom again',{'k':'3'})",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "events", "kind": "log",
		"database": "api_charts", "table": "events", "timestampColumn": "ts", "bodyColumn": "msg", "serviceColumn": "svc", "attributesMap": "attrs",
	})
	require.Equal(t, http.StatusOK, src.status, src.body)
	srcID := item(src)["id"].(string)
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	query := map[string]any{"startTime": start, "endTime": start + 3*60_000, "granularity": "1m", "fill": true, "series": []any{
		map[string]any{"sourceId": srcID, "aggFn": "count", "where": "boom", "groupBy": []string{}},
		map[string]any{"sourceId": srcID, "aggFn": "max", "field": "k"},
	}}
	r := call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query)
	require.Equal(t, http.StatusOK, r.status, r.body)
	data := r.body["data"].([]any)
	require.Len(t, data, 3, "every minute of the range")
	got := map[float64][2]any{}
	for _, d := range data {
		m := d.(map[string]any)
		got[m["ts_bucket"].(float64)] = [2]any{m["series_0.data"], m["series_1.data"]}
	}
	assert.Equal(t, [2]any{"1", 2.0}, got[float64(start)], "a count as HyperDX's engine writes a 64-bit integer: a string")
	assert.Equal(t, [2]any{"0", nil}, got[float64(start+60_000)], "empty: 0 for count, null for max")
	assert.Equal(t, [2]any{"1", 3.0}, got[float64(start+120_000)])

	// A tile's formulas: computed per bucket from the series, answered
	// after them; no value where an operand has none or divides by 0.
	query["formulas"] = []any{map[string]any{"expression": "B / A * 100"}, map[string]any{"expression": "-A + 2"}}
	r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query)
	require.Equal(t, http.StatusOK, r.status, r.body)
	formulas := map[float64][2]any{}
	for _, d := range r.body["data"].([]any) {
		m := d.(map[string]any)
		formulas[m["ts_bucket"].(float64)] = [2]any{m["series_2.data"], m["series_3.data"]}
	}
	assert.Equal(t, [2]any{200.0, 1.0}, formulas[float64(start)])
	assert.Equal(t, [2]any{nil, 2.0}, formulas[float64(start+60_000)], "max is null there, and A is 0")
	assert.Equal(t, [2]any{300.0, 1.0}, formulas[float64(start+120_000)])
	query["formulas"] = []any{map[string]any{"expression": "A / C"}}
	r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], `formulas[0].expression: Unknown series "C"`)
	// A formula over more series than a request without one takes (a
	// tile of seven select items): computed over all of them at once.
	seven := []any{}
	for range 7 {
		seven = append(seven, map[string]any{"sourceId": srcID, "aggFn": "count", "where": "boom"})
	}
	two := query["series"]
	query["series"], query["formulas"] = seven, []any{map[string]any{"expression": "A + G"}}
	r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query)
	require.Equal(t, http.StatusOK, r.status, r.body)
	for _, d := range r.body["data"].([]any) {
		if m := d.(map[string]any); m["ts_bucket"].(float64) == float64(start) {
			assert.Equal(t, 2.0, m["series_7.data"], "A + G over the first minute's one boom")
		}
	}
	delete(query, "formulas")
	r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], "series must hold 1 to 5 entries (20 with formulas)")
	query["series"] = two

	// HyperDX's answer (no fill): the buckets with data only.
	delete(query, "fill")
	r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Len(t, r.body["data"], 2, "the empty minute is not answered")

	bad := call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
		"startTime": 5, "endTime": 1,
		"granularity": "3m", "series": []any{map[string]any{"aggFn": "median"}},
	})
	assert.Equal(t, http.StatusBadRequest, bad.status)
	for _, want := range []string{"startTime", "granularity", "sourceId is required", "aggFn must be one of"} {
		assert.Contains(t, bad.body["message"], want)
	}
	query["series"] = []any{map[string]any{"sourceId": "nope", "aggFn": "count"}}
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query).status)
	query["series"] = []any{map[string]any{"sourceId": srcID, "aggFn": "count", "where": "(unbalanced"}}
	r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), query)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"].(string), "missing )", r.body)
	// Another team cannot chart this team's source.
	query["series"] = []any{map[string]any{"sourceId": srcID, "aggFn": "count"}}
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyB), query).status)
	// Charts are self-hosted only.
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodPost, fx.url+"/v1/organizations/org1/services/svc1/observability/charts/series",
		basic(fx.mgdID, fx.mgdSK), query).status)
}

// Chart queries run with the API's credentials, which also read the API's
// state (every team's documents, webhook headers, key hashes) and the
// server's system tables: a source may only name the databases opened to
// sources. Before, grouping a source over the state table by its doc
// column returned another team's webhook with its Authorization header.
func TestSourcesReadOnlyOpenDatabases(t *testing.T) {
	fx := setup(t)
	hook := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyB), map[string]any{
		"name": "b's hook",
		"url":  "https://hooks.example/b", "headers": map[string]string{"Authorization": "Bearer team-b-secret"},
	})
	require.Equal(t, http.StatusOK, hook.status, hook.body)
	state := fx.state
	for _, db := range []string{state, "system", "INFORMATION_SCHEMA", "elsewhere"} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
			"name": "s", "kind": "log",
			"database": db, "table": "api_resources", "timestampColumn": "updated_at",
		})
		assert.Equal(t, http.StatusBadRequest, r.status, db)
		assert.Contains(t, r.body["message"], `database "`+db+`" is not open to sources`, db)
	}
	r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "s", "kind": "log",
		"table": "otel_logs", "timestampColumn": "Timestamp",
	})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "otel", databaseOf(item(r)), "no database is the telemetry database")

	// One stored before the rule (or before the operator narrowed
	// source_databases) is refused when it is used.
	doc, _ := json.Marshal(map[string]any{"id": "old", "name": "old", "kind": "log", "database": state, "table": "api_resources", "timestampColumn": "updated_at"})
	now := time.Now()
	require.NoError(t, fx.server.opts.Store.Put(context.Background(), "a", kindSource, "old", doc, now, now))
	q := call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
		"startTime": now.Add(-time.Hour).UnixMilli(), "endTime": now.Add(time.Minute).UnixMilli(), "granularity": "1h",
		"series": []any{map[string]any{"sourceId": "old", "aggFn": "count", "groupBy": []string{"doc"}}},
	})
	assert.Equal(t, http.StatusBadRequest, q.status, q.body)
	assert.Contains(t, q.body["message"], "is not open to sources")
	assert.NotContains(t, fmt.Sprint(q.body), "team-b-secret")
}

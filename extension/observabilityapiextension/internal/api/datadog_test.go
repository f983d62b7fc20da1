package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// Datadog's search syntax in /api/v2/search and saved searches, and a
// Datadog metric query as a chart series; mistakes in either are 400s.
func TestDatadogLanguagesInTheAPI(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		`CREATE TABLE IF NOT EXISTS api_charts.dd_logs (ts DateTime64(3), svc LowCardinality(String), level LowCardinality(String), msg String,
		  attrs Map(String, String), res Map(String, String)) ENGINE = MergeTree ORDER BY ts`,
		`CREATE TABLE IF NOT EXISTS api_charts.dd_metrics_gauge (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9), Value Float64) ENGINE = MergeTree ORDER BY TimeUnix`,
		"TRUNCATE TABLE api_charts.dd_logs",
		"TRUNCATE TABLE api_charts.dd_metrics_gauge",
		`INSERT INTO api_charts.dd_logs VALUES ('2026-11-01 12:00:10','web','error','connection reset',{'http':'{"status_code":500}'},{'host.name':'web-1'}),
		  ('2026-11-01 12:00:20','web','WARNING','slow',{},{'host.name':'web-2'})`,
		`INSERT INTO api_charts.dd_metrics_gauge VALUES ({'host.name':'web-1'},'','system.load.1',{},'2026-11-01 12:00:00',2),
		  ({'host.name':'web-2'},'','system.load.1',{},'2026-11-01 12:00:00',4)`,
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	logs := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "dd logs", "kind": "log",
		"database": "api_charts", "table": "dd_logs", "timestampColumn": "ts", "bodyColumn": "msg", "serviceColumn": "svc", "severityColumn": "level",
		"attributesMap": "attrs", "resourceMap": "res",
	})
	require.Equal(t, http.StatusOK, logs.status, logs.body)
	logsID := item(logs)["id"].(string)
	metrics := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "dd metrics", "kind": "metric",
		"database": "api_charts", "table": "dd_metrics_gauge", "timestampColumn": "TimeUnix", "serviceColumn": "ServiceName",
		"attributesMap": "Attributes", "resourceMap": "ResourceAttributes", "metricType": "gauge",
	})
	require.Equal(t, http.StatusOK, metrics.status, metrics.body)
	metricsID := item(metrics)["id"].(string)

	search := func(where string) resp {
		return call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), map[string]any{
			"sourceId":  logsID,
			"startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z", "where": where, "whereLanguage": "datadog", "select": []string{"msg"},
		})
	}
	r := search(`service:web status:error @http.status_code:500 host:web-* "CONNECTION reset"`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []any{map[string]any{"msg": "connection reset"}}, r.body["data"])
	r = search("status:warn")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []any{map[string]any{"msg": "slow"}}, r.body["data"], "WARNING is Datadog's warn")
	r = search("@http.status_code:[500 TO")
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], "not closed")

	saved := call(t, http.MethodPost, fx.url+"/api/v2/saved-searches", bearer(fx.keyA), map[string]any{
		"name": "dd errors", "sourceId": logsID,
		"where": "status:error", "whereLanguage": "datadog",
	})
	require.Equal(t, http.StatusOK, saved.status, saved.body)
	assert.Equal(t, "datadog", item(saved)["whereLanguage"])

	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	chart := func(series ...any) resp {
		return call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
			"startTime": start,
			"endTime":   start + 60_000, "granularity": "1m", "series": series, "fill": true,
		})
	}
	r = chart(map[string]any{"sourceId": metricsID, "query": "max:system.load.1{host:web-*} by {host}"},
		map[string]any{"sourceId": logsID, "aggFn": "count", "where": "status:error", "whereLanguage": "datadog"})
	require.Equal(t, http.StatusOK, r.status, r.body)
	got := map[string][2]any{}
	for _, d := range r.body["data"].([]any) {
		m := d.(map[string]any)
		g := m["group"].([]any)
		k := ""
		if len(g) > 0 {
			k = g[0].(string)
		}
		got[k] = [2]any{m["series_0.data"], m["series_1.data"]}
	}
	assert.Equal(t, [2]any{2.0, "0"}, got["web-1"], "a count is 0 in the groups of the other series (filled; a count is a string, as HyperDX's)")
	assert.Equal(t, [2]any{4.0, "0"}, got["web-2"])
	assert.Equal(t, [2]any{nil, "1"}, got[""], "the log count, ungrouped")

	r = chart(map[string]any{"sourceId": metricsID, "query": "median:system.load.1{*}"})
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], "space aggregator")
	r = chart(map[string]any{"sourceId": metricsID, "query": "avg:system.load.1{*}", "aggFn": "avg"})
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], "query replaces aggFn")
	r = chart(map[string]any{"sourceId": logsID, "query": "avg:system.load.1{*}"})
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], "needs a metric source")
}

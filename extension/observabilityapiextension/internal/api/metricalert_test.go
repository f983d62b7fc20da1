package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// metricAlertTables makes a gauge and a sum table named as the exporter
// names them (so a metric item of either type finds its table beside the
// source's own) and answers a writer of one point: the table's type, the
// metric, the host (its series), the minute after m0 and the value.
func metricAlertTables(t *testing.T, m0 time.Time) func(typ, metric, host string, minute int, v float64) {
	t.Helper()
	db := chtest.DB(t)
	ctx := context.Background()
	cols := "ServiceName String, MetricName String, Attributes Map(String, String), ResourceAttributes Map(String, String), TimeUnix DateTime64(9)"
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_alerts",
		"CREATE TABLE IF NOT EXISTS api_alerts.mx_metrics_gauge (" + cols + ", Value Float64) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
		"CREATE TABLE IF NOT EXISTS api_alerts.mx_metrics_sum (" + cols + ", Value Float64, AggregationTemporality Int32, IsMonotonic Bool) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
		"TRUNCATE TABLE api_alerts.mx_metrics_gauge",
		"TRUNCATE TABLE api_alerts.mx_metrics_sum",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	return func(typ, metric, host string, minute int, v float64) {
		extra := ""
		if typ == "sum" {
			extra = ", 2, true"
		}
		_, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO api_alerts.mx_metrics_%s SELECT 'svc', '%s', map('host', '%s'), map(), fromUnixTimestamp64Milli(%d), %v%s",
			typ, metric, host, m0.Add(time.Duration(minute)*time.Minute+10*time.Second).UnixMilli(), v, extra))
		require.NoError(t, err)
	}
}

// TestTileAlertOnRatioAndMetricTiles: alerts on an asRatio tile and on
// tiles whose items name a metric are taken and fire on the value the
// tile draws: the first item over the second, the metric read from the
// table of its type.
func TestTileAlertOnRatioAndMetricTiles(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 4, 12, 0, 0, 0, time.UTC)
	addLog := alertTable(t, "ratio_logs", m0)
	addPoint := metricAlertTables(t, m0)
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	post := func(path string, body map[string]any) map[string]any {
		r := call(t, http.MethodPost, fx.url+path, bearer(fx.keyA), body)
		require.Equal(t, http.StatusOK, r.status, r.body)
		return item(r)
	}
	logs := post("/api/v2/sources", map[string]any{
		"name": "ratio logs", "kind": "log",
		"database": "api_alerts", "table": "ratio_logs", "timestampColumn": "ts", "severityColumn": "level", "serviceColumn": "svc",
	})["id"].(string)
	metrics := post("/api/v2/sources", map[string]any{
		"kind": "metric", "name": "mx", "from": map[string]any{"databaseName": "api_alerts", "tableName": ""}, "connection": sources.DefaultConnectionID("a"),
		"metricTables":             map[string]any{"gauge": "mx_metrics_gauge", "sum": "mx_metrics_sum"},
		"timestampValueExpression": "TimeUnix", "resourceAttributesExpression": "ResourceAttributes",
	})["id"].(string)
	gauge := func(aggFn, name string) map[string]any {
		return map[string]any{"aggFn": aggFn, "valueExpression": "Value", "metricType": "gauge", "metricName": name, "where": ""}
	}
	tile := func(id string, config map[string]any) map[string]any {
		return map[string]any{"id": id, "name": id, "x": 0, "y": 0, "w": 6, "h": 3, "config": config}
	}
	dash := post("/api/v2/dashboards", map[string]any{"name": "d", "tiles": []any{
		tile("share", map[string]any{
			"displayType": "line", "sourceId": logs, "groupBy": "svc", "asRatio": true,
			"select": []any{
				map[string]any{"aggFn": "count", "where": "level:error"},
				map[string]any{"aggFn": "count", "where": ""},
			},
		}),
		tile("memory", map[string]any{
			"displayType": "line", "sourceId": metrics, "asRatio": true,
			"select": []any{gauge("sum", "mem.used"), gauge("sum", "mem.total")},
		}),
		tile("failed", map[string]any{
			"displayType": "number", "sourceId": metrics,
			"select": []any{map[string]any{"aggFn": "max", "valueExpression": "Value", "metricType": "sum", "metricName": "jobs.failed", "where": ""}},
		}),
	}})["id"].(string)
	wh := post("/api/v2/webhooks", map[string]any{"name": "test", "url": hook.URL})["id"].(string)
	alert := func(tileID string, threshold float64) string {
		return post("/api/v2/alerts", map[string]any{
			"name": tileID, "dashboardId": dash, "tileId": tileID, "threshold": threshold, "interval": "1m",
			"source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
		})["id"].(string)
	}
	share, memory, failed := alert("share", 0.5), alert("memory", 0.9), alert("failed", 3)

	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }
	// Minute 0: checkout's errors are 3 of 4, cart's 1 of 4; memory is at
	// 8 of 10 (two hosts summed); 2 jobs failed. Only the share fires.
	addLog(0, "error", "checkout", 3)
	addLog(0, "info", "checkout", 1)
	addLog(0, "error", "cart", 1)
	addLog(0, "info", "cart", 3)
	for host, used := range map[string]float64{"a": 3, "b": 5} {
		addPoint("gauge", "mem.used", host, 0, used)
		addPoint("gauge", "mem.total", host, 0, 5)
	}
	addPoint("sum", "jobs.failed", "a", 0, 2)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(0), sender))
	got := rc.notifications()
	require.Len(t, got, 1)
	assert.Equal(t, share, got[0].AlertID)
	assert.Equal(t, 0.75, *got[0].Value)
	assert.Equal(t, []string{"checkout"}, got[0].Group)

	// Minute 1: checkout's errors are 1 of 4; memory at 19 of 20 (over 0.9: a gauge's other metrics do
	// not count), 4 jobs failed (read from the sum table, not the gauge's).
	addLog(1, "error", "checkout", 1)
	addLog(1, "info", "checkout", 3)
	addPoint("gauge", "mem.used", "a", 1, 9)
	addPoint("gauge", "mem.used", "b", 1, 10)
	addPoint("gauge", "mem.total", "a", 1, 10)
	addPoint("gauge", "mem.total", "b", 1, 10)
	addPoint("gauge", "cpu", "a", 1, 1000)
	addPoint("gauge", "jobs.failed", "a", 1, 0)
	addPoint("sum", "jobs.failed", "a", 1, 4)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(1), sender))
	got = rc.notifications()
	require.Len(t, got, 4, "the share resolves; memory and failed fire")
	byID := map[string]Notification{}
	for _, n := range got[1:] {
		byID[n.AlertID] = n
	}
	assert.Equal(t, StateOK, byID[share].State)
	require.Contains(t, byID, memory)
	assert.Equal(t, StateAlert, byID[memory].State)
	assert.Equal(t, 0.95, *byID[memory].Value)
	require.Contains(t, byID, failed)
	assert.Equal(t, StateAlert, byID[failed].State)
	assert.Equal(t, 4.0, *byID[failed].Value)
}

// TestInlineAlertOnMetricItems: an inline chart's metric select items
// are taken on a metric source, answered as they came, and evaluated.
func TestInlineAlertOnMetricItems(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)
	addPoint := metricAlertTables(t, m0)
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	src := item(call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"kind": "metric", "name": "mx", "from": map[string]any{"databaseName": "api_alerts", "tableName": ""}, "connection": sources.DefaultConnectionID("a"),
		"metricTables":             map[string]any{"gauge": "mx_metrics_gauge", "sum": "mx_metrics_sum"},
		"timestampValueExpression": "TimeUnix", "resourceAttributesExpression": "ResourceAttributes",
	}))["id"].(string)
	wh := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "test", "url": hook.URL}))["id"].(string)
	sel := map[string]any{"aggFn": "max", "valueExpression": "Value", "metricType": "sum", "metricName": "jobs.failed", "where": "", "whereLanguage": "lucene"}
	r := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
		"name": "failed jobs", "source": "inline", "threshold": 3, "interval": "1m", "thresholdType": "above",
		"chartConfig": map[string]any{"displayType": "line", "sourceId": src, "select": []any{sel}},
		"channel":     map[string]any{"type": "webhook", "webhookId": wh},
	})
	require.Equal(t, http.StatusOK, r.status, r.body)
	id := item(r)["id"].(string)
	back := item(call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+id, bearer(fx.keyA), nil))
	assert.Equal(t, []any{sel}, back["chartConfig"].(map[string]any)["select"])

	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	addPoint("sum", "jobs.failed", "a", 0, 5)
	addPoint("gauge", "jobs.failed", "a", 0, 1)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, m0.Add(time.Minute+5*time.Second), sender))
	got := rc.notifications()
	require.Len(t, got, 1)
	assert.Equal(t, id, got[0].AlertID)
	assert.Equal(t, 5.0, *got[0].Value)
}

// TestTileAlertOnFormulaTile: an alert on a tile with formulas watches
// its first formula over its items (A, B…), grouped as the tile.
func TestTileAlertOnFormulaTile(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)
	addLog := alertTable(t, "formula_logs", m0)
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	post := func(path string, body map[string]any) map[string]any {
		r := call(t, http.MethodPost, fx.url+path, bearer(fx.keyA), body)
		require.Equal(t, http.StatusOK, r.status, r.body)
		return item(r)
	}
	logs := post("/api/v2/sources", map[string]any{
		"name": "formula logs", "kind": "log",
		"database": "api_alerts", "table": "formula_logs", "timestampColumn": "ts", "severityColumn": "level", "serviceColumn": "svc",
	})["id"].(string)
	dash := post("/api/v2/dashboards", map[string]any{"name": "d", "tiles": []any{map[string]any{
		"id": "pct", "name": "error %", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
			"displayType": "line", "sourceId": logs, "groupBy": "svc",
			"select": []any{
				map[string]any{"aggFn": "count", "where": "level:error"},
				map[string]any{"aggFn": "count", "where": ""},
			},
			"formulas": []any{map[string]any{"expression": "A / B * 100"}},
		},
	}}})["id"].(string)
	wh := post("/api/v2/webhooks", map[string]any{"name": "test", "url": hook.URL})["id"].(string)
	id := post("/api/v2/alerts", map[string]any{
		"name": "error %", "dashboardId": dash, "tileId": "pct", "threshold": 50, "interval": "1m",
		"source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
	})["id"].(string)

	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	// checkout's errors are 3 of 4 (75 %), cart's 1 of 4 (25 %).
	addLog(0, "error", "checkout", 3)
	addLog(0, "info", "checkout", 1)
	addLog(0, "error", "cart", 1)
	addLog(0, "info", "cart", 3)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, m0.Add(time.Minute+5*time.Second), sender))
	got := rc.notifications()
	require.Len(t, got, 1)
	assert.Equal(t, id, got[0].AlertID)
	assert.Equal(t, 75.0, *got[0].Value)
	assert.Equal(t, []string{"checkout"}, got[0].Group)
}

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

// TestAlertsOnGaugeDelta: a gauge item with periodAggFn "delta", on an
// inline chart and on a tile, is judged on the series' change over the
// window (HyperDX's isDelta), not on their last values: it fires when the
// gauge climbs though its level stays low, and resolves when the gauge
// holds still though its level is high. It answers as it came.
func TestAlertsOnGaugeDelta(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 6, 12, 0, 0, 0, time.UTC)
	metricAlertTables(t, m0)
	db := chtest.DB(t)
	point := func(host string, minute, second int, v float64) {
		_, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO api_alerts.mx_metrics_gauge SELECT 'svc', 'disk.used', map('host', '%s'), map(), fromUnixTimestamp64Milli(%d), %v",
			host, m0.Add(time.Duration(minute)*time.Minute+time.Duration(second)*time.Second).UnixMilli(), v))
		require.NoError(t, err)
	}
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	post := func(path string, body map[string]any) map[string]any {
		r := call(t, http.MethodPost, fx.url+path, bearer(fx.keyA), body)
		require.Equal(t, http.StatusOK, r.status, r.body)
		return item(r)
	}
	src := post("/api/v2/sources", map[string]any{
		"kind": "metric", "name": "mx", "from": map[string]any{"databaseName": "api_alerts", "tableName": ""}, "connection": sources.DefaultConnectionID("a"),
		"metricTables":             map[string]any{"gauge": "mx_metrics_gauge", "sum": "mx_metrics_sum"},
		"timestampValueExpression": "TimeUnix", "resourceAttributesExpression": "ResourceAttributes",
	})["id"].(string)
	wh := post("/api/v2/webhooks", map[string]any{"name": "test", "url": hook.URL})["id"].(string)
	sel := map[string]any{
		"aggFn": "sum", "valueExpression": "Value", "metricType": "gauge", "metricName": "disk.used",
		"periodAggFn": "delta", "where": "", "whereLanguage": "lucene",
	}
	dash := post("/api/v2/dashboards", map[string]any{"name": "d", "tiles": []any{map[string]any{
		"id": "growth", "name": "growth", "x": 0, "y": 0, "w": 6, "h": 3,
		"config": map[string]any{"displayType": "line", "sourceId": src, "select": []any{sel}},
	}}})
	tileSel := dash["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any)["select"].([]any)[0].(map[string]any)
	assert.Equal(t, "delta", tileSel["periodAggFn"])
	channel := map[string]any{"type": "webhook", "webhookId": wh}
	inline := post("/api/v2/alerts", map[string]any{
		"name": "inline growth", "source": "inline", "threshold": 50, "interval": "1m", "thresholdType": "above",
		"chartConfig": map[string]any{"displayType": "line", "sourceId": src, "select": []any{sel}}, "channel": channel,
	})["id"].(string)
	back := item(call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+inline, bearer(fx.keyA), nil))
	assert.Equal(t, []any{sel}, back["chartConfig"].(map[string]any)["select"])
	tile := post("/api/v2/alerts", map[string]any{
		"name": "tile growth", "source": "tile", "dashboardId": dash["id"], "tileId": "growth",
		"threshold": 50, "interval": "1m", "thresholdType": "above", "channel": channel,
	})["id"].(string)

	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }
	byAlert := func(ns []Notification) map[string]Notification {
		out := map[string]Notification{}
		for _, n := range ns {
			out[n.AlertID] = n
		}
		return out
	}
	// Minute 0: host a climbs 10 → 40 in 30 s (60 over the minute), b
	// holds at 5. The deltas sum to 60, over 50; the last values to 45.
	point("a", 0, 10, 10)
	point("a", 0, 40, 40)
	point("b", 0, 10, 5)
	point("b", 0, 40, 5)
	// The chart endpoint draws the tile as its alert judges it; without
	// periodAggFn, the last values.
	drawn := func(periodAggFn string) any {
		sr := map[string]any{"sourceId": src, "aggFn": "sum", "metricName": "disk.used", "metricDataType": "gauge", "where": "", "groupBy": []any{}}
		if periodAggFn != "" {
			sr["periodAggFn"] = periodAggFn
		}
		r := call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
			"startTime": m0.UnixMilli(), "endTime": m0.Add(time.Minute).UnixMilli(), "granularity": "1m", "series": []any{sr},
		})
		if r.status != http.StatusOK {
			return r.body["message"]
		}
		data := r.body["data"].([]any)
		require.Len(t, data, 1, r.body)
		return data[0].(map[string]any)["series_0.data"]
	}
	assert.Equal(t, 60.0, drawn("delta"))
	assert.Equal(t, 45.0, drawn(""))
	assert.Contains(t, drawn("rate"), "series[0].periodAggFn must be one of delta")
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(0), sender))
	got := byAlert(rc.notifications())
	require.Len(t, got, 2, "both fire on the delta")
	for _, id := range []string{inline, tile} {
		require.Contains(t, got, id)
		assert.Equal(t, StateAlert, got[id].State)
		assert.Equal(t, 60.0, *got[id].Value)
	}

	// Minute 1: both hosts hold still, high (last values sum to 95): no
	// change, so both resolve.
	point("a", 1, 10, 90)
	point("a", 1, 40, 90)
	point("b", 1, 10, 5)
	point("b", 1, 40, 5)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(1), sender))
	all := rc.notifications()
	require.Len(t, all, 4, "both resolve")
	got = byAlert(all[2:])
	for _, id := range []string{inline, tile} {
		require.Contains(t, got, id)
		assert.Equal(t, StateOK, got[id].State)
	}
}

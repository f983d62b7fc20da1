package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// TestInlineAlertFires: the scheduler evaluates an inline alert's own
// chart on the engine, with the chart series a tile alert uses: a ratio
// (asRatio) grouped by its groupBy, and a number chart's formula over
// items narrowed by the chart-level where.
func TestInlineAlertFires(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)
	add := alertTable(t, "inline_logs", m0)
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	src := item(call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "inline_logs", "kind": "log",
		"database": "api_alerts", "table": "inline_logs", "timestampColumn": "ts", "severityColumn": "level", "serviceColumn": "svc",
	}))["id"].(string)
	wh := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "test", "url": hook.URL}))["id"].(string)
	create := func(name string, threshold float64, chart map[string]any) string {
		r := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
			"name": name, "source": "inline", "chartConfig": chart, "threshold": threshold, "interval": "1m",
			"thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
		})
		require.Equal(t, http.StatusOK, r.status, r.body)
		return item(r)["id"].(string)
	}
	// The share of errors, per service.
	ratio := create("error share", 0.5, map[string]any{
		"displayType": "line", "sourceId": src, "groupBy": "svc", "asRatio": true,
		"select": []any{map[string]any{"aggFn": "count", "where": "level:error"}, map[string]any{"aggFn": "count"}},
	})
	// Ten per error plus one per info, of cart only.
	formula := create("cart score", 40, map[string]any{
		"displayType": "number", "sourceId": src, "where": "svc:cart",
		"select": []any{
			map[string]any{"aggFn": "count", "where": "level:error"},
			map[string]any{"aggFn": "count", "where": "level:info"},
		},
		"formulas": []any{map[string]any{"expression": "A * 10 + B"}},
	})

	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }
	// Minute 0: checkout's errors are 3 of 4 (over a half), cart's 1 of 4;
	// cart scores 13 (without the chart's where, every service's 44 would
	// fire).
	add(0, "error", "checkout", 3)
	add(0, "info", "checkout", 1)
	add(0, "error", "cart", 1)
	add(0, "info", "cart", 3)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(0), sender))
	got := rc.notifications()
	require.Len(t, got, 1)
	assert.Equal(t, ratio, got[0].AlertID)
	assert.Equal(t, StateAlert, got[0].State)
	assert.Equal(t, 0.75, *got[0].Value)
	assert.Equal(t, []string{"checkout"}, got[0].Group)
	// Minute 1: 5 cart errors score 50.
	add(1, "error", "cart", 5)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(1), sender))
	got = rc.notifications()
	require.Len(t, got, 2)
	assert.Equal(t, formula, got[1].AlertID)
	assert.Equal(t, StateAlert, got[1].State)
	assert.Equal(t, 50.0, *got[1].Value)
}

// TestInlineAlertNotEvaluated: a stored inline config the scheduler
// cannot evaluate faithfully (raw SQL, or a field such as filters that
// would narrow the query) is an execution error on the alert, never a
// broader query.
func TestInlineAlertNotEvaluated(t *testing.T) {
	fx := setupWith(t, func(*Options) {})
	c := newContractCase(t, fx)
	ctx := context.Background()
	src := c.put("", kindSource, map[string]any{
		"kind": "log", "from": map[string]any{"databaseName": "api_alerts", "tableName": "inline_logs"},
		"timestampValueExpression": "ts", "name": "Logs",
	})
	alertTable(t, "inline_logs", time.Now())
	for _, cfg := range []map[string]any{
		{"configType": "sql", "displayType": "line", "sqlTemplate": "SELECT 1", "connection": newID()},
		{"displayType": "line", "source": src, "select": []any{map[string]any{"aggFn": "count"}}, "filters": []any{map[string]any{"type": "sql", "condition": "1"}}},
	} {
		id := c.put("", kindAlert, map[string]any{
			"source": "inline", "chartConfig": cfg, "threshold": 1, "interval": "1m", "thresholdType": "above",
			"channel": map[string]any{"type": "webhook", "webhookId": newID()}, "name": "x", "state": "OK",
		})
		require.Error(t, fx.alerts.EvaluateDue(ctx, time.Now(), nil))
		errs, _ := c.stored(kindAlert, id)["executionErrors"].([]any)
		require.NotEmpty(t, errs)
		assert.Equal(t, "QUERY_ERROR", errs[0].(map[string]any)["type"])
		c.expect(200, "DELETE", "/api/v2/alerts/"+id, nil)
	}
}

package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// TestInlineAlertFires: the scheduler evaluates an inline alert's own
// chart on the engine, with the chart series a tile alert uses: a ratio
// (asRatio) grouped by its groupBy, and a number chart's formula over
// items narrowed by the chart-level where, notified under the chart's name.
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
	// Ten per error plus one per info, of cart only; unnamed, the alert is
	// called by its chart's name.
	formula := create("", 40, map[string]any{
		"name": "cart score", "displayType": "number", "sourceId": src, "where": "svc:cart",
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
	assert.Equal(t, "cart score", got[1].Name)
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

// TestInlineAlertBadInputIs400: a chartConfig a caller got wrong is a 400
// that names the mistake, whatever its shape; what the dialect does not
// have is dropped.
func TestInlineAlertBadInputIs400(t *testing.T) {
	fx := setupWith(t, func(*Options) {})
	c := newContractCase(t, fx)
	src := c.put("", kindSource, map[string]any{
		"kind": "log", "from": map[string]any{"databaseName": "default", "tableName": "otel_logs"},
		"timestampValueExpression": "Timestamp", "name": "Logs",
	})
	wh := c.put("", kindWebhook, map[string]any{"name": "W", "service": "slack", "url": "https://hooks.slack.com/test"})
	count := map[string]any{"aggFn": "count"}
	deep := strings.Repeat("(", 500) + "A" + strings.Repeat(")", 500)
	for _, tc := range []struct {
		chart any
		says  string
	}{
		{"x", "chartConfig must be an object"},
		{map[string]any{"sourceId": src, "select": []any{count}}, "chartConfig.displayType must be one of"},
		{with(inlineConfig(src), "select", "x"), "chartConfig"},
		{with(inlineConfig(src), "select", []any{1}), "chartConfig"},
		{with(inlineConfig(src), "select", []any{}), "chartConfig.select takes 1 to 20 items"},
		{with(inlineConfig(src), "formulas", "A"), "chartConfig"},
		{with(inlineConfig(src), "formulas", []any{map[string]any{"expression": 5}}), "chartConfig"},
		{with(inlineConfig(src), "formulas", []any{map[string]any{"expression": deep}}), "nests deeper"},
		{with(inlineConfig(src), "asRatio", "yes"), "chartConfig"},
		{with(inlineConfig(src), "seriesLimit", -1), "chartConfig.seriesLimit"},
		{with(inlineConfig(src), "fillNulls", "x"), "chartConfig.fillNulls must be a boolean"},
		{with(inlineConfig(src), "groupBy", "a\nb"), "chartConfig.groupBy"},
		{with(inlineConfig(src), "whereLanguage", "xml"), `chartConfig.whereLanguage must be "lucene" or "sql"`},
		{with(inlineConfig(src), "where", strings.Repeat("a", 10001)), "chartConfig.where is longer than"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "count", "valueExpression": "x"}}), "Value expression cannot be used with count"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "sum"}}), "Value expression is required"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "quantile", "valueExpression": "x", "level": 0.3}}), "level must be one of"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "avg", "valueExpression": "x", "level": 0.5}}), "Level can only be used with quantile"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "median"}}), "aggFn must be one of"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "count", "metricName": "m", "metricType": "gauge"}}), "metricName and metricType are for a metric source"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "count", "metricName": "m"}}), "names both metricName and metricType"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "count", "metricName": "m", "metricType": "Gauges"}}), "metricType must be one of"},
		{with(inlineConfig(src), "select", []any{map[string]any{"aggFn": "count", "periodAggFn": "rate"}}), "periodAggFn must be one of delta"},
		{map[string]any{"configType": "sql", "displayType": "line", "sqlTemplate": "SELECT 1", "connectionId": "nope"}, "connection must be a valid connection id"},
	} {
		r := c.do("POST", "/api/v2/alerts", inlineAlert(tc.chart, wh))
		assert.Equal(t, 400, r.status, "%v: %s", tc.chart, r.raw)
		assert.Contains(t, r.message(), tc.says, "%v", tc.chart)
	}
	// A number chart has neither grouping nor ratio: dropped, as HyperDX
	// drops what its number schema does not have.
	a := c.expect(200, "POST", "/api/v2/alerts", inlineAlert(with(inlineConfig(src), "displayType", "number", "groupBy", "ServiceName", "bogus", 1), wh)).data()
	cfg := a["chartConfig"].(map[string]any)
	assert.False(t, hasKey(cfg, "groupBy"))
	assert.False(t, hasKey(cfg, "bogus"))
	assert.False(t, hasKey(c.stored(kindAlert, a["id"].(string))["chartConfig"].(map[string]any), "groupBy"))
}

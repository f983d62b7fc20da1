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

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// An alert on a saved search of a source whose service and level are
// expressions counts, filters and groups by them as a chart does.
func TestAlertOnSourceRoleExpressions(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)
	add := alertTable(t, "role_logs", m0)
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	team, _ := keyTeams.Load(bearer(fx.keyA))
	body := sourceBody(t, fmt.Sprint(team), map[string]any{
		"name": "role logs", "kind": "log", "database": "api_alerts", "table": "role_logs", "timestampColumn": "ts",
		"severityColumn": "level", "serviceColumn": "svc",
	})
	body["serviceNameExpression"] = "upper(svc)"
	body["severityTextExpression"] = "concat(level, '!')"
	r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), body)
	require.Equal(t, http.StatusOK, r.status, r.body)
	src := item(r)["id"].(string)
	ss := item(call(t, http.MethodPost, fx.url+"/api/v2/saved-searches", bearer(fx.keyA), map[string]any{
		"name": "errors", "sourceId": src, "where": `severity:"error!"`, // the table's own level column is level:
	}))["id"].(string)
	wh := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "test", "url": hook.URL}))["id"].(string)
	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
		"name":   "errors by service",
		"source": "saved_search", "savedSearchId": ss, "groupBy": "service", "threshold": 2, "interval": "1m", "thresholdType": "above",
		"message": "{{.state}} {{.group}}", "channel": map[string]any{"type": "webhook", "webhookId": wh},
	})
	require.Equal(t, http.StatusOK, r.status, r.body)

	add(0, "error", "checkout", 3)
	add(0, "error", "cart", 2)
	add(0, "info", "checkout", 5)
	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	require.NoError(t, fx.alerts.EvaluateDue(ctx, m0.Add(time.Minute+5*time.Second), sender))
	got := rc.notifications()
	require.Len(t, got, 1)
	assert.Equal(t, StateAlert, got[0].State)
	assert.Equal(t, 3.0, *got[0].Value)
	assert.Equal(t, []string{"CHECKOUT"}, got[0].Group, "grouped by the service expression")
}

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

// errorSearchAndHook makes, in team a, a source over api_alerts.<table>
// (alertTable), a saved search of its errors, and a webhook to a real
// receiver on loopback.
func errorSearchAndHook(t *testing.T, fx fixture, table string) (rc *receiver, savedSearchID, webhookID string) {
	t.Helper()
	rc = &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	src := item(call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": table, "kind": "log",
		"database": "api_alerts", "table": table, "timestampColumn": "ts", "severityColumn": "level", "serviceColumn": "svc",
	}))["id"].(string)
	savedSearchID = item(call(t, http.MethodPost, fx.url+"/api/v2/saved-searches", bearer(fx.keyA), map[string]any{
		"name": "errors", "sourceId": src,
		"where": "level:error",
	}))["id"].(string)
	webhookID = item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "test", "url": hook.URL}))["id"].(string)
	return rc, savedSearchID, webhookID
}

// An alert on a saved search counts the search's events per window,
// grouped by the alert's groupBy, and fires once per breaching window, as
// HyperDX's saved-search alerts do; deleting the search deletes it.
func TestSavedSearchAlert(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	add := alertTable(t, "saved_logs", m0)
	rc, ss, wh := errorSearchAndHook(t, fx, "saved_logs")
	r := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
		"name":   "errors by service",
		"source": "saved_search", "savedSearchId": ss, "groupBy": "svc", "threshold": 2, "interval": "1m", "thresholdType": "above",
		"message": "{{.state}} {{.group}}", "channel": map[string]any{"type": "webhook", "webhookId": wh},
	})
	require.Equal(t, http.StatusOK, r.status, r.body)
	alert := item(r)
	assert.Equal(t, ss, alert["savedSearchId"])
	assert.Equal(t, "svc", alert["groupBy"])

	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }
	// Minute 0: 3 errors from checkout (over 2), 2 from cart, 5 infos: one fire, for checkout.
	add(0, "error", "checkout", 3)
	add(0, "error", "cart", 2)
	add(0, "info", "checkout", 5)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(0), sender))
	got := rc.notifications()
	require.Len(t, got, 1)
	assert.Equal(t, StateAlert, got[0].State)
	assert.Equal(t, 3.0, *got[0].Value)
	assert.Equal(t, []string{"checkout"}, got[0].Group)
	assert.Equal(t, ss, got[0].SavedSearchID)
	// Minute 1: quiet, so it resolves.
	add(1, "error", "checkout", 1)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(1), sender))
	require.Len(t, rc.notifications(), 2)
	assert.Equal(t, StateOK, rc.notifications()[1].State)

	// What HyperDX refuses, refused here too.
	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
		"name": "x", "source": "saved_search",
		"savedSearchId": "nope", "dashboardId": "d", "threshold": 1, "interval": "1m", "thresholdType": "above",
		"channel": map[string]any{"type": "webhook", "webhookId": wh},
	})
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], `Saved search not found ("nope")`)
	assert.Contains(t, r.body["message"], "dashboardId and tileId are for source tile")

	// Deleting the search deletes its alert.
	require.Equal(t, http.StatusOK, call(t, http.MethodDelete, fx.url+"/api/v2/saved-searches/"+ss, bearer(fx.keyA), nil).status)
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+alert["id"].(string), bearer(fx.keyA), nil).status)
}

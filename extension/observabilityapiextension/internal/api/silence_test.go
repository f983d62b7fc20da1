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

// Issue 43: an alert muted for a time is still evaluated, its state and
// history kept, and nothing is delivered until the mute is lifted; an
// edit keeps the mute.
func TestMutedAlertIsEvaluatedNotDelivered(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	ctx := context.Background()
	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	add := alertTable(t, "muted", m0)
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	src := item(call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "muted logs", "kind": "log",
		"database": "api_alerts", "table": "muted", "timestampColumn": "ts", "severityColumn": "level", "serviceColumn": "svc",
	}))["id"].(string)
	dash := item(call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), map[string]any{"name": "d", "tiles": []any{
		map[string]any{
			"id": "errors", "name": "errors", "x": 0, "y": 0, "w": 6, "h": 3,
			"config": map[string]any{"source": src, "aggFn": "count", "where": "level:error"},
		},
	}}))["id"].(string)
	wh := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "test", "url": hook.URL}))["id"].(string)
	body := map[string]any{
		"name": "errors spike", "dashboardId": dash, "tileId": "errors", "threshold": 2, "interval": "1m",
		"source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
	}
	alert := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), body)
	require.Equal(t, http.StatusOK, alert.status, alert.body)
	id := item(alert)["id"].(string)
	base := fx.url + "/api/v2/alerts/" + id + "/silenced"

	for _, bad := range []any{"2020-01-01T00:00:00Z", time.Now().Add(60 * 24 * time.Hour).Format(time.RFC3339), "soon", nil} {
		r := call(t, http.MethodPost, base, bearer(fx.keyA), map[string]any{"mutedUntil": bad})
		assert.Equal(t, http.StatusBadRequest, r.status, "%v: %v", bad, r.body)
	}
	r := call(t, http.MethodPost, fx.url+"/api/v2/alerts/nope/silenced", bearer(fx.keyA), map[string]any{"mutedUntil": time.Now().Add(time.Hour).UnixMilli()})
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "Alert not found", r.body["message"])
	r = call(t, http.MethodPost, base, bearer(fx.keyB), map[string]any{"mutedUntil": time.Now().Add(time.Hour).UnixMilli()})
	assert.Equal(t, http.StatusNotFound, r.status, "another team's alert")

	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	r = call(t, http.MethodPost, base, bearer(fx.keyA), map[string]any{"mutedUntil": until.Format(time.RFC3339)})
	require.Equal(t, http.StatusOK, r.status, r.body)
	silenced := item(r)["silenced"].(map[string]any)
	assert.Equal(t, until.Format(time.RFC3339), silenced["until"])
	// An edit (as a script or the UI's form makes it) keeps the mute.
	body["name"] = "errors spike (renamed)"
	r = call(t, http.MethodPut, fx.url+"/api/v2/alerts/"+id, bearer(fx.keyA), body)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.NotNil(t, item(r)["silenced"], "an update keeps the mute")

	sender := webhook.New(webhook.Options{Attempts: 1, AllowPrivate: true})
	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }
	add(0, "error", "api", 3)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(0), sender))
	assert.Empty(t, rc.notifications(), "muted: nothing delivered")
	assert.Equal(t, "ALERT", item(call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+id, bearer(fx.keyA), nil))["state"], "still evaluated")
	h := call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+id+"/history", bearer(fx.keyA), nil)
	last := h.body["data"].([]any)[0].(map[string]any)
	assert.Equal(t, false, last["notified"])
	assert.True(t, strings.HasPrefix(last["deliveryError"].(string), "muted until "), last["deliveryError"])

	r = call(t, http.MethodDelete, base, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Nil(t, item(r)["silenced"])
	add(1, "error", "api", 1)
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(1), sender))
	got := rc.notifications()
	require.Len(t, got, 1, "unmuted: the next change of state is delivered")
	assert.Equal(t, StateOK, got[0].State)
}

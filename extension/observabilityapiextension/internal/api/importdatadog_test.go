package api

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Datadog's Redis overview dashboard, its memory monitor and NGINX's 5xx
// view, imported through the API: created as a POST of each would be, with
// the report beside them.
func TestImportDatadogAssets(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	asset := func(name string) map[string]any {
		b, err := os.ReadFile("../../../../internal/domain/importers/datadog/testdata/integrations-core/" + name)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	r := call(t, http.MethodPost, fx.url+"/api/v2/dashboards/import", bearer(fx.keyA), asset("redisdb_dashboard_overview.json"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	d := item(r)
	assert.Equal(t, "Redis - Overview", d["name"])
	report := r.body["report"].(map[string]any)
	assert.Equal(t, map[string]any{"imported": 10.0, "approximated": 22.0, "skipped": 0.0}, report["summary"])
	got := call(t, http.MethodGet, fx.url+"/api/v2/dashboards/"+d["id"].(string), bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	assert.Len(t, item(got)["tiles"], len(d["tiles"].([]any)), "stored as answered")

	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts/import", bearer(fx.keyA), asset("redisdb_monitor_high_mem.json"))
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], "webhookId is required")
	wh := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "hook", "url": "http://127.0.0.1:9/x", "service": "generic"})
	require.Equal(t, http.StatusOK, wh.status, wh.body)
	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts/import?webhookId="+item(wh)["id"].(string), bearer(fx.keyA), asset("redisdb_monitor_high_mem.json"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	a := item(r)
	assert.Equal(t, 90.0, a["threshold"])
	assert.Equal(t, "above_exclusive", a["thresholdType"], "Datadog's > is strictly above")
	assert.Equal(t, "monitor", a["tileId"])
	assert.Equal(t, r.body["dashboard"].(map[string]any)["id"], a["dashboardId"])
	// Its warning threshold, 70, is a second alert on the same tile.
	alerts := r.body["alerts"].([]any)
	require.Len(t, alerts, 2)
	assert.Equal(t, a["id"], alerts[0].(map[string]any)["id"])
	assert.Equal(t, 70.0, alerts[1].(map[string]any)["threshold"])
	assert.Equal(t, a["dashboardId"], alerts[1].(map[string]any)["dashboardId"])
	listed := call(t, http.MethodGet, fx.url+"/api/v2/alerts", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, listed.status, listed.body)
	assert.Len(t, listed.body["data"], 2)

	// An anomaly monitor: the fraction of anomalous points over its
	// alert window.
	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts/import?webhookId="+item(wh)["id"].(string), bearer(fx.keyA), asset("nginx_monitor_5xx.json"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "15m", item(r)["interval"])
	assert.Equal(t, "above", item(r)["thresholdType"])

	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts/import?webhookId="+item(wh)["id"].(string), bearer(fx.keyA),
		map[string]any{"type": "composite", "name": "c", "query": "1 && 2"})
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], "composite monitors have no counterpart")

	r = call(t, http.MethodPost, fx.url+"/api/v2/saved-searches/import", bearer(fx.keyA), asset("nginx_saved_view_5xx_errors.json"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "source:nginx @http.status_code:[500 TO 599]", item(r)["where"])
	assert.Equal(t, "datadog", item(r)["whereLanguage"])

	r = call(t, http.MethodPost, fx.url+"/api/v2/dashboards/import", bearer(fx.keyA), map[string]any{"title": "no widgets"})
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
}

// Issue 45: the host dashboard a first start makes, through the importer.
func TestHostDashboardOnFirstStart(t *testing.T) {
	fx := setup(t)
	require.NoError(t, fx.server.AddHostDashboard(context.Background(), "a"))
	r := call(t, http.MethodGet, fx.url+"/api/v2/dashboards/"+HostDashboardID, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	d := item(r)
	assert.Equal(t, "Hosts (Datadog Agent)", d["name"])
	assert.Len(t, d["tiles"], 17)
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodGet, fx.url+"/api/v2/dashboards/"+HostDashboardID, bearer(fx.keyB), nil).status,
		"the team's own")
}

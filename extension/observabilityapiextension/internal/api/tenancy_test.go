package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// Tenancy through the REST API. In the fixture team a is the install's
// team (it owns otel, api_charts and api_alerts); team b reads only what
// the operator assigns it.

func sourceOver(db string) map[string]any {
	m := map[string]any{"name": "logs", "kind": "log", "table": "tenancy", "timestampColumn": "ts", "severityColumn": "level"}
	if db != "" {
		m["database"] = db
	}
	return m
}

func TestSecondTeamCannotCreateASourceOverAnotherTeamsDatabase(t *testing.T) {
	fx := setup(t)
	ctx := context.Background()
	for _, db := range []string{"otel", "api_alerts"} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyB), sourceOver(db))
		assert.Equal(t, http.StatusBadRequest, r.status, db)
		assert.Contains(t, r.body["message"], `database "`+db+`" is not open to sources of team "b"`)
	}
	r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyB), sourceOver(""))
	assert.Equal(t, http.StatusBadRequest, r.status, "b has no database to default to")
	assert.Contains(t, r.body["message"], "from.databaseName is required")
	r = call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyB), sourceOver(fx.state))
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], "the API's state")

	// The install's team keeps its flows.
	r = call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), sourceOver(""))
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "otel", databaseOf(item(r)))

	// Assigned a database, b creates sources there (by default too), but
	// cannot move one onto a's database; a cannot use b's.
	require.NoError(t, fx.server.opts.Tenancy.Assign(ctx, "b", []string{"api_tenancy_b"}))
	r = call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyB), sourceOver(""))
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "api_tenancy_b", databaseOf(item(r)))
	id := item(r)["id"].(string)
	r = call(t, http.MethodPut, fx.url+"/api/v2/sources/"+id, bearer(fx.keyB), sourceOver("otel"))
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], `database "otel" is not open to sources of team "b"`)
	r = call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), sourceOver("api_tenancy_b"))
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], `database "api_tenancy_b" is not open to sources of team "a"`)
}

// A source row b could not create (stored before the rule, or written
// into the state table by hand) is refused when it is queried: by search,
// by charts (what a dashboard's tiles draw) and by alert evaluation.
func TestAStoredSourceOfAnotherTeamsDatabaseIsRefusedByEveryQuery(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	ctx := context.Background()
	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	alertTable(t, "tenancy", m0)(0, "error", "api", 3)
	now := time.Now()
	for id, db := range map[string]string{"theirs": "api_alerts", "state": fx.state} {
		// Stored in the earlier shape, read as today's.
		doc, _ := json.Marshal(map[string]any{"id": id, "name": id, "kind": "log", "database": db, "table": "tenancy", "timestampColumn": "ts", "severityColumn": "level"})
		require.NoError(t, fx.server.opts.Store.Put(ctx, "b", kindSource, id, doc, now, now))
		doc, _ = json.Marshal(map[string]any{"id": id + "-spans", "name": id, "kind": "trace", "database": db, "table": "tenancy", "timestampColumn": "ts"})
		require.NoError(t, fx.server.opts.Store.Put(ctx, "b", kindSource, id+"-spans", doc, now, now))
	}
	window := map[string]any{"startTime": m0.UnixMilli(), "endTime": m0.Add(5 * time.Minute).UnixMilli()}
	for id, db := range map[string]string{"theirs": "api_alerts", "state": fx.state} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyB), map[string]any{
			"sourceId":  id,
			"startTime": window["startTime"], "endTime": window["endTime"], "whereLanguage": "sql", "where": "1 = 1",
		})
		assert.Equal(t, http.StatusBadRequest, r.status, "search %s: %v", id, r.body)
		assert.Contains(t, r.body["message"], `database "`+db+`" is not open to sources`)
		r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyB), map[string]any{
			"startTime": window["startTime"], "endTime": window["endTime"], "granularity": "1m",
			"series": []any{map[string]any{"sourceId": id, "aggFn": "count"}},
		})
		assert.Equal(t, http.StatusBadRequest, r.status, "charts %s: %v", id, r.body)
		assert.Contains(t, r.body["message"], `database "`+db+`" is not open to sources`)
		// The reads the UI's pages make beside search.
		rng := fmt.Sprintf("startTime=%d&endTime=%d", window["startTime"], window["endTime"])
		for _, path := range []string{
			"/api/v2/sources/" + id + "/columns", "/api/v2/search/fields?sourceId=" + id,
			"/api/v2/search/values?field=level&sourceId=" + id + "&" + rng,
			"/api/v2/traces/abc?sourceId=" + id + "-spans&logSourceId=" + id, "/api/v2/traces/abc?sourceId=" + id + "-spans",
			"/api/v2/services?sourceId=" + id + "-spans&" + rng,
		} {
			r := call(t, http.MethodGet, fx.url+path, bearer(fx.keyB), nil)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s: %v", path, r.body)
			assert.Contains(t, r.body["message"], `database "`+db+`" is not open to sources`, path)
		}
		r = call(t, http.MethodPost, fx.url+"/api/v2/search/facets", bearer(fx.keyB), map[string]any{
			"sourceId":  id,
			"startTime": window["startTime"], "endTime": window["endTime"],
		})
		assert.Equal(t, http.StatusBadRequest, r.status, "facets %s: %v", id, r.body)
	}

	// A dashboard of b's with a tile on the row, and an alert on the tile:
	// evaluated, it is refused and nothing is delivered.
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	dash := call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyB), map[string]any{"name": "d", "tiles": []any{
		map[string]any{
			"id": "errors", "name": "errors", "x": 0, "y": 0, "w": 6, "h": 3,
			"config": map[string]any{"source": "theirs", "aggFn": "count", "where": "level:error"},
		},
	}})
	require.Equal(t, http.StatusOK, dash.status, dash.body)
	wh := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyB), map[string]any{"name": "b", "url": hook.URL})
	require.Equal(t, http.StatusOK, wh.status, wh.body)
	alert := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyB), map[string]any{
		"name": "a's errors", "message": "{{.value}}",
		"dashboardId": item(dash)["id"], "tileId": "errors", "threshold": 0, "interval": "1m", "source": "tile", "thresholdType": "above",
		"channel": map[string]any{"type": "webhook", "webhookId": item(wh)["id"]},
	})
	require.Equal(t, http.StatusOK, alert.status, alert.body)
	sender := webhook.New(webhook.Options{Attempts: 1, AllowPrivate: true})
	err := fx.alerts.EvaluateDue(ctx, m0.Add(time.Minute+5*time.Second), sender)
	require.Error(t, err)
	require.ErrorContains(t, err, `database "api_alerts" is not open to sources of team "b"`)
	assert.Empty(t, rc.notifications())

	// The install's team reads the same table through its own source.
	r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), sourceOver("api_alerts"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	r = call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), map[string]any{
		"sourceId":  item(r)["id"],
		"startTime": window["startTime"], "endTime": window["endTime"],
	})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Len(t, r.body["data"], 3)
}

// databaseOf is the database a source answered reads.
func databaseOf(src map[string]any) any {
	from, _ := src["from"].(map[string]any)
	return from["databaseName"]
}

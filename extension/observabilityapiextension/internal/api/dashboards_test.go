package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// Dashboards take HyperDX's two tile forms and this API's first one, and
// answer in HyperDX's response shape whichever came in.
func TestDashboardsInHyperDXShapes(t *testing.T) {
	fx := setup(t)
	self := fx.url + "/api/v2/dashboards"
	// As HyperDX's API docs write a dashboard: the config form...
	r := call(t, http.MethodPost, self, bearer(fx.keyA), map[string]any{"name": "Checkout", "tags": []string{"prod"}, "tiles": []any{
		map[string]any{"name": "Errors by service", "x": 0, "y": 0, "w": 12, "h": 4, "config": map[string]any{
			"displayType": "line", "sourceId": "logs", "groupBy": "ServiceName",
			"select": []any{map[string]any{"aggFn": "count", "valueExpression": "", "where": "SeverityText:ERROR", "whereLanguage": "lucene", "alias": "errors"}},
		}},
		map[string]any{"name": "p95", "x": 12, "y": 0, "w": 12, "h": 4, "config": map[string]any{
			"displayType": "number", "sourceId": "traces", "numberFormat": map[string]any{"output": "duration"},
			"select": []any{map[string]any{"aggFn": "quantile", "level": 0.95, "valueExpression": "Duration"}},
		}},
		map[string]any{"name": "Recent", "x": 0, "y": 4, "w": 24, "h": 4, "config": map[string]any{
			"displayType": "search", "sourceId": "logs", "select": "Timestamp, ServiceName, Body", "where": "level:error",
		}},
		map[string]any{"name": "Runbook", "x": 0, "y": 8, "w": 24, "h": 2, "config": map[string]any{"displayType": "markdown", "markdown": "# Runbook"}},
		map[string]any{"name": "SQL", "x": 0, "y": 10, "w": 12, "h": 3, "config": map[string]any{
			"configType": "sql", "displayType": "table", "connectionId": sources.DefaultConnectionID("a"), "sqlTemplate": "SELECT count() FROM otel_logs",
		}},
	}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	d := item(r)
	assert.Equal(t, []any{}, d["filters"])
	assert.Nil(t, d["savedQuery"])
	tiles := d["tiles"].([]any)
	require.Len(t, tiles, 5)
	first := tiles[0].(map[string]any)
	assert.NotEmpty(t, first["id"])
	assert.Equal(t, map[string]any{
		"displayType": "line", "sourceId": "logs", "groupBy": "ServiceName", "asRatio": false, "fillNulls": true,
		"select": []any{map[string]any{"aggFn": "count", "valueExpression": "", "where": "SeverityText:ERROR", "whereLanguage": "lucene", "alias": "errors"}},
	}, first["config"])
	assert.Equal(t, map[string]any{"output": "duration"}, tiles[1].(map[string]any)["config"].(map[string]any)["numberFormat"], "presentation options are kept")

	// ...and the older series form, translated as HyperDX translates it.
	r = call(t, http.MethodPost, self, bearer(fx.keyA), map[string]any{"name": "Old", "tiles": []any{
		map[string]any{"id": "s1", "name": "Requests", "x": 0, "y": 0, "w": 6, "h": 3, "series": []any{
			map[string]any{"type": "time", "sourceId": "traces", "aggFn": "count", "where": "", "whereLanguage": "lucene", "groupBy": []string{"ServiceName", "SpanName"}},
			map[string]any{"type": "time", "sourceId": "traces", "aggFn": "avg", "field": "Duration", "where": "", "whereLanguage": "lucene", "groupBy": []string{}},
		}},
		map[string]any{"id": "s2", "name": "Notes", "x": 6, "y": 0, "w": 6, "h": 3, "series": []any{map[string]any{"type": "markdown", "content": "hi"}}},
	}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	old := item(r)
	assert.Equal(t, map[string]any{"displayType": "line", "sourceId": "traces", "groupBy": "ServiceName,SpanName", "asRatio": false, "fillNulls": true, "select": []any{
		map[string]any{"aggFn": "count", "valueExpression": "", "where": "", "whereLanguage": "lucene"},
		map[string]any{"aggFn": "avg", "valueExpression": "Duration", "where": "", "whereLanguage": "lucene"},
	}},
		old["tiles"].([]any)[0].(map[string]any)["config"])

	// A dashboard read back can be written back unchanged.
	id := old["id"].(string)
	r = call(t, http.MethodPut, self+"/"+id, bearer(fx.keyA), old)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, old["tiles"], item(r)["tiles"])

	// HyperDX's checks.
	r = call(t, http.MethodPost, self, bearer(fx.keyA), map[string]any{"name": "bad", "tiles": []any{
		map[string]any{"x": 24, "y": 0, "w": 25, "h": 1, "series": []any{
			map[string]any{"type": "time", "sourceId": "logs", "aggFn": "count"},
			map[string]any{"type": "number", "sourceId": "logs", "aggFn": "count"},
		}},
		map[string]any{"x": 0, "y": 0, "w": 1, "h": 1, "config": map[string]any{"displayType": "line", "sourceId": "missing", "select": []any{map[string]any{"aggFn": "count"}}}},
		map[string]any{"x": 0, "y": 0, "w": 1, "h": 1, "config": map[string]any{"displayType": "markdown"}, "series": []any{map[string]any{"type": "markdown"}}},
	}})
	assert.Equal(t, http.StatusBadRequest, r.status)
	for _, want := range []string{"tiles.0: all series must have the same type", `tiles.2: a tile cannot have both series and config`} {
		assert.Contains(t, r.body["message"], want)
	}
	r = call(t, http.MethodPost, self, bearer(fx.keyA), map[string]any{"name": "bad", "tiles": []any{
		map[string]any{"x": 24, "y": 0, "w": 25, "h": 1, "config": map[string]any{"displayType": "line", "sourceId": "missing", "select": []any{map[string]any{"aggFn": "count"}}}},
	}})
	assert.Equal(t, http.StatusBadRequest, r.status)
	for _, want := range []string{"x must be 0 to 23, got 24", "w must be 1 to 24, got 25", `source "missing" does not exist`} {
		assert.Contains(t, r.body["message"], want)
	}

	// Alerts watch chart tiles only.
	wh := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "ops", "url": "https://hooks.example/x"})
	require.Equal(t, http.StatusOK, wh.status)
	alert := func(tile string) resp {
		return call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
			"name": "a", "dashboardId": d["id"], "tileId": tile,
			"threshold": 1, "interval": "5m", "source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": item(wh)["id"]},
		})
	}
	assert.Equal(t, http.StatusOK, alert(first["id"].(string)).status)
	r = alert(tiles[3].(map[string]any)["id"].(string))
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], "is a markdown tile; alerts watch chart tiles")
}

// A dashboard stored in this API's first shape answers in HyperDX's.
func TestStoredFirstShapeAnswersInHyperDXShape(t *testing.T) {
	fx := setup(t)
	now := time.Now()
	legacy := `{"id":"old1","name":"Errors","tags":["prod"],"tiles":[{"id":"t1","name":"errors","x":0,"y":0,"w":6,"h":3,
	  "config":{"source":"logs","aggFn":"count","where":"level:error","whereLanguage":"lucene","groupBy":["ServiceName"],"displayType":"stacked_bar"}}],
	  "createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`
	require.NoError(t, fx.server.opts.Store.Put(context.Background(), "a", kindDashboard, "old1", []byte(legacy), now, now))
	for _, r := range []resp{
		call(t, http.MethodGet, fx.url+"/api/v2/dashboards/old1", bearer(fx.keyA), nil),
	} {
		require.Equal(t, http.StatusOK, r.status)
		assert.Equal(t, map[string]any{
			"displayType": "stacked_bar", "sourceId": "logs", "groupBy": "ServiceName",
			"select": []any{map[string]any{"aggFn": "count", "valueExpression": "", "where": "level:error", "whereLanguage": "lucene"}},
		},
			item(r)["tiles"].([]any)[0].(map[string]any)["config"])
	}
	list := call(t, http.MethodGet, fx.url+"/api/v2/dashboards", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, list.status)
	assert.Equal(t, "stacked_bar", list.body["data"].([]any)[0].(map[string]any)["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any)["displayType"])
}

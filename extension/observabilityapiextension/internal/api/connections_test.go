package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// A team's default connection stands for the collector's own ClickHouse;
// a source read through another is kept but not queried, and a
// connection a source names is not deleted from under it.
func TestConnectionsAndTheCollectorsOwnClickHouse(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.ClickHouseHost, o.ClickHouseUser = "http://127.0.0.1:8123", "default" })
	l := call(t, http.MethodGet, fx.url+"/api/v2/connections", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, l.status, l.body)
	require.Len(t, l.body["data"], 1, "bootstrap made the default connection")
	def := l.body["data"].([]any)[0].(map[string]any)
	assert.Equal(t, sources.DefaultConnectionID("a"), def["id"])
	assert.Equal(t, "Default", def["name"])
	assert.Equal(t, "http://127.0.0.1:8123", def["host"])

	other := item(call(t, http.MethodPost, fx.url+"/api/v2/connections", bearer(fx.keyA), map[string]any{
		"name": "Elsewhere", "host": "https://elsewhere.example.com:8443", "username": "u", "password": "p",
	}))["id"].(string)
	body := sourceBody(t, "a", map[string]any{"name": "far logs", "kind": "log", "table": "otel_logs", "timestampColumn": "Timestamp"})
	body["connection"] = other
	r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), body)
	require.Equal(t, http.StatusOK, r.status, r.body)
	src := item(r)["id"].(string)

	now := time.Now()
	q := call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
		"startTime": now.Add(-time.Hour).UnixMilli(), "endTime": now.UnixMilli(), "granularity": "1h",
		"series": []any{map[string]any{"sourceId": src, "aggFn": "count"}},
	})
	assert.Equal(t, http.StatusBadRequest, q.status, q.body)
	assert.Contains(t, q.body["message"], "not this collector's own ClickHouse")

	d := call(t, http.MethodDelete, fx.url+"/api/v2/connections/"+other, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusConflict, d.status, d.body)
	assert.Contains(t, d.body["message"], "far logs")
	require.Equal(t, http.StatusOK, call(t, http.MethodDelete, fx.url+"/api/v2/sources/"+src, bearer(fx.keyA), nil).status)
	assert.Equal(t, http.StatusOK, call(t, http.MethodDelete, fx.url+"/api/v2/connections/"+other, bearer(fx.keyA), nil).status)
}

// A team bootstrapped before connections gets its default one at start,
// once.
func TestDefaultConnectionsAddedAtStart(t *testing.T) {
	fx := setup(t)
	ctx := context.Background()
	now := time.Now()
	doc, _ := json.Marshal(map[string]any{"id": "logs", "name": "Logs", "kind": "log", "database": "otel", "table": "otel_logs", "timestampColumn": "Timestamp"})
	require.NoError(t, fx.server.opts.Store.Put(ctx, "b", kindSource, "logs", doc, now, now))
	n, err := fx.server.AddDefaultConnections(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "team b's; team a's was bootstrapped")
	_, err = fx.server.opts.Store.Get(ctx, "b", kindConn, sources.DefaultConnectionID("b"))
	require.NoError(t, err)
	n, err = fx.server.AddDefaultConnections(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
}

package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// TestChartSeriesHaving: a table tile's having, sent with its series,
// answers one row per group over the range, only the groups it keeps; a
// having the check refuses is a 400 saying why.
func TestChartSeriesHaving(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		"CREATE TABLE IF NOT EXISTS api_charts.having_events (ts DateTime, svc String, msg String, dur UInt64) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_charts.having_events",
		"INSERT INTO api_charts.having_events VALUES ('2026-11-01 12:00:10','a','x',10), ('2026-11-01 12:01:20','a','x',30), ('2026-11-01 12:02:00','a','y',50)," +
			" ('2026-11-01 12:00:30','b','x',100)",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "events", "kind": "log", "database": "api_charts", "table": "having_events", "timestampColumn": "ts", "bodyColumn": "msg", "serviceColumn": "svc",
	})
	require.Equal(t, http.StatusOK, src.status, src.body)
	srcID := item(src)["id"].(string)
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	body := func(having string) map[string]any {
		return map[string]any{"startTime": start, "endTime": start + 3*60_000, "granularity": "1m", "having": having, "series": []any{
			map[string]any{"sourceId": srcID, "aggFn": "count", "groupBy": []string{"svc"}, "alias": "n"},
			map[string]any{"sourceId": srcID, "aggFn": "avg", "field": "dur", "where": "msg:x", "groupBy": []string{"svc"}, "alias": "avg x"},
		}}
	}
	r := call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), body("n > 1"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Len(t, r.body["data"], 1, "b has one event")
	row := r.body["data"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"a"}, row["group"])
	assert.Equal(t, float64(start), row["ts_bucket"])
	assert.Equal(t, "3", row["series_0.data"])
	assert.Equal(t, 20.0, row["series_1.data"], "the range's average of the x events, not a sum of bucket averages")
	assert.Equal(t, "3m0s", r.body["granularity"])

	for _, having := range []string{"max(dur) >= 100 OR `avg x` > 90", "svc = 'b'"} {
		r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), body(having))
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.Len(t, r.body["data"], 1, having)
		assert.Equal(t, []any{"b"}, r.body["data"].([]any)[0].(map[string]any)["group"], having)
	}

	// A grouped field compares as its own type: 100 > 50, which as text
	// it is not.
	byDur := body("dur > 40")
	byDur["series"] = []any{map[string]any{"sourceId": srcID, "aggFn": "count", "groupBy": []string{"dur"}}}
	r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), byDur)
	require.Equal(t, http.StatusOK, r.status, r.body)
	var durs []any
	for _, d := range r.body["data"].([]any) {
		durs = append(durs, d.(map[string]any)["group"].([]any)[0])
	}
	assert.Equal(t, []any{"100", "50"}, durs)

	for having, why := range map[string]string{
		"msg = 'x'": `"msg" is not a select item's alias or a grouped field`,
		"count() > (SELECT count() FROM api_charts.having_events)": "sub-queries",
		"count() >": "syntax error",
	} {
		r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), body(having))
		assert.Equal(t, http.StatusBadRequest, r.status, having)
		assert.Contains(t, r.body["message"], why, having)
	}
}

// TestTileAlertRefusesHaving: an alert judges each group in its window
// and cannot apply a table tile's having, so one is refused at create.
func TestTileAlertRefusesHaving(t *testing.T) {
	fx := setup(t)
	post := func(path string, body map[string]any) map[string]any {
		r := call(t, http.MethodPost, fx.url+path, bearer(fx.keyA), body)
		require.Equal(t, http.StatusOK, r.status, r.body)
		return item(r)
	}
	src := post("/api/v2/sources", map[string]any{
		"name": "events", "kind": "log", "database": "api_charts", "table": "events", "timestampColumn": "ts", "bodyColumn": "msg",
	})["id"].(string)
	tile := func(id, having string) map[string]any {
		return map[string]any{"id": id, "name": id, "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
			"displayType": "table", "sourceId": src, "groupBy": "svc", "having": having,
			"select": []any{map[string]any{"aggFn": "count", "alias": "n"}},
		}}
	}
	dash := post("/api/v2/dashboards", map[string]any{"name": "d", "tiles": []any{tile("kept", "n > 1"), tile("all", "")}})["id"].(string)
	wh := post("/api/v2/webhooks", map[string]any{"name": "test", "url": "https://example.com/hook"})["id"].(string)
	alert := func(tileID string) map[string]any {
		return map[string]any{
			"name": "n", "dashboardId": dash, "tileId": tileID, "threshold": 5, "interval": "1m",
			"source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
		}
	}
	r := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), alert("kept"))
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], `tile "kept" has a having, which an alert does not apply`)
	post("/api/v2/alerts", alert("all"))
}

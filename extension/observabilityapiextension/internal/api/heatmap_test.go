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

// TestHeatmapEndpoint: POST /api/v2/charts/heatmap counts a source's
// events per minute and bucket of their duration; a mistake in what is
// asked is a 400 naming it, another team's source a 404.
func TestHeatmapEndpoint(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		"CREATE TABLE IF NOT EXISTS api_charts.heat (ts DateTime64(3), svc String, name String, dur UInt64) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_charts.heat",
		// Minute 0: two fast, one slow; minute 1: one slow; a zero
		// duration, left out on a log scale.
		`INSERT INTO api_charts.heat VALUES ('2026-11-01 12:00:10','a','x',1000), ('2026-11-01 12:00:20','a','x',1000),
		  ('2026-11-01 12:00:30','a','x',1000000), ('2026-11-01 12:01:30','b','x',1000000), ('2026-11-01 12:01:40','b','x',0)`,
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "heat", "kind": "trace", "database": "api_charts", "table": "heat", "timestampColumn": "ts", "serviceColumn": "svc",
		"spanNameColumn": "name", "durationExpression": "dur", "durationPrecision": 9,
	})
	require.Equal(t, http.StatusOK, src.status, src.body)
	id := item(src)["id"].(string)
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	heat := func(key string, kv ...any) resp {
		return call(t, http.MethodPost, fx.url+"/api/v2/charts/heatmap", bearer(key), with(map[string]any{
			"startTime": start, "endTime": start + 120_000, "granularity": "1m", "sourceId": id, "valueExpression": "dur", "rows": 3,
		}, kv...))
	}
	r := heat(fx.keyA)
	require.Equal(t, http.StatusOK, r.status, r.body)
	d := r.body["data"].(map[string]any)
	assert.Equal(t, []any{float64(start), float64(start + 60_000)}, d["times"])
	assert.Equal(t, []any{1000.0, 10000.0, 100000.0, 1000000.0}, roundAll(d["bounds"].([]any)))
	assert.Equal(t, []any{[]any{2.0, 0.0, 1.0}, []any{0.0, 0.0, 1.0}}, d["counts"], "log scale: the zero left out")
	assert.Equal(t, "1m0s", r.body["granularity"])

	r = heat(fx.keyA, "heatmapScaleType", "linear", "rows", 2, "where", "svc:b")
	require.Equal(t, http.StatusOK, r.status, r.body)
	d = r.body["data"].(map[string]any)
	assert.Equal(t, []any{0.0, 500000.0, 1000000.0}, d["bounds"])
	assert.Equal(t, []any{[]any{0.0, 0.0}, []any{1.0, 1.0}}, d["counts"], "linear: the zero counted")

	r = heat(fx.keyA, "where", "svc:nobody")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, map[string]any{"times": []any{}, "bounds": []any{}, "counts": []any{}}, r.body["data"])

	for _, tc := range []struct {
		kv   []any
		want string
	}{
		{[]any{"valueExpression", ""}, "valueExpression is required"},
		{[]any{"countExpression", "sum(dur)"}, "cells count events"},
		{[]any{"heatmapScaleType", "sqrt"}, "heatmapScaleType must be one of log, linear"},
		{[]any{"rows", 500}, "rows must be 1 to 100"},
		{[]any{"valueExpression", "nosuch"}, "nosuch"},
	} {
		r := heat(fx.keyA, tc.kv...)
		assert.Equal(t, http.StatusBadRequest, r.status, "%v: %v", tc.kv, r.body)
		assert.Contains(t, r.body["message"], tc.want, tc.kv)
	}
	assert.Equal(t, http.StatusOK, heat(fx.keyA, "countExpression", "count()").status)
	assert.Equal(t, http.StatusNotFound, heat(fx.keyB).status, "team b does not have team a's source")
}

func roundAll(vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		f := v.(float64)
		out[i] = float64(int64(f + 0.5))
	}
	return out
}

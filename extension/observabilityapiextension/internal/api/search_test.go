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

// POST /api/v2/search: a team's source's events, newest first, paged by
// cursor, with the fields asked for; mistakes are 400s that say why.
func TestSearchEndpoint(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		"CREATE TABLE IF NOT EXISTS api_charts.found (ts DateTime64(3), svc String, msg String, attrs Map(String, String)) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_charts.found",
		"INSERT INTO api_charts.found VALUES ('2026-11-01 12:00:10','a','boom',{'k':'1'}), ('2026-11-01 12:00:20','b','ok',{'k':'2'}), ('2026-11-01 12:02:00','a','boom again',{'k':'3'})",
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "found", "kind": "log",
		"database": "api_charts", "table": "found", "timestampColumn": "ts", "bodyColumn": "msg", "serviceColumn": "svc", "attributesMap": "attrs",
	})
	require.Equal(t, http.StatusOK, src.status, src.body)
	id := item(src)["id"].(string)
	q := map[string]any{
		"sourceId": id, "startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z", "where": "boom", "maxResults": 1,
		"select": []string{"msg", "attrs.k", "k"},
	}
	r := call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), q)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []any{map[string]any{"msg": "boom again", "attrs.k": "3", "k": "3"}}, r.body["data"], "newest first, the fields asked for")
	assert.EqualValues(t, 1, r.body["rows"], "rows: how many this answer holds")
	cursor, _ := r.body["nextCursor"].(string)
	require.NotEmpty(t, cursor)
	// "start" is HyperDX's first page of a cursor walk: the same page.
	q["cursor"] = "start"
	first := call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), q)
	require.Equal(t, http.StatusOK, first.status, first.body)
	assert.Equal(t, r.body["data"], first.body["data"])
	assert.Equal(t, cursor, first.body["nextCursor"])
	// offset pages HyperDX's way, without a cursor to follow.
	delete(q, "cursor")
	q["offset"] = 1
	off := call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), q)
	require.Equal(t, http.StatusOK, off.status, off.body)
	assert.Equal(t, "boom", off.body["data"].([]any)[0].(map[string]any)["msg"])
	assert.Nil(t, off.body["nextCursor"])
	delete(q, "offset")
	q["cursor"] = cursor
	r = call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), q)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "boom", r.body["data"].([]any)[0].(map[string]any)["msg"])

	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	q = map[string]any{"sourceId": id, "startTime": start.UnixMilli(), "endTime": start.Add(5 * time.Minute).UnixMilli()}
	r = call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), q)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Len(t, r.body["data"], 3, "epoch milliseconds, no where: every event")
	assert.Nil(t, r.body["nextCursor"])

	// Column expressions in select, as HyperDX takes them: each answered
	// under its text, a comma inside one kept with it.
	q = map[string]any{
		"sourceId": id, "startTime": start.UnixMilli(), "endTime": start.Add(5 * time.Minute).UnixMilli(), "where": "boom", "maxResults": 1,
		"select": "msg, attrs['k'], concat(svc, ', ', upper(msg)), toUInt8(attrs['k']) * 2",
	}
	r = call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), q)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []any{map[string]any{"msg": "boom again", "attrs['k']": "3", "concat(svc, ', ', upper(msg))": "a, BOOM AGAIN", "toUInt8(attrs['k']) * 2": 6.0}}, r.body["data"])
	for sel, why := range map[string]string{
		"msg, (SELECT 1)":      "select must not contain semicolons or SELECT subqueries",
		"msg, lower(nope)":     `select item "lower(nope)"`,
		"msg, upper(msg) AS u": `select item "upper(msg) AS u"`,
		"msg, sleep(1)":        `select item "sleep(1)"`,
	} {
		q["select"] = sel
		r = call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), q)
		assert.Equal(t, http.StatusBadRequest, r.status, sel)
		assert.Contains(t, r.body["message"], why, sel)
	}

	for body, want := range map[string]any{
		"maxResults must be from 1 to 2000":   map[string]any{"sourceId": id, "startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z", "maxResults": 5000},
		"startTime must be an ISO 8601 time":  map[string]any{"sourceId": id, "startTime": "yesterday", "endTime": "2026-11-01T12:05:00Z"},
		"orderBy may only be":                 map[string]any{"sourceId": id, "startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z", "orderBy": "ts ASC"},
		"incomplete expression":               map[string]any{"sourceId": id, "startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z", "where": "a AND"},
		"cursor is not one a search answered": map[string]any{"sourceId": id, "startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z", "cursor": "x"},
		"whereLanguage must be one of":        map[string]any{"sourceId": id, "startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z", "whereLanguage": "kql"},
	} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), want)
		assert.Equal(t, http.StatusBadRequest, r.status, body)
		assert.Contains(t, r.body["message"], body)
	}
	r = call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyB), map[string]any{"sourceId": id, "startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z"})
	assert.Equal(t, http.StatusNotFound, r.status, "another team's source does not exist for it")
}

package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// Input a user can type is the user's mistake or a value to search for,
// never a server fault: each of these reached the engine and came back a
// 502 before (a value ending in a backslash is not a parameter the engine
// can read, and neither is one holding a newline; a 1 MB where was sent
// in the URL of the engine request).
func TestBadQueryInputIs400(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		"CREATE TABLE IF NOT EXISTS api_charts.bad (ts DateTime64(3), svc String, msg String, attrs Map(String, String)) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_charts.bad",
		`INSERT INTO api_charts.bad VALUES ('2026-11-01 12:00:10','a','C:\\temp\\',{'k':'1'}), ('2026-11-01 12:00:20','b','tab\there',{'a\nb':'2'})`,
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "bad", "kind": "log",
		"database": "api_charts", "table": "bad", "timestampColumn": "ts", "bodyColumn": "msg", "serviceColumn": "svc", "attributesMap": "attrs",
	})
	require.Equal(t, http.StatusOK, src.status, src.body)
	id := item(src)["id"].(string)
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	search := func(where string) resp {
		return call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), map[string]any{
			"sourceId":  id,
			"startTime": start, "endTime": start + 300_000, "where": where,
		})
	}
	chart := func(where string, groupBy ...string) resp {
		return call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
			"startTime": start, "endTime": start + 300_000, "granularity": "5m",
			"series": []any{map[string]any{"sourceId": id, "aggFn": "count", "where": where, "groupBy": append([]string{}, groupBy...)}},
		})
	}

	// A trailing backslash escapes nothing: the mistake is named.
	for _, r := range []resp{search(`boom\`), chart(`msg:C\`), search(`svc:a \`)} {
		assert.Equal(t, http.StatusBadRequest, r.status, r.body)
		assert.Contains(t, r.body["message"], "backslash", r.body)
	}
	// Backslashes and control characters inside a value are searched for
	// as they are (not read as the engine's escapes: \t is not a tab).
	r := search(`"C:\\temp\\"`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Len(t, r.body["data"], 1, "the body with backslashes is found")
	r = search(`msg:tab\there`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Empty(t, r.body["data"], `\t in a value is a backslash and a t, not a tab`)

	// A field name with a newline in groupBy is refused, as in a where.
	r = chart("", "a\nb")
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body["message"], "control character", r.body)

	// A where is bounded, with a reason, before anything is compiled (a
	// body over 1 MiB is a 413 before that).
	huge := strings.Repeat("x", 900_000)
	for _, r := range []resp{
		search(huge), chart(huge),
		call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), map[string]any{
			"sourceId":  id,
			"startTime": start, "endTime": start + 300_000, "whereLanguage": "sql", "where": "svc = '" + huge + "'",
		}),
	} {
		assert.Equal(t, http.StatusBadRequest, r.status, r.body)
		assert.Contains(t, r.body["message"], "where is longer than", r.body)
	}
}

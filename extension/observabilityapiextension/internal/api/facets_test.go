package api

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// The facets, field names and values of a search (issue 42): counts for
// the where and range asked, the team's own sources only, and each
// mistake a 400 that says what is wrong.
func TestSearchFacetsFieldsAndValuesEndpoints(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		"CREATE TABLE IF NOT EXISTS api_charts.faceted (ts DateTime64(3), svc String, sev String, msg String, attrs Map(String, String), res Map(String, String)) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_charts.faceted",
		`INSERT INTO api_charts.faceted VALUES ('2026-11-01 12:00:10','a','error','boom',{'region':'eu'},{'host.name':'h1','service.name':'a'}),
		 ('2026-11-01 12:00:20','b','info','ok',{'region':'us'},{'host.name':'h1'}), ('2026-11-01 12:00:30','a','info','fine',{'region':'eu'},{'host.name':'h2'}),
		 ('2026-11-01 13:00:00','c','info','later',{'region':'ap'},{'host.name':'h3'})`,
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "faceted", "kind": "log",
		"database": "api_charts", "table": "faceted", "timestampColumn": "ts", "bodyColumn": "msg", "serviceColumn": "svc", "severityColumn": "sev",
		"attributesMap": "attrs", "resourceMap": "res",
	})
	require.Equal(t, http.StatusOK, src.status, src.body)
	id := item(src)["id"].(string)
	const start, end = "2026-11-01T12:00:00Z", "2026-11-01T12:05:00Z"

	// Facets: the chosen columns first, then the attributes, with their
	// counts in the range (the 13:00 event is outside it).
	r := call(t, http.MethodPost, fx.url+"/api/v2/search/facets", bearer(fx.keyA), map[string]any{"sourceId": id, "startTime": start, "endTime": end})
	require.Equal(t, http.StatusOK, r.status, r.body)
	fs := r.body["data"].(map[string]any)
	assert.EqualValues(t, 3, fs["sampled"])
	facets := map[string]any{}
	var order []string
	for _, f := range fs["facets"].([]any) {
		m := f.(map[string]any)
		facets[m["field"].(string)] = m["values"]
		order = append(order, m["field"].(string))
	}
	require.GreaterOrEqual(t, len(order), 4, r.body)
	assert.Equal(t, []string{"svc", "sev"}, order[:2], "the service and severity columns first")
	assert.Equal(t, []any{map[string]any{"value": "a", "count": 2.0}, map[string]any{"value": "b", "count": 1.0}}, facets["svc"])
	assert.Equal(t, []any{map[string]any{"value": "eu", "count": 2.0}, map[string]any{"value": "us", "count": 1.0}}, facets["region"])
	assert.Equal(t, []any{map[string]any{"value": "h1", "count": 2.0}, map[string]any{"value": "h2", "count": 1.0}}, facets["Resource.host.name"])
	assert.NotContains(t, order, "Resource.service.name", "the service column's copy is not a second facet")

	// Under a where, and with fewer fields and values.
	r = call(t, http.MethodPost, fx.url+"/api/v2/search/facets", bearer(fx.keyA), map[string]any{
		"sourceId": id, "startTime": start, "endTime": end,
		"where": "-region:us", "fields": 1, "values": 1,
	})
	require.Equal(t, http.StatusOK, r.status, r.body)
	fs = r.body["data"].(map[string]any)
	assert.EqualValues(t, 2, fs["sampled"])
	assert.Equal(t, []any{map[string]any{"field": "svc", "count": 2.0, "values": []any{map[string]any{"value": "a", "count": 2.0}}}}, fs["facets"])

	// Field names by prefix, columns and attribute keys.
	get := func(auth, path string, q url.Values) resp {
		t.Helper()
		return call(t, http.MethodGet, fx.url+path+"?"+q.Encode(), auth, nil)
	}
	r = get(bearer(fx.keyA), "/api/v2/search/fields", url.Values{"sourceId": {id}, "prefix": {"re"}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, r.body["data"], "region")
	assert.NotContains(t, r.body["data"], "svc", "only names with the prefix")
	r = get(bearer(fx.keyA), "/api/v2/search/fields", url.Values{"sourceId": {id}, "prefix": {"SV"}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, r.body["data"], "svc", "any case")

	// A field's values in the range, by prefix, under a where.
	r = get(bearer(fx.keyA), "/api/v2/search/values", url.Values{"sourceId": {id}, "field": {"region"}, "startTime": {start}, "endTime": {end}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []any{map[string]any{"value": "eu", "count": 2.0}, map[string]any{"value": "us", "count": 1.0}}, r.body["data"])
	r = get(bearer(fx.keyA), "/api/v2/search/values", url.Values{"sourceId": {id}, "field": {"region"}, "prefix": {"u"}, "startTime": {start}, "endTime": {end}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []any{map[string]any{"value": "us", "count": 1.0}}, r.body["data"])
	r = get(bearer(fx.keyA), "/api/v2/search/values", url.Values{"sourceId": {id}, "field": {"service"}, "where": {"region:eu"}, "startTime": {start}, "endTime": {end}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []any{map[string]any{"value": "a", "count": 2.0}}, r.body["data"], "service is the source's service column")

	// Mistakes are 400s that say what is wrong.
	for msg, body := range map[string]map[string]any{
		"sourceId is required":         {"startTime": start, "endTime": end},
		"fields must be from 1 to 100": {"sourceId": id, "startTime": start, "endTime": end, "fields": 101},
		"values must be from 1 to 100": {"sourceId": id, "startTime": start, "endTime": end, "values": -1},
		"startTime must be":            {"sourceId": id, "startTime": "yesterday", "endTime": end},
		"whereLanguage must be one of": {"sourceId": id, "startTime": start, "endTime": end, "whereLanguage": "kql"},
		"incomplete expression":        {"sourceId": id, "startTime": start, "endTime": end, "where": "a AND"},
	} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/search/facets", bearer(fx.keyA), body)
		assert.Equal(t, http.StatusBadRequest, r.status, msg)
		assert.Contains(t, r.body["message"], msg)
	}
	for _, c := range []struct {
		path string
		q    url.Values
		msg  string
	}{
		{"/api/v2/search/fields", url.Values{"prefix": {"re"}}, "sourceId is required"},
		{"/api/v2/search/fields", url.Values{"sourceId": {id}, "limit": {"501"}}, "limit must be a number from 1 to 500"},
		{"/api/v2/search/fields", url.Values{"sourceId": {id}, "limit": {"ten"}}, "limit must be a number"},
		{"/api/v2/search/values", url.Values{"field": {"region"}}, "sourceId is required"},
		{"/api/v2/search/values", url.Values{"sourceId": {id}}, "field name is empty"},
		{"/api/v2/search/values", url.Values{"sourceId": {id}, "field": {"reg\x01ion"}}, "control character"},
		{"/api/v2/search/values", url.Values{"sourceId": {id}, "field": {"region"}, "limit": {"0.5"}}, "limit must be a number from 1 to 100"},
		{"/api/v2/search/values", url.Values{"sourceId": {id}, "field": {"region"}, "startTime": {"soon"}}, "startTime"},
	} {
		t.Run(c.path+" "+c.msg, func(t *testing.T) {
			r := get(bearer(fx.keyA), c.path, c.q)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s %v", c.path, c.q)
			assert.Contains(t, r.body["message"], c.msg, "%s %v", c.path, c.q)
		})
	}

	// An unknown source, and another team's, do not exist for the caller.
	for _, k := range []struct{ key, id string }{{fx.keyA, "000000000000000000000000"}, {fx.keyB, id}} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/search/facets", bearer(k.key), map[string]any{"sourceId": k.id, "startTime": start, "endTime": end})
		assert.Equal(t, http.StatusNotFound, r.status, r.body)
		r = get(bearer(k.key), "/api/v2/search/fields", url.Values{"sourceId": {k.id}})
		assert.Equal(t, http.StatusNotFound, r.status, r.body)
		r = get(bearer(k.key), "/api/v2/search/values", url.Values{"sourceId": {k.id}, "field": {"region"}})
		assert.Equal(t, http.StatusNotFound, r.status, r.body)
		assert.Contains(t, r.body["message"], "not found")
	}
}

package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// A source whose roles are expressions, not columns (HyperDX's
// serviceNameExpression ResourceAttributes['service.name'] and the like),
// reads them everywhere a column role is read: search, facets, charts,
// the Datadog where, the trace list, the waterfall and the services page.
func TestSourceRolesMayBeExpressions(t *testing.T) {
	fx := setup(t)
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_charts",
		"DROP TABLE IF EXISTS api_charts.roles_logs",
		"DROP TABLE IF EXISTS api_charts.roles_spans",
		"CREATE TABLE api_charts.roles_logs (Timestamp DateTime64(9), Body String, TraceId String," +
			" LogAttributes Map(String, String), ResourceAttributes Map(String, String)) ENGINE = MergeTree ORDER BY Timestamp",
		"INSERT INTO api_charts.roles_logs VALUES" +
			" ('2026-11-01 12:00:10', '{\"msg\":\"payment failed\"}', 'a1', {'level':'error'}, {'service.name':'checkout'})," +
			" ('2026-11-01 12:00:20', '{\"msg\":\"cart ok\"}', '', {'level':'info'}, {'service.name':'cart'})," +
			" ('2026-11-01 12:01:30', '{\"msg\":\"payment retried\"}', '', {'level':'ERROR'}, {'service.name':'checkout'})",
		"CREATE TABLE api_charts.roles_spans (Timestamp DateTime64(9), Ids Map(String, String), SpanName String, SpanKind String," +
			" SpanAttributes Map(String, String), ResourceAttributes Map(String, String)) ENGINE = MergeTree ORDER BY Timestamp",
		"INSERT INTO api_charts.roles_spans VALUES" +
			" ('2026-11-01 12:00:10', {'trace':'a1','span':'a','parent':''}, 'POST /pay', 'Server', {'ms':'300','status':'Unset'}, {'service.name':'checkout'})," +
			" ('2026-11-01 12:00:10.010', {'trace':'a1','span':'b','parent':'a'}, 'charge', 'Server', {'ms':'250','status':'Error'}, {'service.name':'payments'})," +
			" ('2026-11-01 12:00:20', {'trace':'b2','span':'c','parent':''}, 'GET /cart', 'Server', {'ms':'5','status':'Unset'}, {'service.name':'cart'})",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	team, _ := keyTeams.Load(bearer(fx.keyA))
	logs := sourceBody(t, fmt.Sprint(team), map[string]any{
		"name": "roles logs", "kind": "log", "database": "api_charts", "table": "roles_logs", "timestampColumn": "Timestamp",
		"bodyColumn": "Body", "serviceColumn": "ServiceName", "severityColumn": "SeverityText",
		"attributesMap": "LogAttributes", "resourceMap": "ResourceAttributes",
	})
	logs["serviceNameExpression"] = "ResourceAttributes['service.name']"
	logs["severityTextExpression"] = "LogAttributes['level']"
	logs["bodyExpression"] = "JSONExtractString(Body, 'msg')"
	logs["defaultTableSelectExpression"] = "Timestamp, ResourceAttributes['service.name'], JSONExtractString(Body, 'msg')"
	r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), logs)
	require.Equal(t, http.StatusOK, r.status, r.body)
	logsID := item(r)["id"].(string)

	// What an expression may not hold is refused with the field named.
	for expr, want := range map[string]string{
		"(SELECT 1)":                        "serviceNameExpression",
		"noSuchFunction(Body)":              "noSuchFunction",
		"file('/etc/passwd')":               "file",
		"ResourceAttributes['k'] AS s":      "alias",
		"LogAttributes[(SELECT 'k')]":       "sub-queries",
		"'constant'":                        "constant",
		"JSONExtractString(Body, 'msg'), 1": "list",
	} {
		bad := map[string]any{}
		for k, v := range logs {
			bad[k] = v
		}
		bad["serviceNameExpression"] = expr
		r := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), bad)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %v", expr, r.body)
		assert.Contains(t, r.body["message"], want, expr)
		assert.Contains(t, r.body["message"], "serviceNameExpression", expr)
	}

	rng := map[string]any{"startTime": "2026-11-01T12:00:00Z", "endTime": "2026-11-01T12:05:00Z"}
	with := func(m map[string]any) map[string]any {
		for k, v := range rng {
			m[k] = v
		}
		return m
	}
	search := func(where, lang string) []any {
		t.Helper()
		r := call(t, http.MethodPost, fx.url+"/api/v2/search", bearer(fx.keyA), with(map[string]any{"sourceId": logsID, "where": where, "whereLanguage": lang}))
		require.Equal(t, http.StatusOK, r.status, "%s: %v", where, r.body)
		return r.body["data"].([]any)
	}
	rows := search("service:checkout", "lucene")
	require.Len(t, rows, 2, "service reads the resource attribute")
	row := rows[0].(map[string]any)
	assert.Equal(t, "checkout", row["ResourceAttributes['service.name']"], "a row carries each role under its expression's text")
	assert.Equal(t, "payment retried", row["JSONExtractString(Body, 'msg')"])
	assert.Len(t, search("level:error", "lucene"), 2, "level reads the attribute, without regard to case")
	assert.Len(t, search("payment", "lucene"), 2, "a bare word searches the body expression")
	assert.Empty(t, search("msg", "lucene"), "the body is the message, not the JSON text around it")
	assert.Len(t, search("service:checkout status:error", "datadog"), 2, "the Datadog where reads the same roles")
	assert.Len(t, search("service:cart", "datadog"), 1)

	// A chart grouped by service, and by the expression as written.
	for _, by := range []string{"service", "ResourceAttributes['service.name']"} {
		r = call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
			"startTime": 1793534400000, "endTime": 1793534400000 + 5*60_000, "granularity": "5m",
			"series": []any{map[string]any{"sourceId": logsID, "aggFn": "count", "groupBy": []string{by}}},
		})
		require.Equal(t, http.StatusOK, r.status, r.body)
		got := map[string]any{}
		for _, d := range r.body["data"].([]any) {
			m := d.(map[string]any)
			got[groupOf(m)] = m["series_0.data"]
		}
		assert.Equal(t, map[string]any{"checkout": "2", "cart": "1"}, got, by)
	}

	// Facets: the service and level roles under the names a where finds
	// them by.
	r = call(t, http.MethodPost, fx.url+"/api/v2/search/facets", bearer(fx.keyA), with(map[string]any{"sourceId": logsID}))
	require.Equal(t, http.StatusOK, r.status, r.body)
	var facets []string
	for _, f := range r.body["data"].(map[string]any)["facets"].([]any) {
		facets = append(facets, f.(map[string]any)["field"].(string))
	}
	require.GreaterOrEqual(t, len(facets), 2, r.body)
	assert.Equal(t, []string{"service", "level"}, facets[:2])

	// A trace source whose ids, duration and status are expressions.
	spans := sourceBody(t, fmt.Sprint(team), map[string]any{
		"name": "roles spans", "kind": "trace", "database": "api_charts", "table": "roles_spans", "timestampColumn": "Timestamp",
		"serviceColumn": "ServiceName", "durationColumn": "Duration", "bodyColumn": "SpanName",
		"attributesMap": "SpanAttributes", "resourceMap": "ResourceAttributes",
	})
	spans["serviceNameExpression"] = "ResourceAttributes['service.name']"
	spans["traceIdExpression"] = "Ids['trace']"
	spans["spanIdExpression"] = "Ids['span']"
	spans["parentSpanIdExpression"] = "Ids['parent']"
	spans["durationExpression"] = "toUInt64OrZero(SpanAttributes['ms'])"
	spans["durationPrecision"] = 3
	spans["statusCodeExpression"] = "SpanAttributes['status']"
	r = call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), spans)
	require.Equal(t, http.StatusOK, r.status, r.body)
	spansID := item(r)["id"].(string)

	r = call(t, http.MethodPost, fx.url+"/api/v2/search/traces", bearer(fx.keyA), with(map[string]any{"sourceId": spansID}))
	require.Equal(t, http.StatusOK, r.status, r.body)
	list := r.body["data"].([]any)
	require.Len(t, list, 2)
	t1 := list[1].(map[string]any)
	assert.Equal(t, "a1", t1["traceId"])
	assert.Equal(t, "POST /pay", t1["rootName"], "the root is the span without a parent")
	assert.Equal(t, "checkout", t1["rootService"])
	assert.EqualValues(t, 1, t1["errors"])
	assert.EqualValues(t, 300_000_000, t1["duration"], "milliseconds read as nanoseconds")

	r = call(t, http.MethodGet, fx.url+"/api/v2/traces/a1?sourceId="+spansID+"&logSourceId="+logsID, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	data := r.body["data"].(map[string]any)
	require.Len(t, data["spans"], 2)
	child := data["spans"].([]any)[1].(map[string]any)
	assert.Equal(t, "b", child["Ids['span']"], "the waterfall finds each span's id and parent under the source's expressions")
	assert.Equal(t, "a", child["Ids['parent']"])
	assert.EqualValues(t, 250, child["toUInt64OrZero(SpanAttributes['ms'])"])
	require.Len(t, data["logs"], 1, "the trace's logs by the log source's trace id")

	q := url.Values{"sourceId": {spansID}, "startTime": {"2026-11-01T12:00:00Z"}, "endTime": {"2026-11-01T12:05:00Z"}}
	r = call(t, http.MethodGet, fx.url+"/api/v2/services?"+q.Encode(), bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	var services []string
	for _, s := range r.body["data"].([]any) {
		m := s.(map[string]any)
		services = append(services, m["service"].(string))
		if m["service"] == "payments" {
			assert.EqualValues(t, 1, m["errors"], "status read from the expression")
		}
	}
	sort.Strings(services)
	assert.Equal(t, []string{"cart", "checkout", "payments"}, services)
}

// groupOf is a chart row's group, its values joined.
func groupOf(row map[string]any) string {
	var out string
	for i, g := range row["group"].([]any) {
		if i > 0 {
			out += ","
		}
		out += g.(string)
	}
	return out
}

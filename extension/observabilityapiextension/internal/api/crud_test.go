package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// total is a list answer's total in either form (HyperDX's meta.total or
// the managed form's total).
func total(r resp) any {
	if m, ok := r.body["meta"].(map[string]any); ok {
		return m["total"]
	}
	return r.body["total"]
}

// item returns the resource in a success body of either form.
func item(r resp) map[string]any {
	if v, ok := r.body["data"].(map[string]any); ok {
		return v
	}
	v, _ := r.body["result"].(map[string]any)
	return v
}

func TestFullCRUDOfEveryResourceInEveryForm(t *testing.T) {
	fx := setup(t)
	// What an alert needs, made once.
	dash := item(call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), dashboard("for alerts")))["id"].(string)
	hook := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "h", "url": "http://x.example/h"}))["id"].(string)
	alert := func(name string) map[string]any {
		return map[string]any{
			"name": name, "dashboardId": dash, "tileId": "t1", "threshold": 5, "interval": "1m",
			"source": "tile", "thresholdType": "below", "channel": map[string]any{"type": "webhook", "webhookId": hook},
		}
	}
	bodies := map[string]func(string) map[string]any{
		"dashboards": dashboard,
		"alerts":     alert,
		"sources": func(n string) map[string]any {
			return map[string]any{"name": n, "kind": "log", "table": "my_logs", "timestampColumn": "ts"}
		},
		"webhooks": func(n string) map[string]any {
			return map[string]any{"name": n, "url": "https://hooks.example/" + n, "service": "pagerduty", "body": "{{.message}}"}
		},
		"saved-searches": func(n string) map[string]any {
			return map[string]any{"name": n, "sourceId": "logs", "where": "level:error", "whereLanguage": "lucene"}
		},
	}
	forms := []struct {
		name, base, auth string
		resources        []string
		created          int // HyperDX and ClickHouse Cloud answer a create 200, the /observability/ specification 201
	}{
		{"self-hosted", fx.url + "/api/v2/", bearer(fx.keyA), []string{"dashboards", "alerts", "sources", "webhooks", "saved-searches"}, http.StatusOK},
		{"managed", fx.url + "/v1/organizations/org1/services/svc1/observability/", basic(fx.mgdID, fx.mgdSK), []string{"dashboards", "alerts"}, http.StatusCreated},
		{"clickstack", fx.url + "/v1/organizations/org1/services/svc1/clickstack/", basic(fx.mgdID, fx.mgdSK), []string{"dashboards", "alerts", "webhooks", "saved-searches"}, http.StatusOK},
	}
	for _, f := range forms {
		for _, res := range f.resources {
			t.Run(f.name+" "+res, func(t *testing.T) {
				url := f.base + res
				c := call(t, http.MethodPost, url, f.auth, bodies[res]("one"))
				require.Equal(t, f.created, c.status, c.body)
				id := item(c)["id"].(string)
				g := call(t, http.MethodGet, url+"/"+id, f.auth, nil)
				require.Equal(t, http.StatusOK, g.status)
				assert.Equal(t, "one", item(g)["name"])
				u := call(t, http.MethodPut, url+"/"+id, f.auth, bodies[res]("two"))
				require.Equal(t, http.StatusOK, u.status, u.body)
				assert.Equal(t, "two", item(u)["name"])
				l := call(t, http.MethodGet, url, f.auth, nil)
				require.Equal(t, http.StatusOK, l.status)
				assert.GreaterOrEqual(t, total(l), float64(1))
				d := call(t, http.MethodDelete, url+"/"+id, f.auth, nil)
				require.Equal(t, http.StatusOK, d.status, d.body)
				g = call(t, http.MethodGet, url+"/"+id, f.auth, nil)
				assert.Equal(t, http.StatusNotFound, g.status)
				u = call(t, http.MethodPut, url+"/"+id, f.auth, bodies[res]("three"))
				assert.Equal(t, http.StatusNotFound, u.status)
			})
		}
	}
	// Managed sources are list-only, as in the spec's table and in
	// ClickHouse Cloud.
	for _, f := range []string{"observability", "clickstack"} {
		r := call(t, http.MethodPost, fx.url+"/v1/organizations/org1/services/svc1/"+f+"/sources", basic(fx.mgdID, fx.mgdSK),
			bodies["sources"]("x"))
		assert.Equal(t, http.StatusMethodNotAllowed, r.status, f)
	}
}

func TestEveryValidationError(t *testing.T) {
	fx := setup(t)
	cases := []struct {
		path string
		body any
		want []string
	}{
		{"sources", map[string]any{"kind": "blob"}, []string{"name is required", "connection is required", "kind must be one of log, trace, session, metric, promql", "from.tableName is required", "timestampValueExpression is required"}},
		{"sources", map[string]any{"name": "m", "kind": "metric", "connection": sources.DefaultConnectionID("a"), "timestampValueExpression": "ts", "metricTables": map[string]any{"exp": "t"}}, []string{`metricTables: "exp" is not one of gauge, sum, histogram`, "resourceAttributesExpression is required"}},
		{"sources", map[string]any{"name": "l", "kind": "log", "connection": sources.DefaultConnectionID("a"), "from": map[string]any{"tableName": "t"}, "timestampValueExpression": "toDateTime(ts)", "defaultTableSelectExpression": "ts, lower(msg) AS m", "bodyExpression": "'x'"}, []string{"timestampValueExpression: a column name is expected", "defaultTableSelectExpression: aliases (AS) are not allowed", "bodyExpression: an expression over the table's columns is expected, not a constant"}},
		{"webhooks", map[string]any{"url": "ftp://x", "service": "fax"}, []string{"name is required", "url must be an absolute http(s) URL", "service must be one of"}},
		{
			"webhooks",
			map[string]any{"name": "w", "url": "https://x.example", "headers": map[string]string{
				"X Token": "t", "X-Token": "a\r\nX-Injected: 1", "host": "other.example", "Idempotency-Key": "mine", "Authorization": "fine",
			}},
			[]string{
				`headers: "X Token" is not a header name`, "headers: the value of X-Token holds a control character",
				"headers: host is the delivery's own", "headers: Idempotency-Key is the delivery's own",
			},
		},
		// Templates run inside the collector: one that could run without
		// bound is refused when it is written, not found when it fires.
		{
			"webhooks",
			map[string]any{"name": "w", "url": "https://x.example", "body": `{{define "a"}}{{template "a"}}{{end}}{{template "a"}}`},
			[]string{"body: template: {{define}} and {{block}} are not allowed"},
		},
		{
			"dashboards",
			map[string]any{"name": "d", "tiles": []any{
				map[string]any{"id": "a", "x": -1, "y": 0, "w": 1, "h": 1, "config": map[string]any{"source": "logs", "aggFn": "quantile", "field": "Duration", "displayType": "pie"}},
				map[string]any{"id": "a", "w": 1, "h": 1, "config": map[string]any{"source": "logs", "aggFn": "median"}},
			}},
			[]string{"x must be 0 to 23, got -1", "level must be between 0 and 1", `id "a" is used twice`, "aggFn must be one of"},
		},
		{
			"dashboards",
			map[string]any{"name": "d", "tiles": []any{
				map[string]any{"x": 0, "y": 0, "w": 1, "h": 1, "config": map[string]any{"displayType": "pie", "sourceId": "nope", "select": []any{}}},
			}},
			[]string{"select takes 1 to 20 items, got 0", `source "nope" does not exist`},
		},
		{
			"alerts",
			map[string]any{"source": "saved_search", "channel": map[string]any{"type": "email"}, "message": "{{range 1000000000000}}{{end}}"},
			[]string{
				"threshold is required", "interval must be one of", "thresholdType must be one of", "savedSearchId is required with source saved_search", `channel.type must be "webhook"`,
				"message: template: {{range 1000000000000}}: range may only go over a field",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.want[0], func(t *testing.T) {
			r := call(t, http.MethodPost, fx.url+"/api/v2/"+tc.path, bearer(fx.keyA), tc.body)
			assert.Equal(t, http.StatusBadRequest, r.status, tc.path)
			for _, w := range tc.want {
				assert.Contains(t, r.body["message"], w, tc.path)
			}
		})
	}
}

func TestRemovingATileRemovesItsAlerts(t *testing.T) {
	fx := setup(t)
	two := dashboard("two tiles")
	two["tiles"] = append(two["tiles"].([]any), map[string]any{
		"id": "t2", "name": "latency", "x": 6, "y": 0, "w": 6, "h": 3,
		"config": map[string]any{"source": "traces", "aggFn": "avg", "field": "Duration"},
	})
	dash := item(call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), two))["id"].(string)
	hook := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "h", "url": "http://x.example"}))["id"].(string)
	for _, tile := range []string{"t1", "t2"} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
			"name": tile, "dashboardId": dash, "tileId": tile,
			"threshold": 1, "interval": "5m", "source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": hook},
		})
		require.Equal(t, http.StatusOK, r.status, r.body)
	}
	r := call(t, http.MethodPut, fx.url+"/api/v2/dashboards/"+dash, bearer(fx.keyA), dashboard("one tile left"))
	require.Equal(t, http.StatusOK, r.status)
	l := call(t, http.MethodGet, fx.url+"/api/v2/alerts", bearer(fx.keyA), nil)
	require.Equal(t, float64(1), total(l), "the alert on the removed tile went with it")
	assert.Equal(t, "t1", l.body["data"].([]any)[0].(map[string]any)["tileId"])
}

// A webhook URL that reaches this host or its network is refused when it
// is stored, with the reason, not first at delivery.
func TestPrivateWebhookTargetsAreRefused(t *testing.T) {
	fx := setup(t)
	for _, u := range []string{"http://127.0.0.1:8123/?query=SELECT%201", "http://[::1]/", "http://2130706433/", "http://169.254.169.254/latest/meta-data/"} {
		r := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "h", "url": u})
		assert.Equal(t, http.StatusBadRequest, r.status, u)
		assert.Contains(t, r.body["message"], "private, loopback or link-local", u)
		assert.Contains(t, r.body["message"], "allow_private_webhooks", u)
	}
	ok := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "h", "url": "https://hooks.example/h"}))
	r := call(t, http.MethodPut, fx.url+"/api/v2/webhooks/"+ok["id"].(string), bearer(fx.keyA), map[string]any{"name": "h", "url": "http://10.0.0.1/"})
	assert.Equal(t, http.StatusBadRequest, r.status, "an update is checked too")

	open := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	r = call(t, http.MethodPost, open.url+"/api/v2/webhooks", bearer(open.keyA), map[string]any{"name": "h", "url": "http://10.0.0.1/"})
	assert.Equal(t, http.StatusOK, r.status)
}

package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A HyperDX source whose service, level and body are expressions (an
// attribute, another attribute, a JSON field of the body) searches in the
// UI as a source of columns does: service: and level: filter by them,
// the result shows the body's message, and the Fields sidebar counts the
// services, inside the viewport at every width.
func TestBrowserSourceRoleExpressions(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	b := newBrowser(t, ui, "roles")
	b.signUp("/", "owner@example.com", "correct horse battery")

	now := time.Now()
	var recs []string
	for i, r := range []struct{ app, lvl, msg string }{
		{"checkout", "error", "card declined"}, {"checkout", "info", "card accepted"}, {"cart", "error", "cart lost"},
	} {
		recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","body":{"stringValue":%q},"attributes":[{"key":"app","value":{"stringValue":%q}},{"key":"lvl","value":{"stringValue":%q}}]}`,
			now.Add(-time.Duration(i+1)*time.Minute).UnixNano(), fmt.Sprintf(`{"msg":%q}`, r.msg), r.app, r.lvl))
	}
	logs := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"gateway"}}]},"scopeLogs":[{"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`
	require.Equal(t, http.StatusOK, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/v1/logs", c.otlpHTTP), "Authorization", "Bearer "+ingestKey, "application/json", logs))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs") == "3" }, 30*time.Second, 200*time.Millisecond, "stored")

	id := eval[string](b, "a source of expressions", `fetch('/api/v2/connections', {headers: {'X-Otelhouse-Request': '1'}}).then((r) => r.json()).then((j) =>
		fetch('/api/v2/sources', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
			body: JSON.stringify({name: 'App logs', kind: 'log', connection: j.data[0].id, from: {databaseName: 'otel', tableName: 'otel_logs'},
				timestampValueExpression: 'Timestamp', defaultTableSelectExpression: 'Timestamp, ServiceName, Body',
				serviceNameExpression: "LogAttributes['app']", severityTextExpression: "LogAttributes['lvl']", bodyExpression: "JSONExtractString(Body, 'msg')",
				eventAttributesExpression: 'LogAttributes', resourceAttributesExpression: 'ResourceAttributes'})}))
		.then((r) => r.json()).then((j) => j.data.id)`)
	require.NotEmpty(t, id)

	for _, width := range []int64{1000, 1400, 1920} {
		w := fmt.Sprint(width)
		b.run("a screen of "+w, chromedp.EmulateViewport(width, 900),
			chromedp.Navigate(ui+"/search/logs?source="+id+"&range=1h&q=service%3Acheckout+level%3Aerror"),
			waitText(`[data-testid=results] tbody`, "card declined"))
		rows := b.text(`[data-testid=results] tbody`)
		assert.NotContains(t, rows, "card accepted", "level: reads the level expression")
		assert.NotContains(t, rows, "cart lost", "service: reads the service expression")
		assert.NotContains(t, rows, `{"msg"`, "the body shown is the body expression's message")
		b.see("the row at "+w, `[data-testid=results] tbody tr`)
		b.screenshot("search-" + w)
	}
	b.run("every event", chromedp.Navigate(ui+"/search/logs?source="+id+"&range=1h"), waitText(`[data-testid=results] tbody`, "cart lost"))
	b.run("the services counted", waitText(`[data-testid=facets] [data-facet=service]`, "checkout"))
	b.see("the service facet", `[data-testid=facets] [data-facet=service]`)
	assert.Contains(t, b.text(`[data-testid=facets] [data-facet=service]`), "cart")
}

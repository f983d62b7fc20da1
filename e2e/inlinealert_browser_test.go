package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An inline alert (made through the API, on its own chartConfig) reads on
// the Alerts page as its own chart, and its form edits it as one GET has
// it: the chart a list leaves out is sent back, not lost.
func TestBrowserInlineAlertIsListedAndEdited(t *testing.T) {
	c := run(t, nil, shippedConfig(t), "--set", "extensions::observability_api::alerts::allow_private_webhooks=true")
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	b := newBrowser(t, ui, "inline-alert")
	b.signUp("/", "owner@example.com", "correct horse battery")

	post := `(path, body) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'}, body: JSON.stringify(body)}).then((r) => r.json())`
	hook := eval[string](b, "a webhook", `(`+post+`)('/api/v2/webhooks', {name: 'On call', url: 'http://127.0.0.1:9/hook'}).then((r) => r.data.id)`)
	require.NotEmpty(t, hook)
	id := eval[string](b, "an inline alert", `(`+post+`)('/api/v2/alerts', {name: 'Error share', source: 'inline', threshold: 0.5, interval: '5m', thresholdType: 'above',
		channel: {type: 'webhook', webhookId: '`+hook+`'},
		chartConfig: {displayType: 'line', sourceId: 'logs', asRatio: true, select: [{aggFn: 'count', where: 'SeverityText:ERROR'}, {aggFn: 'count'}]}}).then((r) => r.data.id)`)
	require.NotEmpty(t, id)

	b.run("the alerts page", chromedp.Navigate(ui+"/alerts"), waitText(`tr[data-alert="Error share"] [data-testid=alert-inline]`, "its own chart"))
	b.run("its webhook by name", waitText(`tr[data-alert="Error share"]`, "On call"))
	b.see("what it watches", `tr[data-alert="Error share"] [data-testid=alert-inline]`)
	b.screenshot("inline-alert-listed")
	b.click("editing it", `tr[data-alert="Error share"] [data-action=edit-alert]`)
	b.see("the form", `[data-testid=alert-form] input[name=threshold]`)
	b.run("a new threshold", fill(`[data-testid=alert-form] input[name=threshold]`, "0.7"))
	b.click("saving it", `[data-action=save-alert]`)
	b.run("the form closes", poll(`!document.querySelector('[data-testid=alert-form]')`))

	got := eval[map[string]any](b, "the alert", `fetch('/api/v2/alerts/`+id+`').then((r) => r.json()).then((r) => r.data)`)
	assert.EqualValues(t, 0.7, got["threshold"])
	chart, _ := got["chartConfig"].(map[string]any)
	require.NotNil(t, chart, "the chart is kept")
	assert.Equal(t, true, chart["asRatio"])
	assert.Equal(t, "logs", chart["sourceId"])
}

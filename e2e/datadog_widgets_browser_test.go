package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 45: a Datadog dashboard's change, manage_status and distribution
// widgets, imported with the button: the change is a table of the value
// now and its change from the hour before (the Agent's metric sent an
// hour apart through the Datadog receiver), the monitor summary a list
// of the team's alerts whose names hold its words, each a link to its
// row on the Alerts page, the distribution a bar tile; none fails.
func TestBrowserImportsDatadogChangeAndMonitorWidgets(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	b := newBrowser(t, ui, "widgets")
	b.signUp("/", "owner@example.com", "correct horse battery")
	now := time.Now().Unix()
	series := fmt.Sprintf(`{"series":[{"metric":"redis.net.clients","type":3,"points":[{"timestamp":%d,"value":10},{"timestamp":%d,"value":12}],"resources":[{"type":"host","name":"cache-1"}]}]}`,
		now-3600-60, now-60)
	require.Equal(t, http.StatusAccepted, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/api/v2/series", c.datadog), "DD-API-KEY", ingestKey, "application/json", series))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_metrics_gauge WHERE MetricName = 'redis.net.clients'") == "2"
	}, 30*time.Second, 200*time.Millisecond, "both points stored")

	// An alert for the list: the Redis memory monitor, imported, and a
	// webhook it delivers to (a name that never resolves).
	monitor, err := os.ReadFile("../internal/domain/importers/datadog/testdata/integrations-core/redisdb_monitor_high_mem.json")
	require.NoError(t, err)
	b.run("the app", chromedp.Navigate(ui+"/dashboards"), chromedp.WaitReady(chromedp.CSS(`[data-testid=import-file-dashboard]`)))
	alert := eval[string](b, "the alert", fmt.Sprintf(`(async () => {
		const h = {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'};
		const w = await (await fetch('/api/v2/webhooks', {method: 'POST', headers: h, body: JSON.stringify({name: 'On call', service: 'generic', url: 'https://hooks.invalid/on-call'})})).json();
		const m = await (await fetch('/api/v2/alerts/import?webhookId=' + w.data.id, {method: 'POST', headers: h, body: %q})).json();
		return m.data.name;
	})()`, monitor))
	require.NotEmpty(t, alert)

	dash := `{"title":"Redis at a glance","layout_type":"ordered","widgets":[
	  {"id":1,"definition":{"type":"change","title":"Clients vs an hour ago","requests":[{"q":"avg:redis.net.clients{*}","compare_to":"hour_before","change_type":"absolute","increase_good":true}]},"layout":{"x":0,"y":0,"width":5,"height":2}},
	  {"id":2,"definition":{"type":"manage_status","title":"Redis monitors","query":"redis","summary_type":"monitors","display_format":"countsAndList"},"layout":{"x":5,"y":0,"width":7,"height":2}},
	  {"id":3,"definition":{"type":"distribution","title":"Clients by host","requests":[{"q":"avg:redis.net.clients{*} by {host}"}]},"layout":{"x":0,"y":2,"width":12,"height":2}}]}`
	file := filepath.Join(t.TempDir(), "redis_at_a_glance.json")
	require.NoError(t, os.WriteFile(file, []byte(dash), 0o644))
	b.run("choosing the file", chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=import-file-dashboard]`), []string{file}))
	b.see("the report", `[data-testid=import-report]`)
	report := b.text(`[data-testid=import-report]`)
	assert.Contains(t, report, "3 approximated")
	assert.NotContains(t, report, "skipped: 1")
	b.click("opening it", `[data-testid=import-report] a`)
	b.run("the imported dashboard", waitText(`h1`, "Redis at a glance"),
		poll(`document.querySelectorAll('.tile').length == 3 && ![...document.querySelectorAll('.tile')].some((t) => t.textContent.includes('Loading…'))`))
	assert.Equal(t, 0, eval[int](b, "failing tiles", `document.querySelectorAll('[data-testid=tile-error]').length`),
		"every imported tile runs: %s", eval[string](b, "errors", `[...document.querySelectorAll('[data-testid=tile-error]')].map(e => e.closest('.tile').dataset.tile + ': ' + e.textContent).join('\n')`))

	change := `[data-tile="Clients vs an hour ago"]`
	list := `[data-tile="Redis monitors"] [data-testid=alert-list]`
	for _, width := range []int64{1000, 1920} {
		w := fmt.Sprint(width)
		b.run("a screen of "+w, chromedp.EmulateViewport(width, 900))
		eval[bool](b, "scrolling to the change", fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'center'}), true)`, change))
		b.see("the change tile at "+w, change+` [data-testid=tile-table]`)
		// The value now (12) and its change from the hour before (+2).
		b.run("now and the change at "+w, poll(fmt.Sprintf(`(() => { const r = [...document.querySelectorAll(%q)].map((c) => c.innerText.trim()); return r.join('|') === 'value|12|2'; })()`,
			change+` tbody td`)))
		assert.Contains(t, b.text(change+` thead`), "change from the hour before")
		eval[bool](b, "scrolling to the alerts", fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'center'}), true)`, list))
		b.see("the alert list at "+w, list)
		b.see("the alert's row at "+w, fmt.Sprintf(`%s tr[data-alert=%q] a`, list, alert))
		b.see("its state at "+w, fmt.Sprintf(`%s tr[data-alert=%q] .sev`, list, alert))
		b.see("the distribution at "+w, `[data-tile="Clients by host"] [data-testid=tile-table]`)
		// A bar of each host's value, the row named by its host.
		b.run("the host's bar at "+w, poll(`[...document.querySelectorAll('[data-tile="Clients by host"] tbody td')].map((c) => c.innerText.trim()).join('|') === 'cache-1|12'`))
		b.screenshot("widgets-" + w)
	}
	b.click("the alert's link", fmt.Sprintf(`%s tr[data-alert=%q] a`, list, alert))
	b.run("the Alerts page", poll(`location.pathname === '/alerts' && new URLSearchParams(location.search).has('alert')`))
	b.see("the alert's row, opened", fmt.Sprintf(`tr.open[data-alert=%q]`, alert))
	b.screenshot("alert-opened")
}

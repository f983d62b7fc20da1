package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A dashboard built from nothing in the browser (issue 43): created from
// the list, a line tile, a number tile and a markdown tile added in the
// tile editor, each saved through /api/v2; the number shows the seeded
// count, the markdown is rendered with no HTML let through, the editor
// shows the translator's message for a bad where and saves nothing, and
// everything is on screen at 1000, 1400 and 1920 px. Then the list
// renames, duplicates and deletes (after a confirmation).
func TestBrowserDashboardBuiltInTheUI(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "dashboards")
	b.signUp("/", "owner@example.com", "correct horse battery")

	now := time.Now()
	var recs []string
	for i := 0; i < 7; i++ {
		sev := "INFO"
		if i < 3 {
			sev = "ERROR"
		}
		recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":%q,"body":{"stringValue":"order %d"}}`, now.Add(-time.Duration(i+1)*time.Minute).UnixNano(), sev, i))
	}
	logs := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},"scopeLogs":[{"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json", logs))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs") == "7" }, 30*time.Second, 200*time.Millisecond, "stored")

	// Create it from the list.
	b.run("the list", chromedp.Navigate(ui+"/dashboards"), chromedp.WaitVisible(chromedp.CSS(`input[name=dashboard-name]`)))
	b.run("naming it", fill(`input[name=dashboard-name]`, "Shop"))
	b.click("creating it", `[data-testid=new-dashboard] button[type=submit]`)
	b.run("the new dashboard", waitText(`h1`, "Shop"))

	addTile := func(what string, set func()) {
		t.Helper()
		b.clickFor("add tile for "+what, `[data-action=add-tile]`, `!!document.querySelector('[data-testid=tile-editor]')`)
		b.see("the tile editor for "+what, `[data-testid=tile-editor]`)
		set()
		b.click("saving "+what, `[data-action=save-tile]`)
		b.run("the editor closes after saving "+what, poll(`!document.querySelector('[data-testid=tile-editor]')`))
	}
	selectValue := func(sel, v string) chromedp.Action[chromedp.Void] {
		return poll(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, sel, v))
	}

	// A bad where: the translator's message under the box, nothing saved.
	b.clickFor("add tile", `[data-action=add-tile]`, `!!document.querySelector('[data-testid=tile-editor]')`)
	b.run("a where with a field and no value", fill(`input[name=where]`, "service:"))
	b.run("the preview's message", chromedp.WaitVisible(chromedp.CSS(`[data-testid=tile-preview] [data-testid=tile-error]`)))
	b.see("the message", `[data-testid=tile-preview] [data-testid=tile-error]`)
	b.click("saving the bad tile", `[data-action=save-tile]`)
	b.run("the API refuses it", chromedp.WaitVisible(chromedp.CSS(`[data-testid=editor-error]`)))
	b.see("the API's message", `[data-testid=editor-error]`)
	b.screenshot("editor-bad-where")
	b.click("cancel", `[data-testid=tile-editor] button[type=button]`)

	addTile("the line tile", func() {
		b.run("line tile", fill(`input[name=tile-name]`, "Errors"), fill(`input[name=where]`, "SeverityText:ERROR"))
		b.run("the preview draws", chromedp.WaitVisible(chromedp.CSS(`[data-testid=tile-preview] .chart canvas`)))
		b.screenshot("editor-line")
	})
	addTile("the number tile", func() {
		b.run("number tile", fill(`input[name=tile-name]`, "Orders"), selectValue(`select[name=display]`, "number"))
		b.run("the preview counts", waitText(`[data-testid=tile-preview] [data-testid=number]`, "7"))
	})
	addTile("the markdown tile", func() {
		b.run("markdown tile", selectValue(`select[name=display]`, "markdown"))
		b.run("markdown text", fill(`input[name=tile-name]`, "Notes"), fill(`textarea[name=markdown]`, "# Runbook **bold** <img src=x onerror=alert(1)>"))
	})

	addTile("the table tile", func() {
		b.run("table tile", fill(`input[name=tile-name]`, "By severity"), selectValue(`select[name=display]`, "table"), fill(`input[name=groupBy]`, "SeverityText"))
		b.run("the preview's rows", waitText(`[data-testid=tile-preview] [data-testid=tile-table]`, "error"))
	})
	// A new tile goes beside the last one while the row has room, not
	// always under everything (which left a new dashboard's right half
	// empty): the number beside the line, the table beside the note.
	placed := eval[map[string][]float64](b, "where the tiles went", `(async () => {
		const d = (await (await fetch('/api/v2/dashboards/' + location.pathname.split('/').pop())).json()).data;
		return Object.fromEntries(d.tiles.map((t) => [t.name, [t.x, t.y]]));
	})()`)
	assert.Equal(t, map[string][]float64{"Errors": {0, 0}, "Orders": {12, 0}, "Notes": {0, 4}, "By severity": {12, 4}}, placed)
	for _, width := range []int64{1000, 1400, 1920} {
		w := fmt.Sprint(width)
		b.run("a screen of this width", chromedp.EmulateViewport(width, 900), chromedp.Reload())
		b.see("the line tile at "+w, `[data-tile=Errors] .chart .u-over`)
		assert.True(t, eval[bool](b, "the number beside the line at "+w, `(() => {
			const a = document.querySelector('[data-tile=Errors]').getBoundingClientRect(), n = document.querySelector('[data-tile=Orders]').getBoundingClientRect();
			return Math.abs(a.top - n.top) < 1 && n.left >= a.right; })()`), "the number tile is beside the line tile at %s", w)
		b.see("the number at "+w, `[data-tile=Orders] [data-testid=number]`)
		assert.Equal(t, "7", b.text(`[data-tile=Orders] [data-testid=number]`), "seven orders in the last hour")
		b.see("the markdown heading at "+w, `[data-tile=Notes] .markdown h2`)
		assert.Contains(t, b.text(`[data-tile=Notes] .markdown h2 strong`), "bold")
		assert.Equal(t, 0, eval[int](b, "no element from the note's HTML", `document.querySelectorAll('[data-tile=Notes] img').length`))
		assert.Contains(t, b.text(`[data-tile=Notes] .markdown`), "<img src=x", "the HTML is shown as text")
		b.see("the edit button at "+w, `[data-tile=Orders] [data-action=edit-tile]`)
		b.screenshot("dashboard-" + w)
	}

	// What the table tile shows is what POST /api/v2/charts/series answers
	// for its config (severities named by level: ERROR reads error),
	// summed over the range as a count tile's table does.
	eval[bool](b, "scrolling to the table tile", `(document.querySelector('[data-tile="By severity"]').scrollIntoView({block: 'center'}), true)`)
	b.see("the table tile", `[data-tile="By severity"] [data-testid=tile-table]`)
	shown := eval[map[string]string](b, "the table tile's cells", `Object.fromEntries([...document.querySelectorAll('[data-tile="By severity"] [data-testid=tile-table] tbody tr')]
		.map((tr) => [tr.cells[0].textContent, tr.cells[tr.cells.length - 1].textContent]))`)
	answered := eval[map[string]float64](b, "the chart API's answer for the tile", `(async () => {
		const id = location.pathname.split('/').pop();
		const d = (await (await fetch('/api/v2/dashboards/' + id)).json()).data;
		const t = d.tiles.find((x) => x.name === 'By severity');
		const to = Date.now(), from = to - 3600e3;
		const r = await (await fetch('/api/v2/charts/series', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
			body: JSON.stringify({startTime: from, endTime: to, granularity: 'auto', series: t.config.select.map((s) => ({sourceId: t.config.sourceId,
				aggFn: s.aggFn, where: s.where, whereLanguage: s.whereLanguage, groupBy: [t.config.groupBy]}))})})).json();
		const out = {};
		for (const row of r.data) { const k = row.group[0].toLowerCase(); out[k] = (out[k] || 0) + Number(row['series_0.data']); }
		return out;
	})()`)
	assert.Equal(t, map[string]float64{"error": 3, "info": 4}, answered)
	assert.Equal(t, map[string]string{"error": "3", "info": "4"}, shown, "the tile shows the API's answer")
	eval[bool](b, "back to the number tile", `(document.querySelector('[data-tile=Orders]').scrollIntoView({block: 'center'}), true)`)

	// A table with a having shows only the groups that satisfy it over
	// the range: 4 INFO orders pass orders > 3 (the item's alias), the 3
	// ERROR ones do not.
	eval[bool](b, "up to add a tile", `(document.querySelector('[data-action=add-tile]').scrollIntoView({block: 'center'}), true)`)
	addTile("the table tile with a having", func() {
		b.run("having table tile", fill(`input[name=tile-name]`, "Busy severities"), selectValue(`select[name=display]`, "table"), fill(`input[name=groupBy]`, "SeverityText"))
		b.run("its alias", fill(`input[name=alias]`, "orders"))
		b.run("its having", fill(`input[name=having]`, "orders > 3"))
		b.run("the preview keeps one group", poll(`(() => { const t = document.querySelector('[data-testid=tile-preview] [data-testid=tile-table]');
			return !!t && t.querySelectorAll('tbody tr').length === 1 && t.textContent.includes('info'); })()`))
	})
	eval[bool](b, "scrolling to the having table", `(document.querySelector('[data-tile="Busy severities"]').scrollIntoView({block: 'center'}), true)`)
	b.see("the having table", `[data-tile="Busy severities"] [data-testid=tile-table] tbody tr`)
	kept := eval[map[string]string](b, "the having table's cells", `Object.fromEntries([...document.querySelectorAll('[data-tile="Busy severities"] [data-testid=tile-table] tbody tr')]
		.map((tr) => [tr.cells[0].textContent, tr.cells[tr.cells.length - 1].textContent]))`)
	assert.Equal(t, map[string]string{"info": "4"}, kept, "only the group with more than 3 orders")
	assert.Equal(t, 0, eval[int](b, "no Alert button on it", `document.querySelectorAll('[data-tile="Busy severities"] [data-action=alert-tile]').length`),
		"an alert cannot apply a having")
	b.screenshot("dashboard-having-table")

	// A search tile: the events of a where, with the columns to show.
	eval[bool](b, "back to the top", `(document.querySelector('[data-action=add-tile]').scrollIntoView({block: 'center'}), true)`)
	addTile("the search tile", func() {
		b.run("search tile", fill(`input[name=tile-name]`, "Error events"), selectValue(`select[name=display]`, "search"))
		b.run("its where and columns", fill(`input[name=where]`, "SeverityText:ERROR"), fill(`input[name=columns]`, "Timestamp, Body"))
		b.run("the preview links to the search", waitText(`[data-testid=tile-preview]`, "Open the search"))
	})
	eval[bool](b, "scrolling to the search tile", `(document.querySelector('[data-tile="Error events"]').scrollIntoView({block: 'center'}), true)`)
	b.see("the search tile's link", `[data-tile="Error events"] a`)
	stored := eval[map[string]any](b, "the stored search tile", `(async () => {
		const d = (await (await fetch('/api/v2/dashboards/' + location.pathname.split('/').pop())).json()).data;
		return d.tiles.find((x) => x.name === 'Error events').config; })()`)
	assert.Equal(t, "search", stored["displayType"])
	assert.Equal(t, "Timestamp, Body", stored["select"])
	assert.Equal(t, "SeverityText:ERROR", stored["where"])
	eval[bool](b, "back to the number tile", `(document.querySelector('[data-tile=Orders]').scrollIntoView({block: 'center'}), true)`)

	// Remove a tile, after a confirmation.
	b.click("remove the number tile", `[data-tile=Orders] [data-action=remove-tile]`)
	b.click("confirm", `[data-tile=Orders] [data-action=confirm-remove]`)
	b.run("it is gone", poll(`!document.querySelector('[data-tile=Orders]')`))

	// Rename, duplicate, delete from the list.
	b.run("the list again", chromedp.Navigate(ui+"/dashboards"), waitText(`[data-testid=dashboards]`, "Shop"))
	b.click("rename", `tr[data-dashboard=Shop] [data-action=rename]`)
	b.run("the new name", fill(`input[name=rename]`, "Shop floor"), chromedp.Click(chromedp.CSS(`tr[data-dashboard=Shop] button[type=submit]`)))
	b.run("renamed", waitText(`[data-testid=dashboards]`, "Shop floor"))
	b.click("duplicate", `tr[data-dashboard="Shop floor"] [data-action=duplicate]`)
	b.run("duplicated", waitText(`[data-testid=dashboards]`, "Shop floor (copy)"))
	assert.Equal(t, "5", b.text(`tr[data-dashboard="Shop floor (copy)"] td:nth-child(2)`), "the copy has the tiles")
	b.click("delete", `tr[data-dashboard="Shop floor (copy)"] [data-action=delete]`)
	b.see("the confirmation", `tr[data-dashboard="Shop floor (copy)"] [data-action=confirm-delete]`)
	b.click("confirm delete", `tr[data-dashboard="Shop floor (copy)"] [data-action=confirm-delete]`)
	b.run("deleted", poll(`!document.querySelector('tr[data-dashboard="Shop floor (copy)"]')`))
	b.screenshot("list")
}

// The alert flow in the browser (issue 43): a webhook made on the Alerts
// page pointing at a receiver on loopback, with a header whose value is
// never shown again; an alert made from a dashboard's line tile with a
// threshold the seeded errors cross; the scheduler (checking every
// second) evaluates it; the list shows ALERT and its last evaluation, the
// history has its headers and the row (value, delivery), newest first,
// and the receiver got the notification with the header.
func TestBrowserAlertFromATileNotifiesAWebhook(t *testing.T) {
	type received struct {
		secret string
		body   map[string]any
	}
	got := make(chan received, 16)
	receiver := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		got <- received{r.Header.Get("X-Secret"), body}
	}))
	t.Cleanup(receiver.Close)

	c := run(t, nil, shippedConfig(t),
		"--set", "extensions::observability_api::alerts::check_interval=1s",
		"--set", "extensions::observability_api::alerts::allow_private_webhooks=true")
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "alerts")
	b.signUp("/", "owner@example.com", "correct horse battery")

	// Twelve errors a minute from ten minutes ago to five minutes ahead:
	// whichever one-minute window the scheduler evaluates while the test
	// runs counts 12, above the threshold of 5.
	now := time.Now().Truncate(time.Minute)
	var recs []string
	for at := now.Add(-10 * time.Minute); at.Before(now.Add(5 * time.Minute)); at = at.Add(5 * time.Second) {
		recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":"ERROR","body":{"stringValue":"payment failed"}}`, at.UnixNano()))
	}
	logs := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},"scopeLogs":[{"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json", logs))
	want := fmt.Sprint(len(recs))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs") == want }, 30*time.Second, 200*time.Millisecond, "stored")

	// With no webhook or saved search yet, the page says what a monitor
	// import and an alert need rather than offer empty menus and the
	// API's refusal after a click.
	b.run("the alerts page", chromedp.Navigate(ui+"/alerts"))
	b.see("what an import needs", `[data-testid=import-needs-webhook]`)
	b.click("a new alert", `[data-action=new-search-alert]`)
	b.see("what an alert needs", `[data-testid=alert-no-webhook]`)
	b.see("what an alert on a search needs", `[data-testid=alert-no-search]`)
	assert.True(t, eval[bool](b, "the create button", `document.querySelector('[data-action=save-alert]').disabled`), "no alert without a webhook")

	// The webhook, made from the alert form: the form gives way to the
	// webhook's (never both at once) and comes back with it picked.
	b.run("a narrow screen", chromedp.EmulateViewport(1000, 900))
	b.run("naming the alert", fill(`[data-testid=alert-form] input[name=alert-name]`, "Kept"))
	b.click("new webhook from the alert", `[data-action=alert-new-webhook]`)
	b.see("the webhook form", `[data-testid=alert-new-webhook] [data-testid=webhook-form]`)
	assert.Equal(t, 0, eval[int](b, "the alert form", `document.querySelectorAll('[data-testid=alert-form]').length`), "one form at a time")
	assert.Equal(t, 1, eval[int](b, "forms", `document.querySelectorAll('[data-testid=webhook-form]').length`))
	b.run("the webhook", fill(`input[name=webhook-name]`, "On call"), fill(`input[name=webhook-url]`, receiver.URL+"/hook"),
		fill(`textarea[name=headers]`, "X-Secret: s3cret-value"))
	b.see("its create button", `[data-action=save-webhook]`)
	b.screenshot("alert-new-webhook-1000")
	b.click("creating it", `[data-action=save-webhook]`)
	b.see("back to the alert", `[data-testid=alert-form] select[name=webhook]`)
	assert.Equal(t, "On call", eval[string](b, "the webhook picked", `(() => { const s = document.querySelector('[data-testid=alert-form] select[name=webhook]'); return s.options[s.selectedIndex].text; })()`))
	assert.Equal(t, "Kept", eval[string](b, "the alert's name", `document.querySelector('[data-testid=alert-form] input[name=alert-name]').value`), "the alert typed so far is kept")
	assert.Equal(t, 0, eval[int](b, "the note", `document.querySelectorAll('[data-testid=alert-no-webhook]').length`))
	b.see("the picked webhook", `[data-testid=alert-form] select[name=webhook]`)
	b.screenshot("alert-webhook-picked-1000")
	b.click("cancel", `[data-testid=alert-form] .editor-actions button[type=button]`)
	b.run("back to a wide screen", chromedp.EmulateViewport(1400, 900))
	b.run("listed", waitText(`[data-testid=webhooks]`, "On call"))
	b.click("editing it", `tr[data-webhook="On call"] [data-action=edit-webhook]`)
	b.see("the form", `[data-testid=webhook-form] textarea[name=headers]`)
	assert.Empty(t, eval[string](b, "the headers box", `document.querySelector('[data-testid=webhook-form] textarea[name=headers]').value`), "a header value is never shown back")
	assert.NotContains(t, eval[string](b, "the page", `document.documentElement.outerHTML`), "s3cret-value")
	b.screenshot("webhook-edit")
	b.click("cancel", `[data-testid=webhook-form] button[type=button]`)

	// "Send test" reaches the receiver with the write-only header, and
	// the row says what it answered and how long it took.
	b.click("send test", `tr[data-webhook="On call"] [data-action=test-webhook]`)
	b.see("the outcome", `[data-testid=webhook-test-result]`)
	outcome := b.text(`[data-testid=webhook-test-result]`)
	assert.Regexp(t, `^Delivered: HTTP 200 in \d+ ms$`, outcome)
	select {
	case r := <-got:
		assert.Equal(t, "s3cret-value", r.secret)
		assert.Equal(t, "Test notification", r.body["name"])
	case <-time.After(10 * time.Second):
		t.Fatal("the test notification never reached the receiver")
	}

	// A dashboard with a line tile of the errors, and an alert from it.
	b.run("the list", chromedp.Navigate(ui+"/dashboards"), fill(`input[name=dashboard-name]`, "Payments"))
	b.click("creating it", `[data-testid=new-dashboard] button[type=submit]`)
	b.run("the new dashboard", waitText(`h1`, "Payments"))
	b.clickFor("add tile", `[data-action=add-tile]`, `!!document.querySelector('[data-testid=tile-editor]')`)
	b.run("line tile", fill(`input[name=tile-name]`, "Errors"), fill(`input[name=where]`, "SeverityText:ERROR"))
	b.click("saving it", `[data-action=save-tile]`)
	b.run("saved", poll(`!document.querySelector('[data-testid=tile-editor]')`))
	b.click("alert on the tile", `[data-tile=Errors] [data-action=alert-tile]`)
	b.see("the alert form", `[data-testid=alert-form]`)
	b.run("the webhook is offered", waitText(`[data-testid=alert-form] select[name=webhook]`, "On call"))
	b.run("no threshold", fill(`[data-testid=alert-form] input[name=threshold]`, "\b"))
	b.click("saving the bad alert", `[data-action=save-alert]`)
	b.see("the API's message", `[data-testid=alert-error]`)
	assert.Contains(t, b.text(`[data-testid=alert-error]`), "threshold")
	b.run("the alert", fill(`[data-testid=alert-form] input[name=threshold]`, "5"),
		poll(`(() => { const e = document.querySelector('[data-testid=alert-form] select[name=interval]'); e.value = '1m'; e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	b.screenshot("alert-form")
	b.click("creating the alert", `[data-action=save-alert]`)
	b.run("the form closes", poll(`!document.querySelector('[data-testid=alert-form]')`))

	// The receiver gets the notification.
	var n received
	select {
	case n = <-got:
	case <-time.After(60 * time.Second):
		t.Fatal("no notification within a minute")
	}
	assert.Equal(t, "s3cret-value", n.secret, "the header is sent")
	assert.Equal(t, "ALERT", n.body["state"])
	assert.Equal(t, "Payments: Errors", n.body["name"])
	assert.EqualValues(t, 12, n.body["value"])

	// The list shows ALERT and the last evaluation; the history its row.
	b.run("the alerts page", chromedp.Navigate(ui+"/alerts"), waitText(`tr[data-alert="Payments: Errors"] [data-testid=alert-state]`, "ALERT"))
	b.see("the state", `tr[data-alert="Payments: Errors"] [data-testid=alert-state]`)
	b.run("its last evaluation", waitText(`tr[data-alert="Payments: Errors"] [data-testid=alert-last]`, "value 12"))
	b.click("opening its history", `tr[data-alert="Payments: Errors"] td:nth-child(2)`)
	b.see("the history", `[data-testid=alert-history]`)
	assert.Equal(t, []string{"Window", "State", "Value", "Group", "Notification", "Evaluated"},
		eval[[]string](b, "the headers", `[...document.querySelectorAll('[data-testid=alert-history] th')].map((e) => e.innerText.trim())`))
	assert.Equal(t, "12", b.text(`[data-testid=alert-history] tbody tr:first-child [data-testid=history-value]`))
	assert.Contains(t, b.text(`[data-testid=alert-history] tbody tr:last-child`), "ALERT")
	assert.Equal(t, "delivered", b.text(`[data-testid=alert-history] tbody tr:last-child [data-testid=history-delivery]`))
	b.screenshot("alert-history")

	// The next minute's window: a second row, on top, still ALERT and so
	// nothing sent.
	b.run("a second evaluation", chromedp.Reload(), waitText(`tr[data-alert="Payments: Errors"] [data-testid=alert-state]`, "ALERT"))
	deadline := time.Now().Add(75 * time.Second)
	for {
		b.run("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`tr[data-alert="Payments: Errors"]`)))
		b.click("opening its history", `tr[data-alert="Payments: Errors"] td:nth-child(2)`)
		b.run("the history", chromedp.WaitVisible(chromedp.CSS(`[data-testid=alert-history]`)))
		if eval[int](b, "rows", `document.querySelectorAll('[data-testid=alert-history] tbody tr').length`) >= 2 {
			break
		}
		require.True(t, time.Now().Before(deadline), "no second evaluation")
		time.Sleep(3 * time.Second)
	}
	windows := eval[[]float64](b, "the windows", `[...document.querySelectorAll('[data-testid=alert-history] tbody tr')].map((e) => Number(e.dataset.window))`)
	assert.Greater(t, windows[0], windows[1], "newest first")
	assert.Equal(t, "no change, nothing sent", b.text(`[data-testid=alert-history] tbody tr:first-child [data-testid=history-delivery]`))
	b.see("the newest row", `[data-testid=alert-history] tbody tr:first-child`)
	select {
	case extra := <-got:
		t.Errorf("a second notification for an alert still in ALERT: %v", extra.body)
	default:
	}
	b.screenshot("alert-history-2")

	// An alert on a saved search, made on the Alerts page: it counts the
	// search's matches (12 a minute) and notifies the same receiver.
	require.Equal(t, 200, eval[int](b, "saving a search", `fetch('/api/v2/saved-searches', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'Payment failures', sourceId: 'logs', where: '"payment failed"', whereLanguage: 'lucene', select: 'Body'})}).then((r) => r.status)`))
	b.run("the alerts page", chromedp.Navigate(ui+"/alerts"), waitText(`[data-testid=alerts]`, "Payments: Errors"))
	b.click("new alert on a saved search", `[data-action=new-search-alert]`)
	b.run("the saved search is offered", waitText(`[data-testid=alert-form] select[name=savedSearch]`, "Payment failures"))
	b.run("the alert", fill(`[data-testid=alert-form] input[name=alert-name]`, "Payment failures"), fill(`[data-testid=alert-form] input[name=threshold]`, "5"),
		poll(`(() => { const e = document.querySelector('[data-testid=alert-form] select[name=interval]'); e.value = '1m'; e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	b.screenshot("search-alert-form")
	b.click("creating it", `[data-action=save-alert]`)
	b.run("the form closes", poll(`!document.querySelector('[data-testid=alert-form]')`))
	select {
	case n = <-got:
	case <-time.After(60 * time.Second):
		t.Fatal("no notification for the saved search's alert within a minute")
	}
	assert.Equal(t, "Payment failures", n.body["name"])
	assert.Equal(t, "ALERT", n.body["state"])
	assert.NotEmpty(t, n.body["savedSearchId"])
	assert.EqualValues(t, 12, n.body["value"])
	b.run("it shows ALERT", chromedp.Reload(), waitText(`tr[data-alert="Payment failures"] [data-testid=alert-state]`, "ALERT"))
	assert.Contains(t, b.text(`tr[data-alert="Payment failures"]`), `saved search “Payment failures”`)

	// Muted for an hour from the list, then unmuted.
	b.see("the mute menu", `tr[data-alert="Payment failures"] [data-action=mute-alert]`)
	eval[bool](b, "muting for 1 hour", `(() => { const s = document.querySelector('tr[data-alert="Payment failures"] [data-action=mute-alert]');
		s.value = '3600000'; return s.dispatchEvent(new Event('change', {bubbles: true})); })()`)
	b.see("muted", `tr[data-alert="Payment failures"] [data-testid=alert-muted]`)
	assert.Contains(t, b.text(`tr[data-alert="Payment failures"] [data-testid=alert-muted]`), "muted until")
	b.screenshot("alert-muted")
	b.click("unmuting", `tr[data-alert="Payment failures"] [data-action=unmute-alert]`)
	b.run("unmuted", poll(`!document.querySelector('tr[data-alert="Payment failures"] [data-testid=alert-muted]')`))

	// Deleting the dashboard would take its alert: the confirmation says so.
	b.run("the dashboards", chromedp.Navigate(ui+"/dashboards"), waitText(`[data-testid=dashboards]`, "Payments"))
	b.click("delete", `tr[data-dashboard=Payments] [data-action=delete]`)
	b.run("the confirmation names the alert", waitText(`tr[data-dashboard=Payments] .confirm`, "Delete “Payments” and its alert?"))
	b.click("cancel", `tr[data-dashboard=Payments] .confirm button:not([data-action])`)
	b.run("the alerts page", chromedp.Navigate(ui+"/alerts"), waitText(`[data-testid=alerts]`, "Payment failures"))

	// The webhook cannot go while alerts use it: the API's reason and the
	// alerts' names are on its row, and it stays.
	b.click("delete the webhook", `tr[data-webhook="On call"] [data-action=delete-webhook]`)
	b.click("confirm", `tr[data-webhook="On call"] [data-action=confirm-delete]`)
	b.see("the reason", `[data-testid=webhook-delete-error]`)
	reason := b.text(`[data-testid=webhook-delete-error]`)
	assert.Contains(t, reason, "alerts still reference this webhook")
	assert.Contains(t, reason, "Used by: ")
	assert.Contains(t, reason, "“Payments: Errors”")
	assert.Contains(t, reason, "“Payment failures”")
	b.see("still listed", `tr[data-webhook="On call"]`)

	// Delete the tile's alert, after a confirmation.
	b.click("delete", `tr[data-alert="Payments: Errors"] [data-action=delete-alert]`)
	b.see("the confirmation", `tr[data-alert="Payments: Errors"] [data-action=confirm-delete]`)
	b.click("confirm", `tr[data-alert="Payments: Errors"] [data-action=confirm-delete]`)
	b.run("it is gone", poll(`!document.querySelector('tr[data-alert="Payments: Errors"]')`))
	b.see("the other stays", `tr[data-alert="Payment failures"]`)
	b.screenshot("alerts-after-delete")
	assert.NotContains(t, c.out.String(), "observability API request failed", "no request answered 500")
}

// Tiles moved and resized on the 24-column grid (issue 43): with the
// buttons, with the keyboard on a focused tile, and by dragging the
// handle and the corner with the mouse; "Save layout" stores it through
// PUT /api/v2/dashboards/{id}, and after a reload the tiles are where they
// were put, on screen.
func TestBrowserDashboardTilesArranged(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	b := newBrowser(t, ui, "arrange")
	b.signUp("/", "owner@example.com", "correct horse battery")

	id := eval[string](b, "a dashboard with two notes", `fetch('/api/v2/dashboards', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'Layout', tiles: [
			{name: 'A', x: 0, y: 0, w: 12, h: 3, config: {displayType: 'markdown', markdown: 'first'}},
			{name: 'B', x: 12, y: 0, w: 12, h: 3, config: {displayType: 'markdown', markdown: 'second'}},
			{name: 'C', x: 0, y: 10, w: 6, h: 3, config: {displayType: 'markdown', markdown: 'narrow'}}]})}).then((r) => r.json()).then((j) => j.data.id)`)
	layout := func() map[string][4]int {
		t.Helper()
		got := eval[[]map[string]any](b, "the stored layout", fmt.Sprintf(`fetch('/api/v2/dashboards/%s').then((r) => r.json()).then((j) => j.data.tiles.map((t) => ({name: t.name, x: t.x, y: t.y, w: t.w, h: t.h})))`, id))
		out := map[string][4]int{}
		for _, t := range got {
			out[t["name"].(string)] = [4]int{int(t["x"].(float64)), int(t["y"].(float64)), int(t["w"].(float64)), int(t["h"].(float64))}
		}
		return out
	}
	b.run("the dashboard", chromedp.Navigate(ui+"/dashboards/"+id), waitText(`h1`, "Layout"))
	// On a 1000 px screen a quarter-wide tile's move and resize buttons
	// wrap inside it (they ran out of it, cut off), and the layout
	// buttons keep their words on one line beside the hint.
	b.run("a narrow screen", chromedp.EmulateViewport(1000, 900))
	b.click("arrange", `[data-action=arrange]`)
	eval[bool](b, "scrolling to C", `(document.querySelector('[data-tile=C]').scrollIntoView({block: 'center'}), true)`)
	for _, action := range []string{"drag-tile", "move-left", "move-right", "move-up", "move-down", "narrower", "wider", "shorter", "taller"} {
		b.see("C's "+action+" at 1000", `[data-tile=C] [data-action=`+action+`]`)
	}
	eval[bool](b, "back to the top", `(document.querySelector('h1').scrollIntoView(), true)`)
	b.see("Save layout at 1000", `[data-action=save-layout]`)
	assert.Less(t, eval[float64](b, "Save layout's height", `document.querySelector('[data-action=save-layout]').getBoundingClientRect().height`), 40.0, "Save layout on one line")
	b.screenshot("arranging-1000")
	b.run("a wide screen", chromedp.EmulateViewport(1400, 900))

	// Buttons: B one row down, then two columns narrower and a row taller.
	b.click("B down", `[data-tile=B] [data-action=move-down]`)
	b.click("B narrower", `[data-tile=B] [data-action=narrower]`)
	b.click("B narrower again", `[data-tile=B] [data-action=narrower]`)
	b.click("B taller", `[data-tile=B] [data-action=taller]`)
	assert.Equal(t, "10×4 at 12,1", b.text(`[data-tile=B] [data-testid=tile-place]`))
	// Wider at the right edge: it stays within the 24 columns.
	for i := 0; i < 4; i++ {
		b.click("B wider", `[data-tile=B] [data-action=wider]`)
	}
	assert.Equal(t, "12×4 at 12,1", b.text(`[data-tile=B] [data-testid=tile-place]`))

	// Keyboard: A focused, two to the right, Shift+Left to narrow it.
	b.run("focus A", poll(`(() => { const e = document.querySelector('[data-tile=A]'); e.focus(); return document.activeElement === e; })()`))
	b.run("keys", chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	b.run("shift left", chromedp.KeyEvent(kb.ArrowLeft, chromedp.KeyModifiers(chromedp.ModifierShift)))
	b.run("A moved by keys", waitText(`[data-tile=A] [data-testid=tile-place]`, "11×3 at 2,0"))

	// Mouse: drag A's handle two rows down, its corner a column wider.
	cell := eval[[]float64](b, "a grid cell", `(() => { const g = document.querySelector('[data-testid=dashboard-grid]').getBoundingClientRect(); return [(g.width + 12) / 24, 82]; })()`)
	dragBy := func(what, sel string, dx, dy float64) {
		t.Helper()
		b.see(what, sel)
		xy := eval[[]float64](b, what, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, sel))
		b.run(what,
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, xy[0], xy[1], chromedp.Button("left"), chromedp.ClickCount(1)),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0]+dx/2, xy[1]+dy/2, chromedp.Button("left")),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0]+dx, xy[1]+dy, chromedp.Button("left")),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, xy[0]+dx, xy[1]+dy, chromedp.Button("left"), chromedp.ClickCount(1)))
	}
	dragBy("dragging A down", `[data-tile=A] [data-action=drag-tile]`, 0, 2*cell[1])
	b.run("A dragged", waitText(`[data-tile=A] [data-testid=tile-place]`, "11×3 at 2,2"))
	dragBy("resizing A", `[data-tile=A] [data-action=resize-tile]`, cell[0], 0)
	b.run("A resized", waitText(`[data-tile=A] [data-testid=tile-place]`, "12×3 at 2,2"))
	b.screenshot("arranging")

	assert.Equal(t, map[string][4]int{"A": {0, 0, 12, 3}, "B": {12, 0, 12, 3}, "C": {0, 10, 6, 3}}, layout(), "nothing is stored before Save layout")
	b.click("save", `[data-action=save-layout]`)
	b.run("saved", poll(`!document.querySelector('[data-action=save-layout]')`))
	assert.Equal(t, map[string][4]int{"A": {2, 2, 12, 3}, "B": {12, 1, 12, 4}, "C": {0, 10, 6, 3}}, layout())

	b.run("reload", chromedp.Reload(), waitText(`h1`, "Layout"))
	b.see("A", `[data-tile=A]`)
	b.see("B", `[data-tile=B]`)
	rects := eval[map[string][]float64](b, "where they are", `Object.fromEntries(['A', 'B'].map((n) => { const r = document.querySelector('[data-tile=' + n + ']').getBoundingClientRect(); return [n, [r.left, r.top, r.width, r.height]]; }))`)
	assert.Less(t, rects["A"][0]-rects["B"][0], 0.0, "A starts left of B")
	assert.Greater(t, rects["A"][0]+rects["A"][2], rects["B"][0], "A (columns 3-14) overlaps B's columns (13-24)")
	assert.Greater(t, rects["A"][1], rects["B"][1], "A starts a row below B")
	assert.InDelta(t, rects["A"][2], rects["B"][2], 1, "both 12 columns wide")
	b.screenshot("arranged")

	// Cancel leaves the stored layout as it was.
	b.click("arrange again", `[data-action=arrange]`)
	b.click("B up", `[data-tile=B] [data-action=move-up]`)
	b.click("cancel", `[data-action=cancel-layout]`)
	assert.Equal(t, map[string][4]int{"A": {2, 2, 12, 3}, "B": {12, 1, 12, 4}, "C": {0, 10, 6, 3}}, layout())
}

// One time range for every tile, auto-refresh and drag-to-zoom (issue
// 43): a count tile and a line tile over the last hour; with refresh at
// 10 s a record sent later is counted without a reload; dragging across
// the line chart narrows the range of both tiles to the span selected,
// and the count is then the records stored in it.
func TestBrowserDashboardRangeRefreshZoom(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "zoom")
	b.signUp("/", "owner@example.com", "correct horse battery")

	send := func(times ...time.Time) {
		t.Helper()
		var recs []string
		for _, at := range times {
			recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":"INFO","body":{"stringValue":"tick"}}`, at.UnixNano()))
		}
		logs := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"clock"}}]},"scopeLogs":[{"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`
		require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json", logs))
	}
	// One a minute over the last hour, 7 s past the minute.
	now := time.Now()
	var times []time.Time
	for i := 1; i <= 58; i++ {
		times = append(times, now.Truncate(time.Minute).Add(-time.Duration(i)*time.Minute+7*time.Second))
	}
	send(times...)
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs") == "58" }, 30*time.Second, 200*time.Millisecond, "stored")

	id := eval[string](b, "a dashboard", `fetch('/api/v2/dashboards', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'Clock', tiles: [
			{name: 'Ticks', x: 0, y: 0, w: 18, h: 4, config: {displayType: 'line', sourceId: 'logs', select: [{aggFn: 'count', where: '', whereLanguage: 'lucene'}]}},
			{name: 'Total', x: 18, y: 0, w: 6, h: 4, config: {displayType: 'number', sourceId: 'logs', select: [{aggFn: 'count', where: '', whereLanguage: 'lucene'}]}}]})}).then((r) => r.json()).then((j) => j.data.id)`)
	b.run("the dashboard", chromedp.Navigate(ui+"/dashboards/"+id+"?range=1h"), waitText(`[data-tile=Total] [data-testid=number]`, "58"))
	b.see("the line", `[data-tile=Ticks] .chart .u-over`)

	// Auto-refresh every 10 s: a record sent now shows without a reload.
	b.run("refresh every 10 s", poll(`(() => { const e = document.querySelector('select[name=refresh]'); e.value = '10s'; e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	b.run("kept in the address", poll(`location.search.includes('refresh=10s') && location.search.includes('range=1h')`))
	send(time.Now())
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs") == "59" }, 30*time.Second, 200*time.Millisecond, "stored")
	b.run("counted at the next refresh", waitText(`[data-tile=Total] [data-testid=number]`, "59"))
	b.run("refresh off", poll(`(() => { const e = document.querySelector('select[name=refresh]'); e.value = ''; e.dispatchEvent(new Event('change', {bubbles: true})); return !location.search.includes('refresh'); })()`))

	// Drag across the middle half of the line chart.
	r := eval[[]float64](b, "the plot", `(() => { const r = document.querySelector('[data-tile=Ticks] .u-over').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	x0, x1, y := r[0]+r[2]*0.25, r[0]+r[2]*0.75, r[1]+r[3]/2
	b.run("dragging across the chart",
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0, y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.Button("left"), chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, chromedp.Button("left")),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y, chromedp.Button("left")),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y, chromedp.Button("left"), chromedp.ClickCount(1)))
	b.run("zoomed", poll(`location.search.includes('from=') && !location.search.includes('range=')`))
	span := eval[[]float64](b, "the range", `(() => { const p = new URLSearchParams(location.search); return [Number(p.get('from')), Number(p.get('to'))]; })()`)
	from, to := int64(span[0]), int64(span[1])
	assert.InDelta(t, 30*time.Minute.Milliseconds(), to-from, float64(5*time.Minute.Milliseconds()), "half the hour")
	want := c.sql(t, fmt.Sprintf("SELECT count() FROM otel.otel_logs WHERE Timestamp >= fromUnixTimestamp64Milli(%d) AND Timestamp < fromUnixTimestamp64Milli(%d)", from, to))
	b.run("the number follows the range", waitText(`[data-tile=Total] [data-testid=number]`, want))
	assert.Equal(t, want, b.text(`[data-tile=Total] [data-testid=number]`))
	assert.NotEqual(t, "59", want)
	// The tile shows what POST /api/v2/charts/series answers for it.
	api := eval[float64](b, "the chart API's answer", fmt.Sprintf(`fetch('/api/v2/charts/series', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({startTime: %d, endTime: %d, granularity: 'auto', series: [{sourceId: 'logs', aggFn: 'count', where: '', whereLanguage: 'lucene'}]})})
		.then((r) => r.json()).then((j) => j.data.reduce((a, row) => a + Number(row['series_0.data'] ?? 0), 0))`, from, to))
	assert.Equal(t, want, fmt.Sprint(api), "the API's buckets add up to the tile's number")
	b.see("the line redrawn", `[data-tile=Ticks] .chart .u-over`)
	b.screenshot("zoomed")
}

// Issue 45: a Datadog dashboard's JSON, as the redisdb integration ships
// it (DataDog/integrations-core, checked in with the importer's test
// data), imported with the button on the dashboards page: the report says
// what became of each widget, and the dashboard opens with its tiles
// drawn, none failing, with the Agent's metric sent through the Datadog
// receiver.
func TestBrowserImportsADatadogDashboard(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	b := newBrowser(t, ui, "import")
	b.signUp("/", "owner@example.com", "correct horse battery")
	now := time.Now().Unix()
	series := fmt.Sprintf(`{"series":[{"metric":"redis.net.clients","type":3,"points":[{"timestamp":%d,"value":12}],"resources":[{"type":"host","name":"cache-1"}],"tags":["redis_port:6379"]}]}`, now-60)
	require.Equal(t, http.StatusAccepted, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/api/v2/series", c.datadog), "DD-API-KEY", ingestKey, "application/json", series))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_metrics_gauge WHERE MetricName = 'redis.net.clients'") != "0"
	},
		30*time.Second, 200*time.Millisecond, "the Agent's metric is stored")

	file, err := filepath.Abs("../internal/domain/importers/datadog/testdata/integrations-core/redisdb_dashboard_overview.json")
	require.NoError(t, err)
	b.run("the list", chromedp.Navigate(ui+"/dashboards"), chromedp.WaitReady(chromedp.CSS(`[data-testid=import-file-dashboard]`)))
	b.see("the import button", `[data-action=import-dashboard]`)
	b.run("choosing the file", chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=import-file-dashboard]`), []string{file}))
	b.see("the report", `[data-testid=import-report]`)
	report := b.text(`[data-testid=import-report]`)
	assert.Contains(t, report, "Redis - Overview")
	assert.Regexp(t, `[1-9]\d* imported`, report)
	b.screenshot("import-report")
	b.click("opening it", `[data-testid=import-report] a`)
	b.run("the imported dashboard", waitText(`h1`, "Redis - Overview"))
	for _, tile := range []string{"Connected clients", "Latency by Host"} {
		sel := fmt.Sprintf(`[data-tile=%q]`, tile)
		eval[bool](b, "scrolling to "+tile, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'center'}), true)`, sel))
		b.see("the tile "+tile, sel)
	}
	b.run("the tiles have run", poll(`document.querySelectorAll('.tile').length > 10 && ![...document.querySelectorAll('.tile')].some((t) => t.textContent.includes('Loading…'))`))
	assert.Equal(t, 0, eval[int](b, "failing tiles", `document.querySelectorAll('[data-testid=tile-error]').length`),
		"every imported tile runs: %s", eval[string](b, "errors", `[...document.querySelectorAll('[data-testid=tile-error]')].map(e => e.closest('.tile').dataset.tile + ': ' + e.textContent).join('\n')`))
	b.run("the markdown of a note", poll(`[...document.querySelectorAll('.tile')].some((t) => t.textContent.includes('This dashboard provides'))`))
	b.screenshot("imported-dashboard")

	// The host dashboard a first start makes (the same import path): two
	// Agents' system metrics, a line per host, no tile failing.
	var pts []string
	for _, host := range []string{"web-1", "web-2"} {
		for _, m := range []string{"system.cpu.user", "system.cpu.system", "system.load.1", "system.mem.used", "system.net.bytes_rcvd"} {
			pts = append(pts, fmt.Sprintf(`{"metric":%q,"type":3,"points":[{"timestamp":%d,"value":%d},{"timestamp":%d,"value":%d}],"resources":[{"type":"host","name":%q}]}`,
				m, now-120, 10+len(host), now-60, 20+len(m), host))
		}
	}
	require.Equal(t, http.StatusAccepted, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/api/v2/series", c.datadog), "DD-API-KEY", ingestKey,
		"application/json", `{"series":[`+strings.Join(pts, ",")+`]}`))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT uniq(ResourceAttributes['host.name']) FROM otel.otel_metrics_gauge WHERE MetricName = 'system.cpu.user'") == "2"
	},
		30*time.Second, 200*time.Millisecond, "both hosts stored")
	b.run("the dashboards", chromedp.Navigate(ui+"/dashboards"), waitText(`[data-testid=dashboards]`, "Hosts (Datadog Agent)"))
	b.click("the host dashboard", `tr[data-dashboard="Hosts (Datadog Agent)"] a`)
	b.run("its tiles have run", waitText(`h1`, "Hosts (Datadog Agent)"),
		poll(`document.querySelectorAll('.tile').length == 17 && ![...document.querySelectorAll('.tile')].some((t) => t.textContent.includes('Loading…'))`))
	assert.Equal(t, 0, eval[int](b, "failing tiles", `document.querySelectorAll('[data-testid=tile-error]').length`),
		"every host tile runs: %s", eval[string](b, "errors", `[...document.querySelectorAll('[data-testid=tile-error]')].map(e => e.closest('.tile').dataset.tile + ': ' + e.textContent).join('\n')`))
	eval[bool](b, "scrolling to the CPU tile", `(document.querySelector('[data-tile="CPU user (%)"]').scrollIntoView({block: 'center'}), true)`)
	b.see("the CPU tile", `[data-tile="CPU user (%)"]`)
	b.run("a line per host", poll(`document.querySelector('[data-tile="CPU user (%)"]').textContent.includes('web-2')`))
	b.screenshot("host-dashboard")
	// On a narrow screen a narrow tile's buttons go under its title
	// rather than cut the title to a letter.
	b.run("a narrow screen", chromedp.EmulateViewport(1000, 900),
		poll(`[...document.querySelectorAll('.tile-title')].every((e) => e.clientWidth >= Math.min(e.scrollWidth, 60))`))
	b.screenshot("host-dashboard-1000")
	b.run("back to a wide screen", chromedp.EmulateViewport(1400, 900))
	// Its host filter (the importer's template variable) lists both
	// hosts; choosing one leaves its line alone, and the choice is a link.
	eval[bool](b, "scrolling to the filter", `(document.querySelector('[data-filter=host]').scrollIntoView({block: 'center'}), true)`)
	b.see("the host filter", `[data-filter=host] select`)
	b.run("both hosts offered", poll(`['web-1', 'web-2'].every((h) => [...document.querySelectorAll('[data-filter=host] option')].some((o) => o.value === h))`))
	eval[bool](b, "choosing web-1", `(() => { const s = document.querySelector('[data-filter=host] select'); s.value = 'web-1'; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)
	b.run("the URL keeps the choice", poll(`[...new URLSearchParams(location.search).entries()].some(([k, v]) => k.startsWith('f.') && v === 'web-1')`))
	b.run("only web-1's line", poll(`(() => { const t = document.querySelector('[data-tile="CPU user (%)"]').textContent; return t.includes('web-1') && !t.includes('web-2') && !t.includes('Loading'); })()`))
	assert.Equal(t, 0, eval[int](b, "failing tiles", `document.querySelectorAll('[data-testid=tile-error]').length`),
		"every filtered tile runs: %s", eval[string](b, "errors", `[...document.querySelectorAll('[data-testid=tile-error]')].map(e => e.closest('.tile').dataset.tile + ': ' + e.textContent).join('\n')`))
	b.screenshot("host-dashboard-filtered")
	// A filter of one's own: the service of the logs.
	b.click("add filter", `[data-action=add-filter]`)
	b.see("the filter form", `[data-testid=filter-form]`)
	b.run("the filter", fill(`input[name=filter-name]`, "service"), chromedp.SetValue(`select[name=filter-source]`, "logs"),
		fill(`input[name=filter-expression]`, "ServiceName"))
	eval[bool](b, "the source chosen", `(() => { const s = document.querySelector('select[name=filter-source]'); s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)
	b.click("adding it", `[data-testid=filter-form] button[type=submit]`)
	b.see("the new filter", `[data-filter=service] select`)
	saved := eval[string](b, "the stored filters", `fetch('/api/v2/dashboards/hosts', {headers: {'X-Otelhouse-Request': '1'}}).then((r) => r.json()).then((j) => j.data.filters.map((f) => f.name + '=' + f.expression + '@' + f.sourceId).join(','))`)
	assert.Equal(t, "host=host@metrics,service=ServiceName@logs", saved)

	// A monitor and a saved view, imported with the buttons on the Alerts
	// page and in the saved-search menu, at every screen width. An
	// imported monitor needs a webhook to deliver to: one is made first
	// (a name that never resolves, so nothing is delivered).
	eval[bool](b, "a webhook", `fetch('/api/v2/webhooks', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'On call', service: 'generic', url: 'https://hooks.invalid/on-call'})}).then((r) => r.ok)`)
	monitor, err := filepath.Abs("../internal/domain/importers/datadog/testdata/integrations-core/redisdb_monitor_high_mem.json")
	require.NoError(t, err)
	view, err := filepath.Abs("../internal/domain/importers/datadog/testdata/integrations-core/nginx_saved_view_5xx_errors.json")
	require.NoError(t, err)
	for _, width := range []int64{1000, 1400, 1920} {
		w := fmt.Sprint(width)
		b.run("a screen of "+w, chromedp.EmulateViewport(width, 900))
		b.run("the alerts at "+w, chromedp.Navigate(ui+"/alerts"), waitText(`select[name=import-webhook]`, "On call"))
		eval[bool](b, "scrolling to the import", `(document.querySelector('[data-action=import-monitor]').scrollIntoView({block: 'center'}), true)`)
		b.see("the monitor import at "+w, `[data-action=import-monitor]`)
		b.run("choosing the monitor at "+w, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=import-file-monitor]`), []string{monitor}))
		b.run("the monitor's report at "+w, waitText(`[data-testid=import-report]`, "Imported alert"))
		eval[bool](b, "scrolling to the report", `(document.querySelector('[data-testid=import-report]').scrollIntoView({block: 'center'}), true)`)
		b.see("the monitor's report at "+w, `[data-testid=import-report]`)
		report := b.text(`[data-testid=import-report]`)
		assert.Contains(t, report, "dashboard", "a metric monitor watches a tile of a dashboard made for it")
		assert.Contains(t, report, "warning 70 is a second alert", "the warning threshold is an alert of its own, and says so")
		assert.Contains(t, report, "[Redis] High memory consumption (warning)", "both alerts are named")
		b.screenshot("import-monitor-" + w)

		b.run("the log search at "+w, chromedp.Navigate(ui+"/search/logs"), chromedp.WaitReady(chromedp.CSS(`[data-testid=saved-menu]`)))
		b.click("the saved menu at "+w, `[data-testid=saved-menu]`)
		b.see("the view import at "+w, `[data-action=import-saved-view]`)
		b.run("choosing the view at "+w, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=import-file-saved-view]`), []string{view}))
		if width != 1000 {
			// Imported once already: the team's saved-search names are
			// unique, and the refusal says which name is taken.
			b.run("the refusal at "+w, waitText(`.saved-list .error`, "already exists"))
			b.see("the refusal at "+w, `.saved-list .error`)
			continue
		}
		b.run("the view's report at "+w, waitText(`[data-testid=import-report]`, "Imported"))
		// The list reloads after an import and pushes the report down:
		// click its link once the view is listed, not while it moves.
		b.run("the view listed at "+w, chromedp.WaitVisible(`.saved-list [data-saved="NGINX 5xx errors"]`))
		b.see("the view's report at "+w, `[data-testid=import-report] a`)
		b.screenshot("import-view-" + w)
		b.click("opening the view at "+w, `[data-testid=import-report] a`)
		b.run("the view opens in the Datadog language at "+w, poll(`new URLSearchParams(location.search).get('lang') === 'datadog'`))
	}
	names := eval[[]string](b, "the imported alerts", `fetch('/api/v2/alerts', {headers: {'X-Otelhouse-Request': '1'}}).then((r) => r.json()).then((j) => j.data.map((a) => a.name))`)
	assert.Len(t, names, 6, "two alerts per import, the critical and the warning threshold's: %v", names)
}

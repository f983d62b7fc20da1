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
		b.click("add tile for "+what, `[data-action=add-tile]`)
		b.see("the tile editor for "+what, `[data-testid=tile-editor]`)
		set()
		b.click("saving "+what, `[data-action=save-tile]`)
		b.run("the editor closes after saving "+what, poll(`!document.querySelector('[data-testid=tile-editor]')`))
	}
	selectValue := func(sel, v string) chromedp.Action[chromedp.Void] {
		return poll(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, sel, v))
	}

	// A bad where: the translator's message under the box, nothing saved.
	b.click("add tile", `[data-action=add-tile]`)
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

	for _, width := range []int64{1000, 1400, 1920} {
		w := fmt.Sprint(width)
		b.run("a screen of this width", chromedp.EmulateViewport(width, 900), chromedp.Reload())
		b.see("the line tile at "+w, `[data-tile=Errors] .chart .u-over`)
		b.see("the number at "+w, `[data-tile=Orders] [data-testid=number]`)
		assert.Equal(t, "7", b.text(`[data-tile=Orders] [data-testid=number]`), "seven orders in the last hour")
		b.see("the markdown heading at "+w, `[data-tile=Notes] .markdown h2`)
		assert.Contains(t, b.text(`[data-tile=Notes] .markdown h2 strong`), "bold")
		assert.Equal(t, 0, eval[int](b, "no element from the note's HTML", `document.querySelectorAll('[data-tile=Notes] img').length`))
		assert.Contains(t, b.text(`[data-tile=Notes] .markdown`), "<img src=x", "the HTML is shown as text")
		b.see("the edit button at "+w, `[data-tile=Orders] [data-action=edit-tile]`)
		b.screenshot("dashboard-" + w)
	}

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
	assert.Equal(t, "2", b.text(`tr[data-dashboard="Shop floor (copy)"] td:nth-child(2)`), "the copy has the tiles")
	b.click("delete", `tr[data-dashboard="Shop floor (copy)"] [data-action=delete]`)
	b.see("the confirmation", `tr[data-dashboard="Shop floor (copy)"] [data-action=confirm-delete]`)
	b.click("confirm delete", `tr[data-dashboard="Shop floor (copy)"] [data-action=confirm-delete]`)
	b.run("deleted", poll(`!document.querySelector('tr[data-dashboard="Shop floor (copy)"]')`))
	b.screenshot("list")
}

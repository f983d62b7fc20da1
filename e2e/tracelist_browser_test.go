package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The trace list, the waterfall's collapsing and critical path, and the
// search histogram's hover and stacked severities, as a person uses them
// at three screen widths (issue 42): a row of the Traces view opens its
// waterfall; collapsing a span hides its children; the chain of spans
// that ended the trace is marked; hovering a bar reads its count, split
// by severity with `error` and `ERROR` one series.
func TestBrowserTraceList(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "tracelist")
	// A zone other than UTC, so that switching to UTC shows.
	b.run("the browser in Paris", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Paris"})
		return err
	}))
	b.signUp("/", "owner@example.com", "correct horse battery")

	now := time.Now()
	// t1: GET /checkout calls SELECT orders (ends at 60 ms) and
	// payments.charge (ends at 280 ms, failed), which calls INSERT
	// charges: the critical path is the root, payments.charge, INSERT
	// charges. t2: one span of cart, later.
	const t1, t2 = "5bf92f3577b34da6a3ce929d0e0e4736", "6bf92f3577b34da6a3ce929d0e0e4737"
	span := func(trace, id, parent, name string, status int, svc string, startMs, endMs int) string {
		return fmt.Sprintf(`{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":%q}}]},"scopeSpans":[{"spans":[{"traceId":%q,"spanId":%q,"parentSpanId":%q,
		  "name":%q,"kind":2,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","status":{"code":%d}}]}]}`,
			svc, trace, id, parent, name, now.Add(time.Duration(startMs-5000)*time.Millisecond).UnixNano(), now.Add(time.Duration(endMs-5000)*time.Millisecond).UnixNano(), status)
	}
	spans := `{"resourceSpans":[` + strings.Join([]string{
		span(t1, "00f067aa0ba902b7", "", "GET /checkout", 2, "checkout", 0, 300),
		span(t1, "00f067aa0ba902b8", "00f067aa0ba902b7", "SELECT orders", 0, "checkout", 10, 60),
		span(t1, "00f067aa0ba902b9", "00f067aa0ba902b7", "payments.charge", 2, "payments", 80, 280),
		span(t1, "00f067aa0ba902ba", "00f067aa0ba902b9", "INSERT charges", 0, "payments", 100, 250),
		span(t2, "00f067aa0ba902bb", "", "GET /cart", 0, "cart", 2000, 2005),
	}, ",") + `]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/traces", "Authorization", "Bearer "+ingestKey, "application/json", spans))
	// Six logs at one instant (one bucket), their severities spelled as
	// agents do.
	var recs []string
	at := now.Add(-5 * time.Second).UnixNano()
	for i, sev := range []string{"error", "ERROR", "Error", "WARNING", "INFO", "info"} {
		recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":%q,"body":{"stringValue":"stacklog %d"}}`, at, sev, i))
	}
	// And one log written under payments.charge.
	recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":"ERROR","body":{"stringValue":"card declined by the bank"},"traceId":%q,"spanId":"00f067aa0ba902b9"}`,
		now.Add(-4800*time.Millisecond).UnixNano(), t1))
	logs := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"checkout"}}]},"scopeLogs":[{"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json", logs))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_logs") == "7" && c.sql(t, "SELECT count() FROM otel.otel_traces") == "5"
	}, 30*time.Second, 200*time.Millisecond, "stored")

	for _, width := range []int64{1000, 1400, 1920} {
		b.run("a screen of this width", chromedp.EmulateViewport(width, 900))
		w := fmt.Sprint(width)

		// The Traces view beside the span rows: one row per trace.
		b.run("searching spans at "+w, chromedp.Navigate(ui+"/search/traces"), waitText(`[data-testid=results] tbody`, "payments.charge"))
		b.click("the Traces view at "+w, `[data-testid=view-traces]`)
		b.run("the trace list at "+w, poll(`document.querySelectorAll('[data-testid=trace-list] tbody tr').length === 2`))
		row := `[data-testid=trace-list] tr[data-trace-id="` + t1 + `"]`
		b.see("the trace's row at "+w, row)
		assert.Equal(t, t2, eval[string](b, "the first row", `document.querySelector('[data-testid=trace-list] tbody tr').dataset.traceId`), "newest first")
		got := b.text(row)
		for _, want := range []string{"GET /checkout", "checkout", "payments", "300"} {
			assert.Contains(t, got, want, "at %s px", w)
		}
		assert.Equal(t, "4", b.text(row+` td:nth-child(4)`), "its spans")
		assert.Equal(t, "2", b.text(row+` td:nth-child(5)`), "its errors")
		b.screenshot("trace-list-" + w)

		// The row opens the waterfall.
		b.click("opening the trace at "+w, row+` [data-testid=trace-link]`)
		b.run("the waterfall from the trace list at "+w, waitText(`[data-testid=waterfall]`, "INSERT charges"))
		b.see("the waterfall at "+w, `[data-span-id="00f067aa0ba902ba"]`)

		// The critical path: the root, payments.charge and INSERT charges.
		crit := eval[[]string](b, "the critical path", `[...document.querySelectorAll('[data-testid=waterfall] [data-critical]')].map(e => e.dataset.spanId)`)
		assert.Equal(t, []string{"00f067aa0ba902b7", "00f067aa0ba902b9", "00f067aa0ba902ba"}, crit, "at %s px", w)
		b.see("the critical path's key at "+w, `.legend .crit-key`)
		b.screenshot("waterfall-" + w)

		// The span's own logs: counted on its row, listed in its panel.
		assert.Contains(t, b.text(`[data-span-id="00f067aa0ba902b9"]`), "1 log")
		b.click("opening payments.charge at "+w, `[data-span-id="00f067aa0ba902b9"] .wf-label`)
		b.see("the span's logs at "+w, `[data-testid=span-logs]`)
		assert.Contains(t, b.text(`[data-testid=span-logs]`), "card declined by the bank")
		b.run("closing the span", chromedp.KeyEvent(kb.Escape), poll(`!document.querySelector('[data-testid=span-panel]')`))

		// Collapsing payments.charge hides INSERT charges; expanding
		// shows it; collapse all leaves the root.
		b.click("collapsing payments.charge at "+w, `[data-span-id="00f067aa0ba902b9"] [data-testid=toggle]`)
		b.run("its child is hidden at "+w, poll(`!document.querySelector('[data-span-id="00f067aa0ba902ba"]')`))
		b.see("the other spans at "+w, `[data-span-id="00f067aa0ba902b8"]`)
		assert.Contains(t, b.text(`[data-span-id="00f067aa0ba902b9"]`), "+1", "what is hidden is counted")
		assert.Empty(t, eval[string](b, "the panel", `document.querySelector('[data-testid=span-panel]') ? 'open' : ''`), "the caret does not open the span")
		b.screenshot("collapsed-" + w)
		b.click("expanding it at "+w, `[data-span-id="00f067aa0ba902b9"] [data-testid=toggle]`)
		b.see("its child again at "+w, `[data-span-id="00f067aa0ba902ba"]`)
		b.click("collapse all at "+w, `[data-testid=collapse-all]`)
		b.run("only the root at "+w, poll(`document.querySelectorAll('[data-testid=waterfall] [data-span-id]').length === 1`))
		b.click("expand all at "+w, `[data-testid=expand-all]`)
		b.run("every span at "+w, poll(`document.querySelectorAll('[data-testid=waterfall] [data-span-id]').length === 4`))

		// The flame graph: a block per span, a row per depth; a block
		// opens its span; back to the waterfall.
		b.click("the flame graph at "+w, `[data-testid=view-flame]`)
		b.see("the flame graph at "+w, `[data-testid=flame]`)
		assert.Equal(t, 4, eval[int](b, "flame blocks", `document.querySelectorAll('[data-testid=flame] .flame-span').length`))
		assert.Equal(t, 3, eval[int](b, "flame rows", `new Set([...document.querySelectorAll('[data-testid=flame] .flame-span')].map(e => e.style.top)).size`),
			"root, its children, a grandchild")
		b.see("the charge's block at "+w, `[data-testid=flame] [data-span-id="00f067aa0ba902b9"]`)
		b.click("opening the charge from the flame graph at "+w, `[data-testid=flame] [data-span-id="00f067aa0ba902b9"]`)
		b.run("its panel at "+w, waitText(`.panel`, "payments.charge"))
		b.screenshot("flame-" + w)
		b.run("closing the panel at "+w, chromedp.KeyEvent(kb.Escape))
		b.click("the waterfall again at "+w, `[data-testid=view-waterfall]`)
		b.see("the waterfall again at "+w, `[data-testid=waterfall]`)

		// The log histogram stacks by severity, one series per level
		// whatever its case; hovering its bar reads the counts.
		b.run("searching logs at "+w, chromedp.Navigate(ui+"/search/logs?q=stacklog"), waitText(`[data-testid=histogram-total]`, "6 matching events"))
		b.see("the legend at "+w, `[data-testid=histogram-legend]`)
		levels := eval[[]string](b, "the legend", `[...document.querySelectorAll('[data-testid=histogram-legend] [data-level]')].map(e => e.dataset.level)`)
		assert.Equal(t, []string{"error", "warn", "info"}, levels, "error, ERROR and Error are one series")
		// A search that matches nothing has no legend (it listed "unset").
		b.run("a search of nothing at "+w, chromedp.Navigate(ui+"/search/logs?q=nothingmatchesthis"), waitText(`[data-testid=histogram-total]`, "0 matching events"),
			poll(`!document.querySelector('[data-testid=histogram-legend]')`))
		b.run("back to the levels at "+w, chromedp.Navigate(ui+"/search/logs?q=stacklog"), waitText(`[data-testid=histogram-total]`, "6 matching events"))
		// Every bucket of the range answers (empty ones 0): the mouse moves
		// until it is over the bar.
		b.hoverUntil("hovering the bar at "+w, `[data-testid=histogram] .u-over`,
			`(() => { const e = document.querySelector('[data-testid=histogram-tip-count]'); return !!e && e.innerText !== '0'; })()`)
		// The tip lets the mouse through to the chart (pointer-events:
		// none), so elementFromPoint cannot find it: its box is checked.
		assert.Empty(t, eval[string](b, "the tip's box", `(() => { const r = document.querySelector('[data-testid=histogram-tip]').getBoundingClientRect();
			return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight ? '' : JSON.stringify(r); })()`), "the tip is on screen at %s px", w)
		assert.Equal(t, "6", b.text(`[data-testid=histogram-tip-count]`), "the bucket's count at %s px", w)
		tip := b.text(`[data-testid=histogram-tip]`)
		assert.Contains(t, tip, "error 3")
		assert.Contains(t, tip, "warn 1")
		assert.Contains(t, tip, "info 2")
		b.screenshot("histogram-" + w)

		if width != 1400 {
			continue
		}
		// The zone switch: the table's times in Paris, then in UTC, an
		// hour apart, and still UTC after a reload.
		zone := `[data-testid=results] thead [data-testid=zone-switch]`
		assert.Equal(t, "Europe/Paris", b.text(zone))
		cell := `[data-testid=results] tbody tr:first-child td:nth-child(2)`
		paris := b.text(cell)
		b.click("showing UTC", zone)
		b.run("the header says UTC", waitText(zone, "UTC"))
		utc := b.text(cell)
		require.Len(t, paris, len("11-26 21:38:29.307"))
		assert.Equal(t, paris[9:], utc[9:], "the same minutes and seconds")
		assert.NotEqual(t, paris[6:8], utc[6:8], "an hour apart")
		b.run("reloading", chromedp.Reload(), waitText(`[data-testid=results] tbody`, "stacklog"))
		assert.Equal(t, "UTC", b.text(zone), "the choice is remembered")

		// The panel shows the zone too, and the same service's events
		// around the one opened.
		b.click("opening a log", cell)
		b.see("the panel's zone", `[data-testid=panel-zone] [data-testid=zone-switch]`)
		assert.Equal(t, "UTC", b.text(`[data-testid=panel-zone]`))
		b.scrollPanelTo(`[data-testid=event-panel]`, `[data-testid=show-context]`)
		b.click("showing the surrounding events", `[data-testid=show-context]`)
		// Five of the same instant before it (a search answers newest
		// first, so they come after it in its order), the span's log
		// 200 ms later after it.
		b.run("the surrounding events", poll(`document.querySelectorAll('[data-testid=context] .context-row').length === 7`))
		b.see("the event itself among them", `[data-testid=context] .context-row.this`)
		assert.Contains(t, b.text(`[data-testid=context] .context-row:first-child`), "card declined by the bank", "the later event on top")
		b.screenshot("context-" + w)
		b.click("back to local time", `[data-testid=panel-zone] [data-testid=zone-switch]`)
		b.run("local again", waitText(zone, "Europe/Paris"))
	}
}

// hoverUntil moves the mouse across area, left to right, until the
// JavaScript condition cond holds (what a person does to find a bar).
func (b *browser) hoverUntil(what, area, cond string) {
	b.t.Helper()
	b.see(what, area)
	r := eval[[]float64](b, what, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, area))
	for x := r[0] + 1; x < r[0]+r[2]; x += 3 {
		b.run(what, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, r[1]+r[3]-4))
		if eval[bool](b, what, cond) {
			return
		}
	}
	b.t.Fatalf("%s: %s never held", what, cond)
}

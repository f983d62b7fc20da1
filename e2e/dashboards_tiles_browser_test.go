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

// The tile kinds beyond lines and numbers (issue 46), as a person sees
// them at three screen widths: a heatmap of the spans' durations over
// the last hour, drawn with every span counted; a ratio tile (asRatio)
// drawing errors over all spans as one line, the values the chart API
// divides; an event-patterns tile listing the logs' messages by shape; a
// formula tile drawing the error percentage alone, which the chart API
// computes; pies of the spans by status (wide and narrow) and by trace
// (the smallest folded into Other).
func TestBrowserDashboardHeatmapAndRatio(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "heatmap")
	b.signUp("/", "owner@example.com", "correct horse battery")

	// Two spans a minute over the last 40 minutes: a fast one that
	// succeeds, and one a hundred times slower that fails in every other
	// minute.
	now := time.Now()
	var spans []string
	errors := 0
	for i := 1; i <= 40; i++ {
		at := now.Truncate(time.Minute).Add(-time.Duration(i)*time.Minute + 5*time.Second)
		fast := time.Duration(1+i%5) * time.Millisecond
		slow := time.Duration(100+10*(i%7)) * time.Millisecond
		status := 0
		if i%2 == 0 {
			status, errors = 2, errors+1
		}
		for j, s := range []struct {
			d      time.Duration
			status int
		}{{fast, 0}, {slow, status}} {
			spans = append(spans, fmt.Sprintf(`{"traceId":"%032x","spanId":"%016x","name":"GET /pay","kind":2,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","status":{"code":%d}}`,
				i*10+j, i*10+j+1, at.UnixNano(), at.Add(s.d).UnixNano(), s.status))
		}
	}
	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"pay"}}]},"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/traces", "Authorization", "Bearer "+ingestKey, "application/json", body))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_traces") == "80" }, 30*time.Second, 200*time.Millisecond, "stored")
	// Logs of two shapes: six failed payments, two cache warm-ups.
	var recs []string
	for i := 0; i < 8; i++ {
		msg := fmt.Sprintf("payment %d failed for user=u%d", 1000+i, i)
		if i >= 6 {
			msg = fmt.Sprintf("cache warmed in %dms", 10*i)
		}
		recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":"INFO","body":{"stringValue":%q}}`, now.Add(-time.Duration(i+1)*time.Minute).UnixNano(), msg))
	}
	logs := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"pay"}}]},"scopeLogs":[{"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json", logs))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs") == "8" }, 30*time.Second, 200*time.Millisecond, "stored")

	id := eval[string](b, "a dashboard", `fetch('/api/v2/dashboards', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'Payments', tiles: [
			{name: 'Latency', x: 0, y: 0, w: 12, h: 4, config: {displayType: 'heatmap', sourceId: 'traces', select: [{valueExpression: 'Duration', heatmapScaleType: 'log'}]}},
			{name: 'ErrorRatio', x: 12, y: 0, w: 12, h: 4, config: {displayType: 'line', sourceId: 'traces', asRatio: true, granularity: '1m', select: [
				{aggFn: 'count', where: 'StatusCode:Error', whereLanguage: 'lucene', alias: 'errors'}, {aggFn: 'count', where: '', whereLanguage: 'lucene', alias: 'spans'}]}},
			{name: 'Patterns', x: 0, y: 4, w: 24, h: 3, config: {displayType: 'event_patterns', sourceId: 'logs'}},
			{name: 'ErrorRate', x: 0, y: 7, w: 24, h: 4, config: {displayType: 'line', sourceId: 'traces', granularity: '1m', showOperandSeries: false,
				formulas: [{expression: 'A / B * 100', alias: 'error %'}], select: [
				{aggFn: 'count', where: 'StatusCode:Error', whereLanguage: 'lucene', alias: 'errors'}, {aggFn: 'count', where: '', whereLanguage: 'lucene', alias: 'spans'}]}},
			{name: 'ByStatus', x: 0, y: 11, w: 12, h: 4, config: {displayType: 'pie', sourceId: 'traces', groupBy: 'StatusCode', select: [
				{aggFn: 'count', where: '', whereLanguage: 'lucene', alias: 'spans'}]}},
			{name: 'Narrow', x: 12, y: 11, w: 4, h: 5, config: {displayType: 'pie', sourceId: 'traces', groupBy: 'StatusCode', select: [
				{aggFn: 'count', where: '', whereLanguage: 'lucene', alias: 'spans'}]}},
			{name: 'ByTrace', x: 16, y: 11, w: 8, h: 4, config: {displayType: 'pie', sourceId: 'traces', groupBy: 'TraceId', select: [
				{aggFn: 'count', where: '', whereLanguage: 'lucene', alias: 'spans'}]}}]})})
		.then((r) => r.json()).then((j) => j.data.id)`)
	require.NotEmpty(t, id)

	for _, width := range []int64{1000, 1400, 1920} {
		w := fmt.Sprint(width)
		b.run("a screen of this width", chromedp.EmulateViewport(width, 900), chromedp.Navigate(ui+"/dashboards/"+id+"?range=1h"))
		b.see("the heatmap at "+w, `[data-tile=Latency] [data-testid=heatmap] canvas`)
		// The count under the heatmap (a hovered cell's, should the
		// pointer rest on it) and the one it draws.
		b.run("every span counted at "+w, poll(`document.querySelector('[data-tile=Latency] [data-testid=heatmap]')?.dataset.events === '80'`))
		b.see("the heatmap's caption at "+w, `[data-tile=Latency] .heatmap-hover`)
		assert.Regexp(t, `^80 events|events$`, b.text(`[data-tile=Latency] .heatmap-hover`))
		// Cells are drawn: the canvas holds coloured pixels.
		assert.True(t, eval[bool](b, "coloured cells at "+w, `(() => { const c = document.querySelector('[data-tile=Latency] canvas'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
			for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && d[i + 2] > d[i] + 40) return true; return false; })()`))
		b.see("the ratio line at "+w, `[data-tile=ErrorRatio] .chart .u-over`)
		assert.Contains(t, b.text(`[data-tile=ErrorRatio] .tile-what`), "errors / spans")
		b.see("the ratio's Alert button at "+w, `[data-tile=ErrorRatio] [data-action=alert-tile]`)
		b.see("the patterns at "+w, `[data-tile=Patterns] [data-testid=patterns] tbody tr:nth-child(2)`)
		assert.Equal(t, "payment <*> failed for user=<*>\t6\t75%", b.text(`[data-tile=Patterns] [data-testid=patterns] tbody tr:first-child`))
		assert.Equal(t, "cache warmed in <*>\t2\t25%", b.text(`[data-tile=Patterns] [data-testid=patterns] tbody tr:nth-child(2)`))
		b.screenshot("tiles-" + w)
		// The formula tile draws its formula alone (showOperandSeries
		// false): one line, named by its alias.
		eval[bool](b, "scrolling to the formula tile at "+w, `(document.querySelector('[data-tile=ErrorRate]').scrollIntoView({block: 'center'}), true)`)
		b.see("the formula line at "+w, `[data-tile=ErrorRate] .chart .u-over`)
		assert.Equal(t, "error %", b.text(`[data-tile=ErrorRate] .tile-what`))
		b.see("the formula's Alert button at "+w, `[data-tile=ErrorRate] [data-action=alert-tile]`)
		b.screenshot("formula-" + w)
		// The pie: the spans by status over the range, a slice per status,
		// the legend naming each with its count and share.
		eval[bool](b, "scrolling to the pie at "+w, `(document.querySelector('[data-tile=ByStatus]').scrollIntoView({block: 'center'}), true)`)
		b.see("the pie at "+w, `[data-tile=ByStatus] [data-testid=pie] svg`)
		// A ring slice's middle may be the hole (or another slice): each
		// one is seen whole inside the pie, itself seen on the screen.
		assert.True(t, eval[bool](b, "the slices on the screen at "+w, `(() => { const p = document.querySelector('[data-tile=ByStatus] [data-testid=pie] svg').getBoundingClientRect();
			return [...document.querySelectorAll('[data-tile=ByStatus] [data-testid=pie-slice]')].every((e) => { const r = e.getBoundingClientRect();
				return r.width > 10 && r.height > 10 && r.left >= p.left - 1 && r.right <= p.right + 1 && r.top >= p.top - 1 && r.bottom <= p.bottom + 1; }); })()`))
		b.see("the pie's legend at "+w, `[data-tile=ByStatus] [data-testid=pie-legend] li:nth-child(2)`)
		assert.Equal(t, 2, eval[int](b, "the slices at "+w, `document.querySelectorAll('[data-tile=ByStatus] [data-testid=pie-slice]').length`))
		legend := eval[[]string](b, "the pie's legend at "+w, `[...document.querySelectorAll('[data-tile=ByStatus] [data-testid=pie-legend] li')].map((li) => [...li.children].map((e) => e.textContent).join('|'))`)
		assert.Equal(t, []string{"|unset|60|75%", "|error|20|25%"}, legend)
		assert.Equal(t, "unset: 60 (75%)", eval[string](b, "the larger slice's tooltip at "+w, `document.querySelector('[data-tile=ByStatus] [data-testid=pie-slice] title').textContent`))
		// Nothing in the tile scrolls: the pie and its legend fit it.
		assert.True(t, eval[bool](b, "the pie fits its tile at "+w, `[...document.querySelectorAll('[data-tile=ByStatus] .tile-body, [data-tile=ByStatus] .pie-legend')].every((e) => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1)`))
		// A narrow tile puts the legend under the pie; a pie of 80 traces
		// draws the 9 largest and folds the rest into Other.
		b.see("the narrow pie at "+w, `[data-tile=Narrow] [data-testid=pie] svg`)
		b.see("the narrow pie's legend at "+w, `[data-tile=Narrow] [data-testid=pie-legend] li:nth-child(2)`)
		// A narrow tile's buttons wrap inside it rather than run past its edge.
		b.see("the narrow tile's Remove at "+w, `[data-tile=Narrow] [data-action=remove-tile]`)
		assert.True(t, eval[bool](b, "the narrow tile's buttons inside it at "+w, `[...document.querySelectorAll('[data-tile=Narrow] .tile-tools button')].every((e) =>
			e.getBoundingClientRect().right <= document.querySelector('[data-tile=Narrow]').getBoundingClientRect().right)`))
		assert.True(t, eval[bool](b, "the narrow legend under its pie at "+w, `document.querySelector('[data-tile=Narrow] [data-testid=pie-legend]').getBoundingClientRect().top >= document.querySelector('[data-tile=Narrow] [data-testid=pie] svg').getBoundingClientRect().bottom - 1`))
		b.see("the folded pie at "+w, `[data-tile=ByTrace] [data-testid=pie] svg`)
		b.see("the folded pie's Other at "+w, `[data-tile=ByTrace] [data-testid=pie-legend] li:nth-child(10)`)
		assert.Equal(t, 10, eval[int](b, "the folded slices at "+w, `document.querySelectorAll('[data-tile=ByTrace] [data-testid=pie-slice]').length`))
		assert.Equal(t, "Other|71|89%", eval[string](b, "the Other entry at "+w, `[...document.querySelectorAll('[data-tile=ByTrace] [data-testid=pie-legend] li:nth-child(10) > span:not(.pie-key)')].map((e) => e.textContent).join('|')`))
		assert.Equal(t, "Other (71 groups): 71 (89%)", eval[string](b, "the Other slice's tooltip at "+w, `document.querySelector('[data-tile=ByTrace] [data-testid=pie-slice]:nth-child(10) title').textContent`))
		assert.True(t, eval[bool](b, "the pies fit their tiles at "+w, `[...document.querySelectorAll('[data-tile=Narrow] .tile-body, [data-tile=Narrow] .pie-legend, [data-tile=ByTrace] .tile-body, [data-tile=ByTrace] .pie-legend')].every((e) => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1)`))
		b.screenshot("pie-" + w)
		eval[bool](b, "back to the top at "+w, `(document.querySelector('[data-tile=Latency]').scrollIntoView({block: 'center'}), true)`)
	}

	// An alert on the ratio: the Alerts page says it judges errors over
	// spans, on which tile of which dashboard.
	require.Equal(t, "ok", eval[string](b, "an alert on the ratio", fmt.Sprintf(`(async () => {
		const h = {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'};
		const wh = await (await fetch('/api/v2/webhooks', {method: 'POST', headers: h, body: JSON.stringify({name: 'W', service: 'slack', url: 'https://hooks.slack.com/test'})})).json();
		const d = await (await fetch('/api/v2/dashboards/%s')).json();
		const tile = d.data.tiles.find((t) => t.name === 'ErrorRatio').id;
		const r = await fetch('/api/v2/alerts', {method: 'POST', headers: h, body: JSON.stringify({name: 'error share', source: 'tile', dashboardId: '%s', tileId: tile,
			threshold: 0.5, thresholdType: 'above', interval: '5m', channel: {type: 'webhook', webhookId: wh.data.id}})});
		return r.ok ? 'ok' : await r.text();
	})()`, id, id)))
	b.run("the alerts", chromedp.EmulateViewport(1400, 900), chromedp.Navigate(ui+"/alerts"))
	b.see("what the alert judges", `tr[data-alert="error share"] [data-testid=alert-watched]`)
	assert.Equal(t, "“Payments” › “ErrorRatio”: errors / spans", b.text(`tr[data-alert="error share"] [data-testid=alert-tile]`))
	b.screenshot("alert-on-ratio")
	b.run("back to the dashboard", chromedp.Navigate(ui+"/dashboards/"+id+"?range=1h"))
	// The formula tile in the tile editor: its formula, over A = errors
	// and B = spans, with the items not drawn; its preview draws it.
	b.clickFor("editing the formula tile", `[data-tile=ErrorRate] [data-action=edit-tile]`, `!!document.querySelector('[data-testid=tile-editor]')`)
	b.see("the formula field", `[data-testid=tile-editor] input[name=formula]`)
	assert.Equal(t, "A / B * 100", eval[string](b, "the formula", `document.querySelector('[data-testid=tile-editor] input[name=formula]').value`))
	assert.Contains(t, b.text(`[data-testid=tile-editor] label.wide:has(input[name=formula])`), "A = errors, B = spans")
	assert.False(t, eval[bool](b, "operands not drawn", `document.querySelector('[data-testid=tile-editor] input[name=showOperandSeries]').checked`))
	b.see("the preview's formula line", `[data-testid=tile-preview] .chart .u-over`)
	b.screenshot("formula-editor")
	b.click("cancel", `[data-testid=tile-editor] button[type=button]`)
	b.run("the editor closes", poll(`!document.querySelector('[data-testid=tile-editor]')`))

	// The heatmap edited in the tile editor: its preview is a heatmap,
	// and the tile saved keeps its kind with the scale chosen.
	b.clickFor("editing the heatmap", `[data-tile=Latency] [data-action=edit-tile]`, `!!document.querySelector('[data-testid=tile-editor]')`)
	b.see("the heatmap's value field", `[data-testid=tile-editor] input[name=valueExpression]`)
	b.run("a linear scale", poll(`(() => { const e = document.querySelector('select[name=heatmapScaleType]'); if (!e) return false; e.value = 'linear'; e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	b.run("the preview", waitText(`[data-testid=tile-preview] .heatmap-hover`, "80 events"))
	b.see("the preview's heatmap", `[data-testid=tile-preview] [data-testid=heatmap] canvas`)
	b.screenshot("heatmap-editor")
	b.click("saving it", `[data-action=save-tile]`)
	b.run("the editor closes", poll(`!document.querySelector('[data-testid=tile-editor]')`))
	saved := eval[map[string]any](b, "the stored tile", fmt.Sprintf(`fetch('/api/v2/dashboards/%s').then((r) => r.json()).then((j) => j.data.tiles.find((t) => t.name === 'Latency').config)`, id))
	assert.Equal(t, map[string]any{
		"displayType": "heatmap", "sourceId": "traces", "select": []any{map[string]any{"valueExpression": "Duration", "heatmapScaleType": "linear"}},
		"where": "", "whereLanguage": "lucene",
	}, saved)
	b.run("still drawn", waitText(`[data-tile=Latency] .heatmap-hover`, "80 events"))

	// The ratio tile draws what the chart API divides: errors over all
	// spans per minute, a half in the minutes with a failure, else none.
	ratios := eval[[]float64](b, "the ratio answer", fmt.Sprintf(`fetch('/api/v2/charts/series', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({startTime: %d, endTime: %d, granularity: '1m', seriesReturnType: 'ratio', series: [
			{sourceId: 'traces', aggFn: 'count', where: 'StatusCode:Error', whereLanguage: 'lucene'}, {sourceId: 'traces', aggFn: 'count', where: '', whereLanguage: 'lucene'}]})})
		.then((r) => r.json()).then((j) => j.data.map((row) => row['series_0.data']).filter((v) => v !== undefined))`, now.Add(-time.Hour).UnixMilli(), now.UnixMilli()))
	half := 0
	for _, r := range ratios {
		if r == 0.5 {
			half++
		}
	}
	assert.Equal(t, errors, half, "a half in each minute with a failure: %v", ratios)

	// The formula tile's line is what the chart API computes: 50 (%) in
	// each minute with a failure, 0 in the others.
	rates := eval[[]float64](b, "the formula answer", fmt.Sprintf(`fetch('/api/v2/charts/series', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({startTime: %d, endTime: %d, granularity: '1m', formulas: [{expression: 'A / B * 100'}], series: [
			{sourceId: 'traces', aggFn: 'count', where: 'StatusCode:Error', whereLanguage: 'lucene'}, {sourceId: 'traces', aggFn: 'count', where: '', whereLanguage: 'lucene'}]})})
		.then((r) => r.json()).then((j) => j.data.map((row) => row['series_2.data']).filter((v) => v !== undefined))`, now.Add(-time.Hour).UnixMilli(), now.UnixMilli()))
	fifty := 0
	for _, r := range rates {
		if r == 50 {
			fifty++
		}
	}
	assert.Equal(t, errors, fifty, "50 in each minute with a failure: %v", rates)
}

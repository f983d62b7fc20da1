package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a first-time user met on a walk through the UI, as they see it at
// three screen widths: an empty tile says it holds no data (a failed one
// its error, a count of nothing its 0); a ratio tile's legend names the ratio; the heatmap writes
// times as the other charts do; a legend of many series fits its tile
// without a scrollbar; a formula over seven select items is drawn; a
// search that fails shows its error and no empty histogram; a failed
// monitor import replaces the last import's report with its failure.
func TestBrowserFirstUseWalk(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "firstuse")
	b.signUp("/", "owner@example.com", "correct horse battery")

	// A span a minute of eight routes, every third one failing.
	now := time.Now()
	var spans []string
	for i := 1; i <= 40; i++ {
		at := now.Truncate(time.Minute).Add(-time.Duration(i)*time.Minute + 5*time.Second)
		status := 0
		if i%3 == 0 {
			status = 2
		}
		spans = append(spans, fmt.Sprintf(`{"traceId":"%032x","spanId":"%016x","name":"GET /api/v1/catalogue/items/by-category/%d/summary","kind":2,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","status":{"code":%d}}`,
			i, i, i%8, at.UnixNano(), at.Add(time.Duration(1+i%7)*time.Millisecond).UnixNano(), status))
	}
	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/traces", "Authorization", "Bearer "+ingestKey, "application/json", body))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_traces") == "40" }, 30*time.Second, 200*time.Millisecond, "stored")

	var seven []string
	for range 7 {
		seven = append(seven, `{aggFn: 'count', where: '', whereLanguage: 'lucene'}`)
	}
	id := eval[string](b, "a dashboard", `fetch('/api/v2/dashboards', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'Walk', tiles: [
			{name: 'Nothing', x: 0, y: 0, w: 8, h: 3, config: {displayType: 'line', sourceId: 'traces', select: [{aggFn: 'count', where: 'ServiceName:nowhere', whereLanguage: 'lucene'}]}},
			{name: 'NoAverage', x: 8, y: 0, w: 8, h: 3, config: {displayType: 'number', sourceId: 'traces', select: [{aggFn: 'avg', valueExpression: 'Duration', where: 'ServiceName:nowhere', whereLanguage: 'lucene'}]}},
			{name: 'Broken', x: 16, y: 0, w: 8, h: 3, config: {displayType: 'table', sourceId: 'traces', select: [{aggFn: 'count', where: 'Duration >', whereLanguage: 'sql'}]}},
			{name: 'Ratio', x: 0, y: 3, w: 8, h: 4, config: {displayType: 'line', sourceId: 'traces', asRatio: true, granularity: '1m', select: [
				{aggFn: 'count', where: 'StatusCode:Error', whereLanguage: 'lucene', alias: 'errors'}, {aggFn: 'count', where: '', whereLanguage: 'lucene', alias: 'spans'}]}},
			{name: 'Routes', x: 8, y: 3, w: 8, h: 5, config: {displayType: 'line', sourceId: 'traces', granularity: '5m', groupBy: 'SpanName', select: [{aggFn: 'count', where: '', whereLanguage: 'lucene'}]}},
			{name: 'Latency', x: 16, y: 3, w: 8, h: 4, config: {displayType: 'heatmap', sourceId: 'traces', select: [{valueExpression: 'Duration', heatmapScaleType: 'log'}]}},
			{name: 'Seven', x: 0, y: 8, w: 24, h: 4, config: {displayType: 'line', sourceId: 'traces', granularity: '5m', showOperandSeries: false,
				formulas: [{expression: 'A + G', alias: 'first and seventh'}], select: [`+strings.Join(seven, ",")+`]}},
			{name: 'NoCount', x: 0, y: 12, w: 8, h: 2, config: {displayType: 'number', sourceId: 'traces', select: [{aggFn: 'count', where: 'ServiceName:nowhere', whereLanguage: 'lucene'}]}},
			{name: 'Short', x: 8, y: 12, w: 4, h: 1, config: {displayType: 'number', sourceId: 'traces', select: [{aggFn: 'count', where: '', whereLanguage: 'lucene'}]}}]})})
		.then((r) => r.json()).then((j) => j.data.id)`)
	require.NotEmpty(t, id)

	for _, width := range []int64{1000, 1400, 1920} {
		w := fmt.Sprint(width)
		b.run("a screen of "+w, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ui+"/dashboards/"+id+"?range=1h"))
		// Empty tiles say so; a failed one shows its error instead.
		b.see("the empty line tile at "+w, `[data-tile=Nothing] [data-testid=tile-empty]`)
		assert.Equal(t, "No data in this range", b.text(`[data-tile=Nothing] [data-testid=tile-empty]`))
		b.see("the empty number tile at "+w, `[data-tile=NoAverage] [data-testid=tile-empty]`)
		b.see("the failed tile's error at "+w, `[data-tile=Broken] [data-testid=tile-error]`)
		assert.Zero(t, eval[int](b, "no empty note on the failed tile", `document.querySelectorAll('[data-tile=Broken] [data-testid=tile-empty]').length`))
		// The ratio's legend names the ratio.
		b.see("the ratio's legend at "+w, `[data-tile=Ratio] .u-legend .u-series:nth-child(2) .u-label`)
		assert.Equal(t, "errors / spans", b.text(`[data-tile=Ratio] .u-legend .u-series:nth-child(2) .u-label`))
		// Eight routes' legend: inside the tile, no scrollbar, every
		// route's row seen, the plot beside it of a readable height.
		b.see("the routes' legend at "+w, `[data-tile=Routes] .u-legend`)
		b.run("eight routes at "+w, poll(`document.querySelectorAll('[data-tile=Routes] .u-legend .u-series').length === 9`))
		assert.Empty(t, eval[string](b, "the legend fits at "+w, `(() => {
			const tile = document.querySelector('[data-tile=Routes]'), body = tile.querySelector('.tile-body');
			if (body.scrollHeight > body.clientHeight + 1) return 'the tile scrolls: ' + body.scrollHeight + ' > ' + body.clientHeight;
			const bottom = body.getBoundingClientRect().bottom;
			for (const r of tile.querySelectorAll('.u-legend .u-series')) if (r.getBoundingClientRect().bottom > bottom + 1) return 'a legend row is cut: ' + r.innerText;
			const plot = tile.querySelector('.u-over').getBoundingClientRect().height;
			return plot >= 60 ? '' : 'the plot is ' + plot + ' px high';
		})()`))
		b.see("the last route at "+w, `[data-tile=Routes] .u-legend .u-series:last-child`)
		// The heatmap's time, as uPlot writes the other charts' (2:15pm).
		b.see("the heatmap at "+w, `[data-tile=Latency] canvas`)
		b.run("its events at "+w, poll(`document.querySelector('[data-tile=Latency] [data-testid=heatmap]')?.dataset.events === '40'`))
		xy := eval[[]float64](b, "a cell", `(() => { const r = document.querySelector('[data-tile=Latency] canvas').getBoundingClientRect(); return [r.right - 30, r.top + r.height / 2]; })()`)
		b.run("hovering the heatmap at "+w, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[1]))
		b.see("the hovered cell at "+w, `[data-tile=Latency] .heatmap-hover`)
		assert.Regexp(t, `^\d{1,2}:\d\d(am|pm) · `, b.text(`[data-tile=Latency] .heatmap-hover`))
		b.screenshot("tiles-" + w)
		// The formula over seven items is drawn, named by its alias.
		eval[bool](b, "scrolling to the formula at "+w, `(document.querySelector('[data-tile=Seven]').scrollIntoView({block: 'center'}), true)`)
		b.see("the formula's line at "+w, `[data-tile=Seven] .chart .u-over`)
		assert.Equal(t, "first and seventh", b.text(`[data-tile=Seven] .u-legend .u-series:nth-child(2) .u-label`))
		assert.Zero(t, eval[int](b, "no error on the formula", `document.querySelectorAll('[data-tile=Seven] [data-testid=tile-error]').length`))
		b.screenshot("formula-" + w)
		// A count of nothing is a number: 0.
		eval[bool](b, "scrolling to the count at "+w, `(document.querySelector('[data-tile=NoCount]').scrollIntoView({block: 'center'}), true)`)
		b.see("the count of nothing at "+w, `[data-tile=NoCount] [data-testid=number]`)
		assert.Equal(t, "0", b.text(`[data-tile=NoCount] [data-testid=number]`))
		// A tile one row high (as Datadog imports make them) shows its
		// title and value, its buttons over its corner once pointed at,
		// rather than buttons cut off pushing the value out of sight.
		b.run("the pointer away at "+w, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1))
		b.see("the short tile's title at "+w, `[data-tile=Short] .tile-title`)
		b.see("the short tile's value at "+w, `[data-tile=Short] [data-testid=number]`)
		assert.Equal(t, "40", b.text(`[data-tile=Short] [data-testid=number]`))
		assert.Equal(t, "hidden", eval[string](b, "its buttons wait at "+w, `getComputedStyle(document.querySelector('[data-tile=Short] .tile-tools')).visibility`))
		xy = eval[[]float64](b, "the short tile", `(() => { const r = document.querySelector('[data-tile=Short]').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
		b.run("pointing at the short tile at "+w, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[1]))
		for _, action := range []string{"alert-tile", "edit-tile", "remove-tile"} {
			b.see("its "+action+" button at "+w, `[data-tile=Short] [data-action=`+action+`]`)
		}
		b.screenshot("short-tile-" + w)

		// A search whose where does not parse: its error, no histogram.
		b.run("a failing search at "+w, chromedp.Navigate(ui+"/search/traces?q="+strings.ReplaceAll("(unbalanced", "(", "%28")))
		b.see("the search's error at "+w, `[data-testid=search-error]`)
		b.run("no histogram at "+w, poll(`!document.querySelector('[data-testid=histogram]')`))
		b.screenshot("failed-search-" + w)
	}

	// A monitor imported, then a file Datadog would not export: the
	// first import's report goes, the failure takes its place.
	eval[bool](b, "a webhook", `fetch('/api/v2/webhooks', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'On call', service: 'generic', url: 'https://hooks.invalid/on-call'})}).then((r) => r.ok)`)
	monitor, err := filepath.Abs("../internal/domain/importers/datadog/testdata/integrations-core/redisdb_monitor_high_mem.json")
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "monitor.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name": "no query", "type": "metric alert"}`), 0o600))
	for _, width := range []int64{1000, 1400, 1920} {
		w := fmt.Sprint(width)
		b.run("the alerts at "+w, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ui+"/alerts"), waitText(`select[name=import-webhook]`, "On call"))
		eval[bool](b, "scrolling to the import", `(document.querySelector('[data-action=import-monitor]').scrollIntoView({block: 'center'}), true)`)
		b.run("a monitor at "+w, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=import-file-monitor]`), []string{monitor}))
		b.run("its report at "+w, waitText(`[data-testid=import-report]`, "Imported alert"))
		b.see("its report at "+w, `[data-testid=import-report]`)
		b.run("a bad monitor at "+w, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=import-file-monitor]`), []string{bad}))
		b.run("the failure at "+w, waitText(`[data-testid=import-error]`, "not imported"))
		b.see("the failure at "+w, `[data-testid=import-error]`)
		assert.Zero(t, eval[int](b, "no report left at "+w, `document.querySelectorAll('[data-testid=import-report]').length`))
		b.screenshot("import-failed-" + w)
	}
}

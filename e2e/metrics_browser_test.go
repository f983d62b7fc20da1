package e2e

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The metrics explorer (issue 43): an Agent metric sent through the
// Datadog receiver is found by name, grouped by host (two lines), and
// added to a new dashboard whose tile draws the same lines; what a person
// needs is inside the viewport at 1000, 1400 and 1920 px.
func TestBrowserMetricsExplorer(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	b := newBrowser(t, ui, "metrics")
	b.signUp("/", "owner@example.com", "correct horse battery")

	now := time.Now().Unix()
	var series []string
	for _, h := range []struct {
		host string
		base float64
	}{{"web-1", 10}, {"web-2", 40}} {
		var pts []string
		for i := 5; i >= 1; i-- {
			pts = append(pts, fmt.Sprintf(`{"timestamp":%d,"value":%g}`, now-int64(i*60), h.base+float64(i)))
		}
		series = append(series, fmt.Sprintf(`{"metric":"system.cpu.user","type":3,"unit":"percent","points":[%s],"resources":[{"type":"host","name":%q}],"tags":["env:prod"]}`,
			strings.Join(pts, ","), h.host))
	}
	body := `{"series":[` + strings.Join(series, ",") + `,{"metric":"system.mem.used","type":3,"points":[{"timestamp":` + fmt.Sprint(now-60) + `,"value":1}],"resources":[{"type":"host","name":"web-1"}]}]}`
	require.Equal(t, http.StatusAccepted, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/api/v2/series", c.datadog), "DD-API-KEY", ingestKey, "application/json", body))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_metrics_gauge WHERE MetricName = 'system.cpu.user'") == "10"
	}, 30*time.Second, 200*time.Millisecond, "the Agent's points are stored")

	// Find it.
	b.run("the metrics page", chromedp.Navigate(ui+"/"), chromedp.WaitVisible(chromedp.CSS(`nav.nav`)))
	b.click("the nav link", `nav a[href="/metrics"]`)
	b.see("the filter box", `input[name=metric-filter]`)
	b.see("system.mem.used in the list", `[data-metric="system.mem.used"]`)
	b.run("filtering", fill(`input[name=metric-filter]`, "CPU.us"))
	b.run("only the CPU metric left", poll(`!document.querySelector('[data-metric="system.mem.used"]') && !!document.querySelector('[data-metric="system.cpu.user"]')`))
	row := b.text(`[data-metric="system.cpu.user"]`)
	assert.Contains(t, row, "gauge")
	b.click("picking it", `[data-metric="system.cpu.user"] td.name`)
	b.run("its query", waitText(`[data-testid=metric-query]`, "avg:system.cpu.user{*}"))
	b.see("its chart", `[data-testid=metric-chart] .u-over`)

	// Group it by host, the key offered by the autocomplete.
	b.run("host offered", poll(`!!document.querySelector('#by-options option[value="host"]')`))
	b.run("typing host", fill(`input[name=by]`, "host"))
	b.click("grouping", `[data-testid=by-form] button[type=submit]`)
	b.run("the query groups", waitText(`[data-testid=metric-query]`, "avg:system.cpu.user{*} by {host}"))
	legend := `[data-testid=metric-chart] .u-legend`
	b.run("two hosts in the legend", poll(`(() => { const l = document.querySelector('[data-testid=metric-chart] .u-legend'); return !!l && l.innerText.includes('web-1') && l.innerText.includes('web-2'); })()`))
	b.see("the legend", legend)

	// A filter with the value autocomplete.
	b.run("typing a filter key", fill(`input[name=filter]`, "host:"))
	b.run("values offered", poll(`!!document.querySelector('#filter-options option[value="host:web-2"]')`))
	b.click("adding a filter without its value", `[data-testid=filter-form] button[type=submit]`)
	b.see("why it was not added", `[data-testid=filter-error]`)
	b.run("typing a filter", fill(`input[name=filter]`, "host:web-2"))
	b.click("filtering", `[data-testid=filter-form] button[type=submit]`)
	b.run("the query filters", waitText(`[data-testid=metric-query]`, "avg:system.cpu.user{host:web-2} by {host}"))
	b.run("one host left", poll(`(() => { const l = document.querySelector('[data-testid=metric-chart] .u-legend'); return !!l && !l.innerText.includes('web-1') && l.innerText.includes('web-2'); })()`))
	b.click("removing the filter", `[data-filter="host:web-2"] button`)
	b.run("both hosts again", poll(`(() => { const l = document.querySelector('[data-testid=metric-chart] .u-legend'); return !!l && l.innerText.includes('web-1') && l.innerText.includes('web-2'); })()`))
	b.run("the aggregation", chromedp.SetValue(chromedp.CSS(`select[name=agg]`), "max"))
	b.run("max picked", poll(`(() => { const s = document.querySelector('select[name=agg]'); s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	b.run("the query takes max", waitText(`[data-testid=metric-query]`, "max:system.cpu.user{*} by {host}"))
	// Per host over the range: web-1 read 15 … 11, web-2 45 … 41.
	b.run("the summary's values", waitText(`[data-testid=metric-summary] [data-series="web-2"]`, "45%"))
	assert.Contains(t, b.text(`[data-testid=metric-summary] [data-series="web-1"]`), "15%")
	b.see("web-2's values", `[data-testid=metric-summary] [data-series="web-2"]`)

	for _, width := range []int64{1000, 1920, 1400} {
		b.run("a screen of this width", chromedp.EmulateViewport(width, 900))
		b.see(fmt.Sprint("the list at ", width), `[data-metric="system.cpu.user"]`)
		b.see(fmt.Sprint("the aggregation at ", width), `select[name=agg]`)
		b.see(fmt.Sprint("group by at ", width), `input[name=by]`)
		b.see(fmt.Sprint("the chart at ", width), `[data-testid=metric-chart] .u-over`)
		b.see(fmt.Sprint("the legend at ", width), legend)
		b.see(fmt.Sprint("the values at ", width), `[data-testid=metric-summary] [data-series="web-1"]`)
		b.see(fmt.Sprint("add to dashboard at ", width), `[data-testid=add-to-dashboard] button[type=submit]`)
		b.click(fmt.Sprint("the time picker at ", width), `.metrics-list .timepicker > button`)
		b.see(fmt.Sprint("its presets at ", width), `[data-testid=time-popover]`)
		b.screenshot(fmt.Sprint("explorer-", width))
		b.run("closing it", chromedp.KeyEvent(kb.Escape), poll(`!document.querySelector('[data-testid=time-popover]')`))
	}

	// Add it to a new dashboard and open it.
	b.run("naming the dashboard", fill(`input[name=new-dashboard]`, "Hosts CPU"))
	b.click("adding", `[data-testid=add-to-dashboard] button[type=submit]`)
	b.see("the link to it", `[data-testid=added] a`)
	b.click("opening it", `[data-testid=added] a`)
	b.run("the dashboard", waitText(`h1`, "Hosts CPU"))
	tile := `[data-tile="system.cpu.user"]`
	b.see("the tile", tile)
	b.run("the tile's two hosts", poll(`(() => { const l = document.querySelector('[data-tile="system.cpu.user"] .u-legend'); return !!l && l.innerText.includes('web-1') && l.innerText.includes('web-2'); })()`))
	b.see("the tile's legend", tile+` .u-legend`)
	assert.Contains(t, b.text(tile), "max:system.cpu.user{*} by {host}")
	assert.Equal(t, 0, eval[int](b, "failing tiles", `document.querySelectorAll('[data-testid=tile-error]').length`))
	b.screenshot("dashboard")

	// The tile's query is edited in the tile editor (a metric source's
	// tile takes a Datadog metric query in place of the aggregation).
	b.click("editing the tile", tile+` [data-action=edit-tile]`)
	b.see("its query", `[data-testid=tile-editor] input[name=query]`)
	assert.Equal(t, "max:system.cpu.user{*} by {host}", eval[string](b, "the query", `document.querySelector('[data-testid=tile-editor] input[name=query]').value`))
	assert.Equal(t, 0, eval[int](b, "no aggregation beside a query", `document.querySelectorAll('[data-testid=tile-editor] select[name=aggFn]').length`))
	b.run("a new query", fill(`[data-testid=tile-editor] input[name=query]`, "avg:system.cpu.user{host:web-1}"))
	b.run("its preview", poll(`(() => { const l = document.querySelector('[data-testid=tile-preview] .u-legend'); return !!l && !l.innerText.includes('web-2'); })()`))
	b.click("saving it", `[data-action=save-tile]`)
	b.run("the editor closes", poll(`!document.querySelector('[data-testid=tile-editor]')`))
	b.run("the tile's new query", waitText(tile, "avg:system.cpu.user{host:web-1}"))

	// A HyperDX metric item on a gauge (metricName, metricType) offers its
	// change over each bucket (periodAggFn delta), and the choice is saved.
	gauge := eval[string](b, "a dashboard of a gauge item", `fetch('/api/v2/dashboards', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({name: 'CPU change', tiles: [{name: 'CPU', x: 0, y: 0, w: 12, h: 4, config: {displayType: 'line', sourceId: 'metrics',
			select: [{aggFn: 'sum', metricName: 'system.cpu.user', metricType: 'gauge', where: '', whereLanguage: 'lucene'}]}}]})})
		.then((r) => r.json()).then((j) => j.data.id)`)
	require.NotEmpty(t, gauge)
	b.run("the gauge dashboard", chromedp.Navigate(ui+"/dashboards/"+gauge), waitText(`h1`, "CPU change"))
	b.click("editing the gauge tile", `[data-tile="CPU"] [data-action=edit-tile]`)
	delta := `[data-testid=tile-editor] input[name=periodAggFn]`
	b.see("the delta choice", delta)
	assert.Contains(t, b.text(`[data-testid=tile-editor] label:has(input[name=periodAggFn])`), "Change of system.cpu.user over each bucket")
	b.click("choosing the delta", delta)
	b.see("its preview", `[data-testid=tile-preview] .u-over`)
	b.click("saving it", `[data-action=save-tile]`)
	b.run("the editor closes", poll(`!document.querySelector('[data-testid=tile-editor]')`))
	assert.Equal(t, "delta", eval[string](b, "the stored choice", `fetch('/api/v2/dashboards/`+gauge+`', {headers: {'X-Otelhouse-Request': '1'}})
		.then((r) => r.json()).then((j) => j.data.tiles[0].config.select[0].periodAggFn || '')`))
	assert.Equal(t, 0, eval[int](b, "failing tiles", `document.querySelectorAll('[data-testid=tile-error]').length`))

	// An OTLP histogram: its percentiles, from its buckets (2 values ≤ 10
	// ms, 6 ≤ 50, 1 ≤ 100, 1 above).
	hist := fmt.Sprintf(`{"resourceMetrics":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},"scopeMetrics":[{"metrics":[`+
		`{"name":"http.server.duration","unit":"ms","description":"Duration of HTTP server requests","histogram":{"aggregationTemporality":1,"dataPoints":[`+
		`{"startTimeUnixNano":"%d","timeUnixNano":"%d","count":"10","sum":300,"bucketCounts":["2","6","1","1"],"explicitBounds":[10,50,100]}]}}]}]}]}`,
		(now-180)*1e9, (now-120)*1e9)
	require.Equal(t, http.StatusOK, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/v1/metrics", c.otlpHTTP), "Authorization", "Bearer "+ingestKey, "application/json", hist))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_metrics_histogram WHERE MetricName = 'http.server.duration'") == "1"
	}, 30*time.Second, 200*time.Millisecond, "the histogram is stored")
	b.run("the explorer", chromedp.Navigate(ui+"/metrics"), chromedp.WaitVisible(chromedp.CSS(`input[name=metric-filter]`)))
	b.run("filtering", fill(`input[name=metric-filter]`, "duration"))
	b.click("picking the histogram", `[data-metric="http.server.duration"] td.name`)
	b.run("its average", waitText(`[data-testid=metric-summary] [data-series=value]`, "30 ms"))
	b.run("p95 offered", poll(`[...document.querySelectorAll('select[name=agg] option')].some((o) => o.value === 'p95')`))
	b.run("p95", chromedp.SetValue(chromedp.CSS(`select[name=agg]`), "p95"), poll(`(() => { document.querySelector('select[name=agg]').dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	b.run("the p95 query", waitText(`[data-testid=metric-query]`, "p95:http.server.duration{*}"))
	b.run("its p95", waitText(`[data-testid=metric-summary] [data-series=value]`, "100 ms"))
	b.see("the p95 value", `[data-testid=metric-summary] [data-series=value]`)
	b.screenshot("histogram-p95")

	// Onto the existing dashboard, under its tile.
	b.run("the existing dashboard picked", poll(`(() => { const s = document.querySelector('select[name=dashboard]');
		const o = s && [...s.options].find((o) => o.textContent === 'Hosts CPU'); if (!o) return false;
		s.value = o.value; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`))
	b.click("adding to it", `[data-testid=add-to-dashboard] button[type=submit]`)
	b.see("the link to it", `[data-testid=added] a`)
	b.click("opening it", `[data-testid=added] a`)
	b.run("the dashboard", waitText(`h1`, "Hosts CPU"))
	b.run("two tiles", poll(`document.querySelectorAll('.tile').length === 2`))
	b.run("the p95 tile", waitText(`[data-tile="http.server.duration"]`, "p95:http.server.duration{*}"))
	b.see("the p95 tile", `[data-tile="http.server.duration"]`)
	assert.Equal(t, 0, eval[int](b, "failing tiles", `document.querySelectorAll('[data-testid=tile-error]').length`))

	// An Agent distribution (a sketch, stored as an exponential
	// histogram): its p50 per host from the sketch's bins.
	sp := gogen.SketchPayload{}
	for _, h := range []struct {
		host  string
		scale float64
	}{{"web-1", 1}, {"web-2", 10}} {
		var vs []float64
		for i := 1; i <= 100; i++ {
			vs = append(vs, float64(i)*h.scale)
		}
		sp.Sketches = append(sp.Sketches, gogen.SketchPayload_Sketch{
			Metric: "request.latency", Host: h.host, Tags: []string{"env:prod"},
			Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{agentSketch(now-120, vs)},
		})
	}
	raw, err := sp.Marshal()
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/api/beta/sketches", c.datadog), "DD-API-KEY", ingestKey, "application/x-protobuf", string(raw)))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_metrics_exponential_histogram WHERE MetricName = 'request.latency'") == "2"
	}, 30*time.Second, 200*time.Millisecond, "the sketches are stored")
	b.run("the explorer on it", chromedp.Navigate(ui+"/metrics?metric=request.latency&agg=p50&by=host&q=latency"),
		chromedp.WaitVisible(chromedp.CSS(`[data-metric="request.latency"]`)))
	assert.Contains(t, b.text(`[data-metric="request.latency"]`), "exponential histogram")
	b.run("the p50 query", waitText(`[data-testid=metric-query]`, "p50:request.latency{*} by {host}"))
	for host, want := range map[string]float64{"web-1": 50, "web-2": 500} {
		sel := fmt.Sprintf(`[data-testid=metric-summary] [data-series=%q] td:nth-child(5)`, host)
		b.see(host+"'s p50", sel)
		got, err := strconv.ParseFloat(strings.ReplaceAll(b.text(sel), ",", ""), 64)
		require.NoError(t, err, host)
		assert.InEpsilon(t, want, got, 0.03, "%s's p50 within the sketch's accuracy", host)
	}
	b.screenshot("sketch-p50")
}

// agentSketch is what an Agent sends for values: a DDSketch of relative
// accuracy 1/128 (bin k holds values near γ^(k-bias), γ = 1 + 2/128).
func agentSketch(ts int64, values []float64) gogen.SketchPayload_Sketch_Dogsketch {
	gammaLn := math.Log1p(2.0 / 128)
	bias := 1 - int32(math.Floor(math.Log(1e-9)/gammaLn))
	counts := map[int32]uint32{}
	d := gogen.SketchPayload_Sketch_Dogsketch{Ts: ts, Cnt: int64(len(values)), Min: math.Inf(1), Max: math.Inf(-1)}
	for _, v := range values {
		counts[int32(math.RoundToEven(math.Log(v)/gammaLn))+bias]++
		d.Sum += v
		d.Min, d.Max = min(d.Min, v), max(d.Max, v)
	}
	d.Avg = d.Sum / float64(len(values))
	keys := make([]int32, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		d.K, d.N = append(d.K, k), append(d.N, counts[k])
	}
	return d
}

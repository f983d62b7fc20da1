package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replays the cases of HyperDX's dashboards.int.test.ts (see
// TestHyperDXDashboards) about the tile kinds beyond the first ones:
// heatmap tiles and the tiles that divide two series (asRatio), beside
// a metric select item. Its
// beforeEach's trace and metric sources are source documents of the
// case's team.
func TestHyperDXDashboardTiles(t *testing.T) {
	const base = "/api/v2/dashboards"
	sources := dashboardSources
	heatmapTile := func(name string, cfg map[string]any) map[string]any {
		return map[string]any{"name": name, "x": 0, "y": 0, "w": 6, "h": 3, "config": cfg}
	}
	// The it.each of heatmap tiles its schema refuses; a config's ids are
	// made once the case's sources exist.
	rejected := []struct {
		label  string
		config func(trace string) map[string]any
	}{
		{"raw SQL heatmap tile (heatmap is builder-only)", func(trace string) map[string]any {
			return map[string]any{"configType": "sql", "displayType": "heatmap", "connectionId": newID(), "sqlTemplate": "SELECT 1 FROM otel_logs WHERE {timeFilter}", "sourceId": trace}
		}},
		{"heatmap tile with empty valueExpression", func(trace string) map[string]any {
			return map[string]any{"displayType": "heatmap", "sourceId": trace, "select": []any{map[string]any{"valueExpression": ""}}}
		}},
		{"heatmap tile with multiple select items", func(trace string) map[string]any {
			return map[string]any{"displayType": "heatmap", "sourceId": trace, "select": []any{map[string]any{"valueExpression": "Duration"}, map[string]any{"valueExpression": "OtherValue"}}}
		}},
	}
	var cases []hxCase
	for _, r := range rejected {
		cases = append(cases, hxCase{"rejects " + r.label, func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(400, "POST", base, map[string]any{"name": "Dashboard with rejected heatmap", "tiles": []any{heatmapTile("Heatmap", r.config(trace))}, "tags": []any{}})
		}})
	}
	cases = append(cases,
		hxCase{"rejects heatmap tile with a non-Trace source (UI restricts to trace)", func(c *contractFixture) {
			_, metric := sources(c)
			r := c.expect(400, "POST", base, map[string]any{
				"name":  "Dashboard with Heatmap on Metric Source",
				"tiles": []any{heatmapTile("Heatmap Metric Source", map[string]any{"displayType": "heatmap", "sourceId": metric, "select": []any{map[string]any{"valueExpression": "Duration"}}})},
				"tags":  []any{},
			})
			assert.Contains(t, r.body["message"], "Heatmap tiles require a Trace source")
		}},
		hxCase{"round-trips a heatmap tile with only required fields", func(c *contractFixture) {
			trace, _ := sources(c)
			minimal := heatmapTile("Minimal Heatmap", map[string]any{"displayType": "heatmap", "sourceId": trace, "select": []any{map[string]any{"valueExpression": "Duration"}}})
			r := c.expect(200, "POST", base, map[string]any{"name": "Dashboard with Minimal Heatmap", "tiles": []any{minimal}, "tags": []any{}})
			tile := r.data()["tiles"].([]any)[0].(map[string]any)
			delete(tile, "id")
			assert.Equal(t, map[string]any{"name": "Minimal Heatmap", "x": 0.0, "y": 0.0, "w": 6.0, "h": 3.0, "config": map[string]any{
				"displayType": "heatmap", "sourceId": trace, "select": []any{map[string]any{"valueExpression": "Duration"}},
				"where": "", "whereLanguage": "lucene",
			}}, tile)
		}},
		hxCase{"persists where as empty string when omitted from heatmap tile", func(c *contractFixture) {
			trace, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{
				"name":  "Dashboard Heatmap No Where",
				"tiles": []any{heatmapTile("Heatmap Without Where", map[string]any{"displayType": "heatmap", "sourceId": trace, "select": []any{map[string]any{"valueExpression": "Duration"}}})},
				"tags":  []any{},
			})
			stored := c.stored(kindDashboard, r.data()["id"].(string))
			cfg := stored["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any)
			assert.Contains(t, cfg, "where")
			assert.Empty(t, cfg["where"])
		}},
		hxCase{"does not silently downgrade a corrupted heatmap to line on GET", func(c *contractFixture) {
			trace, _ := sources(c)
			// A heatmap whose select item has an empty valueExpression,
			// which a write refuses: stored straight, as legacy data.
			id := c.put("", kindDashboard, map[string]any{"name": "Dashboard with corrupted heatmap", "tiles": []any{map[string]any{
				"id": newID(), "name": "Bad Heatmap", "x": 0, "y": 0, "w": 6, "h": 3,
				"config": map[string]any{"displayType": "heatmap", "sourceId": trace, "select": []any{map[string]any{"valueExpression": ""}}, "where": "", "whereLanguage": "lucene"},
			}}})
			r := c.expect(200, "GET", base+"/"+id, nil)
			tiles := r.data()["tiles"].([]any)
			require.Len(t, tiles, 1)
			cfg := tiles[0].(map[string]any)["config"].(map[string]any)
			assert.Equal(t, "heatmap", cfg["displayType"])
			assert.NotEqual(t, "line", cfg["displayType"])
		}},
	)
	// The old format's tiles of every chart type, every field set: a line
	// tile divides its two series (asRatio), a bar tile charts a metric by
	// name.
	allChartTypes := func(trace, metric string, ids bool) []any {
		prod := "env = 'production'"
		tile := func(name string, x, y int, asRatio bool, series ...any) map[string]any {
			m := map[string]any{"name": name, "x": x, "y": y, "w": 6, "h": 3, "asRatio": asRatio, "series": series}
			if ids {
				m["id"] = newID()
			}
			return m
		}
		timeFmt := map[string]any{"output": "time", "factor": 0.001, "unit": "ms"}
		pctFmt := map[string]any{"output": "percent", "mantissa": 2, "thousandSeparated": true, "average": true}
		line := func(level float64, alias, where, lang string) map[string]any {
			return map[string]any{
				"type": "time", "sourceId": trace, "aggFn": "quantile", "level": level, "field": "Duration", "alias": alias,
				"where": where, "whereLanguage": lang, "groupBy": []any{"service.name", "StatusCode"}, "numberFormat": timeFmt, "displayType": "line",
			}
		}
		table := func(level float64, alias string) map[string]any {
			return map[string]any{
				"type": "table", "sourceId": trace, "aggFn": "quantile", "level": level, "field": "Duration", "alias": alias,
				"where": prod, "whereLanguage": "sql", "groupBy": []any{"service.name"}, "sortOrder": "desc", "numberFormat": pctFmt,
			}
		}
		return []any{
			tile("Line Chart", 0, 0, true, line(0.95, "95th Percentile Duration", prod, "sql"), line(0.99, "99th Percentile Duration", "env:production", "lucene")),
			tile("Bar Chart", 6, 0, false, map[string]any{
				"type": "time", "sourceId": metric, "aggFn": "quantile", "level": 0.95, "field": "",
				"metricName": "ClickHouseAsyncMetrics_BlockWriteBytes_ram1", "metricDataType": "gauge", "alias": "95th Percentile Duration",
				"where": prod, "whereLanguage": "sql", "groupBy": []any{}, "numberFormat": map[string]any{"output": "byte", "decimalBytes": true, "mantissa": 0},
				"displayType": "stacked_bar",
			}),
			tile("Table Chart", 12, 0, false, table(0.5, "Median Duration"), table(0.99, "99th Percentile Duration")),
			tile("Number Chart", 18, 0, false, map[string]any{
				"type": "number", "sourceId": trace, "aggFn": "quantile", "level": 0.5, "field": "Duration",
				"alias": "50th Percentile Duration", "where": prod, "whereLanguage": "sql", "numberFormat": pctFmt,
			}),
			tile("Markdown Chart", 0, 3, false, map[string]any{"type": "markdown", "content": "# Markdown Content"}),
		}
	}
	// What it answers, as JSON reads back (numbers are float64).
	allChartTypesExpected := func(trace, metric string) []map[string]any {
		prod := "env = 'production'"
		pctFmt := map[string]any{"output": "percent", "mantissa": 2.0, "thousandSeparated": true, "average": true}
		q := func(level float64, alias, where, lang string) map[string]any {
			return map[string]any{"aggFn": "quantile", "level": level, "valueExpression": "Duration", "alias": alias, "where": where, "whereLanguage": lang}
		}
		return []map[string]any{
			{"name": "Line Chart", "x": 0.0, "y": 0.0, "w": 6.0, "h": 3.0, "config": map[string]any{
				"displayType": "line", "asRatio": true, "fillNulls": true, "sourceId": trace,
				"numberFormat": map[string]any{"output": "time", "factor": 0.001, "unit": "ms"}, "groupBy": "service.name,StatusCode",
				"select": []any{q(0.95, "95th Percentile Duration", prod, "sql"), q(0.99, "99th Percentile Duration", "env:production", "lucene")},
			}},
			{"name": "Bar Chart", "x": 6.0, "y": 0.0, "w": 6.0, "h": 3.0, "config": map[string]any{
				"displayType": "stacked_bar", "asRatio": false, "fillNulls": true, "sourceId": metric,
				"numberFormat": map[string]any{"output": "byte", "decimalBytes": true, "mantissa": 0.0},
				"select": []any{map[string]any{
					"aggFn": "quantile", "level": 0.95, "valueExpression": "", "metricName": "ClickHouseAsyncMetrics_BlockWriteBytes_ram1",
					"metricType": "gauge", "alias": "95th Percentile Duration", "where": prod, "whereLanguage": "sql",
				}},
			}},
			{"name": "Table Chart", "x": 12.0, "y": 0.0, "w": 6.0, "h": 3.0, "config": map[string]any{
				"displayType": "table", "asRatio": false, "sourceId": trace, "groupBy": "service.name", "numberFormat": pctFmt,
				"select": []any{q(0.5, "Median Duration", prod, "sql"), q(0.99, "99th Percentile Duration", prod, "sql")},
			}},
			{"name": "Number Chart", "x": 18.0, "y": 0.0, "w": 6.0, "h": 3.0, "config": map[string]any{
				"displayType": "number", "sourceId": trace, "numberFormat": pctFmt,
				"select": []any{q(0.5, "50th Percentile Duration", prod, "sql")},
			}},
			{"name": "Markdown Chart", "x": 0.0, "y": 3.0, "w": 6.0, "h": 3.0, "config": map[string]any{"displayType": "markdown", "markdown": "# Markdown Content"}},
		}
	}
	checkAll := func(r hxResp, trace, metric string) {
		tiles := r.data()["tiles"].([]any)
		want := allChartTypesExpected(trace, metric)
		require.Len(t, tiles, len(want))
		for i, w := range want {
			got := tiles[i].(map[string]any)
			delete(got, "id")
			assert.Equal(t, w, got, "tiles[%d]", i)
		}
	}
	cases = append(cases,
		hxCase{"can create all supported chart types and all supported fields on each chart type", func(c *contractFixture) {
			trace, metric := sources(c)
			r := c.expect(200, "POST", base, map[string]any{"name": "Dashboard with All Chart Types", "tiles": allChartTypes(trace, metric, false), "tags": []any{"round-trip-test"}})
			checkAll(r, trace, metric)
		}},
		hxCase{"can update all supported chart types and all supported fields on each chart type", func(c *contractFixture) {
			trace, metric := sources(c)
			id := c.put("", kindDashboard, map[string]any{"name": "Test Dashboard", "tiles": []any{}})
			r := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Dashboard with All Chart Types", "tiles": allChartTypes(trace, metric, true), "tags": []any{"round-trip-test"}})
			checkAll(r, trace, metric)
		}},
	)
	replay(t, "dashboards.int.test.ts", cases)
}

package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replays the cases of HyperDX's dashboards.int.test.ts (see
// TestHyperDXDashboards) about the tile kinds beyond the first ones:
// heatmap tiles and the tiles that divide two series (asRatio). Its
// beforeEach's trace and metric sources are source documents of the
// case's team.
func TestHyperDXDashboardTiles(t *testing.T) {
	const base = "/api/v2/dashboards"
	sources := func(c *contractFixture) (trace, metric string) {
		trace = c.put("", kindSource, map[string]any{"name": "Traces", "kind": "trace", "database": "default", "table": "otel_traces", "timestampColumn": "Timestamp"})
		metric = c.put("", kindSource, map[string]any{"name": "Metrics", "kind": "metric", "database": "default", "table": "otel_metrics_gauge", "timestampColumn": "TimeUnix"})
		return trace, metric
	}
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
			assert.Equal(t, "", cfg["where"])
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
	replay(t, "dashboards.int.test.ts", cases)
}

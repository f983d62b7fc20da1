package api

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replays the cases of HyperDX's dashboards.int.test.ts (see
// TestHyperDXDashboards) about tiles that compute: its "Chart formulas"
// describe, the PUT case that re-validates only changed heatmap tiles,
// and the new format's round-trip of every chart type (whose table tile
// sets having). Its beforeEach's trace and metric sources are source
// documents of the case's team.
func TestHyperDXDashboardFormulas(t *testing.T) {
	const base = "/api/v2/dashboards"
	sources := dashboardSources
	// setKind rewrites a stored source's kind behind the API's back, as
	// the cases do through Mongo's raw collection.
	setKind := func(c *contractFixture, id, kind string) {
		doc := c.stored(kindSource, id)
		require.NotNil(t, doc)
		doc["kind"] = kind
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		now := time.Now().UTC()
		require.NoError(t, c.fx.server.opts.Store.Put(context.Background(), c.team, kindSource, id, b, now, now))
	}
	// The describe's two metric operands, A and B.
	metricSelect := func() []any {
		item := func(name, alias string) map[string]any {
			return map[string]any{"aggFn": "max", "valueExpression": "Value", "metricType": "gauge", "metricName": name, "alias": alias, "where": ""}
		}
		return []any{item("test.errors", "Errors"), item("test.requests", "Requests")}
	}
	formulaTile := func(metric string, kv ...any) map[string]any {
		return map[string]any{"name": "Formula tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": with(map[string]any{
			"displayType": "line", "sourceId": metric, "select": metricSelect(),
		}, kv...)}
	}
	postTile := func(c *contractFixture, status int, metric string, kv ...any) hxResp {
		return c.expect(status, "POST", base, map[string]any{"name": "Formula dashboard", "tiles": []any{formulaTile(metric, kv...)}, "tags": []any{}})
	}
	tileConfig := func(r hxResp) map[string]any {
		return r.data()["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any)
	}
	// asJSON is v as it reads back from JSON (numbers float64).
	asJSON := func(v any) any {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		var out any
		require.NoError(t, json.Unmarshal(b, &out))
		return out
	}
	// roundTrips checks what a create answers and a GET reads back.
	roundTrips := func(c *contractFixture, create hxResp, check func(cfg map[string]any)) {
		check(tileConfig(create))
		check(tileConfig(c.expect(200, "GET", base+"/"+create.data()["id"].(string), nil)))
	}
	cases := []hxCase{
		{"round-trips a line tile with formulas and showOperandSeries", func(c *contractFixture) {
			_, metric := sources(c)
			formulas := []any{map[string]any{"expression": "A / B * 100", "alias": "Error rate %", "numberFormat": map[string]any{"output": "percent", "mantissa": 1}}}
			roundTrips(c, postTile(c, 200, metric, "formulas", formulas, "showOperandSeries", false), func(cfg map[string]any) {
				assert.Equal(t, asJSON(formulas), cfg["formulas"])
				assert.Equal(t, false, cfg["showOperandSeries"])
			})
		}},
		{"round-trips a table tile with formulas", func(c *contractFixture) {
			_, metric := sources(c)
			formulas := []any{map[string]any{"expression": "A + B", "alias": "Combined"}}
			roundTrips(c, postTile(c, 200, metric, "displayType", "table", "formulas", formulas), func(cfg map[string]any) {
				assert.Equal(t, asJSON(formulas), cfg["formulas"])
			})
		}},
		{"round-trips a number tile with multiple operands and one formula", func(c *contractFixture) {
			_, metric := sources(c)
			formulas := []any{map[string]any{"expression": "A / B * 100", "alias": "Error rate %"}}
			create := postTile(c, 200, metric, "displayType", "number", "formulas", formulas)
			cfg := tileConfig(create)
			assert.Equal(t, asJSON(formulas), cfg["formulas"])
			assert.Len(t, cfg["select"], 2)
			assert.NotContains(t, cfg, "showOperandSeries")
			got := tileConfig(c.expect(200, "GET", base+"/"+create.data()["id"].(string), nil))
			assert.Equal(t, asJSON(formulas), got["formulas"])
			assert.Len(t, got["select"], 2)
			// HyperDX also reads its saved config for showOperandSeries
			// false; a number tile here never draws its operands, so
			// there is nothing stored to say so.
		}},
		{"round-trips formulas through an update (PUT)", func(c *contractFixture) {
			_, metric := sources(c)
			created := postTile(c, 200, metric)
			id := created.data()["id"].(string)
			tile := created.data()["tiles"].([]any)[0].(map[string]any)
			formulas := []any{map[string]any{"expression": "B / A", "alias": "Inverse"}}
			update := c.expect(200, "PUT", base+"/"+id, map[string]any{
				"name": "Formula dashboard", "tiles": []any{with(tile, "config", with(tile["config"].(map[string]any), "formulas", formulas))}, "tags": []any{},
			})
			assert.Equal(t, asJSON(formulas), tileConfig(update)["formulas"])
			assert.Equal(t, asJSON(formulas), tileConfig(c.expect(200, "GET", base+"/"+id, nil))["formulas"])
		}},
		{"rejects a formula referencing a series the tile does not have", func(c *contractFixture) {
			_, metric := sources(c)
			r := postTile(c, 400, metric, "formulas", []any{map[string]any{"expression": "A / C"}})
			assert.Contains(t, r.message(), "tiles.0.config.formulas.0")
			assert.Contains(t, r.message(), `Unknown series "C"`)
		}},
		{"rejects a malformed formula expression", func(c *contractFixture) {
			_, metric := sources(c)
			assert.Contains(t, postTile(c, 400, metric, "formulas", []any{map[string]any{"expression": "A +"}}).message(), "tiles.0.config.formulas.0")
		}},
		{"rejects formulas combined with asRatio", func(c *contractFixture) {
			_, metric := sources(c)
			assert.Contains(t, postTile(c, 400, metric, "formulas", []any{map[string]any{"expression": "A / B"}}, "asRatio", true).message(), "asRatio")
		}},
		{"rejects multiple formulas on a number tile", func(c *contractFixture) {
			_, metric := sources(c)
			r := postTile(c, 400, metric, "displayType", "number", "formulas", []any{map[string]any{"expression": "A / B"}, map[string]any{"expression": "A + B"}})
			assert.Contains(t, r.message(), "Number charts support a single formula")
		}},
		{"rejects multiple select items on a number tile without formulas", func(c *contractFixture) {
			_, metric := sources(c)
			assert.Contains(t, postTile(c, 400, metric, "displayType", "number").message(), "Number tiles support a single select item")
		}},
		{"round-trips formulas on a log/trace event source", func(c *contractFixture) {
			trace, metric := sources(c)
			formulas := []any{map[string]any{"expression": "A / B * 100", "alias": "Error rate %"}}
			create := postTile(c, 200, metric, "sourceId", trace, "select", []any{
				map[string]any{"aggFn": "count", "where": "StatusCode:Error", "alias": "Errors"},
				map[string]any{"aggFn": "count", "where": "", "alias": "Total"},
			}, "formulas", formulas, "showOperandSeries", false)
			roundTrips(c, create, func(cfg map[string]any) {
				assert.Equal(t, asJSON(formulas), cfg["formulas"])
				assert.Equal(t, false, cfg["showOperandSeries"])
			})
		}},
		{"rejects formulas on a formula-incapable source kind (session)", func(c *contractFixture) {
			trace, metric := sources(c)
			session := c.put("", kindSource, map[string]any{
				"kind": "session", "from": map[string]any{"databaseName": "default", "tableName": "rrweb_events"},
				"timestampValueExpression": "Timestamp", "traceSourceId": trace, "name": "Sessions",
			})
			r := postTile(c, 400, metric, "sourceId", session, "select", []any{
				map[string]any{"aggFn": "count", "where": "", "alias": "A"}, map[string]any{"aggFn": "count", "where": "", "alias": "B"},
			}, "formulas", []any{map[string]any{"expression": "A / B"}})
			assert.Contains(t, r.message(), "require a Metric, Log, or Trace source")
		}},
		{"does not block updates over an unchanged formula tile whose source kind changed", func(c *contractFixture) {
			_, metric := sources(c)
			created := postTile(c, 200, metric, "formulas", []any{map[string]any{"expression": "A / B", "alias": "Rate"}})
			id := created.data()["id"].(string)
			tile := created.data()["tiles"].([]any)[0].(map[string]any)
			setKind(c, metric, "session")
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Renamed formula dashboard", "tiles": []any{tile}, "tags": []any{}})
			r := c.expect(400, "PUT", base+"/"+id, map[string]any{
				"name":  "Renamed formula dashboard",
				"tiles": []any{with(tile, "config", with(tile["config"].(map[string]any), "formulas", []any{map[string]any{"expression": "B / A", "alias": "Inverse"}}))},
				"tags":  []any{},
			})
			assert.Contains(t, r.message(), "require a Metric, Log, or Trace source")
		}},
		{"round-trips a multi-series metric tile with no formulas", func(c *contractFixture) {
			_, metric := sources(c)
			cfg := tileConfig(postTile(c, 200, metric))
			assert.NotContains(t, cfg, "formulas")
			assert.NotContains(t, cfg, "showOperandSeries")
		}},
		{"does not re-validate heatmap source-kind for unchanged heatmap tiles", func(c *contractFixture) {
			trace, _ := sources(c)
			heatmap := func(id string) map[string]any {
				return map[string]any{"id": id, "name": "Latency Heatmap", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"displayType": "heatmap", "sourceId": trace, "select": []any{map[string]any{"valueExpression": "Duration"}},
				}}
			}
			line := func(id, name, where string) map[string]any {
				return map[string]any{"id": id, "name": name, "x": 6, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"displayType": "line", "sourceId": trace, "select": []any{map[string]any{"aggFn": "count", "where": where}},
				}}
			}
			create := c.expect(200, "POST", base, map[string]any{"name": "Heatmap PUT scoping test", "tiles": []any{heatmap(newID()), line(newID(), "Other line tile", "")}, "tags": []any{}})
			ids := map[string]string{}
			for _, tl := range create.data()["tiles"].([]any) {
				ids[tl.(map[string]any)["name"].(string)] = tl.(map[string]any)["id"].(string)
			}
			setKind(c, trace, "log")
			c.expect(200, "PUT", base+"/"+create.data()["id"].(string), map[string]any{
				"name":  "Heatmap PUT scoping test - renamed",
				"tiles": []any{heatmap(ids["Latency Heatmap"]), line(ids["Other line tile"], "Other line tile, edited", "level:error")},
				"tags":  []any{},
			})
		}},
		{"can round-trip all supported chart types and all supported fields on each chart type", func(c *contractFixture) {
			trace, metric := sources(c)
			durationFmt := map[string]any{"output": "duration", "factor": 1e-9}
			pctFmt := map[string]any{"output": "percent", "mantissa": 2, "thousandSeparated": true, "average": true}
			prod := "env = 'production'"
			q := func(level float64, alias, where, lang string, kv ...any) map[string]any {
				return with(map[string]any{"aggFn": "quantile", "level": level, "valueExpression": "Duration", "alias": alias, "where": where, "whereLanguage": lang}, kv...)
			}
			tile := func(name string, x, y int, config map[string]any) map[string]any {
				return map[string]any{"id": newID(), "name": name, "x": x, "y": y, "w": 6, "h": 3, "config": config}
			}
			tiles := []map[string]any{
				tile("Line Chart", 0, 0, map[string]any{
					"displayType": "line", "asRatio": true, "fillNulls": true, "fitYAxisToData": true, "sourceId": trace,
					"numberFormat": map[string]any{"output": "time", "factor": 0.001, "unit": "ms"}, "groupBy": "service.name, StatusCode",
					"select": []any{
						q(0.95, "95th Percentile Duration", prod, "sql", "numberFormat", durationFmt),
						q(0.99, "99th Percentile Duration", "env:production", "lucene", "numberFormat", map[string]any{"output": "duration", "factor": 1e-9, "mantissa": 3}),
					},
				}),
				tile("Bar Chart", 6, 0, map[string]any{
					"displayType": "stacked_bar", "asRatio": false, "fillNulls": false, "sourceId": metric,
					"numberFormat": map[string]any{"output": "byte", "decimalBytes": true, "mantissa": 0},
					"select":       []any{q(0.95, "95th Percentile Duration", prod, "sql", "metricName", "ClickHouseAsyncMetrics_BlockWriteBytes_ram1", "metricType", "gauge")},
				}),
				tile("Table Chart", 12, 0, map[string]any{
					"displayType": "table", "asRatio": false, "sourceId": trace,
					"select":  []any{q(0.5, "Median Duration", prod, "sql", "numberFormat", durationFmt), q(0.99, "99th Percentile Duration", prod, "sql")},
					"groupBy": "service.name", "orderBy": "service.name desc", "having": "percentiles(Duration, 0.5) > 100",
					"numberFormat": pctFmt, "groupByColumnsOnLeft": true,
					"onClick": map[string]any{"type": "search", "target": map[string]any{"mode": "id", "id": trace}, "whereLanguage": "sql", "whereTemplate": "ServiceName = '{{service.name}}'"},
				}),
				tile("Number Chart", 18, 0, map[string]any{
					"displayType": "number", "sourceId": trace, "select": []any{q(0.5, "50th Percentile Duration", prod, "sql", "numberFormat", durationFmt)},
					"numberFormat": pctFmt, "color": "chart-green",
					"colorRules": []any{
						map[string]any{"operator": "gt", "value": 1000, "color": "chart-warning", "label": "Slow"},
						map[string]any{"operator": "between", "value": []any{200, 1000}, "color": "chart-blue"},
						map[string]any{"operator": "gte", "value": 5000, "color": "chart-error", "label": "Critical"},
					},
					"backgroundChart": map[string]any{"type": "area", "color": "chart-blue"},
				}),
				tile("Markdown Chart", 0, 3, map[string]any{"displayType": "markdown", "markdown": "# Markdown Content"}),
				tile("Heatmap Chart", 6, 3, map[string]any{
					"displayType": "heatmap", "sourceId": trace,
					"select": []any{map[string]any{"valueExpression": "Duration", "countExpression": "count()", "heatmapScaleType": "linear"}},
					"where":  "service:api", "whereLanguage": "lucene", "numberFormat": map[string]any{"output": "time", "factor": 0.001, "unit": "ms"},
				}),
				tile("Event Patterns", 12, 3, map[string]any{"displayType": "event_patterns", "sourceId": trace, "select": "SpanName", "where": "level:error", "whereLanguage": "lucene"}),
			}
			dash := c.put("", kindDashboard, map[string]any{"name": "Test Dashboard", "tiles": []any{}})
			body := make([]any, len(tiles))
			for i, tl := range tiles {
				body[i] = tl
			}
			r := c.expect(200, "PUT", base+"/"+dash, map[string]any{"name": "Dashboard with All Chart Types", "tiles": body, "tags": []any{"round-trip-test"}})
			got := r.data()["tiles"].([]any)
			require.Len(t, got, len(tiles))
			for i, want := range tiles {
				g := got[i].(map[string]any)
				delete(g, "id")
				assert.Equal(t, asJSON(with(want, "id", nil)), g, "tiles[%d]", i)
			}
		}},
	}
	replay(t, "dashboards.int.test.ts", cases)
}

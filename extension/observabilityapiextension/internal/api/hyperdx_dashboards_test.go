package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// dashboards.int.test.ts (the stored copy of commit 04dad3a, the nearest
// to hyperdxCommit the reference index holds), its "old format" describe
// so far: Response Format, GET /, POST / and PUT /:id up to its
// round-trip of every chart type. Its beforeEach makes a trace and a metric source in
// Mongo: here source documents of the case's team.
func TestHyperDXDashboards(t *testing.T) {
	const base = "/api/v2/dashboards"
	sources := dashboardSources
	// HyperDX's fixtures makeExternalChart and the file's chart factories.
	externalChart := func(src string) map[string]any {
		return map[string]any{
			"name": "Test Chart", "x": 1, "y": 1, "w": 1, "h": 1,
			"series": []any{map[string]any{"type": "time", "sourceId": src, "aggFn": "count", "where": "", "groupBy": []any{}}},
		}
	}
	mockDashboard := func(src string, kv ...any) map[string]any {
		return with(map[string]any{
			"name": "Test External Dashboard", "tiles": []any{externalChart(src), externalChart(src)},
			"tags": []any{"external-api", "test"}, "savedQuery": nil, "savedQueryLanguage": nil, "savedFilterValues": []any{},
		}, kv...)
	}
	mockDashboardWithIDs := func(src string, kv ...any) map[string]any {
		t1, t2 := with(externalChart(src), "id", newID()), with(externalChart(src), "id", newID())
		return with(map[string]any{
			"name": "Test External Dashboard with IDs", "tiles": []any{t1, t2}, "tags": []any{"external-api", "test"},
			"filters": []any{}, "savedQuery": nil, "savedQueryLanguage": nil, "savedFilterValues": []any{},
		}, kv...)
	}
	chart := func(name string, x, y, w, h int, series map[string]any) map[string]any {
		return map[string]any{"name": name, "x": x, "y": y, "w": w, "h": h, "id": newID(), "seriesReturnType": "column", "series": []any{series}}
	}
	timeSeries := func(src string) map[string]any {
		return chart("Time Series Chart", 0, 0, 6, 3, map[string]any{"type": "time", "sourceId": src, "aggFn": "count", "where": "", "groupBy": []any{}})
	}
	tableChart := func(src string) map[string]any {
		return chart("Table Chart", 6, 0, 6, 3, map[string]any{"type": "table", "sourceId": src, "aggFn": "count", "where": "", "groupBy": []any{}, "sortOrder": "desc"})
	}
	numberChart := func(src string) map[string]any {
		return chart("Number Chart", 0, 3, 3, 3, map[string]any{"type": "number", "sourceId": src, "aggFn": "count", "where": ""})
	}
	markdownChart := func() map[string]any {
		return chart("Markdown Chart", 3, 3, 3, 3, map[string]any{"type": "markdown", "content": "# Test Markdown\nThis is a test"})
	}
	// createTestDashboard: a dashboard document straight in the store.
	testDashboard := func(c *contractFixture, kv ...any) string {
		return c.put("", kindDashboard, with(map[string]any{"name": "Test Dashboard", "tiles": []any{}}, kv...))
	}
	count := map[string]any{"aggFn": "count", "where": "", "whereLanguage": "lucene", "valueExpression": ""}
	sqlValues := []any{map[string]any{"type": "sql", "condition": "ServiceName IN ('hdx-oss-dev-api')"}}
	cases := []hxCase{
		{"should return responses in the expected (new) format when creating the dashboard in the old format", func(c *contractFixture) {
			trace, _ := sources(c)
			created := c.expect(200, "POST", base, map[string]any{
				"name":  "Format Test Dashboard",
				"tiles": []any{timeSeries(trace), numberChart(trace)}, "tags": []any{"format-test"},
			})
			assert.Contains(t, created.header.Get("Content-Type"), "application/json")
			d := created.data()
			tiles, _ := d["tiles"].([]any)
			require.Len(t, tiles, 2)
			want := map[string]any{
				"name": "Format Test Dashboard",
				"tiles": []any{
					map[string]any{"name": "Time Series Chart", "x": 0.0, "y": 0.0, "w": 6.0, "h": 3.0, "config": map[string]any{
						"displayType": "line", "sourceId": trace, "select": []any{count}, "asRatio": false, "fillNulls": true,
					}},
					map[string]any{"name": "Number Chart", "x": 0.0, "y": 3.0, "w": 3.0, "h": 3.0, "config": map[string]any{
						"displayType": "number", "sourceId": trace, "select": []any{count},
					}},
				},
				"tags": []any{"format-test"}, "filters": []any{}, "savedQuery": nil, "savedQueryLanguage": nil, "savedFilterValues": []any{},
			}
			// toEqual, but for the ids (any string) and the times this API
			// adds (createdAt, updatedAt: fields HyperDX does not answer,
			// kept for the clients that read them).
			got := with(d, "id", nil, "createdAt", nil, "updatedAt", nil)
			gotTiles := []any{}
			for _, tl := range tiles {
				m := tl.(map[string]any)
				assert.IsType(t, "", m["id"])
				gotTiles = append(gotTiles, with(m, "id", nil))
			}
			got["tiles"] = gotTiles
			assert.IsType(t, "", d["id"])
			assert.Equal(t, want, got)

			id := d["id"].(string)
			read := c.expect(200, "GET", base+"/"+id, nil)
			assert.Equal(t, map[string]any{"data": d}, read.body)
			list := c.expect(200, "GET", base, nil)
			assert.IsType(t, []any{}, list.body["data"])
			assert.Equal(t, map[string]any{}, c.expect(200, "DELETE", base+"/"+id, nil).body)
		}},
		{"should return all dashboards", func(c *contractFixture) {
			sources(c)
			testDashboard(c, "name", "Test Dashboard 1")
			testDashboard(c, "name", "Test Dashboard 2")
			list := c.expect(200, "GET", base, nil).list()
			require.Len(t, list, 2)
			names := []any{}
			for _, d := range list {
				names = append(names, d.(map[string]any)["name"])
				assert.IsType(t, []any{}, d.(map[string]any)["filters"])
			}
			assert.ElementsMatch(t, []any{"Test Dashboard 1", "Test Dashboard 2"}, names)
		}},
		{"should return empty array when no dashboards exist", func(c *contractFixture) {
			sources(c)
			assert.Empty(t, c.expect(200, "GET", base, nil).list())
		}},
		{"should create a new dashboard", func(c *contractFixture) {
			trace, _ := sources(c)
			d := c.expect(200, "POST", base, mockDashboard(trace)).data()
			assert.Equal(t, "Test External Dashboard", d["name"])
			assert.Equal(t, []any{"external-api", "test"}, d["tags"])
			for _, tl := range d["tiles"].([]any) {
				assert.Equal(t, "Test Chart", tl.(map[string]any)["name"])
			}
			assert.Equal(t, []any{}, d["filters"])
			stored := c.stored(kindDashboard, d["id"].(string))
			assert.Equal(t, "Test External Dashboard", stored["name"])
			assert.Len(t, stored["tiles"], 2)
		}},
		{"should create a dashboard with saved query defaults", func(c *contractFixture) {
			trace, _ := sources(c)
			d := c.expect(200, "POST", base, mockDashboard(trace, "savedQuery", "service.name = 'api'", "savedQueryLanguage", "sql",
				"savedFilterValues", sqlValues)).data()
			for _, m := range []map[string]any{d, c.stored(kindDashboard, d["id"].(string))} {
				assert.Equal(t, "service.name = 'api'", m["savedQuery"])
				assert.Equal(t, "sql", m["savedQueryLanguage"])
				assert.Equal(t, sqlValues, m["savedFilterValues"])
			}
		}},
		{"should default savedQueryLanguage to lucene when savedQuery is provided without a language", func(c *contractFixture) {
			trace, _ := sources(c)
			body := with(mockDashboard(trace, "savedQuery", "service.name = 'api'"), "savedQueryLanguage", nil)
			d := c.expect(200, "POST", base, body).data()
			assert.Equal(t, "service.name = 'api'", d["savedQuery"])
			assert.Equal(t, "lucene", d["savedQueryLanguage"])
			assert.Equal(t, "lucene", c.stored(kindDashboard, d["id"].(string))["savedQueryLanguage"])
		}},
		{"should return 400 when savedQueryLanguage is null and savedQuery is provided", func(c *contractFixture) {
			trace, _ := sources(c)
			body := mockDashboard(trace, "savedQuery", "service.name = 'api'")
			body["savedQueryLanguage"] = nil // sent as null, not omitted
			r := c.expect(400, "POST", base, body)
			assert.Contains(t, r.message(), "savedQueryLanguage cannot be null when savedQuery is provided")
		}},
		{"can create all chart types", func(c *contractFixture) {
			trace, _ := sources(c)
			d := c.expect(200, "POST", base, map[string]any{
				"name":  "Test Dashboard with All Chart Types",
				"tiles": []any{timeSeries(trace), tableChart(trace), numberChart(trace), markdownChart()}, "tags": []any{"test", "chart-types"},
			}).data()
			assert.NotEmpty(t, d["id"])
			assert.Len(t, d["tiles"], 4)
			read := c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()
			assert.Len(t, read["tiles"], 4)
			assert.Equal(t, []any{"test", "chart-types"}, read["tags"])
		}},
		{"should return 400 when source IDs do not exist", func(c *contractFixture) {
			sources(c)
			missing := newID()
			r := c.expect(400, "POST", base, mockDashboard(missing))
			assert.Equal(t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should create a dashboard with filters", func(c *contractFixture) {
			trace, metric := sources(c)
			filters := []any{
				map[string]any{"type": "QUERY_EXPRESSION", "name": "Environment", "expression": "environment", "sourceId": trace},
				map[string]any{
					"type": "QUERY_EXPRESSION", "name": "Service Filter", "expression": "service_name", "sourceId": trace,
					"appliesToSourceIds": []any{trace},
				},
				map[string]any{
					"type": "QUERY_EXPRESSION", "name": "Region (Filtered)", "expression": "region", "sourceId": trace,
					"where": "environment = 'production'", "whereLanguage": "sql", "appliesToSourceIds": []any{trace, metric},
				},
			}
			d := c.expect(200, "POST", base, map[string]any{
				"name": "Dashboard with Filters", "tiles": []any{externalChart(trace)},
				"tags": []any{"external-api", "test"}, "filters": filters,
			}).data()
			got := d["filters"].([]any)
			require.Len(t, got, 3)
			for i, f := range got {
				m := f.(map[string]any)
				assert.NotEmpty(t, m["id"])
				assert.Equal(t, "QUERY_EXPRESSION", m["type"])
				assert.Equal(t, trace, m["sourceId"])
				assert.Equal(t, filters[i].(map[string]any)["name"], m["name"])
				assert.Equal(t, filters[i].(map[string]any)["expression"], m["expression"])
			}
			assert.False(t, hasKey(got[0].(map[string]any), "appliesToSourceIds"), "absent stays absent")
			assert.Equal(t, []any{trace}, got[1].(map[string]any)["appliesToSourceIds"])
			assert.Equal(t, "environment = 'production'", got[2].(map[string]any)["where"])
			assert.Equal(t, "sql", got[2].(map[string]any)["whereLanguage"])
			assert.Equal(t, []any{trace, metric}, got[2].(map[string]any)["appliesToSourceIds"])
			read := c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()
			assert.Equal(t, got, read["filters"])
		}},
		{"should return 400 when filter source ID does not exist", func(c *contractFixture) {
			trace, _ := sources(c)
			missing := newID()
			r := c.expect(400, "POST", base, map[string]any{
				"name": "Dashboard with Bad Filter Source", "tiles": []any{externalChart(trace)},
				"tags": []any{"external-api", "test"}, "filters": []any{map[string]any{
					"type": "QUERY_EXPRESSION", "name": "Bad Source Filter",
					"expression": "environment", "sourceId": missing,
				}},
			})
			assert.Equal(t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should return 400 when create filter includes id", func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(400, "POST", base, map[string]any{
				"name": "Dashboard with Invalid Filter ID", "tiles": []any{externalChart(trace)},
				"tags": []any{"external-api", "test"}, "filters": []any{map[string]any{
					"id": newID(), "type": "QUERY_EXPRESSION",
					"name": "Filter with ID", "expression": "environment", "sourceId": trace,
				}},
			})
		}},
		{"should update an existing dashboard", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "name", "Updated Dashboard Name")).data()
			assert.Equal(t, id, d["id"])
			assert.Equal(t, "Updated Dashboard Name", d["name"])
			require.Len(t, d["tiles"], 2)
			assert.IsType(t, []any{}, d["filters"])
			stored := c.stored(kindDashboard, id)
			assert.Equal(t, "Updated Dashboard Name", stored["name"])
			assert.Len(t, stored["tiles"], 2)
		}},
		{"should update and clear saved query defaults", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c, "savedQuery", "service:api", "savedQueryLanguage", "lucene",
				"savedFilterValues", []any{map[string]any{"type": "lucene", "condition": "env:prod"}})
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace)).data()
			for _, m := range []map[string]any{d, c.stored(kindDashboard, id)} {
				assert.Nil(t, m["savedQuery"])
				assert.Nil(t, m["savedQueryLanguage"])
				assert.Equal(t, []any{}, m["savedFilterValues"])
			}
		}},
		{"should return 400 when savedQueryLanguage is null and savedQuery is provided on update", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			r := c.expect(400, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "savedQuery", "service.name = 'api'"))
			assert.Contains(t, r.message(), "savedQueryLanguage cannot be null when savedQuery is provided")
		}},
		{"should update dashboard filters when provided", func(c *contractFixture) {
			trace, metric := sources(c)
			id := testDashboard(c)
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "name", "Dashboard with Filters", "filters", []any{
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Updated Filter 1", "expression": "environment", "sourceId": trace},
				map[string]any{
					"id": newID(), "type": "QUERY_EXPRESSION", "name": "Updated Filter 2", "expression": "service_name", "sourceId": trace,
					"appliesToSourceIds": []any{trace, metric},
				},
			})).data()
			got := d["filters"].([]any)
			require.Len(t, got, 2)
			for i, name := range []string{"Updated Filter 1", "Updated Filter 2"} {
				f := got[i].(map[string]any)
				assert.IsType(t, "", f["id"])
				assert.Equal(t, "QUERY_EXPRESSION", f["type"])
				assert.Equal(t, name, f["name"])
				assert.Equal(t, trace, f["sourceId"])
			}
			assert.False(t, hasKey(got[0].(map[string]any), "appliesToSourceIds"))
			assert.Equal(t, []any{trace, metric}, got[1].(map[string]any)["appliesToSourceIds"])
			assert.Equal(t, got, c.expect(200, "GET", base+"/"+id, nil).data()["filters"])
		}},
		{"should preserve existing dashboard filters when filters are not provided", func(c *contractFixture) {
			trace, _ := sources(c)
			existing := []any{
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 1", "expression": "environment", "sourceId": trace, "appliesToSourceIds": []any{trace}},
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 2", "expression": "service_name", "sourceId": trace},
			}
			id := testDashboard(c, "filters", existing)
			d := c.expect(200, "PUT", base+"/"+id, with(mockDashboardWithIDs(trace, "name", "Dashboard Name Updated Without Filters"), "filters", nil)).data()
			assert.Equal(t, "Dashboard Name Updated Without Filters", d["name"])
			for _, m := range []map[string]any{d, c.expect(200, "GET", base+"/"+id, nil).data()} {
				got := m["filters"].([]any)
				require.Len(t, got, 2)
				for i := range existing {
					for k, v := range existing[i].(map[string]any) {
						assert.Equal(t, v, got[i].(map[string]any)[k], k)
					}
				}
			}
		}},
		{"should clear existing dashboard filters when provided an empty filters array", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c, "filters", []any{
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 1", "expression": "environment", "sourceId": trace},
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 2", "expression": "service_name", "sourceId": trace},
			})
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "name", "Dashboard Name Updated With Empty Filters", "filters", []any{})).data()
			assert.Equal(t, "Dashboard Name Updated With Empty Filters", d["name"])
			assert.Equal(t, []any{}, d["filters"])
			assert.Equal(t, []any{}, c.expect(200, "GET", base+"/"+id, nil).data()["filters"])
		}},
		{"should return 400 when filter source ID does not exist on update", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			missing := newID()
			r := c.expect(400, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "name", "Updated Name", "filters", []any{map[string]any{
				"id": newID(), "type": "QUERY_EXPRESSION", "name": "Bad Source Filter", "expression": "environment", "sourceId": missing,
			}}))
			assert.Equal(t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should return 404 when dashboard does not exist", func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(404, "PUT", base+"/"+newID(), mockDashboardWithIDs(trace))
		}},
		{"should preserve tile IDs that match existing tiles and generate new IDs for unrecognized tiles", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			first := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Initial", "tiles": []any{timeSeries(trace)}, "tags": []any{}}).data()
			existing := first["tiles"].([]any)[0].(map[string]any)["id"]
			unknown := newID()
			d := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Updated", "tags": []any{}, "tiles": []any{
				with(timeSeries(trace), "id", existing), with(timeSeries(trace), "id", unknown, "x", 6),
			}}).data()
			tiles := d["tiles"].([]any)
			assert.Equal(t, existing, tiles[0].(map[string]any)["id"])
			assert.NotEqual(t, unknown, tiles[1].(map[string]any)["id"])
			assert.NotEmpty(t, tiles[1].(map[string]any)["id"])
		}},
		{"should preserve filter IDs that match existing filters and generate new IDs for unrecognized filters", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			filter := func(fid, name, expr string) map[string]any {
				return map[string]any{"id": fid, "type": "QUERY_EXPRESSION", "name": name, "expression": expr, "sourceId": trace}
			}
			first := c.expect(200, "PUT", base+"/"+id, map[string]any{
				"name": "Initial", "tiles": []any{timeSeries(trace)}, "tags": []any{},
				"filters": []any{filter(newID(), "Environment", "environment")},
			}).data()
			existing := first["filters"].([]any)[0].(map[string]any)["id"].(string)
			unknown := newID()
			d := c.expect(200, "PUT", base+"/"+id, map[string]any{
				"name": "Updated", "tiles": []any{timeSeries(trace)}, "tags": []any{},
				"filters": []any{filter(existing, "Environment", "environment"), filter(unknown, "Service", "service_name")},
			}).data()
			got := d["filters"].([]any)
			assert.Equal(t, existing, got[0].(map[string]any)["id"])
			assert.NotEqual(t, unknown, got[1].(map[string]any)["id"])
			assert.NotEmpty(t, got[1].(map[string]any)["id"])
		}},
	}
	replay(t, "dashboards.int.test.ts", cases)
}

// Replays the same file's "new format" describe (tiles given as config),
// as far as its PUT "should clear the filter variable settings when an
// update omits them" case; the cases after it (from "omits the ignored
// fields on read so a stored filter round-trips") are replayed by
// TestHyperDXDashboardsRest, and the few before it left out here by
// TestHyperDXDashboardsEarlierGaps (hyperdx_dashboards_rest_test.go).
func TestHyperDXDashboardsNewFormat(t *testing.T) {
	const base = "/api/v2/dashboards"
	sources := dashboardSources
	countSelect := []any{map[string]any{"aggFn": "count", "where": ""}}
	// HyperDX's fixture makeExternalTile and the describe's factories.
	externalTile := func(src string) map[string]any {
		return map[string]any{"name": "Test Chart", "x": 1, "y": 1, "w": 1, "h": 1, "config": map[string]any{"displayType": "line", "sourceId": src, "select": countSelect}}
	}
	mockDashboard := func(src string, kv ...any) map[string]any {
		return with(map[string]any{"name": "Test External Dashboard", "tiles": []any{externalTile(src), externalTile(src)}, "tags": []any{"external-api", "test"}}, kv...)
	}
	chart := func(name string, x, y, w, h int, cfg map[string]any) map[string]any {
		return map[string]any{"id": newID(), "name": name, "x": x, "y": y, "w": w, "h": h, "config": cfg}
	}
	builder := func(display, src string, kv ...any) map[string]any {
		return with(map[string]any{"displayType": display, "sourceId": src, "select": countSelect}, kv...)
	}
	testDashboard := func(c *contractFixture, kv ...any) string {
		return c.put("", kindDashboard, with(map[string]any{"name": "Test Dashboard", "tiles": []any{}}, kv...))
	}
	mockDashboardWithIDs := func(src string, kv ...any) map[string]any {
		return with(map[string]any{
			"name": "Test External Dashboard with IDs", "tiles": []any{with(externalTile(src), "id", newID()), with(externalTile(src), "id", newID())},
			"tags": []any{"external-api", "test"}, "filters": []any{},
		}, kv...)
	}
	count := map[string]any{"aggFn": "count", "where": "", "valueExpression": "", "whereLanguage": "lucene"}
	onClickTo := func(typ, id string) map[string]any {
		return map[string]any{"type": typ, "target": map[string]any{"mode": "id", "id": id}, "whereLanguage": "sql"}
	}
	onClickTable := func(name, src string, onClick map[string]any) map[string]any {
		return map[string]any{"name": name, "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
			"displayType": "table", "sourceId": src, "select": []any{map[string]any{"aggFn": "count"}}, "onClick": onClick,
		}}
	}
	onClickDashboard := func(name string, tiles ...any) map[string]any { return map[string]any{"name": name, "tiles": tiles} }
	noID := func(tile any) map[string]any { return with(tile.(map[string]any), "id", nil) }
	cases := []hxCase{
		{"should return responses in the expected format", func(c *contractFixture) {
			trace, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{
				"name":  "Format Test Dashboard",
				"tiles": []any{chart("Time Series Chart", 0, 0, 6, 3, builder("line", trace)), chart("Number Chart", 0, 3, 3, 3, builder("number", trace))},
				"tags":  []any{"format-test"},
			})
			assert.Contains(t, r.header.Get("Content-Type"), "application/json")
			d := r.data()
			tiles := d["tiles"].([]any)
			require.Len(t, tiles, 2)
			assert.Equal(t, map[string]any{"name": "Time Series Chart", "x": 0.0, "y": 0.0, "w": 6.0, "h": 3.0, "config": map[string]any{
				"asRatio": false, "fillNulls": true, "displayType": "line", "sourceId": trace, "select": []any{count},
			}}, noID(tiles[0]))
			assert.Equal(t, map[string]any{"name": "Number Chart", "x": 0.0, "y": 3.0, "w": 3.0, "h": 3.0, "config": map[string]any{
				"displayType": "number", "sourceId": trace, "select": []any{count},
			}}, noID(tiles[1]))
			for _, k := range []string{"savedQuery", "savedQueryLanguage"} {
				assert.True(t, hasKey(d, k))
				assert.Nil(t, d[k])
			}
			assert.Equal(t, []any{"format-test"}, d["tags"])
			assert.Equal(t, []any{}, d["filters"])
			assert.Equal(t, []any{}, d["savedFilterValues"])
			id := d["id"].(string)
			assert.Equal(t, map[string]any{"data": d}, c.expect(200, "GET", base+"/"+id, nil).body)
			assert.IsType(t, []any{}, c.expect(200, "GET", base, nil).body["data"])
			assert.Equal(t, map[string]any{}, c.expect(200, "DELETE", base+"/"+id, nil).body)
		}},
		{"should return all dashboards", func(c *contractFixture) {
			sources(c)
			testDashboard(c, "name", "Test Dashboard 1")
			testDashboard(c, "name", "Test Dashboard 2")
			list := c.expect(200, "GET", base, nil).list()
			require.Len(t, list, 2)
			for _, d := range list {
				assert.IsType(t, []any{}, d.(map[string]any)["filters"])
			}
		}},
		{"should return empty array when no dashboards exist", func(c *contractFixture) {
			sources(c)
			assert.Empty(t, c.expect(200, "GET", base, nil).list())
		}},
		{"should return a specific dashboard", func(c *contractFixture) {
			sources(c)
			id := testDashboard(c, "tags", []any{"tag1", "tag2"})
			d := c.expect(200, "GET", base+"/"+id, nil).data()
			assert.Equal(t, id, d["id"])
			assert.Equal(t, "Test Dashboard", d["name"])
			assert.IsType(t, []any{}, d["tiles"])
			assert.Equal(t, []any{"tag1", "tag2"}, d["tags"])
			assert.IsType(t, []any{}, d["filters"])
		}},
		{"should return 404 when dashboard does not exist", func(c *contractFixture) {
			sources(c)
			c.expect(404, "GET", base+"/"+newID(), nil)
		}},
		{"should create a new dashboard", func(c *contractFixture) {
			trace, _ := sources(c)
			d := c.expect(200, "POST", base, mockDashboard(trace)).data()
			assert.Equal(t, "Test External Dashboard", d["name"])
			assert.Equal(t, []any{"external-api", "test"}, d["tags"])
			assert.Equal(t, []any{}, d["filters"])
			stored := c.stored(kindDashboard, d["id"].(string))
			assert.Equal(t, "Test External Dashboard", stored["name"])
			assert.Len(t, stored["tiles"], 2)
		}},
		{"should return 400 when savedQueryLanguage is null and savedQuery is provided", func(c *contractFixture) {
			trace, _ := sources(c)
			body := mockDashboard(trace, "savedQuery", "service.name = 'api'")
			body["savedQueryLanguage"] = nil
			assert.Contains(t, c.expect(400, "POST", base, body).message(), "savedQueryLanguage cannot be null when savedQuery is provided")
		}},
		{"can create all chart types", func(c *contractFixture) {
			trace, _ := sources(c)
			d := c.expect(200, "POST", base, map[string]any{"name": "Test Dashboard with All Chart Types", "tags": []any{"test", "chart-types"}, "tiles": []any{
				chart("Time Series Chart", 0, 0, 6, 3, builder("line", trace)),
				chart("Table Chart", 6, 0, 6, 3, builder("table", trace)),
				chart("Number Chart", 0, 3, 3, 3, builder("number", trace)),
				chart("Markdown Chart", 3, 3, 3, 3, map[string]any{"displayType": "markdown", "markdown": "# Test Markdown\nThis is a test"}),
				chart("Pie Chart", 6, 3, 3, 3, builder("pie", trace, "groupBy", "service.name")),
				chart("Bar Chart", 9, 3, 3, 3, builder("bar", trace, "groupBy", "service.name")),
			}}).data()
			assert.Len(t, d["tiles"], 6)
			read := c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()
			assert.Len(t, read["tiles"], 6)
			assert.Equal(t, []any{"test", "chart-types"}, read["tags"])
		}},
		{"persists a custom orderBy on pie and categorical bar tiles through create and get", func(c *contractFixture) {
			trace, _ := sources(c)
			sel := []any{map[string]any{"aggFn": "count", "alias": "Count", "where": "", "whereLanguage": "sql"}}
			d := c.expect(200, "POST", base, map[string]any{"name": "Dashboard with custom categorical ordering", "tiles": []any{
				map[string]any{"name": "Pie with custom order", "x": 0, "y": 0, "w": 6, "h": 3, "config": builder("pie", trace, "select", sel, "groupBy", "ServiceName", "orderBy", "ServiceName ASC", "limit", 5)},
				map[string]any{"name": "Bar with custom order", "x": 6, "y": 0, "w": 6, "h": 3, "config": builder("bar", trace, "select", sel, "groupBy", "ServiceName", "orderBy", `"Count" DESC`, "limit", 5)},
			}}).data()
			for _, m := range []map[string]any{d, c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()} {
				tiles := m["tiles"].([]any)
				assert.Equal(t, "ServiceName ASC", tiles[0].(map[string]any)["config"].(map[string]any)["orderBy"])
				assert.Equal(t, `"Count" DESC`, tiles[1].(map[string]any)["config"].(map[string]any)["orderBy"])
			}
		}},
		{"persists seriesLimit on line and stacked_bar tiles through create and get", func(c *contractFixture) {
			trace, _ := sources(c)
			sel := []any{map[string]any{"aggFn": "count", "alias": "Count", "where": "", "whereLanguage": "sql"}}
			d := c.expect(200, "POST", base, map[string]any{"name": "Dashboard with series limits", "tiles": []any{
				map[string]any{"name": "Line with series limit", "x": 0, "y": 0, "w": 6, "h": 3, "config": builder("line", trace, "select", sel, "groupBy", "ServiceName", "seriesLimit", 20)},
				map[string]any{"name": "Stacked bar with series limit", "x": 6, "y": 0, "w": 6, "h": 3, "config": builder("stacked_bar", trace, "select", sel, "groupBy", "ServiceName", "seriesLimit", 7)},
			}}).data()
			for _, m := range []map[string]any{d, c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()} {
				tiles := m["tiles"].([]any)
				assert.Equal(t, 20.0, tiles[0].(map[string]any)["config"].(map[string]any)["seriesLimit"])
				assert.Equal(t, 7.0, tiles[1].(map[string]any)["config"].(map[string]any)["seriesLimit"])
			}
		}},
		{"omits seriesLimit on line/stacked_bar tiles when it is not provided", func(c *contractFixture) {
			trace, _ := sources(c)
			sel := []any{map[string]any{"aggFn": "count", "alias": "Count", "where": "", "whereLanguage": "sql"}}
			d := c.expect(200, "POST", base, map[string]any{"name": "Dashboard without series limit", "tiles": []any{
				map[string]any{"name": "Line without series limit", "x": 0, "y": 0, "w": 6, "h": 3, "config": builder("line", trace, "select", sel, "groupBy", "ServiceName")},
			}}).data()
			assert.False(t, hasKey(d["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any), "seriesLimit"))
		}},
		{"omits orderBy on pie/bar tiles when it is not provided", func(c *contractFixture) {
			trace, _ := sources(c)
			sel := []any{map[string]any{"aggFn": "count", "alias": "Count", "where": "", "whereLanguage": "sql"}}
			d := c.expect(200, "POST", base, map[string]any{"name": "Dashboard without categorical ordering", "tiles": []any{
				map[string]any{"name": "Pie without order", "x": 0, "y": 0, "w": 6, "h": 3, "config": builder("pie", trace, "select", sel, "groupBy", "ServiceName")},
			}}).data()
			assert.False(t, hasKey(d["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any), "orderBy"))
		}},
		{"persists select-item where as empty string when omitted", func(c *contractFixture) {
			trace, _ := sources(c)
			d := c.expect(200, "POST", base, map[string]any{"name": "Dashboard Line No Where", "tags": []any{}, "tiles": []any{
				map[string]any{"name": "Line Chart Without Where", "x": 0, "y": 0, "w": 6, "h": 3, "config": builder("line", trace, "select", []any{map[string]any{"aggFn": "count"}})},
			}}).data()
			// HyperDX stores it as the select item's aggCondition; here it is
			// the item's where.
			stored := c.stored(kindDashboard, d["id"].(string))
			sel := stored["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any)["select"].([]any)[0].(map[string]any)
			assert.Empty(t, sel["where"])
		}},
		{"persists fitYAxisToData on line tiles only and reads it back on GET", func(c *contractFixture) {
			trace, _ := sources(c)
			sel := []any{map[string]any{"aggFn": "count", "where": "", "whereLanguage": "sql"}}
			d := c.expect(200, "POST", base, map[string]any{"name": "fitYAxisToData dashboard", "tags": []any{}, "tiles": []any{
				map[string]any{"name": "Fit Line", "x": 0, "y": 0, "w": 6, "h": 3, "config": builder("line", trace, "select", sel, "fitYAxisToData", true)},
				map[string]any{"name": "Bar", "x": 6, "y": 0, "w": 6, "h": 3, "config": builder("stacked_bar", trace, "select", sel, "fitYAxisToData", false)},
				map[string]any{"name": "Unset Line", "x": 12, "y": 0, "w": 6, "h": 3, "config": builder("line", trace, "select", sel)},
			}}).data()
			tiles := c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()["tiles"].([]any)
			cfg := func(i int) map[string]any { return tiles[i].(map[string]any)["config"].(map[string]any) }
			assert.Equal(t, true, cfg(0)["fitYAxisToData"])
			assert.False(t, hasKey(cfg(1), "fitYAxisToData"))
			assert.False(t, hasKey(cfg(2), "fitYAxisToData"))
		}},

		{"should return 400 when source IDs do not exist", func(c *contractFixture) {
			sources(c)
			missing := newID()
			r := c.expect(400, "POST", base, mockDashboard(missing))
			assert.Equal(t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should return 400 when a table tile onClick references a non-existent source", func(c *contractFixture) {
			trace, _ := sources(c)
			missing := newID()
			r := c.expect(400, "POST", base, onClickDashboard("Dashboard with invalid onClick source", onClickTable("Table Chart", trace, onClickTo("search", missing))))
			assert.Equal(t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should return 400 when a table tile onClick search target references a metric source", func(c *contractFixture) {
			trace, metric := sources(c)
			r := c.expect(400, "POST", base, onClickDashboard("Dashboard with metric onClick source", onClickTable("Table Chart", trace, onClickTo("search", metric))))
			assert.Equal(t, map[string]any{"message": "The following onClick search source IDs are not log or trace sources: " + metric}, r.body)
		}},
		{"should return 400 when a table tile onClick references a non-existent dashboard", func(c *contractFixture) {
			trace, _ := sources(c)
			missing := newID()
			r := c.expect(400, "POST", base, onClickDashboard("Dashboard with invalid onClick dashboard", onClickTable("Table Chart", trace, onClickTo("dashboard", missing))))
			assert.Equal(t, map[string]any{"message": "Could not find the following onClick dashboard IDs: " + missing}, r.body)
		}},
		{"should return 400 when an onClick dashboard belongs to another team", func(c *contractFixture) {
			trace, _ := sources(c)
			other := c.put("other-"+c.team, kindDashboard, map[string]any{"name": "Other Team Dashboard", "tiles": []any{}})
			r := c.expect(400, "POST", base, onClickDashboard("Dashboard referencing cross-team dashboard", onClickTable("Table Chart", trace, onClickTo("dashboard", other))))
			assert.Equal(t, map[string]any{"message": "Could not find the following onClick dashboard IDs: " + other}, r.body)
		}},
		{"should accept a table tile onClick with valid id references", func(c *contractFixture) {
			trace, _ := sources(c)
			target := testDashboard(c, "name", "OnClick Target Dashboard")
			d := c.expect(200, "POST", base, onClickDashboard("Dashboard with valid onClick references",
				onClickTable("Search Link Table", trace, onClickTo("search", trace)),
				with(onClickTable("Dashboard Link Table", trace, onClickTo("dashboard", target)), "x", 6),
			)).data()
			tiles := d["tiles"].([]any)
			assert.Equal(t, onClickTo("search", trace), tiles[0].(map[string]any)["config"].(map[string]any)["onClick"])
			assert.Equal(t, onClickTo("dashboard", target), tiles[1].(map[string]any)["config"].(map[string]any)["onClick"])
		}},
		{"should accept and round-trip a table tile external onClick link", func(c *contractFixture) {
			trace, _ := sources(c)
			link := map[string]any{"type": "external", "urlTemplate": "https://grafana.example.com/d/abc?var-service={{ServiceName}}"}
			d := c.expect(200, "POST", base, onClickDashboard("Dashboard with external onClick", onClickTable("External Link Table", trace, link))).data()
			assert.Equal(t, link, d["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any)["onClick"])
		}},
		{"should return 400 when a table tile onClick target.id is not a valid ObjectId", func(c *contractFixture) {
			trace, _ := sources(c)
			// Ids here are not ObjectIds: the id names no dashboard of the
			// team, which is the 400.
			r := c.expect(400, "POST", base, onClickDashboard("Dashboard with invalid onClick id", onClickTable("Table Chart", trace, onClickTo("dashboard", "not-a-valid-object-id"))))
			assert.Regexp(t, `(?i)Invalid|validation|id`, r.message())
		}},
		{"should create a dashboard with filters", func(c *contractFixture) {
			trace, metric := sources(c)
			filters := []any{
				map[string]any{"type": "QUERY_EXPRESSION", "name": "Environment", "expression": "environment", "sourceId": trace},
				map[string]any{"type": "QUERY_EXPRESSION", "name": "Service Filter", "expression": "service_name", "sourceId": trace, "appliesToSourceIds": []any{trace}},
				map[string]any{
					"type": "QUERY_EXPRESSION", "name": "Region (Filtered)", "expression": "region", "sourceId": trace,
					"where": "environment = 'production'", "whereLanguage": "sql", "appliesToSourceIds": []any{trace, metric},
				},
			}
			d := c.expect(200, "POST", base, map[string]any{"name": "Dashboard with Filters", "tiles": []any{externalTile(trace)}, "tags": []any{"external-api", "test"}, "filters": filters}).data()
			got := d["filters"].([]any)
			require.Len(t, got, 3)
			for i, f := range got {
				m := f.(map[string]any)
				assert.NotEmpty(t, m["id"])
				assert.Equal(t, "QUERY_EXPRESSION", m["type"])
				assert.Equal(t, trace, m["sourceId"])
				assert.Equal(t, filters[i].(map[string]any)["name"], m["name"])
			}
			assert.False(t, hasKey(got[0].(map[string]any), "appliesToSourceIds"))
			assert.Equal(t, []any{trace}, got[1].(map[string]any)["appliesToSourceIds"])
			assert.Equal(t, "environment = 'production'", got[2].(map[string]any)["where"])
			assert.Equal(t, "sql", got[2].(map[string]any)["whereLanguage"])
			assert.Equal(t, []any{trace, metric}, got[2].(map[string]any)["appliesToSourceIds"])
			assert.Equal(t, got, c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()["filters"])
		}},

		{"should round-trip the filter variable settings", func(c *contractFixture) {
			trace, _ := sources(c)
			filter := func(name, expr string, kv ...any) map[string]any {
				return with(map[string]any{"type": "QUERY_EXPRESSION", "name": name, "expression": expr, "sourceId": trace}, kv...)
			}
			body := mockDashboardWithIDs(trace, "filters", []any{
				filter("Environment", "environment", "isBroadcastEnabled", true, "isVariableEnabled", false),
				filter("Service Name", "ServiceName", "isBroadcastEnabled", false, "isVariableEnabled", true, "variableName", "service"),
				filter("Region Name", "region", "isVariableEnabled", true),
			})
			d := c.expect(200, "POST", base, body).data()
			got := d["filters"].([]any)
			want := []map[string]any{
				{"name": "Environment", "isBroadcastEnabled": true, "isVariableEnabled": false},
				{"name": "Service Name", "isBroadcastEnabled": false, "isVariableEnabled": true, "variableName": "service"},
				{"name": "Region Name", "isVariableEnabled": true},
			}
			require.Len(t, got, 3)
			for i, w := range want {
				for k, v := range w {
					assert.Equal(t, v, got[i].(map[string]any)[k], "%d %s", i, k)
				}
			}
			assert.False(t, hasKey(got[2].(map[string]any), "isBroadcastEnabled"))
			assert.False(t, hasKey(got[2].(map[string]any), "variableName"))
			assert.Equal(t, got, c.expect(200, "GET", base+"/"+d["id"].(string), nil).data()["filters"])
			stored := c.stored(kindDashboard, d["id"].(string))["filters"].([]any)
			assert.False(t, hasKey(stored[2].(map[string]any), "isBroadcastEnabled"))
			assert.Equal(t, "service", stored[1].(map[string]any)["variableName"])
		}},
		{"should return 400 when filter source ID does not exist", func(c *contractFixture) {
			trace, _ := sources(c)
			missing := newID()
			r := c.expect(400, "POST", base, map[string]any{
				"name": "Dashboard with Bad Filter Source", "tiles": []any{externalTile(trace)}, "tags": []any{"external-api", "test"},
				"filters": []any{map[string]any{"type": "QUERY_EXPRESSION", "name": "Bad Source Filter", "expression": "environment", "sourceId": missing}},
			})
			assert.Equal(t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should return 400 when create filter includes id", func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(400, "POST", base, map[string]any{
				"name": "Dashboard with Invalid Filter ID", "tiles": []any{externalTile(trace)}, "tags": []any{"external-api", "test"},
				"filters": []any{map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Filter with ID", "expression": "environment", "sourceId": trace}},
			})
		}},
		// PUT /:id
		{"should update an existing dashboard", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "name", "Updated Dashboard Name")).data()
			assert.Equal(t, id, d["id"])
			assert.Equal(t, "Updated Dashboard Name", d["name"])
			for _, tl := range d["tiles"].([]any) {
				assert.Equal(t, "Test Chart", tl.(map[string]any)["name"])
			}
			assert.IsType(t, []any{}, d["filters"])
			stored := c.stored(kindDashboard, id)
			assert.Equal(t, "Updated Dashboard Name", stored["name"])
			assert.Len(t, stored["tiles"], 2)
		}},
		{"should return 400 when savedQueryLanguage is null and savedQuery is provided on update", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			body := mockDashboardWithIDs(trace, "savedQuery", "service.name = 'api'")
			body["savedQueryLanguage"] = nil
			assert.Contains(t, c.expect(400, "PUT", base+"/"+id, body).message(), "savedQueryLanguage cannot be null when savedQuery is provided")
		}},
		{"persists seriesLimit on line and stacked_bar tiles through update and get", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			sel := []any{map[string]any{"aggFn": "count", "alias": "Count", "where": "", "whereLanguage": "sql"}}
			d := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Dashboard with series limits", "tiles": []any{
				map[string]any{"id": newID(), "name": "Line with series limit", "x": 0, "y": 0, "w": 6, "h": 3, "config": builder("line", trace, "select", sel, "groupBy", "ServiceName", "seriesLimit", 15)},
				map[string]any{"id": newID(), "name": "Stacked bar with series limit", "x": 6, "y": 0, "w": 6, "h": 3, "config": builder("stacked_bar", trace, "select", sel, "groupBy", "ServiceName", "seriesLimit", 3)},
			}}).data()
			for _, m := range []map[string]any{d, c.expect(200, "GET", base+"/"+id, nil).data()} {
				tiles := m["tiles"].([]any)
				assert.Equal(t, 15.0, tiles[0].(map[string]any)["config"].(map[string]any)["seriesLimit"])
				assert.Equal(t, 3.0, tiles[1].(map[string]any)["config"].(map[string]any)["seriesLimit"])
			}
		}},
		{"should round-trip the filter variable settings", func(c *contractFixture) {
			trace, _ := sources(c)
			fid := newID()
			stored := map[string]any{"id": fid, "type": "QUERY_EXPRESSION", "name": "Service Name", "expression": "ServiceName", "sourceId": trace}
			id := testDashboard(c, "filters", []any{stored})
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "filters", []any{
				with(stored, "isBroadcastEnabled", false, "isVariableEnabled", true, "variableName", "Service_Name"),
			})).data()
			for _, f := range []map[string]any{d["filters"].([]any)[0].(map[string]any), c.stored(kindDashboard, id)["filters"].([]any)[0].(map[string]any)} {
				assert.Equal(t, fid, f["id"])
				assert.Equal(t, false, f["isBroadcastEnabled"])
				assert.Equal(t, true, f["isVariableEnabled"])
				assert.Equal(t, "Service_Name", f["variableName"])
			}
		}},
		{"should clear the filter variable settings when an update omits them", func(c *contractFixture) {
			trace, _ := sources(c)
			fid := newID()
			plain := map[string]any{"id": fid, "type": "QUERY_EXPRESSION", "name": "Service Name", "expression": "ServiceName", "sourceId": trace}
			id := testDashboard(c, "filters", []any{with(plain, "isBroadcastEnabled", false, "isVariableEnabled", true, "variableName", "service")})
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "filters", []any{plain})).data()
			f := d["filters"].([]any)[0].(map[string]any)
			assert.Equal(t, fid, f["id"])
			for _, k := range []string{"isBroadcastEnabled", "isVariableEnabled", "variableName"} {
				assert.False(t, hasKey(f, k), k)
			}
			sf := c.stored(kindDashboard, id)["filters"].([]any)[0].(map[string]any)
			assert.False(t, hasKey(sf, "isVariableEnabled"))
			assert.False(t, hasKey(sf, "variableName"))
		}},
	}
	replay(t, "dashboards.int.test.ts", cases)
}

// dashboardSources are the trace and metric sources the dashboards
// test file's beforeEach makes (HyperDX's trace and metric source
// fixtures), as otelhouse documents.
func dashboardSources(c *contractFixture) (trace, metric string) {
	trace = c.put("", kindSource, map[string]any{"name": "Traces", "kind": "trace", "database": "default", "table": "otel_traces", "timestampColumn": "Timestamp"})
	metric = c.put("", kindSource, map[string]any{"name": "Metrics", "kind": "metric", "database": "default", "table": "otel_metrics_gauge", "timestampColumn": "TimeUnix"})
	return trace, metric
}

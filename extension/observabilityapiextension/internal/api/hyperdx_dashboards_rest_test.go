package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	domainsources "github.com/otelhouse/otelhouse/internal/domain/sources"
)

// Replays the rest of HyperDX's dashboards.int.test.ts, from its "new
// format" PUT case "omits the ignored fields on read so a stored filter
// round-trips" to the file's end: the rest of PUT /:id, the filter
// validation run on both POST and PUT, number tile colours and background
// charts, chart formulas, containers and tabs, savedFilterValues, DELETE,
// authentication and POST /validate. HyperDX's `connection` fixture is the
// team's default connection, which the case's sources read.
func TestHyperDXDashboardsRest(t *testing.T) {
	const base = "/api/v2/dashboards"
	sources := dashboardSources
	connection := func(c *contractFixture) string { return domainsources.DefaultConnectionID(c.team) }
	countSelect := []any{map[string]any{"aggFn": "count", "where": ""}}
	externalTile := func(src string) map[string]any {
		return map[string]any{"name": "Test Chart", "x": 1, "y": 1, "w": 1, "h": 1, "config": map[string]any{"displayType": "line", "sourceId": src, "select": countSelect}}
	}
	mockDashboard := func(src string, kv ...any) map[string]any {
		return with(map[string]any{"name": "Test External Dashboard", "tiles": []any{externalTile(src), externalTile(src)}, "tags": []any{"external-api", "test"}}, kv...)
	}
	mockDashboardWithIDs := func(src string, kv ...any) map[string]any {
		return with(map[string]any{
			"name": "Test External Dashboard with IDs", "tiles": []any{with(externalTile(src), "id", newID()), with(externalTile(src), "id", newID())},
			"tags": []any{"external-api", "test"}, "filters": []any{},
		}, kv...)
	}
	testDashboard := func(c *contractFixture, kv ...any) string {
		return c.put("", kindDashboard, with(map[string]any{"name": "Test Dashboard", "tiles": []any{}}, kv...))
	}
	timeSeries := func(src string) map[string]any {
		return map[string]any{"id": newID(), "name": "Time Series Chart", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{"displayType": "line", "sourceId": src, "select": countSelect}}
	}
	tileOf := func(r hxResp, i int) map[string]any { return r.data()["tiles"].([]any)[i].(map[string]any) }
	cfgOf := func(r hxResp, i int) map[string]any { return tileOf(r, i)["config"].(map[string]any) }
	noID := func(m map[string]any) map[string]any { return with(m, "id", nil) }
	// setStored changes a stored dashboard in place, as the file's
	// Dashboard.updateOne({$set}) on the Mongo document.
	setStored := func(c *contractFixture, id string, change func(d map[string]any)) {
		res, err := c.fx.server.opts.Store.Get(context.Background(), c.team, kindDashboard, id)
		require.NoError(c.t, err)
		var m map[string]any
		require.NoError(c.t, json.Unmarshal(res.Doc, &m))
		change(m)
		b, _ := json.Marshal(m)
		require.NoError(c.t, c.fx.server.opts.Store.Put(context.Background(), c.team, kindDashboard, id, b, res.CreatedAt, time.Now()))
	}
	firstTile := func(d map[string]any) map[string]any { return d["tiles"].([]any)[0].(map[string]any) }

	cases := []hxCase{
		// PUT /:id, continued.
		{"omits the ignored fields on read so a stored filter round-trips", func(c *contractFixture) {
			trace, _ := sources(c)
			variableOnly, broadcastOnly := newID(), newID()
			id := testDashboard(c, "filters", []any{
				map[string]any{
					"id": variableOnly, "type": "QUERY_EXPRESSION", "name": "Service Name", "expression": "ServiceName", "sourceId": trace,
					"isBroadcastEnabled": false, "isVariableEnabled": true, "variableName": "service", "appliesToSourceIds": []any{trace},
				},
				map[string]any{
					"id": broadcastOnly, "type": "QUERY_EXPRESSION", "name": "Environment", "expression": "environment", "sourceId": trace,
					"isBroadcastEnabled": true, "isVariableEnabled": false, "variableName": "environment",
				},
			})
			get := c.expect(200, "GET", base+"/"+id, nil).data()
			filters := get["filters"].([]any)
			v, b := filters[0].(map[string]any), filters[1].(map[string]any)
			assert.Equal(c.t, variableOnly, v["id"])
			assert.Equal(c.t, false, v["isBroadcastEnabled"])
			assert.Equal(c.t, "service", v["variableName"])
			assert.False(c.t, hasKey(v, "appliesToSourceIds"))
			assert.Equal(c.t, broadcastOnly, b["id"])
			assert.Equal(c.t, true, b["isBroadcastEnabled"])
			assert.False(c.t, hasKey(b, "variableName"))
			put := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": get["name"], "tiles": get["tiles"], "filters": get["filters"]}).data()
			assert.Equal(c.t, get["filters"], put["filters"])
			stored := c.stored(kindDashboard, id)["filters"].([]any)
			assert.False(c.t, hasKey(stored[0].(map[string]any), "appliesToSourceIds"))
			assert.False(c.t, hasKey(stored[1].(map[string]any), "variableName"))
		}},
		{"should clear existing dashboard filters when provided an empty filters array", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c, "filters", []any{
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 1", "expression": "environment", "sourceId": trace},
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 2", "expression": "service_name", "sourceId": trace},
			})
			d := c.expect(200, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "name", "Dashboard Name Updated With Empty Filters", "filters", []any{})).data()
			assert.Equal(c.t, "Dashboard Name Updated With Empty Filters", d["name"])
			assert.Equal(c.t, []any{}, d["filters"])
			assert.Equal(c.t, []any{}, c.expect(200, "GET", base+"/"+id, nil).data()["filters"])
		}},
		{"should return 400 when filter source ID does not exist on update", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			missing := newID()
			r := c.expect(400, "PUT", base+"/"+id, mockDashboardWithIDs(trace, "name", "Updated Name", "filters", []any{map[string]any{
				"id": newID(), "type": "QUERY_EXPRESSION", "name": "Bad Source Filter", "expression": "environment", "sourceId": missing,
			}}))
			assert.Equal(c.t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should return 404 when dashboard does not exist", func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(404, "PUT", base+"/"+newID(), mockDashboardWithIDs(trace))
		}},
		{"should preserve tile IDs that match existing tiles and generate new IDs for unrecognized tiles", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			first := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Initial", "tiles": []any{timeSeries(trace)}, "tags": []any{}})
			existing := tileOf(first, 0)["id"]
			unknown := newID()
			r := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Updated", "tags": []any{}, "tiles": []any{
				with(timeSeries(trace), "id", existing), with(timeSeries(trace), "id", unknown, "x", 6),
			}})
			assert.Equal(c.t, existing, tileOf(r, 0)["id"])
			assert.NotEqual(c.t, unknown, tileOf(r, 1)["id"])
			assert.IsType(c.t, "", tileOf(r, 1)["id"])
			assert.NotEmpty(c.t, tileOf(r, 1)["id"])
		}},
		{"should preserve filter IDs that match existing filters and generate new IDs for unrecognized filters", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			filter := func(fid, name, expr string) map[string]any {
				return map[string]any{"id": fid, "type": "QUERY_EXPRESSION", "name": name, "expression": expr, "sourceId": trace}
			}
			first := c.expect(200, "PUT", base+"/"+id, map[string]any{
				"name": "Initial", "tiles": []any{timeSeries(trace)}, "tags": []any{}, "filters": []any{filter(newID(), "Environment", "environment")},
			}).data()
			existing := first["filters"].([]any)[0].(map[string]any)["id"]
			unknown := newID()
			got := c.expect(200, "PUT", base+"/"+id, map[string]any{
				"name": "Updated", "tiles": []any{timeSeries(trace)}, "tags": []any{},
				"filters": []any{filter(existing.(string), "Environment", "environment"), filter(unknown, "Service", "service_name")},
			}).data()["filters"].([]any)
			assert.Equal(c.t, existing, got[0].(map[string]any)["id"])
			assert.NotEqual(c.t, unknown, got[1].(map[string]any)["id"])
			assert.NotEmpty(c.t, got[1].(map[string]any)["id"])
		}},
		{"can round-trip all raw SQL chart config types", func(c *contractFixture) {
			trace, _ := sources(c)
			conn := connection(c)
			const sqlTemplate = "SELECT count() FROM otel_logs WHERE {timeFilter}"
			raw := func(name string, x, y int, display string, kv ...any) map[string]any {
				return map[string]any{"id": newID(), "name": name, "x": x, "y": y, "w": 6, "h": 3, "config": with(map[string]any{
					"configType": "sql", "displayType": display, "connectionId": conn, "sqlTemplate": sqlTemplate, "sourceId": trace,
				}, kv...)}
			}
			tiles := []map[string]any{
				raw("Line Raw SQL", 0, 0, "line", "compareToPreviousPeriod", true, "fillNulls", true, "alignDateRangeToGranularity", true,
					"fitYAxisToData", true, "numberFormat", map[string]any{"output": "number", "mantissa": 2}),
				raw("Bar Raw SQL", 6, 0, "stacked_bar", "fillNulls", false, "alignDateRangeToGranularity", false,
					"numberFormat", map[string]any{"output": "byte", "decimalBytes": true}),
				raw("Table Raw SQL", 0, 3, "table", "numberFormat", map[string]any{"output": "percent", "mantissa": 1},
					"onClick", map[string]any{"type": "dashboard", "target": map[string]any{"mode": "template", "template": "{{dashboardName}}"}, "whereLanguage": "lucene"}),
				raw("Number Raw SQL", 6, 3, "number", "numberFormat", map[string]any{"output": "currency", "currencySymbol": "$"}, "color", "chart-purple"),
				raw("Pie Raw SQL", 12, 3, "pie"),
				raw("Categorical Bar Raw SQL", 18, 3, "bar"),
			}
			sent := []any{}
			for _, tl := range tiles {
				sent = append(sent, tl)
			}
			id := testDashboard(c)
			r := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Dashboard with Raw SQL Chart Types", "tiles": sent, "tags": []any{"raw-sql-test"}})
			for i, tl := range tiles {
				// toEqual on the JSON both sides: numbers compare as JSON's.
				want, _ := json.Marshal(noID(tl))
				got, _ := json.Marshal(noID(tileOf(r, i)))
				assert.JSONEq(c.t, string(want), string(got), tl["name"])
			}
		}},
		{"should return 400 when source IDs do not exist", func(c *contractFixture) {
			sources(c)
			id := testDashboard(c)
			missing := newID()
			r := c.expect(400, "PUT", base+"/"+id, mockDashboardWithIDs(missing, "name", "Updated Dashboard Name"))
			assert.Equal(c.t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should return 400 when connection ID does not belong to the team", func(c *contractFixture) {
			sources(c)
			id := testDashboard(c)
			other := c.put("other-"+c.team, kindConn, map[string]any{"name": "Other Team Connection", "host": "http://localhost:8123", "username": "default", "password": ""})
			r := c.expect(400, "PUT", base+"/"+id, map[string]any{"name": "Updated Dashboard with Foreign Connection", "tags": []any{}, "tiles": []any{
				map[string]any{"id": newID(), "name": "Raw SQL Tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"configType": "sql", "displayType": "line", "connectionId": other, "sqlTemplate": "SELECT count() FROM otel_logs WHERE {timeFilter}",
				}},
			}})
			assert.Equal(c.t, map[string]any{"message": "Could not find the following connection IDs: " + other}, r.body)
		}},
		{"should return 400 when source connection does not match tile connection", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			other := c.put("", kindConn, map[string]any{"name": "Other Connection", "host": "http://localhost:8123", "username": "default", "password": ""})
			r := c.expect(400, "PUT", base+"/"+id, map[string]any{"name": "Updated Dashboard with Mismatched Source Connection", "tags": []any{}, "tiles": []any{
				map[string]any{"id": newID(), "name": "Raw SQL Tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"configType": "sql", "displayType": "table", "connectionId": other, "sourceId": trace, "sqlTemplate": "SELECT count() FROM otel_logs",
				}},
			}})
			assert.Equal(c.t, map[string]any{"message": "The following source IDs do not match the specified connections: " + trace}, r.body)
		}},
		{"should return 400 on update when a table tile onClick references a non-existent dashboard", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			missing := newID()
			r := c.expect(400, "PUT", base+"/"+id, map[string]any{"name": "Updated Dashboard", "tags": []any{}, "tiles": []any{
				map[string]any{"id": newID(), "name": "Table Chart", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"displayType": "table", "sourceId": trace, "select": []any{map[string]any{"aggFn": "count"}},
					"onClick": map[string]any{"type": "dashboard", "target": map[string]any{"mode": "id", "id": missing}, "whereLanguage": "sql"},
				}},
			}})
			assert.Equal(c.t, map[string]any{"message": "Could not find the following onClick dashboard IDs: " + missing}, r.body)
		}},
		{"should return 400 on update when a table tile onClick references a non-existent source", func(c *contractFixture) {
			trace, _ := sources(c)
			id := testDashboard(c)
			missing := newID()
			r := c.expect(400, "PUT", base+"/"+id, map[string]any{"name": "Updated Dashboard", "tags": []any{}, "tiles": []any{
				map[string]any{"id": newID(), "name": "Table Chart", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"displayType": "table", "sourceId": trace, "select": []any{map[string]any{"aggFn": "count"}},
					"onClick": map[string]any{"type": "search", "target": map[string]any{"mode": "id", "id": missing}, "whereLanguage": "sql"},
				}},
			}})
			assert.Equal(c.t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		{"should delete alert when tile is updated from builder to raw SQL config and the display type does not support alerts", func(c *contractFixture) {
			trace, _ := sources(c)
			tileID := newID()
			storedCount := []any{map[string]any{"aggFn": "count", "where": "", "whereLanguage": "lucene", "valueExpression": ""}}
			id := testDashboard(c, "tiles", []any{map[string]any{"id": tileID, "name": "Builder Tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
				"displayType": "number", "sourceId": trace, "select": storedCount,
			}}})
			wh := c.put("", kindWebhook, map[string]any{"name": "Test Webhook", "service": "slack", "url": "https://hooks.slack.com/test"})
			alert := c.put("", kindAlert, map[string]any{
				"dashboardId": id, "tileId": tileID, "source": "tile", "threshold": 100, "interval": "1h", "thresholdType": "above",
				"channel": map[string]any{"type": "webhook", "webhookId": wh}, "state": "OK",
			})
			require.NotNil(c.t, c.stored(kindAlert, alert))
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Updated Dashboard", "tags": []any{}, "tiles": []any{
				map[string]any{"id": tileID, "name": "Raw SQL Tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"configType": "sql", "displayType": "table", "connectionId": connection(c), "sqlTemplate": "SELECT count() FROM otel_logs WHERE {timeFilter}",
				}},
			}})
			assert.Nil(c.t, c.stored(kindAlert, alert))
		}},
		{"should delete alert when a tile with an alert is removed from the dashboard", func(c *contractFixture) {
			trace, _ := sources(c)
			keep, remove := newID(), newID()
			storedLine := func(tid, name string, x int) map[string]any {
				return map[string]any{"id": tid, "name": name, "x": x, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"displayType": "line", "sourceId": trace, "select": []any{map[string]any{"aggFn": "count", "where": "", "whereLanguage": "lucene", "valueExpression": ""}},
				}}
			}
			id := testDashboard(c, "tiles", []any{storedLine(keep, "Keep Tile", 0), storedLine(remove, "Remove Tile", 6)})
			wh := c.put("", kindWebhook, map[string]any{"name": "Test Webhook", "service": "slack", "url": "https://hooks.slack.com/test"})
			alert := c.put("", kindAlert, map[string]any{
				"dashboardId": id, "tileId": remove, "source": "tile", "threshold": 100, "interval": "1h", "thresholdType": "above",
				"channel": map[string]any{"type": "webhook", "webhookId": wh}, "state": "OK",
			})
			require.NotNil(c.t, c.stored(kindAlert, alert))
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Updated Dashboard", "tags": []any{}, "tiles": []any{
				map[string]any{"id": keep, "name": "Keep Tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
					"displayType": "line", "sourceId": trace, "select": countSelect,
				}},
			}})
			assert.Nil(c.t, c.stored(kindAlert, alert))
		}},
	}

	// The filter validation describe, run on both paths: a create body's
	// filters shed their ids, an update's keep them.
	for _, method := range []string{"POST", "PUT"} {
		send := func(c *contractFixture, trace string, filters ...map[string]any) hxResp {
			list := []any{}
			for _, f := range filters {
				if method == "POST" {
					f = with(f, "id", nil)
				}
				list = append(list, f)
			}
			body := with(mockDashboardWithIDs(trace), "filters", list)
			if method == "POST" {
				return c.do("POST", base, body)
			}
			return c.do("PUT", base+"/"+testDashboard(c), body)
		}
		filterInput := func(trace string, kv ...any) map[string]any {
			return with(map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Service Name", "expression": "ServiceName", "sourceId": trace}, kv...)
		}
		variableFilter := func(trace string, kv ...any) map[string]any {
			return with(filterInput(trace, "isVariableEnabled", true, "variableName", "service"), kv...)
		}
		staticFilter := func(kv ...any) map[string]any {
			return with(map[string]any{
				"id": newID(), "type": "STATIC_LIST", "name": "Environment", "options": []any{"prod", "staging", "dev"},
				"isBroadcastEnabled": false, "isVariableEnabled": true, "variableName": "env",
			}, kv...)
		}
		status := func(want int, build func(trace string) []map[string]any) func(c *contractFixture) {
			return func(c *contractFixture) {
				trace, _ := sources(c)
				r := send(c, trace, build(trace)...)
				assert.Equal(c.t, want, r.status, "%s", r.raw)
			}
		}
		contains := func(want int, text string, build func(trace string) []map[string]any) func(c *contractFixture) {
			return func(c *contractFixture) {
				trace, _ := sources(c)
				r := send(c, trace, build(trace)...)
				assert.Equal(c.t, want, r.status, "%s", r.raw)
				assert.Contains(c.t, string(r.raw), text)
			}
		}
		one := func(f func(trace string) map[string]any) func(string) []map[string]any {
			return func(trace string) []map[string]any { return []map[string]any{f(trace)} }
		}
		cases = append(cases,
			hxCase{"rejects a variableName that is not a bare token", status(400, one(func(tr string) map[string]any {
				return filterInput(tr, "isVariableEnabled", true, "variableName", "has space")
			}))},
			hxCase{"rejects two variable-enabled filters sharing a variable name", status(400, func(tr string) []map[string]any {
				return []map[string]any{variableFilter(tr), variableFilter(tr)}
			})},
			hxCase{"rejects a clash against a name derived from the filter name", status(400, func(tr string) []map[string]any {
				return []map[string]any{variableFilter(tr, "name", "Service Name", "variableName", nil), variableFilter(tr, "variableName", "Service_Name")}
			})},
			hxCase{"accepts distinct variable names", status(200, func(tr string) []map[string]any {
				return []map[string]any{variableFilter(tr, "variableName", "service"), variableFilter(tr, "variableName", "environment")}
			})},
			hxCase{"accepts duplicate names when the filters are not variable-enabled", status(200, func(tr string) []map[string]any {
				return []map[string]any{
					variableFilter(tr, "isVariableEnabled", false, "variableName", nil),
					variableFilter(tr, "isVariableEnabled", nil, "variableName", nil),
				}
			})},
			hxCase{"accepts identically named filters that carry no variable fields", status(200, func(tr string) []map[string]any {
				return []map[string]any{
					variableFilter(tr, "isVariableEnabled", nil, "variableName", nil),
					variableFilter(tr, "isVariableEnabled", nil, "variableName", nil),
				}
			})},
			hxCase{"rejects a variable-enabled filter with no usable variable name", status(400, one(func(tr string) map[string]any {
				return variableFilter(tr, "name", "环境", "variableName", nil)
			}))},
			hxCase{"accepts an unusable filter name when an explicit variable name is sent", status(200, one(func(tr string) map[string]any {
				return variableFilter(tr, "name", "环境", "variableName", "env")
			}))},
			hxCase{"accepts an unusable filter name when the filter is not variable-enabled", status(200, one(func(tr string) map[string]any {
				return variableFilter(tr, "name", "环境", "variableName", nil, "isVariableEnabled", false)
			}))},
			hxCase{"rejects a filter with both modes off", contains(400, "must broadcast its value, be available as a variable, or both", one(func(tr string) map[string]any {
				return filterInput(tr, "isBroadcastEnabled", false, "isVariableEnabled", false)
			}))},
			hxCase{"treats an omitted variable flag as off", status(400, one(func(tr string) map[string]any {
				return filterInput(tr, "isBroadcastEnabled", false)
			}))},
			hxCase{"accepts broadcast-only and variable-only filters", status(200, func(tr string) []map[string]any {
				return []map[string]any{
					filterInput(tr, "isBroadcastEnabled", true, "isVariableEnabled", false),
					filterInput(tr, "isBroadcastEnabled", false, "isVariableEnabled", true, "variableName", "service"),
				}
			})},
			hxCase{"accepts a filter that carries neither flag", func(c *contractFixture) {
				trace, _ := sources(c)
				r := send(c, trace, filterInput(trace))
				require.Equal(c.t, 200, r.status, "%s", r.raw)
				assert.False(c.t, hasKey(r.data()["filters"].([]any)[0].(map[string]any), "isBroadcastEnabled"))
			}},
			hxCase{"rejects a variableName on a filter that is not variable-enabled", contains(400, "sets variableName but is not available as a variable", one(func(tr string) map[string]any {
				return filterInput(tr, "isVariableEnabled", false, "variableName", "service")
			}))},
			hxCase{"rejects a variableName when the variable flag is omitted", status(400, one(func(tr string) map[string]any {
				return filterInput(tr, "variableName", "service")
			}))},
			hxCase{"rejects appliesToSourceIds on a filter that does not broadcast", contains(400, "sets appliesToSourceIds but does not broadcast its value", one(func(tr string) map[string]any {
				return filterInput(tr, "isBroadcastEnabled", false, "isVariableEnabled", true, "variableName", "service", "appliesToSourceIds", []any{tr})
			}))},
			hxCase{"accepts an empty appliesToSourceIds on a non-broadcasting filter", status(200, one(func(tr string) map[string]any {
				return filterInput(tr, "isBroadcastEnabled", false, "isVariableEnabled", true, "variableName", "service", "appliesToSourceIds", []any{})
			}))},
			hxCase{"accepts appliesToSourceIds when the broadcast flag is omitted", status(200, one(func(tr string) map[string]any {
				return filterInput(tr, "appliesToSourceIds", []any{tr})
			}))},
			hxCase{"accepts a static-list filter and round-trips it through GET", func(c *contractFixture) {
				trace, _ := sources(c)
				r := send(c, trace, staticFilter())
				require.Equal(c.t, 200, r.status, "%s", r.raw)
				f := r.data()["filters"].([]any)[0].(map[string]any)
				for k, v := range map[string]any{
					"type": "STATIC_LIST", "name": "Environment", "options": []any{"prod", "staging", "dev"},
					"isBroadcastEnabled": false, "isVariableEnabled": true, "variableName": "env",
				} {
					assert.Equal(c.t, v, f[k], k)
				}
				assert.False(c.t, hasKey(f, "sourceId"))
				assert.False(c.t, hasKey(f, "expression"))
				get := c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil).data()
				assert.Equal(c.t, r.data()["filters"], get["filters"])
			}},
			hxCase{"accepts a static filter alongside a queried one", func(c *contractFixture) {
				trace, _ := sources(c)
				r := send(c, trace, filterInput(trace), staticFilter())
				require.Equal(c.t, 200, r.status, "%s", r.raw)
				assert.Len(c.t, r.data()["filters"], 2)
			}},
			hxCase{"defaults the mode flags when they are omitted", func(c *contractFixture) {
				trace, _ := sources(c)
				r := send(c, trace, staticFilter("isBroadcastEnabled", nil, "isVariableEnabled", nil))
				require.Equal(c.t, 200, r.status, "%s", r.raw)
				f := r.data()["filters"].([]any)[0].(map[string]any)
				assert.Equal(c.t, false, f["isBroadcastEnabled"])
				assert.Equal(c.t, true, f["isVariableEnabled"])
				assert.Equal(c.t, "env", f["variableName"])
			}},
		)
		for _, row := range []struct {
			label string
			kv    []any
		}{
			{"broadcast enabled", []any{"isBroadcastEnabled", true}},
			{"not variable-enabled", []any{"isVariableEnabled", false}},
			{"no options", []any{"options", nil}},
			{"an empty option list", []any{"options", []any{}}},
			{"duplicate options", []any{"options", []any{"prod", "prod"}}},
		} {
			cases = append(cases, hxCase{"rejects a static filter with " + row.label, status(400, one(func(string) map[string]any {
				return staticFilter(row.kv...)
			}))})
		}
		for _, row := range []struct {
			label, key string
			value      any
		}{
			{"an expression", "expression", "ServiceName"},
			{"a sourceId", "sourceId", "65f5e4a3b9e77c001a111111"},
			{"a where clause", "where", "ServiceName = 'api'"},
			{"a where language", "whereLanguage", "sql"},
			{"applies-to sources", "appliesToSourceIds", []any{"65f5e4a3b9e77c001a111111"}},
		} {
			cases = append(cases, hxCase{"rejects a static filter carrying " + row.label, contains(400, fmt.Sprintf("Unrecognized key(s) in object: '%s'", row.key), one(func(string) map[string]any {
				return staticFilter(row.key, row.value)
			}))})
		}
		cases = append(cases,
			hxCase{"rejects options on a queried filter", contains(400, "Unrecognized key(s) in object: 'options'", one(func(tr string) map[string]any {
				return filterInput(tr, "options", []any{"prod"})
			}))},
		)
		for _, field := range []string{"expression", "sourceId"} {
			cases = append(cases, hxCase{"still rejects a queried filter with no " + field, contains(400, field, one(func(tr string) map[string]any {
				return filterInput(tr, field, nil)
			}))})
		}
		cases = append(cases, hxCase{"rejects an unknown filter type at the discriminator", contains(400, "Invalid discriminator value", one(func(string) map[string]any {
			return staticFilter("type", "STATIC")
		}))})
	}

	// Number tile color (HDX-1360).
	numberTile := func(trace string, kv ...any) map[string]any {
		return map[string]any{"name": "Number", "x": 0, "y": 0, "w": 3, "h": 3, "config": with(map[string]any{
			"displayType": "number", "sourceId": trace, "select": countSelect,
		}, kv...)}
	}
	postNumber := func(c *contractFixture, name string, tile map[string]any) hxResp {
		return c.do("POST", base, map[string]any{"name": name, "tiles": []any{tile}, "tags": []any{}})
	}
	rawSQLNumber := func(c *contractFixture, trace string, kv ...any) map[string]any {
		return map[string]any{"name": "Number Raw SQL", "x": 0, "y": 0, "w": 3, "h": 3, "config": with(map[string]any{
			"configType": "sql", "displayType": "number", "connectionId": connection(c),
			"sqlTemplate": "SELECT count() FROM otel_logs WHERE {timeFilter}", "sourceId": trace,
		}, kv...)}
	}
	colorTile := func(c *contractFixture, kv ...any) hxResp {
		trace, _ := sources(c)
		return postNumber(c, "Number color dashboard", numberTile(trace, kv...))
	}
	refused := func(c *contractFixture, r hxResp, field string) {
		require.Equal(c.t, 400, r.status, "%s", r.raw)
		if field != "" {
			assert.Contains(c.t, r.message(), field)
		}
	}
	rule := func(op string, value any, color string, kv ...any) map[string]any {
		return with(map[string]any{"operator": op, "value": value, "color": color}, kv...)
	}
	cases = append(cases,
		hxCase{"round-trips a builder number tile with a static color", func(c *contractFixture) {
			r := colorTile(c, "color", "chart-red")
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			assert.Equal(c.t, "chart-red", cfgOf(r, 0)["color"])
			assert.Equal(c.t, "chart-red", cfgOf(c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil), 0)["color"])
		}},
		hxCase{"round-trips colorRules covering each operator family", func(c *contractFixture) {
			rules := []any{
				rule("gt", 1000.0, "chart-warning", "label", "Slow"),
				rule("gte", 5000.0, "chart-error", "label", "Critical"),
				rule("lt", 0.0, "chart-gray"),
				rule("lte", 10.0, "chart-purple"),
				rule("between", []any{200.0, 1000.0}, "chart-blue"),
				rule("eq", 0.0, "chart-cyan"),
				rule("neq", "OK", "chart-success"),
			}
			r := colorTile(c, "colorRules", rules)
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			assert.Equal(c.t, rules, cfgOf(r, 0)["colorRules"])
			assert.Equal(c.t, rules, cfgOf(c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil), 0)["colorRules"])
		}},
		hxCase{"round-trips a raw SQL number tile with a static color", func(c *contractFixture) {
			trace, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{"name": "Raw SQL number color", "tiles": []any{rawSQLNumber(c, trace, "color", "chart-blue")}, "tags": []any{}})
			assert.Equal(c.t, "chart-blue", cfgOf(r, 0)["color"])
			assert.Equal(c.t, "chart-blue", cfgOf(c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil), 0)["color"])
		}},
		hxCase{"round-trips color and colorRules through an update (PUT)", func(c *contractFixture) {
			created := colorTile(c)
			require.Equal(c.t, 200, created.status, "%s", created.raw)
			id := created.data()["id"].(string)
			tile := tileOf(created, 0)
			rules := []any{rule("gte", 5000.0, "chart-error", "label", "Critical"), rule("between", []any{200.0, 1000.0}, "chart-blue")}
			update := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Number color dashboard", "tags": []any{}, "tiles": []any{
				with(tile, "config", with(tile["config"].(map[string]any), "color", "chart-red", "colorRules", rules)),
			}})
			for _, r := range []hxResp{update, c.expect(200, "GET", base+"/"+id, nil)} {
				assert.Equal(c.t, "chart-red", cfgOf(r, 0)["color"])
				assert.Equal(c.t, rules, cfgOf(r, 0)["colorRules"])
			}
		}},
		hxCase{"strips colorRules from a raw SQL number tile, keeping color", func(c *contractFixture) {
			trace, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{"name": "Raw SQL colorRules", "tags": []any{}, "tiles": []any{
				rawSQLNumber(c, trace, "color", "chart-blue", "colorRules", []any{rule("gt", 1, "chart-red")}),
			}})
			assert.Equal(c.t, "chart-blue", cfgOf(r, 0)["color"])
			assert.False(c.t, hasKey(cfgOf(r, 0), "colorRules"))
		}},
		hxCase{"rejects a static color that is not a palette token", func(c *contractFixture) {
			refused(c, colorTile(c, "color", "red"), "tiles.0.config.color")
			refused(c, colorTile(c, "color", "chart-99"), "")
			refused(c, colorTile(c, "color", "#ff0000"), "")
		}},
		hxCase{"rejects a legacy numeric palette token on input", func(c *contractFixture) {
			refused(c, colorTile(c, "color", "chart-1"), "")
		}},
		hxCase{"rejects more than 10 colorRules", func(c *contractFixture) {
			rules := []any{}
			for i := range 11 {
				rules = append(rules, rule("gt", i, "chart-blue"))
			}
			refused(c, colorTile(c, "colorRules", rules), "tiles.0.config.colorRules")
		}},
		hxCase{"rejects a between rule whose value is not a two-number tuple", func(c *contractFixture) {
			refused(c, colorTile(c, "colorRules", []any{rule("between", 100, "chart-blue")}), "")
		}},
		hxCase{"rejects a numeric operator rule with a string value", func(c *contractFixture) {
			refused(c, colorTile(c, "colorRules", []any{rule("gt", "high", "chart-blue")}), "")
		}},
		hxCase{"rejects operators the number-tile editor never emits", func(c *contractFixture) {
			for _, op := range []string{"contains", "startsWith", "endsWith", "regex"} {
				refused(c, colorTile(c, "colorRules", []any{rule(op, "error", "chart-blue")}), "tiles.0.config.colorRules")
			}
		}},
		hxCase{"rejects a per-rule color that is not a palette token", func(c *contractFixture) {
			refused(c, colorTile(c, "colorRules", []any{rule("gt", 1, "red")}), "tiles.0.config.colorRules")
			refused(c, colorTile(c, "colorRules", []any{rule("gt", 1, "chart-1")}), "")
		}},
		hxCase{"rejects a rule label longer than 40 characters", func(c *contractFixture) {
			refused(c, colorTile(c, "colorRules", []any{rule("gt", 1, "chart-blue", "label", strings.Repeat("x", 41))}), "")
		}},
		hxCase{"round-trips a number tile with neither color nor colorRules", func(c *contractFixture) {
			r := colorTile(c)
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			assert.False(c.t, hasKey(cfgOf(r, 0), "color"))
			assert.False(c.t, hasKey(cfgOf(r, 0), "colorRules"))
		}},
		hxCase{"normalizes a legacy numeric token on a builder number tile to its hue name on read", func(c *contractFixture) {
			r := colorTile(c, "color", "chart-green")
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			id := r.data()["id"].(string)
			setStored(c, id, func(d map[string]any) { firstTile(d)["config"].(map[string]any)["color"] = "chart-1" })
			assert.Equal(c.t, "chart-green", cfgOf(c.expect(200, "GET", base+"/"+id, nil), 0)["color"])
		}},
		hxCase{"normalizes legacy colorRule colors and drops unresolvable ones on read", func(c *contractFixture) {
			r := colorTile(c, "colorRules", []any{rule("gt", 1, "chart-green")})
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			id := r.data()["id"].(string)
			setStored(c, id, func(d map[string]any) {
				firstTile(d)["config"].(map[string]any)["colorRules"] = []any{rule("gt", 1, "chart-1"), rule("gt", 2, "not-a-token")}
			})
			assert.Equal(c.t, []any{rule("gt", 1.0, "chart-green")}, cfgOf(c.expect(200, "GET", base+"/"+id, nil), 0)["colorRules"])
		}},
		hxCase{"omits colorRules when every stored rule color is unresolvable on read", func(c *contractFixture) {
			r := colorTile(c, "colorRules", []any{rule("gt", 1, "chart-green")})
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			id := r.data()["id"].(string)
			setStored(c, id, func(d map[string]any) {
				firstTile(d)["config"].(map[string]any)["colorRules"] = []any{rule("gt", 1, "not-a-token")}
			})
			assert.False(c.t, hasKey(cfgOf(c.expect(200, "GET", base+"/"+id, nil), 0), "colorRules"))
		}},
		hxCase{"normalizes a legacy numeric token on a raw SQL number tile to its hue name on read", func(c *contractFixture) {
			trace, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{"name": "Raw SQL legacy color", "tiles": []any{rawSQLNumber(c, trace, "color", "chart-blue")}, "tags": []any{}})
			id := r.data()["id"].(string)
			setStored(c, id, func(d map[string]any) { firstTile(d)["config"].(map[string]any)["color"] = "chart-4" })
			assert.Equal(c.t, "chart-red", cfgOf(c.expect(200, "GET", base+"/"+id, nil), 0)["color"])
		}},
	)

	// Number tile background chart (HDX-1360).
	bgTile := func(c *contractFixture, kv ...any) hxResp {
		trace, _ := sources(c)
		return postNumber(c, "Number background chart dashboard", numberTile(trace, kv...))
	}
	cases = append(cases,
		hxCase{"round-trips a builder number tile with a line background chart", func(c *contractFixture) {
			r := bgTile(c, "backgroundChart", map[string]any{"type": "line"})
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			want := map[string]any{"type": "line"}
			assert.Equal(c.t, want, cfgOf(r, 0)["backgroundChart"])
			assert.Equal(c.t, want, cfgOf(c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil), 0)["backgroundChart"])
		}},
		hxCase{"round-trips an area background chart with a color override", func(c *contractFixture) {
			want := map[string]any{"type": "area", "color": "chart-green"}
			r := bgTile(c, "backgroundChart", want)
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			assert.Equal(c.t, want, cfgOf(r, 0)["backgroundChart"])
			assert.Equal(c.t, want, cfgOf(c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil), 0)["backgroundChart"])
		}},
		hxCase{"round-trips backgroundChart through an update (PUT)", func(c *contractFixture) {
			created := bgTile(c)
			require.Equal(c.t, 200, created.status, "%s", created.raw)
			id := created.data()["id"].(string)
			tile := tileOf(created, 0)
			want := map[string]any{"type": "line", "color": "chart-red"}
			update := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Number background chart dashboard", "tags": []any{}, "tiles": []any{
				with(tile, "config", with(tile["config"].(map[string]any), "backgroundChart", want)),
			}})
			assert.Equal(c.t, want, cfgOf(update, 0)["backgroundChart"])
			assert.Equal(c.t, want, cfgOf(c.expect(200, "GET", base+"/"+id, nil), 0)["backgroundChart"])
		}},
		hxCase{"rejects a background chart type outside the line/area enum", func(c *contractFixture) {
			refused(c, bgTile(c, "backgroundChart", map[string]any{"type": "bar"}), "tiles.0.config.backgroundChart")
		}},
		hxCase{"rejects a background chart with no type", func(c *contractFixture) {
			refused(c, bgTile(c, "backgroundChart", map[string]any{"color": "chart-green"}), "")
		}},
		hxCase{"rejects a background chart color that is not a palette token", func(c *contractFixture) {
			refused(c, bgTile(c, "backgroundChart", map[string]any{"type": "line", "color": "#ff0000"}), "")
			refused(c, bgTile(c, "backgroundChart", map[string]any{"type": "line", "color": "chart-1"}), "")
		}},
		hxCase{"strips backgroundChart from a raw SQL number tile, keeping color", func(c *contractFixture) {
			trace, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{"name": "Raw SQL backgroundChart", "tags": []any{}, "tiles": []any{
				rawSQLNumber(c, trace, "color", "chart-blue", "backgroundChart", map[string]any{"type": "line"}),
			}})
			assert.Equal(c.t, "chart-blue", cfgOf(r, 0)["color"])
			assert.False(c.t, hasKey(cfgOf(r, 0), "backgroundChart"))
		}},
		hxCase{"round-trips a builder number tile with no background chart", func(c *contractFixture) {
			r := bgTile(c)
			require.Equal(c.t, 200, r.status, "%s", r.raw)
			assert.False(c.t, hasKey(cfgOf(r, 0), "backgroundChart"))
		}},
	)

	// Chart formulas: the one case that is not about formulas or metric
	// select items.
	cases = append(cases, hxCase{"rejects an unsupported configType instead of routing it to the builder dialect", func(c *contractFixture) {
		_, metric := sources(c)
		r := c.do("POST", base, map[string]any{"name": "Formula dashboard", "tags": []any{}, "tiles": []any{
			map[string]any{"name": "Formula tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
				"displayType": "line", "sourceId": metric, "configType": "promql", "formulas": []any{map[string]any{"expression": "C * 2"}},
				"select": []any{
					map[string]any{"aggFn": "max", "valueExpression": "Value", "metricType": "gauge", "metricName": "test.errors", "alias": "Errors", "where": ""},
					map[string]any{"aggFn": "max", "valueExpression": "Value", "metricType": "gauge", "metricName": "test.requests", "alias": "Requests", "where": ""},
				},
			}},
		}})
		refused(c, r, `configType must be "sql" or omitted`)
	}})

	// Containers and tabs.
	buildTile := func(src string, kv ...any) map[string]any {
		return with(map[string]any{"id": newID(), "name": "Tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
			"displayType": "line", "sourceId": src, "select": countSelect,
		}}, kv...)
	}
	byName := func(r hxResp) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, tl := range r.data()["tiles"].([]any) {
			out[tl.(map[string]any)["name"].(string)] = tl.(map[string]any)
		}
		return out
	}
	serviceHealth := func(tabs ...string) map[string]any {
		list := []any{}
		for _, id := range tabs {
			list = append(list, map[string]any{"id": id, "title": strings.ToUpper(id[:1]) + id[1:]})
		}
		return map[string]any{"id": "service-health", "title": "Service Health", "collapsed": false, "tabs": list}
	}
	cases = append(cases,
		hxCase{"round-trips containers, tabs, and tile containerId/tabId on create and update", func(c *contractFixture) {
			src, _ := sources(c)
			containers := []any{
				map[string]any{
					"id": "service-health", "title": "Service Health", "collapsed": false, "collapsible": true, "bordered": true,
					"tabs": []any{map[string]any{"id": "errors", "title": "Errors"}, map[string]any{"id": "latency", "title": "Latency"}},
				},
				map[string]any{"id": "overview", "title": "Overview", "collapsed": true},
			}
			created := c.expect(200, "POST", base, map[string]any{"name": "Containers Round-Trip", "tags": []any{"containers-test"}, "containers": containers, "tiles": []any{
				buildTile(src, "name", "In Group, Tab A", "containerId", "service-health", "tabId", "errors"),
				buildTile(src, "name", "In Group, Tab B", "containerId", "service-health", "tabId", "latency"),
				buildTile(src, "name", "In Plain Group", "containerId", "overview"),
				buildTile(src, "name", "Ungrouped"),
			}})
			assert.Equal(c.t, containers, created.data()["containers"])
			tiles := byName(created)
			assert.Equal(c.t, "service-health", tiles["In Group, Tab A"]["containerId"])
			assert.Equal(c.t, "errors", tiles["In Group, Tab A"]["tabId"])
			assert.Equal(c.t, "service-health", tiles["In Group, Tab B"]["containerId"])
			assert.Equal(c.t, "latency", tiles["In Group, Tab B"]["tabId"])
			assert.Equal(c.t, "overview", tiles["In Plain Group"]["containerId"])
			assert.False(c.t, hasKey(tiles["In Plain Group"], "tabId"))
			assert.False(c.t, hasKey(tiles["Ungrouped"], "containerId"))
			assert.False(c.t, hasKey(tiles["Ungrouped"], "tabId"))
			id := created.data()["id"].(string)
			assert.Equal(c.t, containers, c.expect(200, "GET", base+"/"+id, nil).data()["containers"])
			updated := []any{map[string]any{
				"id": "service-health", "title": "Service Health", "collapsed": true,
				"tabs": []any{map[string]any{"id": "errors", "title": "Error Rate"}, map[string]any{"id": "latency", "title": "Latency"}},
			}}
			r := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Containers Round-Trip", "tags": []any{"containers-test"}, "containers": updated, "tiles": []any{
				tiles["In Group, Tab A"], tiles["In Group, Tab B"],
				with(tiles["In Plain Group"], "containerId", nil, "tabId", nil),
				with(tiles["Ungrouped"], "containerId", "service-health", "tabId", "errors"),
			}})
			assert.Equal(c.t, updated, r.data()["containers"])
			after := byName(r)
			assert.False(c.t, hasKey(after["In Plain Group"], "containerId"))
			assert.Equal(c.t, "service-health", after["Ungrouped"]["containerId"])
			assert.Equal(c.t, "errors", after["Ungrouped"]["tabId"])
		}},
		hxCase{"round-trips a container with no optional fields set", func(c *contractFixture) {
			src, _ := sources(c)
			containers := []any{map[string]any{"id": "minimal", "title": "Minimal", "collapsed": false}}
			r := c.expect(200, "POST", base, map[string]any{"name": "Minimal Container Dashboard", "tiles": []any{buildTile(src)}, "tags": []any{}, "containers": containers})
			assert.Equal(c.t, containers, r.data()["containers"])
		}},
		hxCase{"rejects a tile that references an unknown containerId", func(c *contractFixture) {
			src, _ := sources(c)
			refused(c, c.do("POST", base, map[string]any{
				"name": "Bad Container Reference", "tags": []any{},
				"tiles":      []any{buildTile(src, "containerId", "does-not-exist")},
				"containers": []any{map[string]any{"id": "real-container", "title": "Real", "collapsed": false}},
			}), `unknown containerId "does-not-exist"`)
		}},
		hxCase{"rejects a tile that references an unknown tabId", func(c *contractFixture) {
			src, _ := sources(c)
			refused(c, c.do("POST", base, map[string]any{
				"name": "Bad Tab Reference", "tags": []any{},
				"tiles":      []any{buildTile(src, "containerId", "service-health", "tabId", "ghost")},
				"containers": []any{serviceHealth("errors")},
			}), `unknown tabId "ghost"`)
		}},
		hxCase{"rejects a tile that supplies tabId without containerId", func(c *contractFixture) {
			src, _ := sources(c)
			refused(c, c.do("POST", base, map[string]any{
				"name": "Tab Without Container", "tags": []any{},
				"tiles": []any{buildTile(src, "tabId", "errors")}, "containers": []any{serviceHealth("errors")},
			}), "tabId requires containerId to be set")
		}},
		hxCase{"rejects duplicate container ids", func(c *contractFixture) {
			src, _ := sources(c)
			refused(c, c.do("POST", base, map[string]any{
				"name": "Duplicate Containers", "tags": []any{}, "tiles": []any{buildTile(src)},
				"containers": []any{map[string]any{"id": "dupe", "title": "A", "collapsed": false}, map[string]any{"id": "dupe", "title": "B", "collapsed": false}},
			}), "Container IDs must be unique")
		}},
		hxCase{"rejects duplicate tab ids within a container", func(c *contractFixture) {
			src, _ := sources(c)
			refused(c, c.do("POST", base, map[string]any{
				"name": "Duplicate Tabs", "tags": []any{}, "tiles": []any{buildTile(src)},
				"containers": []any{map[string]any{"id": "service-health", "title": "Service Health", "collapsed": false, "tabs": []any{
					map[string]any{"id": "errors", "title": "Errors"}, map[string]any{"id": "errors", "title": "Errors Two"},
				}}},
			}), `Duplicate tab id "errors" in container "service-health"`)
		}},
		hxCase{"round-trips a dashboard with no containers (backward compat)", func(c *contractFixture) {
			src, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{"name": "No Containers", "tiles": []any{buildTile(src)}, "tags": []any{}})
			assert.False(c.t, hasKey(r.data(), "containers"))
			assert.False(c.t, hasKey(c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil).data(), "containers"))
		}},
		hxCase{"normalizes an explicitly empty containers array to absent on read", func(c *contractFixture) {
			src, _ := sources(c)
			r := c.expect(200, "POST", base, map[string]any{"name": "Empty Containers Array", "tiles": []any{buildTile(src)}, "tags": []any{}, "containers": []any{}})
			assert.False(c.t, hasKey(r.data(), "containers"))
			assert.False(c.t, hasKey(c.expect(200, "GET", base+"/"+r.data()["id"].(string), nil).data(), "containers"))
		}},
		hxCase{"rejects duplicate container ids on PUT (update path)", func(c *contractFixture) {
			src, _ := sources(c)
			created := c.expect(200, "POST", base, map[string]any{
				"name": "PUT Duplicate Containers", "tiles": []any{buildTile(src)}, "tags": []any{},
				"containers": []any{map[string]any{"id": "a", "title": "A", "collapsed": false}, map[string]any{"id": "b", "title": "B", "collapsed": false}},
			})
			refused(c, c.do("PUT", base+"/"+created.data()["id"].(string), map[string]any{
				"name": "PUT Duplicate Containers", "tiles": []any{buildTile(src)}, "tags": []any{},
				"containers": []any{map[string]any{"id": "dupe", "title": "A", "collapsed": false}, map[string]any{"id": "dupe", "title": "B", "collapsed": false}},
			}), "Container IDs must be unique")
		}},
		hxCase{"rejects a tile with containerId set when the dashboard omits containers entirely", func(c *contractFixture) {
			src, _ := sources(c)
			refused(c, c.do("POST", base, map[string]any{
				"name": "Tile with containerId, no containers field", "tags": []any{},
				"tiles": []any{buildTile(src, "containerId", "service-health")},
			}), `unknown containerId "service-health"`)
		}},
		hxCase{"does not require tabId when a tile is in a tabbed container (tile renders without a tab)", func(c *contractFixture) {
			src, _ := sources(c)
			c.expect(200, "POST", base, map[string]any{
				"name": "Tabbed container with tile that has no tabId", "tags": []any{},
				"tiles": []any{buildTile(src, "containerId", "service-health")}, "containers": []any{serviceHealth("errors", "latency")},
			})
		}},
		hxCase{"rejects an empty-string containerId or tabId on a tile", func(c *contractFixture) {
			src, _ := sources(c)
			refused(c, c.do("POST", base, map[string]any{"name": "Empty containerId", "tags": []any{}, "tiles": []any{buildTile(src, "containerId", "")}}), "tiles.0.containerId")
			refused(c, c.do("POST", base, map[string]any{
				"name": "Empty tabId", "tags": []any{},
				"tiles": []any{buildTile(src, "containerId", "service-health", "tabId", "")}, "containers": []any{serviceHealth("errors")},
			}), "tiles.0.tabId")
		}},
		hxCase{"accepts a 256-char containerId, rejects 257", func(c *contractFixture) {
			src, _ := sources(c)
			atMax, tooLong := strings.Repeat("a", 256), strings.Repeat("a", 257)
			c.expect(200, "POST", base, map[string]any{
				"name": "Containers id at boundary", "tags": []any{},
				"tiles": []any{buildTile(src, "containerId", atMax)}, "containers": []any{map[string]any{"id": atMax, "title": "At boundary", "collapsed": false}},
			})
			refused(c, c.do("POST", base, map[string]any{
				"name": "Containers id over boundary", "tags": []any{},
				"tiles": []any{buildTile(src, "containerId", tooLong)}, "containers": []any{map[string]any{"id": tooLong, "title": "Over boundary", "collapsed": false}},
			}), "tiles.0.containerId")
		}},
		hxCase{"accepts a 256-char tabId, rejects 257", func(c *contractFixture) {
			src, _ := sources(c)
			atMax, tooLong := strings.Repeat("b", 256), strings.Repeat("b", 257)
			container := func(tab, title string) []any {
				return []any{map[string]any{"id": "service-health", "title": "Service Health", "collapsed": false, "tabs": []any{map[string]any{"id": tab, "title": title}}}}
			}
			c.expect(200, "POST", base, map[string]any{
				"name": "Tab id at boundary", "tags": []any{},
				"tiles": []any{buildTile(src, "containerId", "service-health", "tabId", atMax)}, "containers": container(atMax, "At boundary"),
			})
			refused(c, c.do("POST", base, map[string]any{
				"name": "Tab id over boundary", "tags": []any{},
				"tiles": []any{buildTile(src, "containerId", "service-health", "tabId", tooLong)}, "containers": container(tooLong, "Over boundary"),
			}), "tiles.0.tabId")
		}},
		hxCase{"rejects a payload of 501 tiles", func(c *contractFixture) {
			src, _ := sources(c)
			tiles := []any{}
			for i := range 501 {
				tiles = append(tiles, buildTile(src, "name", fmt.Sprintf("Tile %d", i)))
			}
			refused(c, c.do("POST", base, map[string]any{"name": "Too many tiles", "tiles": tiles, "tags": []any{}}), "tiles")
		}},
		hxCase{"treats an empty-string containerId on a legacy doc as absent on read", func(c *contractFixture) {
			src, _ := sources(c)
			created := c.expect(200, "POST", base, map[string]any{"name": "Legacy doc round-trip", "tiles": []any{buildTile(src, "name", "Legacy empty containerId")}, "tags": []any{}})
			id := created.data()["id"].(string)
			setStored(c, id, func(d map[string]any) { firstTile(d)["containerId"], firstTile(d)["tabId"] = "", "" })
			tile := tileOf(c.expect(200, "GET", base+"/"+id, nil), 0)
			assert.False(c.t, hasKey(tile, "containerId"))
			assert.False(c.t, hasKey(tile, "tabId"))
		}},
		hxCase{"preserves existing containers on PUT when the body omits the field", func(c *contractFixture) {
			src, _ := sources(c)
			containers := []any{serviceHealth("errors")}
			created := c.expect(200, "POST", base, map[string]any{
				"name": "Preserve containers on PUT", "tags": []any{}, "containers": containers,
				"tiles": []any{buildTile(src, "name", "In container", "containerId", "service-health", "tabId", "errors")},
			})
			r := c.expect(200, "PUT", base+"/"+created.data()["id"].(string), map[string]any{"name": "Preserve containers on PUT", "tags": []any{}, "tiles": []any{tileOf(created, 0)}})
			assert.Equal(c.t, containers, r.data()["containers"])
			assert.Equal(c.t, "service-health", tileOf(r, 0)["containerId"])
			assert.Equal(c.t, "errors", tileOf(r, 0)["tabId"])
		}},
		hxCase{"rejects a PUT that references an unknown containerId when body omits containers", func(c *contractFixture) {
			src, _ := sources(c)
			created := c.expect(200, "POST", base, map[string]any{
				"name": "PUT unknown containerId", "tags": []any{},
				"tiles": []any{buildTile(src, "name", "Real tile")}, "containers": []any{map[string]any{"id": "real", "title": "Real", "collapsed": false}},
			})
			refused(c, c.do("PUT", base+"/"+created.data()["id"].(string), map[string]any{
				"name": "PUT unknown containerId", "tags": []any{},
				"tiles": []any{buildTile(src, "name", "Bad ref", "containerId", "does-not-exist")},
			}), `unknown containerId "does-not-exist"`)
		}},
		hxCase{"drops orphan tile.containerId on read when no container matches", func(c *contractFixture) {
			src, _ := sources(c)
			created := c.expect(200, "POST", base, map[string]any{
				"name": "Orphan containerId heal", "tags": []any{},
				"tiles":      []any{buildTile(src, "name", "Real tile")},
				"containers": []any{map[string]any{"id": "real", "title": "Real", "collapsed": false, "tabs": []any{map[string]any{"id": "errors", "title": "Errors"}}}},
			})
			id := created.data()["id"].(string)
			setStored(c, id, func(d map[string]any) {
				firstTile(d)["containerId"], firstTile(d)["tabId"] = "ghost-container", "ghost-tab"
			})
			tile := tileOf(c.expect(200, "GET", base+"/"+id, nil), 0)
			assert.False(c.t, hasKey(tile, "containerId"))
			assert.False(c.t, hasKey(tile, "tabId"))
		}},
		hxCase{"drops orphan tile.tabId on read when no tab matches", func(c *contractFixture) {
			src, _ := sources(c)
			created := c.expect(200, "POST", base, map[string]any{
				"name": "Orphan tabId heal", "tags": []any{},
				"tiles":      []any{buildTile(src, "name", "Real tile", "containerId", "real", "tabId", "errors")},
				"containers": []any{map[string]any{"id": "real", "title": "Real", "collapsed": false, "tabs": []any{map[string]any{"id": "errors", "title": "Errors"}}}},
			})
			id := created.data()["id"].(string)
			setStored(c, id, func(d map[string]any) { firstTile(d)["tabId"] = "ghost-tab" })
			tile := tileOf(c.expect(200, "GET", base+"/"+id, nil), 0)
			assert.Equal(c.t, "real", tile["containerId"])
			assert.False(c.t, hasKey(tile, "tabId"))
		}},
	)

	// savedFilterValues.
	sqlValue := map[string]any{"type": "sql", "condition": "Env IN ('prod')"}
	variableValue := map[string]any{"type": "variable", "name": "svc", "values": []any{"accounting", "frontend"}}
	cases = append(cases,
		hxCase{"should persist and return a variable-keyed value verbatim", func(c *contractFixture) {
			trace, _ := sources(c)
			d := c.expect(200, "POST", base, mockDashboard(trace, "savedFilterValues", []any{variableValue})).data()
			assert.Equal(c.t, []any{variableValue}, d["savedFilterValues"])
			assert.Equal(c.t, []any{variableValue}, c.stored(kindDashboard, d["id"].(string))["savedFilterValues"])
		}},
		hxCase{"should accept a variable-keyed value with no values selected", func(c *contractFixture) {
			trace, _ := sources(c)
			empty := map[string]any{"type": "variable", "name": "svc", "values": []any{}}
			d := c.expect(200, "POST", base, mockDashboard(trace, "savedFilterValues", []any{empty})).data()
			assert.Equal(c.t, []any{empty}, d["savedFilterValues"])
		}},
		hxCase{"should accept a mixed array echoed straight back from GET", func(c *contractFixture) {
			trace, _ := sources(c)
			id := c.expect(200, "POST", base, mockDashboardWithIDs(trace, "savedFilterValues", []any{sqlValue, variableValue})).data()["id"].(string)
			fetched := c.expect(200, "GET", base+"/"+id, nil).data()
			assert.Equal(c.t, []any{sqlValue, variableValue}, fetched["savedFilterValues"])
			echoed := c.expect(200, "PUT", base+"/"+id, fetched).data()
			assert.Equal(c.t, []any{sqlValue, variableValue}, echoed["savedFilterValues"])
		}},
		hxCase{"should return 400 for a variable-keyed value missing name", func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(400, "POST", base, mockDashboard(trace, "savedFilterValues", []any{map[string]any{"type": "variable", "values": []any{"a"}}}))
		}},
		hxCase{"should return 400 for a variable-keyed value missing values", func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(400, "POST", base, mockDashboard(trace, "savedFilterValues", []any{map[string]any{"type": "variable", "name": "svc"}}))
		}},
		hxCase{"should return 400 for an unknown saved filter value type", func(c *contractFixture) {
			trace, _ := sources(c)
			c.expect(400, "POST", base, mockDashboard(trace, "savedFilterValues", []any{map[string]any{"type": "nonsense", "name": "svc", "values": []any{}}}))
		}},
		// DELETE /:id
		hxCase{"should delete a dashboard", func(c *contractFixture) {
			sources(c)
			id := testDashboard(c)
			c.expect(200, "DELETE", base+"/"+id, nil)
			assert.Nil(c.t, c.stored(kindDashboard, id))
		}},
		// Authentication
		hxCase{"should require authentication for all endpoints", func(c *contractFixture) {
			sources(c)
			const testID = "507f1f77bcf86cd799439011"
			for _, route := range [][2]string{
				{"GET", base},
				{"GET", base + "/" + testID},
				{"POST", base},
				{"PUT", base + "/" + testID},
				{"DELETE", base + "/" + testID},
				{"POST", base + "/validate"},
			} {
				r := c.doAuth(route[0], route[1], nil, "")
				assert.Equal(c.t, 401, r.status, "%s %s", route[0], route[1])
			}
		}},
		// POST /api/v2/dashboards/validate
		hxCase{"returns valid:true for a well-formed builder dashboard", func(c *contractFixture) {
			sources(c)
			r := c.do("POST", base+"/validate", map[string]any{"name": "D", "tiles": []any{}})
			assert.Equal(c.t, 200, r.status, "%s", r.raw)
			assert.Equal(c.t, true, r.body["valid"])
			assert.Equal(c.t, []any{}, r.body["errors"])
		}},
		hxCase{"returns valid:false with errors for a malformed body", func(c *contractFixture) {
			sources(c)
			r := c.do("POST", base+"/validate", map[string]any{"tiles": "nope"})
			assert.Equal(c.t, 200, r.status, "%s", r.raw)
			assert.Equal(c.t, false, r.body["valid"])
			assert.NotEmpty(c.t, r.body["errors"])
		}},
		hxCase{"returns a normalized body with zod defaults applied when valid", func(c *contractFixture) {
			sources(c)
			r := c.do("POST", base+"/validate", map[string]any{"name": "D", "tiles": []any{}})
			assert.Equal(c.t, true, r.body["valid"])
			n, _ := r.body["normalized"].(map[string]any)
			assert.Equal(c.t, "D", n["name"])
			assert.Equal(c.t, []any{}, n["tiles"])
		}},
		hxCase{"does not persist (dashboard count unchanged)", func(c *contractFixture) {
			sources(c)
			before, err := c.fx.server.opts.Store.Count(context.Background(), c.team, kindDashboard)
			require.NoError(c.t, err)
			c.do("POST", base+"/validate", map[string]any{"name": "D", "tiles": []any{}})
			after, err := c.fx.server.opts.Store.Count(context.Background(), c.team, kindDashboard)
			require.NoError(c.t, err)
			assert.Equal(c.t, before, after)
		}},
	)
	replay(t, "dashboards.int.test.ts", cases)
}

// TestHyperDXDashboardsEarlierGaps replays, in the file's order, the cases
// before "omits the ignored fields on read…" that TestHyperDXDashboards
// and TestHyperDXDashboardsNewFormat leave out: the old format's PUT
// "should return 400 when source IDs do not exist"; the new format's POST
// raw SQL round trip and connection checks (skipped, by name, while
// connections were not checked); its PUT "should update dashboard filters
// when provided" and "should preserve existing dashboard filters when
// filters are not provided".
func TestHyperDXDashboardsEarlierGaps(t *testing.T) {
	const base = "/api/v2/dashboards"
	sources := dashboardSources
	testDashboard := func(c *contractFixture, kv ...any) string {
		return c.put("", kindDashboard, with(map[string]any{"name": "Test Dashboard", "tiles": []any{}}, kv...))
	}
	// The old format's createMockDashboardWithIds: makeExternalChart tiles.
	oldMockWithIDs := func(src string, kv ...any) map[string]any {
		chart := func() map[string]any {
			return map[string]any{
				"id": newID(), "name": "Test Chart", "x": 1, "y": 1, "w": 1, "h": 1,
				"series": []any{map[string]any{"type": "time", "sourceId": src, "aggFn": "count", "where": "", "groupBy": []any{}}},
			}
		}
		return with(map[string]any{
			"name": "Test External Dashboard with IDs", "tiles": []any{chart(), chart()}, "tags": []any{"external-api", "test"},
			"filters": []any{}, "savedQuery": nil, "savedQueryLanguage": nil, "savedFilterValues": []any{},
		}, kv...)
	}
	countSelect := []any{map[string]any{"aggFn": "count", "where": ""}}
	newMockWithIDs := func(src string, kv ...any) map[string]any {
		tile := func() map[string]any {
			return map[string]any{"id": newID(), "name": "Test Chart", "x": 1, "y": 1, "w": 1, "h": 1, "config": map[string]any{"displayType": "line", "sourceId": src, "select": countSelect}}
		}
		return with(map[string]any{"name": "Test External Dashboard with IDs", "tiles": []any{tile(), tile()}, "tags": []any{"external-api", "test"}, "filters": []any{}}, kv...)
	}
	connection := func(c *contractFixture) string { return domainsources.DefaultConnectionID(c.team) }
	rawTile := func(conn string, kv ...any) map[string]any {
		return map[string]any{"name": "Raw SQL Tile", "x": 0, "y": 0, "w": 6, "h": 3, "config": with(map[string]any{
			"configType": "sql", "connectionId": conn,
		}, kv...)}
	}
	cases := []hxCase{
		// The old format's PUT /:id.
		{"should return 400 when source IDs do not exist", func(c *contractFixture) {
			sources(c)
			id := testDashboard(c)
			missing := newID()
			r := c.expect(400, "PUT", base+"/"+id, oldMockWithIDs(missing, "name", "Updated Dashboard Name"))
			assert.Equal(c.t, map[string]any{"message": "Could not find the following source IDs: " + missing}, r.body)
		}},
		// The new format's POST /.
		{"can round-trip all raw SQL chart config types", func(c *contractFixture) {
			trace, _ := sources(c)
			conn := connection(c)
			const sqlTemplate = "SELECT count() FROM otel_logs WHERE {timeFilter}"
			raw := func(name string, x, y int, display string, kv ...any) map[string]any {
				return map[string]any{"name": name, "x": x, "y": y, "w": 6, "h": 3, "config": with(map[string]any{
					"configType": "sql", "displayType": display, "connectionId": conn, "sqlTemplate": sqlTemplate, "sourceId": trace,
				}, kv...)}
			}
			tiles := []any{
				raw("Line Raw SQL", 0, 0, "line", "compareToPreviousPeriod", true, "fillNulls", true, "alignDateRangeToGranularity", true,
					"fitYAxisToData", true, "numberFormat", map[string]any{"output": "number", "mantissa": 2}),
				raw("Bar Raw SQL", 6, 0, "stacked_bar", "fillNulls", false, "alignDateRangeToGranularity", false,
					"numberFormat", map[string]any{"output": "byte", "decimalBytes": true}),
				raw("Table Raw SQL", 0, 3, "table", "numberFormat", map[string]any{"output": "percent", "mantissa": 1},
					"onClick", map[string]any{
						"type": "search", "target": map[string]any{"mode": "template", "template": "{{source_name}}"},
						"whereLanguage": "lucene", "whereTemplate": `ServiceName:"{{ServiceName}}"`,
					}),
				raw("Number Raw SQL", 6, 3, "number", "numberFormat", map[string]any{"output": "currency", "currencySymbol": "$"}, "color", "chart-purple"),
				raw("Pie Raw SQL", 12, 3, "pie"),
				raw("Categorical Bar Raw SQL", 18, 3, "bar"),
			}
			r := c.expect(200, "POST", base, map[string]any{"name": "Dashboard with Raw SQL Chart Types", "tiles": tiles, "tags": []any{"raw-sql-test"}})
			for i, tl := range tiles {
				want, _ := json.Marshal(tl)
				got, _ := json.Marshal(with(r.data()["tiles"].([]any)[i].(map[string]any), "id", nil))
				assert.JSONEq(c.t, string(want), string(got), "tile %d", i)
			}
		}},
		{"should return 400 when connection ID does not belong to the team", func(c *contractFixture) {
			sources(c)
			other := c.put("other-"+c.team, kindConn, map[string]any{"name": "Other Team Connection", "host": "http://localhost:8123", "username": "default", "password": ""})
			r := c.expect(400, "POST", base, map[string]any{"name": "Dashboard with Foreign Connection", "tags": []any{}, "tiles": []any{
				rawTile(other, "displayType", "line", "sqlTemplate", "SELECT count() FROM otel_logs WHERE {timeFilter}"),
			}})
			assert.Equal(c.t, map[string]any{"message": "Could not find the following connection IDs: " + other}, r.body)
		}},
		{"should return 400 when source connection does not match tile connection", func(c *contractFixture) {
			trace, _ := sources(c)
			other := c.put("", kindConn, map[string]any{"name": "Other Connection", "host": "http://localhost:8123", "username": "default", "password": ""})
			r := c.expect(400, "POST", base, map[string]any{"name": "Dashboard with Mismatched Source Connection", "tags": []any{}, "tiles": []any{
				rawTile(other, "displayType", "table", "sourceId", trace, "sqlTemplate", "SELECT count() FROM otel_logs"),
			}})
			assert.Equal(c.t, map[string]any{"message": "The following source IDs do not match the specified connections: " + trace}, r.body)
		}},
		// The new format's PUT /:id.
		{"should update dashboard filters when provided", func(c *contractFixture) {
			trace, metric := sources(c)
			id := testDashboard(c)
			d := c.expect(200, "PUT", base+"/"+id, newMockWithIDs(trace, "name", "Dashboard with Filters", "filters", []any{
				map[string]any{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Updated Filter 1", "expression": "environment", "sourceId": trace},
				map[string]any{
					"id": newID(), "type": "QUERY_EXPRESSION", "name": "Updated Filter 2", "expression": "service_name", "sourceId": trace,
					"appliesToSourceIds": []any{trace, metric},
				},
			})).data()
			got := d["filters"].([]any)
			require.Len(c.t, got, 2)
			for i, want := range []map[string]any{
				{"type": "QUERY_EXPRESSION", "name": "Updated Filter 1", "expression": "environment", "sourceId": trace},
				{"type": "QUERY_EXPRESSION", "name": "Updated Filter 2", "expression": "service_name", "sourceId": trace},
			} {
				f := got[i].(map[string]any)
				assert.IsType(c.t, "", f["id"])
				for k, v := range want {
					assert.Equal(c.t, v, f[k], k)
				}
			}
			assert.False(c.t, hasKey(got[0].(map[string]any), "appliesToSourceIds"))
			assert.Equal(c.t, []any{trace, metric}, got[1].(map[string]any)["appliesToSourceIds"])
			assert.Equal(c.t, got, c.expect(200, "GET", base+"/"+id, nil).data()["filters"])
		}},
		{"should preserve existing dashboard filters when filters are not provided", func(c *contractFixture) {
			trace, _ := sources(c)
			existing := []map[string]any{
				{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 1", "expression": "environment", "sourceId": trace, "appliesToSourceIds": []any{trace}},
				{"id": newID(), "type": "QUERY_EXPRESSION", "name": "Existing Filter 2", "expression": "service_name", "sourceId": trace},
			}
			id := testDashboard(c, "filters", []any{existing[0], existing[1]})
			d := c.expect(200, "PUT", base+"/"+id, with(newMockWithIDs(trace, "name", "Dashboard Name Updated Without Filters"), "filters", nil)).data()
			assert.Equal(c.t, "Dashboard Name Updated Without Filters", d["name"])
			for _, m := range []map[string]any{d, c.expect(200, "GET", base+"/"+id, nil).data()} {
				got := m["filters"].([]any)
				require.Len(c.t, got, 2)
				for i := range existing {
					for k, v := range existing[i] {
						assert.Equal(c.t, v, got[i].(map[string]any)[k], k)
					}
				}
			}
		}},
	}
	replay(t, "dashboards.int.test.ts", cases)
}

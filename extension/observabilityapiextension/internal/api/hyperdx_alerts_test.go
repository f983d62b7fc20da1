package api

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// alerts.int.test.ts. The stored copy read is of commit 04dad3a (the
// nearest to hyperdxCommit the reference index holds). Its Mongo fixtures
// are this API's documents: a dashboard's tiles are count line charts (a
// HyperDX fixture tile has no config, which this API cannot evaluate), a
// raw SQL tile names its connection as connectionId.
func TestHyperDXAlerts(t *testing.T) {
	const base = "/api/v2/alerts"
	// createTestWebhook (team "": the case's).
	webhookOf := func(c *contractFixture, team string) string {
		return c.put(team, kindWebhook, map[string]any{"name": "Test Webhook", "service": "slack", "url": "https://hooks.slack.com/test"})
	}
	webhookNamed := func(c *contractFixture, name string) string {
		return c.put("", kindWebhook, map[string]any{"name": name, "service": "slack", "url": "https://hooks.slack.com/test"})
	}
	// createTestDashboard: numTiles chart tiles.
	type dash struct {
		id    string
		tiles []string
	}
	dashboardOf := func(c *contractFixture, team string, numTiles int) dash {
		d := dash{}
		tiles := []any{}
		for i := range numTiles {
			id := newID()
			d.tiles = append(d.tiles, id)
			tiles = append(tiles, map[string]any{
				"id": id, "name": fmt.Sprintf("Chart %d", i+1), "x": i * 6, "y": i / 2 * 3, "w": 6, "h": 3,
				"config": map[string]any{"displayType": "line", "sourceId": newID(), "select": []any{map[string]any{"aggFn": "count"}}},
			})
		}
		d.id = c.put(team, kindDashboard, map[string]any{"name": "Test Dashboard", "tiles": tiles})
		return d
	}
	// createTestDashboardWithRawSqlTile.
	rawSQLDashboard := func(c *contractFixture, displayType, sqlTemplate string) dash {
		tile := newID()
		id := c.put("", kindDashboard, map[string]any{"name": "Raw SQL Dashboard", "tiles": []any{map[string]any{
			"id": tile, "name": "Raw SQL Chart", "x": 0, "y": 0, "w": 6, "h": 3,
			"config": map[string]any{"configType": "sql", "displayType": displayType, "sqlTemplate": sqlTemplate, "connectionId": "test-connection"},
		}}})
		return dash{id, []string{tile}}
	}
	// createTestSavedSearch.
	savedSearchOf := func(c *contractFixture, team string) string {
		return c.put(team, kindSaved, map[string]any{"name": "Test Saved Search", "where": "error", "whereLanguage": "lucene", "source": newID()})
	}
	webhookChannel := func(id string) map[string]any { return map[string]any{"type": "webhook", "webhookId": id} }
	tileAlert := func(d dash, webhook string, kv ...any) map[string]any {
		return with(map[string]any{
			"dashboardId": d.id, "tileId": d.tiles[0], "threshold": 100, "interval": "1h", "source": "tile",
			"thresholdType": "above", "channel": webhookChannel(webhook),
		}, kv...)
	}
	// createTestAlert: an alert through the API on a new dashboard.
	type created struct {
		alert   map[string]any
		dash    dash
		webhook string
		input   map[string]any
	}
	createTestAlert := func(c *contractFixture, kv ...any) created {
		d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
		in := tileAlert(d, wh, append([]any{"name", "Test Alert", "message", "Test Alert Message"}, kv...)...)
		return created{c.expect(200, "POST", base, in).data(), d, wh, in}
	}
	// createTestAlertDirectly: a document straight in the store.
	createTestAlertDirectly := func(c *contractFixture, kv ...any) string {
		return c.put("", kindAlert, with(map[string]any{
			"dashboardId": newID(), "tileId": newID(), "threshold": 100, "interval": "1h", "source": "tile",
			"thresholdType": "above", "channel": webhookChannel(newID()), "name": "Direct DB Alert",
			"message": "Created directly in DB", "state": "OK",
		}, kv...))
	}
	// The inline describe's makeSource: a team connection and a log
	// source on it.
	makeSource := func(c *contractFixture) (conn, src string) {
		conn = c.put("", kindConn, map[string]any{"name": "Default", "host": "http://localhost:8123", "username": "default", "password": ""})
		src = c.put("", kindSource, map[string]any{
			"kind": "log", "from": map[string]any{"databaseName": "default", "tableName": "otel_logs"},
			"timestampValueExpression": "Timestamp", "connection": conn, "name": "Logs",
		})
		return conn, src
	}
	// Alert.updateOne({$set: {executionErrors}}): the stored document
	// changed in place.
	setStored := func(c *contractFixture, id, key string, value any) {
		res, err := c.fx.server.opts.Store.Get(context.Background(), c.team, kindAlert, id)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(res.Doc, &m))
		m[key] = value
		b, _ := json.Marshal(m)
		require.NoError(t, c.fx.server.opts.Store.Put(context.Background(), c.team, kindAlert, id, b, res.CreatedAt, time.Now()))
	}
	// HyperDX's RAW_SQL_ALERT_TEMPLATE: a time series with the time
	// filter and interval parameters.
	const rawSQLAlertTemplate = "SELECT toStartOfInterval(TimestampTime, INTERVAL {intervalSeconds:Int64} second) AS ts, count() AS c FROM otel_logs WHERE TimestampTime >= fromUnixTimestamp64Milli({startDateMilliseconds:Int64}) AND TimestampTime < fromUnixTimestamp64Milli({endDateMilliseconds:Int64}) GROUP BY ts ORDER BY ts"
	ids := func(list []any) []any {
		out := []any{}
		for _, a := range list {
			out = append(out, a.(map[string]any)["id"])
		}
		return out
	}
	find := func(list []any, key string, value any) map[string]any {
		for _, a := range list {
			if m := a.(map[string]any); m[key] == value {
				return m
			}
		}
		return nil
	}
	savedSearchBase := func(c *contractFixture) map[string]any {
		return map[string]any{"source": "saved_search", "savedSearchId": savedSearchOf(c, ""), "interval": "5m", "threshold": 1, "thresholdType": "above"}
	}

	cases := []hxCase{
		// Response Format
		{"should return responses in the expected format", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			in := tileAlert(d, wh, "threshold", 123, "interval", "15m", "name", "Format Test Alert",
				"message", "This is a test alert for format verification")
			r := c.expect(200, "POST", base, in)
			assert.Contains(t, r.header.Get("Content-Type"), "application/json")
			data := r.data()
			for _, k := range []string{"id", "teamId", "tileId", "dashboardId", "state", "createdAt", "updatedAt"} {
				assert.IsType(t, "", data[k], k)
			}
			ch := data["channel"].(map[string]any)
			assert.IsType(t, "", ch["webhookId"])
			want := map[string]any{
				"name": "Format Test Alert", "message": "This is a test alert for format verification",
				"note": nil, "numConsecutiveWindows": nil, "threshold": 123.0, "interval": "15m", "source": "tile",
				"thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": ch["webhookId"]},
				"channels": []any{map[string]any{"type": "webhook", "webhookId": ch["webhookId"]}},
			}
			got := with(data, "id", nil, "teamId", nil, "tileId", nil, "dashboardId", nil, "state", nil, "createdAt", nil, "updatedAt", nil)
			assert.Equal(t, want, got)

			id := data["id"].(string)
			read := c.expect(200, "GET", base+"/"+id, nil)
			assert.Contains(t, read.header.Get("Content-Type"), "application/json")
			assert.Equal(t, map[string]any{"data": data}, read.body)
			list := c.expect(200, "GET", base, nil)
			assert.Contains(t, list.header.Get("Content-Type"), "application/json")
			assert.IsType(t, []any{}, list.body["data"])
			assert.Equal(t, map[string]any{}, c.expect(200, "DELETE", base+"/"+id, nil).body)
		}},
		// Creating alerts
		{"should create an alert", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			a := c.expect(200, "POST", base, tileAlert(d, wh, "name", "Test Alert", "message", "Test Alert Message")).data()
			assert.Equal(t, 100.0, a["threshold"])
			assert.Equal(t, "1h", a["interval"])
			assert.Equal(t, "Test Alert", a["name"])
			assert.NotEmpty(t, a["id"])
		}},
		{"should handle validation errors when creating alerts", func(c *contractFixture) {
			r := c.expect(400, "POST", base, map[string]any{"name": "Invalid Alert", "message": "This should fail validation"})
			assert.True(t, hasKey(r.body, "message"))
		}},
		{"should reject scheduleOffsetMinutes when scheduleStartAt is provided", func(c *contractFixture) {
			d := dashboardOf(c, "", 1)
			r := c.expect(400, "POST", base, tileAlert(d, newID(), "scheduleOffsetMinutes", 2, "scheduleStartAt", time.Now().UTC().Format(time.RFC3339Nano)))
			assert.True(t, hasKey(r.body, "message"))
		}},
		{"should reject scheduleStartAt values more than 1 year in the future", func(c *contractFixture) {
			d := dashboardOf(c, "", 1)
			r := c.expect(400, "POST", base, tileAlert(d, newID(), "scheduleStartAt", time.Now().Add(366*24*time.Hour).UTC().Format(time.RFC3339Nano)))
			assert.True(t, hasKey(r.body, "message"))
		}},
		{"should create multiple alerts for different tiles", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 3), webhookOf(c, "")
			var createdIDs []any
			for i, tile := range d.tiles {
				in := tileAlert(d, wh, "tileId", tile, "threshold", 100*(i+1), "name", "Alert for "+tile, "message", "This is an alert for "+tile)
				createdIDs = append(createdIDs, c.expect(200, "POST", base, in).data()["id"])
			}
			require.Len(t, createdIDs, 3)
			list := c.expect(200, "GET", base, nil).list()
			assert.Subset(t, ids(list), createdIDs)
			for _, tile := range d.tiles {
				assert.NotNil(t, find(list, "tileId", tile))
			}
		}},
		// Retrieving alerts
		{"should get an alert by ID", func(c *contractFixture) {
			id := createTestAlertDirectly(c)
			a := c.expect(200, "GET", base+"/"+id, nil).data()
			assert.Equal(t, id, a["id"])
			assert.Equal(t, "Direct DB Alert", a["name"])
		}},
		{"should return 404 for non-existent alert", func(c *contractFixture) {
			c.expect(404, "GET", base+"/"+newID(), nil)
		}},
		{"should list all alerts", func(c *contractFixture) {
			createTestAlert(c, "name", "First Alert", "threshold", 100)
			createTestAlert(c, "name", "Second Alert", "threshold", 200)
			createTestAlert(c, "name", "Third Alert", "threshold", 300)
			list := c.expect(200, "GET", base, nil).list()
			require.GreaterOrEqual(t, len(list), 3)
			for _, n := range []string{"First Alert", "Second Alert", "Third Alert"} {
				assert.NotNil(t, find(list, "name", n), n)
			}
			assert.Equal(t, 100.0, find(list, "name", "First Alert")["threshold"])
			assert.Equal(t, 200.0, find(list, "name", "Second Alert")["threshold"])
		}},
		{"should paginate with limit and offset and report the total", func(c *contractFixture) {
			createTestAlert(c, "name", "Alert A", "threshold", 100)
			createTestAlert(c, "name", "Alert B", "threshold", 200)
			createTestAlert(c, "name", "Alert C", "threshold", 300)
			p1 := c.expect(200, "GET", base+"?limit=2&offset=0", nil)
			assert.Len(t, p1.list(), 2)
			assert.Equal(t, map[string]any{"total": 3.0, "limit": 2.0, "offset": 0.0}, p1.meta())
			p2 := c.expect(200, "GET", base+"?limit=2&offset=2", nil)
			assert.Len(t, p2.list(), 1)
			assert.Equal(t, map[string]any{"total": 3.0, "limit": 2.0, "offset": 2.0}, p2.meta())
			seen := map[any]bool{}
			for _, id := range append(ids(p1.list()), ids(p2.list())...) {
				seen[id] = true
			}
			assert.Len(t, seen, 3)
		}},
		{"should return an empty page with the correct total past the end", func(c *contractFixture) {
			createTestAlert(c, "name", "Only Alert", "threshold", 100)
			r := c.expect(200, "GET", base+"?offset=100", nil)
			assert.Empty(t, r.list())
			assert.Equal(t, map[string]any{"total": 1.0, "limit": 1000.0, "offset": 100.0}, r.meta())
		}},
		{"should reject an out-of-range or non-integer limit or offset", func(c *contractFixture) {
			for _, q := range []string{"limit=0", "limit=5000", "offset=-1", "limit=abc", "limit=1.5"} {
				c.expect(400, "GET", base+"?"+q, nil)
			}
		}},
		// Updating alerts
		{"should update an alert", func(c *contractFixture) {
			a := createTestAlert(c, "name", "Update Test Alert", "threshold", 100, "interval", "15m", "message", "Original message").alert
			orig := c.expect(200, "GET", base+"/"+a["id"].(string), nil).data()
			c.expect(200, "PUT", base+"/"+a["id"].(string), map[string]any{
				"threshold": 500, "interval": "1h", "thresholdType": "above", "source": "tile",
				"dashboardId": orig["dashboardId"], "tileId": orig["tileId"], "channel": orig["channel"],
				"name": "Updated Alert Name", "message": "Updated message",
			})
			got := c.expect(200, "GET", base+"/"+a["id"].(string), nil).data()
			assert.Equal(t, "Updated Alert Name", got["name"])
			assert.Equal(t, 500.0, got["threshold"])
			assert.Equal(t, "1h", got["interval"])
			assert.Equal(t, "Updated message", got["message"])
		}},
		{"should reject scheduleOffsetMinutes when scheduleStartAt is provided", func(c *contractFixture) {
			a := createTestAlert(c, "interval", "1h").alert
			orig := c.expect(200, "GET", base+"/"+a["id"].(string), nil).data()
			c.expect(400, "PUT", base+"/"+a["id"].(string), map[string]any{
				"threshold": orig["threshold"], "interval": orig["interval"], "thresholdType": orig["thresholdType"],
				"source": orig["source"], "dashboardId": orig["dashboardId"], "tileId": orig["tileId"], "channel": orig["channel"],
				"scheduleOffsetMinutes": 2, "scheduleStartAt": time.Now().UTC().Format(time.RFC3339Nano),
			})
		}},
		// Deleting alerts
		{"should delete an alert", func(c *contractFixture) {
			id := createTestAlert(c, "name", "Delete Test Alert").alert["id"].(string)
			c.expect(200, "DELETE", base+"/"+id, nil)
			c.expect(404, "GET", base+"/"+id, nil)
			assert.Nil(t, find(c.expect(200, "GET", base, nil).list(), "id", id))
		}},
		{"should return 404 with a JSON body when deleting a non-existent alert", func(c *contractFixture) {
			r := c.expect(404, "DELETE", base+"/"+newID(), nil)
			assert.Equal(t, map[string]any{"message": "Alert not found"}, r.body)
		}},
		// Inline alerts
		{"creates an inline alert, persists the internal dialect, and round-trips chartConfig on single-alert responses", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			created := c.expect(200, "POST", base, with(inlineAlert(inlineConfig(src), wh), "name", "Inline Alert")).data()
			assert.Equal(t, "inline", created["source"])
			assert.False(t, hasKey(created, "savedSearchId"))
			assert.False(t, hasKey(created, "dashboardId"))
			matchObject(t, map[string]any{
				"displayType": "line", "sourceId": src,
				"select": []any{map[string]any{"aggFn": "count", "where": "level:error", "whereLanguage": "lucene"}},
			}, created["chartConfig"])
			// Stored in the internal dialect the scheduler evaluates.
			id := created["id"].(string)
			matchObject(t, map[string]any{
				"displayType": "line", "source": src,
				"select": []any{map[string]any{"aggFn": "count", "aggCondition": "level:error", "aggConditionLanguage": "lucene"}},
			}, c.stored(kindAlert, id)["chartConfig"])
			single := c.expect(200, "GET", base+"/"+id, nil).data()
			matchObject(t, map[string]any{"displayType": "line", "sourceId": src}, single["chartConfig"])
			// The list stays lean: no chartConfig per row.
			listed := find(c.expect(200, "GET", base, nil).list(), "id", id)
			require.NotNil(t, listed)
			assert.Equal(t, "inline", listed["source"])
			assert.False(t, hasKey(listed, "chartConfig"))
		}},
		{"updates an inline alert config and maps asRatio to the internal ratio return type", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			id := c.expect(200, "POST", base, inlineAlert(inlineConfig(src), wh)).data()["id"].(string)
			cfg := with(inlineConfig(src), "groupBy", "ServiceName", "asRatio", true, "select", []any{
				map[string]any{"aggFn": "count", "where": "level:error"}, map[string]any{"aggFn": "count", "where": ""},
			})
			updated := c.expect(200, "PUT", base+"/"+id, with(inlineAlert(cfg, wh), "threshold", 42)).data()
			assert.Equal(t, 42.0, updated["threshold"])
			matchObject(t, map[string]any{"groupBy": "ServiceName", "asRatio": true}, updated["chartConfig"])
			stored := c.stored(kindAlert, id)
			assert.Equal(t, 42.0, stored["threshold"])
			matchObject(t, map[string]any{"groupBy": "ServiceName", "seriesReturnType": "ratio"}, stored["chartConfig"])
		}},
		{"clears source-specific references when switching between inline and tile sources", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			d := dashboardOf(c, "", 1)
			id := c.expect(200, "POST", base, inlineAlert(inlineConfig(src), wh)).data()["id"].(string)
			c.expect(200, "PUT", base+"/"+id, map[string]any{
				"source": "tile", "dashboardId": d.id, "tileId": d.tiles[0], "threshold": 100, "interval": "1h",
				"thresholdType": "above", "channel": webhookChannel(wh),
			})
			stored := c.stored(kindAlert, id)
			assert.Nil(t, stored["chartConfig"])
			assert.Equal(t, d.id, stored["dashboardId"])
			assert.Equal(t, d.tiles[0], stored["tileId"])
			c.expect(200, "PUT", base+"/"+id, inlineAlert(inlineConfig(src), wh))
			stored = c.stored(kindAlert, id)
			matchObject(t, map[string]any{"source": src}, stored["chartConfig"])
			assert.Nil(t, stored["dashboardId"])
			assert.Nil(t, stored["tileId"])
		}},
		{"rejects an inline alert whose source does not exist in the team", func(c *contractFixture) {
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, inlineAlert(inlineConfig(newID()), wh))
		}},
		{"rejects an inline alert with an unsupported display type", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, inlineAlert(with(inlineConfig(src), "displayType", "table"), wh))
		}},
		{"rejects an inline alert with a PromQL config", func(c *contractFixture) {
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, inlineAlert(map[string]any{"configType": "promql", "promqlQuery": "up", "sourceId": newID()}, wh))
		}},
		{"rejects an unsupported configType instead of routing it to the builder dialect", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			b := inlineConfig(src)
			r := c.expect(400, "POST", base, inlineAlert(with(b, "configType", "promql", "formulas", []any{map[string]any{"expression": "B * 2"}}), wh))
			assert.Contains(t, r.message(), `configType must be "sql" or omitted`)
			r = c.expect(400, "POST", base, inlineAlert(with(b, "configType", "promql", "displayType", "number", "select", []any{
				map[string]any{"aggFn": "count", "where": "level:error"}, map[string]any{"aggFn": "count", "where": ""},
			}), wh))
			assert.Contains(t, r.message(), `configType must be "sql" or omitted`)
		}},
		{"validates metric formulas on builder chart configs", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			b := inlineConfig(src)
			formulas := func(expr string) []any { return []any{map[string]any{"expression": expr}} }
			r := c.expect(400, "POST", base, inlineAlert(with(b, "formulas", formulas("B * 2")), wh))
			assert.Contains(t, r.message(), `Unknown series "B"`)
			c.expect(400, "POST", base, inlineAlert(with(b, "formulas", formulas("A +")), wh))
			c.expect(400, "POST", base, inlineAlert(with(b, "asRatio", true, "select", []any{
				map[string]any{"aggFn": "count", "where": ""}, map[string]any{"aggFn": "count", "where": "level:error"},
			}, "formulas", formulas("A * 2")), wh))
			created := c.expect(200, "POST", base, inlineAlert(with(b, "formulas", formulas("A * 2")), wh)).data()
			matchObject(t, map[string]any{"formulas": formulas("A * 2")}, created["chartConfig"])
		}},
		{"rejects an inline alert without a chartConfig", func(c *contractFixture) {
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, with(inlineAlert(nil, wh), "chartConfig", nil))
		}},
		{"accepts a number chart and enforces the single-select rule", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			number := map[string]any{"displayType": "number", "sourceId": src, "select": []any{map[string]any{"aggFn": "count", "where": "level:error"}}}
			created := c.expect(200, "POST", base, inlineAlert(number, wh)).data()
			matchObject(t, map[string]any{"displayType": "number", "sourceId": src}, created["chartConfig"])
			two := []any{map[string]any{"aggFn": "count", "where": "level:error"}, map[string]any{"aggFn": "count", "where": ""}}
			r := c.expect(400, "POST", base, inlineAlert(with(number, "select", two), wh))
			assert.Contains(t, r.message(), "Number charts support a single select item")
			withFormula := c.expect(200, "POST", base, inlineAlert(with(number, "select", two, "formulas", []any{map[string]any{"expression": "A / B * 100"}}), wh)).data()
			matchObject(t, map[string]any{"formulas": []any{map[string]any{"expression": "A / B * 100"}}}, withFormula["chartConfig"])
		}},
		{"rejects formulas on a formula-incapable source kind (session)", func(c *contractFixture) {
			conn, src := makeSource(c)
			wh := webhookOf(c, "")
			session := c.put("", kindSource, map[string]any{
				"kind": "session", "from": map[string]any{"databaseName": "default", "tableName": "rrweb_events"},
				"timestampValueExpression": "Timestamp", "traceSourceId": src, "connection": conn, "name": "Sessions",
			})
			withFormulas := func(sourceID string) map[string]any {
				return inlineAlert(with(inlineConfig(sourceID), "select", []any{
					map[string]any{"aggFn": "count", "where": "level:error"}, map[string]any{"aggFn": "count", "where": ""},
				}, "formulas", []any{map[string]any{"expression": "A / B * 100"}}), wh)
			}
			r := c.expect(400, "POST", base, withFormulas(session))
			assert.Contains(t, string(r.raw), "formulas require")
			c.expect(200, "POST", base, withFormulas(src))
		}},
		{"rejects asRatio without exactly two select items", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			r := c.expect(400, "POST", base, inlineAlert(with(inlineConfig(src), "asRatio", true), wh))
			assert.Contains(t, r.message(), "asRatio can only be used with exactly two select items")
		}},
		{"round-trips a single-alert GET body back through PUT unchanged", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			id := c.expect(200, "POST", base, with(inlineAlert(with(inlineConfig(src), "groupBy", "ServiceName"), wh), "name", "Echo Test")).data()["id"].(string)
			before := c.stored(kindAlert, id)["chartConfig"]
			single := c.expect(200, "GET", base+"/"+id, nil).data()
			echoed := c.expect(200, "PUT", base+"/"+id, single).data()
			assert.Equal(t, single["chartConfig"], echoed["chartConfig"])
			assert.Equal(t, before, c.stored(kindAlert, id)["chartConfig"])
		}},
		{"strips unknown chartConfig fields instead of persisting them", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			created := c.expect(200, "POST", base, inlineAlert(with(inlineConfig(src), "unknownField", "dropped"), wh)).data()
			assert.False(t, hasKey(created["chartConfig"].(map[string]any), "unknownField"))
			assert.False(t, hasKey(c.stored(kindAlert, created["id"].(string))["chartConfig"].(map[string]any), "unknownField"))
		}},
		{"rejects a chartConfig on non-inline sources instead of silently dropping it", func(c *contractFixture) {
			wh, d, ss := webhookOf(c, ""), dashboardOf(c, "", 1), savedSearchOf(c, "")
			cfg := inlineConfig(newID())
			r := c.expect(400, "POST", base, map[string]any{
				"source": "tile", "dashboardId": d.id, "tileId": d.tiles[0], "chartConfig": cfg,
				"threshold": 100, "interval": "1h", "thresholdType": "above", "channel": webhookChannel(wh),
			})
			assert.Contains(t, r.message(), `chartConfig is only supported when source is "inline"`)
			r = c.expect(400, "POST", base, map[string]any{
				"source": "saved_search", "savedSearchId": ss, "chartConfig": cfg,
				"threshold": 100, "interval": "1h", "thresholdType": "above", "channel": webhookChannel(wh),
			})
			assert.Contains(t, r.message(), `chartConfig is only supported when source is "inline"`)
			a := createTestAlert(c).alert
			c.expect(400, "PUT", base+"/"+a["id"].(string), map[string]any{
				"source": "tile", "dashboardId": a["dashboardId"], "tileId": a["tileId"], "chartConfig": cfg,
				"threshold": 100, "interval": "1h", "thresholdType": "above", "channel": a["channel"],
			})
		}},
		{"round-trips the config name and chart-level where", func(c *contractFixture) {
			_, src := makeSource(c)
			wh := webhookOf(c, "")
			cfg := with(inlineConfig(src), "name", "Error Rate Query", "where", "ServiceName:api", "whereLanguage", "lucene")
			created := c.expect(200, "POST", base, inlineAlert(cfg, wh)).data()
			matchObject(t, map[string]any{"name": "Error Rate Query", "where": "ServiceName:api", "whereLanguage": "lucene"}, created["chartConfig"])
			id := created["id"].(string)
			stored := c.stored(kindAlert, id)["chartConfig"]
			matchObject(t, map[string]any{"name": "Error Rate Query", "where": "ServiceName:api", "whereLanguage": "lucene"}, stored)
			single := c.expect(200, "GET", base+"/"+id, nil).data()
			matchObject(t, map[string]any{"name": "Error Rate Query", "where": "ServiceName:api"}, single["chartConfig"])
			c.expect(200, "PUT", base+"/"+id, single)
			assert.Equal(t, stored, c.stored(kindAlert, id)["chartConfig"])
		}},
		{"rejects a chart-level where on raw SQL configs", func(c *contractFixture) {
			conn, _ := makeSource(c)
			wh := webhookOf(c, "")
			r := c.expect(400, "POST", base, inlineAlert(map[string]any{
				"configType": "sql", "displayType": "line", "sqlTemplate": rawSQLAlertTemplate, "connectionId": conn, "where": "ServiceName:api",
			}, wh))
			assert.Contains(t, r.message(), "Raw SQL alert configs have no chart-level where")
		}},
		{"omits chartConfig for internally-authored configs the dialect cannot express, and a blind echo-PUT fails loudly", func(c *contractFixture) {
			_, src := makeSource(c)
			filters := []any{map[string]any{"type": "sql", "condition": "ServiceName = 'api'"}}
			id := createTestAlertDirectly(c, "source", "inline", "dashboardId", nil, "tileId", nil, "chartConfig", map[string]any{
				"displayType": "line", "source": src,
				"select": []any{map[string]any{"aggFn": "count", "aggCondition": "", "aggConditionLanguage": "lucene", "valueExpression": ""}},
				"where":  "", "whereLanguage": "lucene", "filters": filters,
			})
			single := c.expect(200, "GET", base+"/"+id, nil).data()
			assert.Equal(t, "inline", single["source"])
			assert.False(t, hasKey(single, "chartConfig"))
			c.expect(400, "PUT", base+"/"+id, single)
			matchObject(t, map[string]any{"filters": filters}, c.stored(kindAlert, id)["chartConfig"])
		}},
		{"emits chartConfig for internally-authored configs the dialect can express", func(c *contractFixture) {
			_, src := makeSource(c)
			id := createTestAlertDirectly(c, "source", "inline", "dashboardId", nil, "tileId", nil, "chartConfig", map[string]any{
				"name": "Chart Alert Query", "displayType": "line", "source": src,
				"select": []any{map[string]any{"aggFn": "count", "aggCondition": "level:error", "aggConditionLanguage": "lucene", "valueExpression": ""}},
				"where":  "", "whereLanguage": "lucene", "seriesReturnType": "column",
			})
			single := c.expect(200, "GET", base+"/"+id, nil).data()
			matchObject(t, map[string]any{
				"displayType": "line", "name": "Chart Alert Query", "sourceId": src,
				"select": []any{map[string]any{"aggFn": "count", "where": "level:error"}},
			}, single["chartConfig"])
		}},
		// Input validation: webhooks
		{"should reject a non-existent webhook", func(c *contractFixture) {
			c.expect(400, "POST", base, tileAlert(dashboardOf(c, "", 1), newID()))
		}},
		{"should reject a webhook belonging to another team", func(c *contractFixture) {
			d := dashboardOf(c, "", 1)
			c.expect(400, "POST", base, tileAlert(d, webhookOf(c, "other-"+c.team)))
		}},
		{"should reject an update with a webhook belonging to another team", func(c *contractFixture) {
			cr := createTestAlert(c)
			other := webhookOf(c, "other-"+c.team)
			c.expect(400, "PUT", base+"/"+cr.alert["id"].(string), tileAlert(cr.dash, other, "threshold", 200))
		}},
		// Input validation: dashboards (TILE source)
		{"should reject a non-existent dashboard", func(c *contractFixture) {
			c.expect(400, "POST", base, tileAlert(dash{newID(), []string{newID()}}, webhookOf(c, "")))
		}},
		{"should reject a dashboard belonging to another team", func(c *contractFixture) {
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, tileAlert(dashboardOf(c, "other-"+c.team, 1), wh))
		}},
		{"should reject an update with a dashboard belonging to another team", func(c *contractFixture) {
			cr := createTestAlert(c)
			other := dashboardOf(c, "other-"+c.team, 1)
			c.expect(400, "PUT", base+"/"+cr.alert["id"].(string), tileAlert(other, cr.webhook, "threshold", 200))
		}},
		{"should reject creating an alert on a raw SQL table tile", func(c *contractFixture) {
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, tileAlert(rawSQLDashboard(c, "table", rawSQLAlertTemplate), wh))
		}},
		{"should reject creating an alert on a raw SQL tile without interval params", func(c *contractFixture) {
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, tileAlert(rawSQLDashboard(c, "line", "SELECT count() FROM otel_logs"), wh))
		}},
		{"should reject updating an alert to reference a raw SQL table tile", func(c *contractFixture) {
			cr := createTestAlert(c)
			raw := rawSQLDashboard(c, "table", rawSQLAlertTemplate)
			c.expect(400, "PUT", base+"/"+cr.alert["id"].(string), tileAlert(raw, cr.webhook, "threshold", 200))
		}},
		// Input validation: saved searches
		{"should reject a non-existent saved search", func(c *contractFixture) {
			c.expect(400, "POST", base, map[string]any{
				"savedSearchId": newID(), "threshold": 100, "interval": "1h", "source": "saved_search",
				"thresholdType": "above", "channel": webhookChannel(webhookOf(c, "")),
			})
		}},
		{"should reject a saved search belonging to another team", func(c *contractFixture) {
			wh := webhookOf(c, "")
			c.expect(400, "POST", base, map[string]any{
				"savedSearchId": savedSearchOf(c, "other-"+c.team), "threshold": 100, "interval": "1h", "source": "saved_search",
				"thresholdType": "above", "channel": webhookChannel(wh),
			})
		}},
		{"should create an alert with a valid saved search belonging to the team", func(c *contractFixture) {
			wh, ss := webhookOf(c, ""), savedSearchOf(c, "")
			a := c.expect(200, "POST", base, map[string]any{
				"savedSearchId": ss, "threshold": 100, "interval": "1h", "source": "saved_search",
				"thresholdType": "above", "channel": webhookChannel(wh), "name": "Saved Search Alert",
			}).data()
			assert.Equal(t, "saved_search", a["source"])
			assert.Equal(t, ss, a["savedSearchId"])
		}},
		{"should reject an update with a saved search belonging to another team", func(c *contractFixture) {
			ss, wh := savedSearchOf(c, ""), webhookOf(c, "")
			id := c.expect(200, "POST", base, map[string]any{
				"savedSearchId": ss, "threshold": 100, "interval": "1h", "source": "saved_search",
				"thresholdType": "above", "channel": webhookChannel(wh),
			}).data()["id"].(string)
			c.expect(400, "PUT", base+"/"+id, map[string]any{
				"savedSearchId": savedSearchOf(c, "other-"+c.team), "threshold": 200, "interval": "1h", "source": "saved_search",
				"thresholdType": "above", "channel": webhookChannel(wh),
			})
		}},
		// BETWEEN and NOT_BETWEEN threshold types
		{"should create an alert with BETWEEN threshold type", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			a := c.expect(200, "POST", base, tileAlert(d, wh, "threshold", 50, "thresholdMax", 200, "thresholdType", "between")).data()
			assert.Equal(t, 50.0, a["threshold"])
			assert.Equal(t, 200.0, a["thresholdMax"])
			assert.Equal(t, "between", a["thresholdType"])
		}},
		{"should create an alert with NOT_BETWEEN threshold type", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			a := c.expect(200, "POST", base, tileAlert(d, wh, "threshold", 10, "thresholdMax", 90, "interval", "5m", "thresholdType", "not_between")).data()
			assert.Equal(t, 10.0, a["threshold"])
			assert.Equal(t, 90.0, a["thresholdMax"])
			assert.Equal(t, "not_between", a["thresholdType"])
		}},
		{"should reject BETWEEN without thresholdMax", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			c.expect(400, "POST", base, tileAlert(d, wh, "threshold", 50, "thresholdType", "between"))
		}},
		{"should reject BETWEEN when thresholdMax < threshold", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			c.expect(400, "POST", base, tileAlert(d, wh, "threshold", 100, "thresholdMax", 50, "thresholdType", "between"))
		}},
		{"should allow thresholdMax equal to threshold for BETWEEN", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			a := c.expect(200, "POST", base, tileAlert(d, wh, "threshold", 100, "thresholdMax", 100, "thresholdType", "between")).data()
			assert.Equal(t, 100.0, a["threshold"])
			assert.Equal(t, 100.0, a["thresholdMax"])
		}},
		{"should update an alert to use BETWEEN threshold type", func(c *contractFixture) {
			cr := createTestAlert(c)
			a := c.expect(200, "PUT", base+"/"+cr.alert["id"].(string), tileAlert(cr.dash, cr.webhook, "threshold", 20, "thresholdMax", 80, "thresholdType", "between")).data()
			assert.Equal(t, 20.0, a["threshold"])
			assert.Equal(t, 80.0, a["thresholdMax"])
			assert.Equal(t, "between", a["thresholdType"])
		}},
		{"should retrieve a BETWEEN alert with thresholdMax", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			id := c.expect(200, "POST", base, tileAlert(d, wh, "threshold", 10, "thresholdMax", 50, "thresholdType", "between")).data()["id"].(string)
			a := c.expect(200, "GET", base+"/"+id, nil).data()
			assert.Equal(t, 10.0, a["threshold"])
			assert.Equal(t, 50.0, a["thresholdMax"])
			assert.Equal(t, "between", a["thresholdType"])
		}},
		// Authentication
		{"should require authentication", func(c *contractFixture) {
			r := c.doAuth("GET", base+"/"+newID(), nil, "")
			assert.Equal(t, 401, r.status)
		}},
		// Errors field
		{"returns recorded execution errors on GET by id", func(c *contractFixture) {
			id := createTestAlert(c).alert["id"].(string)
			at := "2026-04-17T12:00:00.000Z"
			setStored(c, id, "executionErrors", []any{map[string]any{"timestamp": at, "type": "QUERY_ERROR", "message": "ClickHouse returned 500"}})
			errs := c.expect(200, "GET", base+"/"+id, nil).data()["executionErrors"].([]any)
			require.Len(t, errs, 1)
			e := errs[0].(map[string]any)
			assert.Equal(t, "QUERY_ERROR", e["type"])
			assert.Equal(t, "ClickHouse returned 500", e["message"])
			// toISOString: milliseconds, Z.
			assert.Equal(t, at, e["timestamp"])
		}},
		{"returns recorded execution errors on the list endpoint", func(c *contractFixture) {
			id := createTestAlert(c).alert["id"].(string)
			setStored(c, id, "executionErrors", []any{map[string]any{"timestamp": "2026-04-17T12:00:00.000Z", "type": "WEBHOOK_ERROR", "message": "webhook delivery failed"}})
			m := find(c.expect(200, "GET", base, nil).list(), "id", id)
			require.NotNil(t, m)
			errs := m["executionErrors"].([]any)
			require.Len(t, errs, 1)
			assert.Equal(t, "WEBHOOK_ERROR", errs[0].(map[string]any)["type"])
			assert.Equal(t, "webhook delivery failed", errs[0].(map[string]any)["message"])
		}},
		// Consecutive-window alerting (numConsecutiveWindows)
		{"should create an alert with numConsecutiveWindows and return it", func(c *contractFixture) {
			assert.Equal(t, 3.0, createTestAlert(c, "numConsecutiveWindows", 3).alert["numConsecutiveWindows"])
		}},
		{"should default numConsecutiveWindows to null when not provided", func(c *contractFixture) {
			a := createTestAlert(c).alert
			assert.True(t, hasKey(a, "numConsecutiveWindows"))
			assert.Nil(t, a["numConsecutiveWindows"])
		}},
		{"should reject numConsecutiveWindows below 1", func(c *contractFixture) {
			d, wh := dashboardOf(c, "", 1), webhookOf(c, "")
			c.expect(400, "POST", base, tileAlert(d, wh, "numConsecutiveWindows", 0))
		}},
		{"should return numConsecutiveWindows on GET by id", func(c *contractFixture) {
			id := createTestAlert(c, "numConsecutiveWindows", 5).alert["id"].(string)
			assert.Equal(t, 5.0, c.expect(200, "GET", base+"/"+id, nil).data()["numConsecutiveWindows"])
		}},
		{"should return numConsecutiveWindows on the list endpoint", func(c *contractFixture) {
			id := createTestAlert(c, "numConsecutiveWindows", 4).alert["id"].(string)
			m := find(c.expect(200, "GET", base, nil).list(), "id", id)
			require.NotNil(t, m)
			assert.Equal(t, 4.0, m["numConsecutiveWindows"])
		}},
		{"should update an alert to set numConsecutiveWindows", func(c *contractFixture) {
			cr := createTestAlert(c)
			assert.Nil(t, cr.alert["numConsecutiveWindows"])
			c.expect(200, "PUT", base+"/"+cr.alert["id"].(string), with(cr.input, "numConsecutiveWindows", 2))
			assert.Equal(t, 2.0, c.expect(200, "GET", base+"/"+cr.alert["id"].(string), nil).data()["numConsecutiveWindows"])
		}},
		{"should update an alert to clear numConsecutiveWindows (null)", func(c *contractFixture) {
			cr := createTestAlert(c, "numConsecutiveWindows", 3)
			assert.Equal(t, 3.0, cr.alert["numConsecutiveWindows"])
			in := with(cr.input)
			in["numConsecutiveWindows"] = nil // sent as null
			c.expect(200, "PUT", base+"/"+cr.alert["id"].(string), in)
			got := c.expect(200, "GET", base+"/"+cr.alert["id"].(string), nil).data()
			assert.True(t, hasKey(got, "numConsecutiveWindows"))
			assert.Nil(t, got["numConsecutiveWindows"])
		}},
		// Multiple notification channels
		{"creates an alert with multiple channels and echoes both shapes", func(c *contractFixture) {
			w1, w2 := webhookNamed(c, "multi-1"), webhookNamed(c, "multi-2")
			a := c.expect(200, "POST", base, with(savedSearchBase(c), "channels", []any{webhookChannel(w1), webhookChannel(w2)})).data()
			assert.Equal(t, []any{webhookChannel(w1), webhookChannel(w2)}, a["channels"])
			assert.Equal(t, webhookChannel(w1), a["channel"])
		}},
		{"legacy single-channel payloads still work and gain channels in the response", func(c *contractFixture) {
			wh := webhookOf(c, "")
			a := c.expect(200, "POST", base, with(savedSearchBase(c), "channel", webhookChannel(wh))).data()
			assert.Equal(t, []any{webhookChannel(wh)}, a["channels"])
		}},
		{"round-trips a multi-channel alert through PUT unchanged", func(c *contractFixture) {
			w1, w2 := webhookNamed(c, "rt-1"), webhookNamed(c, "rt-2")
			b := savedSearchBase(c)
			a := c.expect(200, "POST", base, with(b, "channels", []any{webhookChannel(w1), webhookChannel(w2)})).data()
			echo := with(a)
			for k, v := range b {
				echo[k] = v
			}
			echo["threshold"] = 42
			c.expect(200, "PUT", base+"/"+a["id"].(string), echo)
			after := c.expect(200, "GET", base+"/"+a["id"].(string), nil).data()
			assert.Len(t, after["channels"], 2)
			assert.Equal(t, 42.0, after["threshold"])
		}},
		{"collapses to one channel when a legacy client sends only `channel`", func(c *contractFixture) {
			w1, w2 := webhookNamed(c, "legacy-1"), webhookNamed(c, "legacy-2")
			b := savedSearchBase(c)
			a := c.expect(200, "POST", base, with(b, "channels", []any{webhookChannel(w1), webhookChannel(w2)})).data()
			assert.Len(t, a["channels"], 2)
			c.expect(200, "PUT", base+"/"+a["id"].(string), with(b, "channel", webhookChannel(w1)))
			after := c.expect(200, "GET", base+"/"+a["id"].(string), nil).data()
			assert.Equal(t, []any{webhookChannel(w1)}, after["channels"])
		}},
		{"rejects invalid channel combinations", func(c *contractFixture) {
			wh := webhookOf(c, "")
			b := savedSearchBase(c)
			ch := webhookChannel(wh)
			other := webhookNamed(c, "mismatch-1")
			c.expect(400, "POST", base, with(b, "channel", ch, "channels", []any{webhookChannel(other)}))
			c.expect(400, "POST", base, b)
			c.expect(400, "POST", base, with(b, "channels", []any{ch, ch}))
			many := []any{}
			for range 11 {
				many = append(many, webhookChannel(newID()))
			}
			c.expect(400, "POST", base, with(b, "channels", many))
			otherTeam := webhookOf(c, "other-"+c.team)
			c.expect(400, "POST", base, with(b, "channels", []any{ch, webhookChannel(otherTeam)}))
		}},
	}
	replay(t, "alerts.int.test.ts", cases)
}

// matchObject is Jest's toMatchObject: every key of want is in got with
// a matching value (objects by the same rule, arrays item by item).
func matchObject(t *testing.T, want, got any) {
	t.Helper()
	b, err := json.Marshal(want)
	require.NoError(t, err)
	var w any
	require.NoError(t, json.Unmarshal(b, &w))
	var match func(path string, w, g any)
	match = func(path string, w, g any) {
		switch w := w.(type) {
		case map[string]any:
			gm, ok := g.(map[string]any)
			if !assert.True(t, ok, "%s: want an object, got %v", path, g) {
				return
			}
			for k, v := range w {
				match(path+"."+k, v, gm[k])
			}
		case []any:
			ga, ok := g.([]any)
			if !assert.True(t, ok, "%s: want an array, got %v", path, g) || !assert.Len(t, ga, len(w), path) {
				return
			}
			for i := range w {
				match(fmt.Sprintf("%s[%d]", path, i), w[i], ga[i])
			}
		default:
			assert.Equal(t, w, g, path)
		}
	}
	match("", w, got)
}

// makeBuilderChartConfig and makeInlineAlertInput of the file's inline
// describe.
func inlineConfig(sourceID string) map[string]any {
	return map[string]any{
		"displayType": "line", "sourceId": sourceID,
		"select": []any{map[string]any{"aggFn": "count", "where": "level:error", "whereLanguage": "lucene"}},
	}
}

func inlineAlert(chartConfig any, webhookID string) map[string]any {
	return map[string]any{
		"source": "inline", "chartConfig": chartConfig, "threshold": 100, "interval": "1h",
		"thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": webhookID},
	}
}

// TestTileMadeRawSQLTakesItsAlerts: an update that makes an alerted tile
// raw SQL (which is not run here) deletes the tile's alerts, as HyperDX's
// dashboard update does, rather than leaving an alert that can neither be
// evaluated nor updated; the other tiles' alerts stay (issue 46).
func TestTileMadeRawSQLTakesItsAlerts(t *testing.T) {
	fx := setupWith(t, func(*Options) {})
	c := newContractCase(t, fx)
	src := c.put("", kindSource, map[string]any{"name": "Logs", "kind": "log", "database": "default", "table": "otel_logs", "timestampColumn": "Timestamp"})
	chart := func(id string) map[string]any {
		return map[string]any{"id": id, "name": id, "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
			"displayType": "line", "sourceId": src, "select": []any{map[string]any{"aggFn": "count"}},
		}}
	}
	d := c.expect(200, "POST", "/api/v2/dashboards", map[string]any{"name": "D", "tiles": []any{chart("t1"), chart("t2")}}).data()
	tiles := d["tiles"].([]any)
	t1, t2 := tiles[0].(map[string]any)["id"].(string), tiles[1].(map[string]any)["id"].(string)
	wh := c.put("", kindWebhook, map[string]any{"name": "W", "service": "slack", "url": "https://hooks.slack.com/test"})
	alertOn := func(tile string) string {
		return c.expect(200, "POST", "/api/v2/alerts", map[string]any{
			"source": "tile", "dashboardId": d["id"], "tileId": tile, "threshold": 1, "interval": "5m",
			"thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
		}).data()["id"].(string)
	}
	a1, a2 := alertOn(t1), alertOn(t2)
	raw := map[string]any{"id": t1, "name": "t1", "x": 0, "y": 0, "w": 6, "h": 3, "config": map[string]any{
		"configType": "sql", "displayType": "line", "connectionId": sources.DefaultConnectionID(c.team), "sqlTemplate": "SELECT 1",
	}}
	c.expect(200, "PUT", "/api/v2/dashboards/"+d["id"].(string), map[string]any{"name": "D", "tiles": []any{raw, with(chart(t2), "id", t2)}})
	c.expect(404, "GET", "/api/v2/alerts/"+a1, nil)
	c.expect(200, "GET", "/api/v2/alerts/"+a2, nil)
}

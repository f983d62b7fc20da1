package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDashboardValidateAndHyperDXRules: POST /dashboards/validate checks
// as a create does, answers HyperDX's {valid, errors, normalized} and
// stores nothing; a tile's onClick must name a
// dashboard of the team or a log or trace source; containers and the
// tiles' references to them follow HyperDX's rules, and an update that
// leaves containers out keeps them.
func TestDashboardValidateAndHyperDXRules(t *testing.T) {
	fx := setupWith(t, func(*Options) {})
	c := newContractCase(t, fx)
	logs := c.put("", kindSource, map[string]any{"name": "Logs", "kind": "log", "database": "default", "table": "otel_logs", "timestampColumn": "Timestamp"})
	metrics := c.put("", kindSource, map[string]any{"name": "Metrics", "kind": "metric", "database": "default", "table": "otel_metrics_gauge", "timestampColumn": "TimeUnix"})
	table := func(onClick any) map[string]any {
		cfg := map[string]any{"displayType": "table", "sourceId": logs, "select": []any{map[string]any{"aggFn": "count"}}, "groupBy": "ServiceName"}
		if onClick != nil {
			cfg["onClick"] = onClick
		}
		return map[string]any{"name": "t", "x": 0, "y": 0, "w": 12, "h": 4, "config": cfg}
	}
	byID := func(typ, id string) map[string]any {
		return map[string]any{"type": typ, "target": map[string]any{"mode": "id", "id": id}}
	}
	body := func(tiles ...any) map[string]any { return map[string]any{"name": "D", "tiles": tiles} }

	// validate: a good body answers valid with the dashboard, a bad one
	// its problems (both 200, as HyperDX's), and nothing is stored.
	v := c.expect(200, "POST", "/api/v2/dashboards/validate", body(table(nil))).body
	assert.Equal(t, true, v["valid"])
	assert.Equal(t, "D", v["normalized"].(map[string]any)["name"])
	assert.Empty(t, c.expect(200, "GET", "/api/v2/dashboards", nil).list())
	missing := newID()
	r := c.expect(200, "POST", "/api/v2/dashboards/validate", body(table(byID("dashboard", missing))))
	assert.Equal(t, map[string]any{"valid": false, "errors": []any{
		map[string]any{"message": "Could not find the following onClick dashboard IDs: " + missing},
	}}, r.body)

	// onClick on create.
	other := c.expect(200, "POST", "/api/v2/dashboards", body(table(nil))).data()["id"].(string)
	c.expect(200, "POST", "/api/v2/dashboards", body(table(byID("dashboard", other))))
	c.expect(200, "POST", "/api/v2/dashboards", body(table(map[string]any{"type": "dashboard", "target": map[string]any{"mode": "template", "template": "x"}})))
	r = c.expect(400, "POST", "/api/v2/dashboards", body(table(byID("search", metrics))))
	assert.Equal(t, "The following onClick search source IDs are not log or trace sources: "+metrics, r.message())
	r = c.expect(400, "POST", "/api/v2/dashboards", body(table(byID("search", missing))))
	assert.Equal(t, "Could not find the following source IDs: "+missing, r.message())
	c.expect(200, "POST", "/api/v2/dashboards", body(table(byID("search", logs))))

	// Containers.
	containers := []any{map[string]any{"id": "s1", "title": "Section", "collapsed": false, "tabs": []any{
		map[string]any{"id": "a", "title": "A"}, map[string]any{"id": "b", "title": "B"},
	}}}
	in := with(table(nil), "containerId", "s1", "tabId", "b")
	d := c.expect(200, "POST", "/api/v2/dashboards", with(body(in), "containers", containers)).data()
	assert.Equal(t, containers, d["containers"])
	tile := d["tiles"].([]any)[0].(map[string]any)
	assert.Equal(t, "s1", tile["containerId"])
	assert.Equal(t, "b", tile["tabId"])
	id := d["id"].(string)
	// An update without containers keeps them.
	u := c.expect(200, "PUT", "/api/v2/dashboards/"+id, body(with(tile, "name", "renamed"))).data()
	assert.Equal(t, containers, u["containers"])
	for _, bad := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"unknown container", with(body(with(table(nil), "containerId", "nope")), "containers", containers), `Tile references unknown containerId "nope"`},
		{"unknown tab", with(body(with(table(nil), "containerId", "s1", "tabId", "c")), "containers", containers), `unknown tabId "c"`},
		{"tab without container", with(body(with(table(nil), "tabId", "a")), "containers", containers), "tabId requires containerId"},
		{"duplicate container", with(body(table(nil)), "containers", append(append([]any{}, containers...), containers[0])), `Container IDs must be unique ("s1" is used twice)`},
	} {
		r := c.expect(400, "POST", "/api/v2/dashboards", bad.body)
		assert.Contains(t, r.message(), bad.want, bad.name)
	}
	require.Len(t, c.expect(200, "GET", "/api/v2/dashboards", nil).list(), 5)
}

// TestDashboardUpdateKeepsStoredFiltersAsRead: an update that sends no
// filters keeps the stored ones as a read answers them, so one stored
// with a field of a mode it is not in (left by HyperDX's filter form)
// does not fail the update that only keeps it.
func TestDashboardUpdateKeepsStoredFiltersAsRead(t *testing.T) {
	fx := setupWith(t, func(*Options) {})
	c := newContractCase(t, fx)
	logs := c.put("", kindSource, map[string]any{"name": "Logs", "kind": "log", "database": "default", "table": "otel_logs", "timestampColumn": "Timestamp"})
	id := c.put("", kindDashboard, map[string]any{"name": "D", "tiles": []any{}, "filters": []any{map[string]any{
		"id": newID(), "type": "QUERY_EXPRESSION", "name": "Service", "expression": "ServiceName", "sourceId": logs,
		"isBroadcastEnabled": false, "isVariableEnabled": true, "appliesToSourceIds": []any{logs},
	}}})
	d := c.expect(200, "PUT", "/api/v2/dashboards/"+id, map[string]any{"name": "renamed", "tiles": []any{}}).data()
	f := d["filters"].([]any)[0].(map[string]any)
	assert.Equal(t, "Service", f["name"])
	assert.False(t, hasKey(f, "appliesToSourceIds"))
}

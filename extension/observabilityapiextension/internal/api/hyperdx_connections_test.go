package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// connections.int.test.ts (the stored copy is of commit 127c6b6f, the
// nearest to hyperdxCommit the reference index holds).
func TestHyperDXConnections(t *testing.T) {
	const base = "/api/v2/connections"
	mock := func(kv ...any) map[string]any {
		return with(map[string]any{
			"name": "Test Connection", "host": "https://clickhouse.example.com:8443", "username": "default", "password": "test-password",
		}, kv...)
	}
	// otherTeam is HyperDX's new ObjectId() team: one with no key here.
	otherTeam := func(c *contractFixture) string { return "other-" + c.team }
	absent := newID()
	unauth := func(method, path string, body any) func(c *contractFixture) {
		return func(c *contractFixture) {
			assert.Equal(t, http.StatusUnauthorized, c.doAuth(method, path, body, "").status)
		}
	}
	noPassword := func(t *testing.T, got map[string]any) {
		t.Helper()
		assert.False(t, hasKey(got, "password"))
		assert.False(t, hasKey(got, "sealedPassword"))
	}
	replay(t, "connections.int.test.ts", []hxCase{
		// GET /api/v2/connections
		{"should return an empty list when no connections exist", func(c *contractFixture) {
			r := c.expect(200, "GET", base, nil)
			assert.Contains(t, r.header.Get("Content-Type"), "application/json")
			assert.Equal(t, map[string]any{"data": []any{}}, r.body)
		}},
		{"should list connections without exposing passwords", func(c *contractFixture) {
			c.put("", kindConn, mock())
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 1)
			got := r.list()[0].(map[string]any)
			assert.IsType(t, "", got["id"])
			assert.Equal(t, "Test Connection", got["name"])
			assert.Equal(t, "https://clickhouse.example.com:8443", got["host"])
			assert.Equal(t, "default", got["username"])
			assert.IsType(t, "", got["createdAt"])
			assert.IsType(t, "", got["updatedAt"])
			noPassword(t, got)
			assert.False(t, hasKey(got, "team"))
		}},
		{"should not return connections belonging to another team", func(c *contractFixture) {
			c.put("", kindConn, mock())
			c.put(otherTeam(c), kindConn, mock("name", "Other Team Connection"))
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 1)
			assert.Equal(t, "Test Connection", r.list()[0].(map[string]any)["name"])
		}},
		{"should require authentication", unauth("GET", base, nil)},

		// GET /api/v2/connections/:id
		{"should return a connection by id without the password", func(c *contractFixture) {
			id := c.put("", kindConn, mock())
			got := c.expect(200, "GET", base+"/"+id, nil).data()
			assert.Equal(t, id, got["id"])
			assert.Equal(t, "Test Connection", got["name"])
			assert.Equal(t, "https://clickhouse.example.com:8443", got["host"])
			assert.Equal(t, "default", got["username"])
			noPassword(t, got)
		}},
		{"should return 404 for a non-existent connection", func(c *contractFixture) { c.expect(404, "GET", base+"/"+absent, nil) }},
		{"should return 404 for a connection belonging to another team", func(c *contractFixture) {
			id := c.put(otherTeam(c), kindConn, mock())
			c.expect(404, "GET", base+"/"+id, nil)
		}},
		{"should return 400 for an invalid connection id", func(c *contractFixture) { c.expect(400, "GET", base+"/not-an-id", nil) }},
		{"should require authentication", unauth("GET", base+"/"+absent, nil)},

		// POST /api/v2/connections
		{"should create a connection and return it without the password", func(c *contractFixture) {
			got := c.expect(200, "POST", base, mock()).data()
			assert.IsType(t, "", got["id"])
			assert.Equal(t, "Test Connection", got["name"])
			assert.Equal(t, "https://clickhouse.example.com:8443", got["host"])
			assert.Equal(t, "default", got["username"])
			noPassword(t, got)
			stored := c.stored(kindConn, got["id"].(string))
			require.NotNil(t, stored)
			assert.Equal(t, "test-password", stored["password"])
			assert.NotContains(t, stored["sealedPassword"], "test-password", "sealed at rest")
		}},
		{"should create a connection without a password", func(c *contractFixture) {
			got := c.expect(200, "POST", base, mock("password", nil)).data()
			assert.Empty(t, c.stored(kindConn, got["id"].(string))["password"])
		}},
		{"should create a connection with optional fields", func(c *contractFixture) {
			got := c.expect(200, "POST", base, mock("hyperdxSettingPrefix", "hyperdx_")).data()
			assert.Equal(t, "hyperdx_", got["hyperdxSettingPrefix"])
		}},
		{"should reject a request with missing required fields", func(c *contractFixture) {
			c.expect(400, "POST", base, map[string]any{"name": "Missing host and username"})
		}},
		{"should create a Prometheus-compatible connection", func(c *contractFixture) {
			got := c.expect(200, "POST", base, map[string]any{
				"name": "Thanos", "host": "http://thanos:10902", "username": "", "password": "", "isPrometheusEndpoint": true,
			}).data()
			assert.Equal(t, "Thanos", got["name"])
			assert.Equal(t, "http://thanos:10902", got["host"])
			assert.Equal(t, true, got["isPrometheusEndpoint"])
		}},
		{"should require authentication", unauth("POST", base, mock())},

		// PUT /api/v2/connections/:id
		{"should update a connection", func(c *contractFixture) {
			id := c.put("", kindConn, mock())
			got := c.expect(200, "PUT", base+"/"+id, map[string]any{
				"name": "Updated Connection", "host": "https://clickhouse-updated.example.com:8443", "username": "updated-user",
			}).data()
			assert.Equal(t, id, got["id"])
			assert.Equal(t, "Updated Connection", got["name"])
			assert.Equal(t, "https://clickhouse-updated.example.com:8443", got["host"])
			assert.Equal(t, "updated-user", got["username"])
			noPassword(t, got)
		}},
		{"should keep the existing password when omitted", func(c *contractFixture) {
			id := c.put("", kindConn, mock())
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Updated Connection", "host": "https://clickhouse.example.com:8443", "username": "default"})
			assert.Equal(t, "test-password", c.stored(kindConn, id)["password"])
		}},
		{"should update the password when provided", func(c *contractFixture) {
			id := c.put("", kindConn, mock())
			c.expect(200, "PUT", base+"/"+id, mock("password", "new-password"))
			assert.Equal(t, "new-password", c.stored(kindConn, id)["password"])
		}},
		{"should clear hyperdxSettingPrefix when set to an empty string", func(c *contractFixture) {
			id := c.put("", kindConn, mock("hyperdxSettingPrefix", "hyperdx_"))
			c.expect(200, "PUT", base+"/"+id, mock("hyperdxSettingPrefix", ""))
			assert.False(t, hasKey(c.stored(kindConn, id), "hyperdxSettingPrefix"))
		}},
		{"should clear hyperdxSettingPrefix when set to null", func(c *contractFixture) {
			id := c.put("", kindConn, mock("hyperdxSettingPrefix", "hyperdx_"))
			body := mock()
			body["hyperdxSettingPrefix"] = nil // with() would delete it
			c.expect(200, "PUT", base+"/"+id, body)
			assert.False(t, hasKey(c.stored(kindConn, id), "hyperdxSettingPrefix"))
		}},
		{"should toggle isPrometheusEndpoint", func(c *contractFixture) {
			id := c.put("", kindConn, mock())
			c.expect(200, "PUT", base+"/"+id, mock("host", "http://thanos:10902", "isPrometheusEndpoint", true))
			stored := c.stored(kindConn, id)
			assert.Equal(t, "http://thanos:10902", stored["host"])
			assert.Equal(t, true, stored["isPrometheusEndpoint"])
		}},
		{"should keep hyperdxSettingPrefix unchanged when omitted", func(c *contractFixture) {
			id := c.put("", kindConn, mock("hyperdxSettingPrefix", "hyperdx_"))
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Updated Connection", "host": "https://clickhouse.example.com:8443", "username": "default"})
			assert.Equal(t, "hyperdx_", c.stored(kindConn, id)["hyperdxSettingPrefix"])
		}},
		{"should return 404 for a non-existent connection", func(c *contractFixture) { c.expect(404, "PUT", base+"/"+absent, mock()) }},
		{"should return 404 for a connection belonging to another team", func(c *contractFixture) {
			id := c.put(otherTeam(c), kindConn, mock())
			c.expect(404, "PUT", base+"/"+id, mock())
		}},
		{"should reject a request with missing required fields", func(c *contractFixture) {
			id := c.put("", kindConn, mock())
			c.expect(400, "PUT", base+"/"+id, map[string]any{"name": "Missing host and username"})
		}},
		{"should require authentication", unauth("PUT", base+"/"+absent, mock())},

		// DELETE /api/v2/connections/:id
		{"should delete a connection", func(c *contractFixture) {
			id := c.put("", kindConn, mock())
			c.expect(200, "DELETE", base+"/"+id, nil)
			assert.Nil(t, c.stored(kindConn, id))
		}},
		{"should return 404 for a non-existent connection", func(c *contractFixture) { c.expect(404, "DELETE", base+"/"+absent, nil) }},
		{"should not delete a connection belonging to another team", func(c *contractFixture) {
			other := otherTeam(c)
			id := c.put(other, kindConn, mock())
			c.expect(404, "DELETE", base+"/"+id, nil)
			_, err := c.fx.server.opts.Store.Get(t.Context(), other, kindConn, id)
			assert.NoError(t, err, "still there")
		}},
		{"should require authentication", unauth("DELETE", base+"/"+absent, nil)},
	})
}

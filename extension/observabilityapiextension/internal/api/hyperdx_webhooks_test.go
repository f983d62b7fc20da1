package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// webhooks.int.test.ts (commit hyperdxCommit).
func TestHyperDXWebhooks(t *testing.T) {
	const base = "/api/v2/webhooks"
	mock := fixtureBodies(t, "webhooks")
	slack, incident, generic := mock["slack"], mock["incidentio"], mock["generic"]
	genericHeaders := strMap(generic["headers"].(map[string]any))
	// stored is a mock as a fixture document (headers typed for sealing).
	fixtureOf := func(m map[string]any, kv ...any) map[string]any {
		d := with(m, kv...)
		if h, ok := d["headers"].(map[string]any); ok {
			d["headers"] = strMap(h)
		}
		return d
	}
	listed := func(c *contractFixture, want map[string]any, withBody bool) {
		r := c.expect(200, "GET", base, nil)
		require.Len(t, r.list(), 1)
		got := r.list()[0].(map[string]any)
		for _, k := range []string{"name", "service", "url", "description"} {
			assert.Equal(t, want[k], got[k], k)
		}
		assert.NotEmpty(t, got["id"])
		assert.NotEmpty(t, got["createdAt"])
		assert.NotEmpty(t, got["updatedAt"])
		assert.False(t, hasKey(got, "headers"))
		if withBody {
			assert.Equal(t, want["body"], got["body"])
		} else {
			assert.False(t, hasKey(got, "body"))
		}
	}
	stripped := func(c *contractFixture) {
		r := c.expect(200, "GET", base, nil)
		got := r.list()[0].(map[string]any)
		assert.False(t, hasKey(got, "headers"))
		assert.False(t, hasKey(got, "body"))
	}
	minimal := func(service string) func(c *contractFixture) {
		return func(c *contractFixture) {
			name := "Minimal " + map[string]string{"slack": "Slack", "generic": "Generic"}[service] + " Webhook"
			c.put("", kindWebhook, map[string]any{"name": name, "service": service})
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 1)
			got := r.list()[0].(map[string]any)
			assert.Equal(t, name, got["name"])
			assert.Equal(t, service, got["service"])
			for _, k := range []string{"url", "description", "headers", "body"} {
				assert.False(t, hasKey(got, k), k)
			}
		}
	}
	reject := func(body map[string]any) func(c *contractFixture) {
		return func(c *contractFixture) { c.expect(400, "POST", base, body) }
	}
	many := func(prefix string) map[string]any {
		m := map[string]any{}
		for i := range 101 {
			m[fmt.Sprintf("%s%d", prefix, i)] = "v"
		}
		return m
	}
	unauth := func(method string, body any) func(c *contractFixture) {
		return func(c *contractFixture) {
			assert.Equal(t, http.StatusUnauthorized, c.doAuth(method, base, body, "").status)
		}
	}

	cases := []hxCase{
		// GET /api/v2/webhooks
		{"should return an empty list when no webhooks exist", func(c *contractFixture) {
			r := c.expect(200, "GET", base, nil)
			assert.Contains(t, r.header.Get("Content-Type"), "application/json")
			assert.Equal(t, map[string]any{"data": []any{}, "meta": map[string]any{"total": 0.0, "limit": 1000.0, "offset": 0.0}}, r.body)
		}},
		{"should paginate with limit and offset and report the total", func(c *contractFixture) {
			for i := range 3 {
				c.put("", kindWebhook, map[string]any{"name": fmt.Sprintf("Webhook %d", i), "service": "slack"})
			}
			p1 := c.expect(200, "GET", base+"?limit=2&offset=0", nil)
			assert.Len(t, p1.list(), 2)
			assert.Equal(t, map[string]any{"total": 3.0, "limit": 2.0, "offset": 0.0}, p1.meta())
			p2 := c.expect(200, "GET", base+"?limit=2&offset=2", nil)
			assert.Len(t, p2.list(), 1)
			assert.Equal(t, map[string]any{"total": 3.0, "limit": 2.0, "offset": 2.0}, p2.meta())
			ids := map[any]bool{}
			for _, w := range append(p1.list(), p2.list()...) {
				ids[w.(map[string]any)["id"]] = true
			}
			assert.Len(t, ids, 3)
		}},
		{"should return an empty page with the correct total past the end", func(c *contractFixture) {
			c.put("", kindWebhook, map[string]any{"name": "Only Webhook", "service": "slack"})
			r := c.expect(200, "GET", base+"?offset=100", nil)
			assert.Empty(t, r.list())
			assert.Equal(t, map[string]any{"total": 1.0, "limit": 1000.0, "offset": 100.0}, r.meta())
		}},
		{"should reject an out-of-range or non-integer limit or offset", func(c *contractFixture) {
			for _, q := range []string{"limit=0", "limit=5000", "offset=-1", "limit=abc", "limit=1.5"} {
				c.expect(400, "GET", base+"?"+q, nil)
			}
		}},
		{"should list a Slack webhook with only Slack-allowed fields", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(slack))
			listed(c, slack, false)
		}},
		{"should strip headers and body stored on a Slack webhook", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(slack, "headers", map[string]string{"X-Secret": "secret"}, "body", `{"text": "hello"}`))
			stripped(c)
		}},
		{"should list an IncidentIO webhook with only IncidentIO-allowed fields", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(incident))
			listed(c, incident, false)
		}},
		{"should strip headers and body stored on an IncidentIO webhook", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(incident, "headers", map[string]string{"X-Secret": "secret"}, "body", `{"title": "{{.title}}"}`))
			stripped(c)
		}},
		{"should list a Generic webhook with body but no headers", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(generic))
			listed(c, generic, true)
		}},
		{"should return multiple webhooks of different service types", func(c *contractFixture) {
			for _, m := range []map[string]any{slack, incident, generic} {
				c.put("", kindWebhook, fixtureOf(m))
			}
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 3)
			var names []any
			for _, w := range r.list() {
				names = append(names, w.(map[string]any)["name"])
			}
			assert.ElementsMatch(t, []any{slack["name"], incident["name"], generic["name"]}, names)
		}},
		{"should not return webhooks belonging to another team", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(slack))
			c.put("b", kindWebhook, fixtureOf(slack, "name", "Other Team Webhook"))
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 1)
			assert.Equal(t, slack["name"], r.list()[0].(map[string]any)["name"])
		}},
		{"should work with a minimal Slack webhook (no optional fields)", minimal("slack")},
		{"should work with a minimal Generic webhook (no optional fields)", minimal("generic")},
		{"should count a row that fails schema parse in total but omit it from data", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(slack))
			c.put("", kindWebhook, map[string]any{"name": "Broken Webhook", "service": "not-a-real-service"})
			r := c.expect(200, "GET", base, nil)
			assert.Equal(t, 2.0, r.meta()["total"])
			require.Len(t, r.list(), 1)
			assert.Equal(t, slack["name"], r.list()[0].(map[string]any)["name"])
		}},
		{"should require authentication", unauth("GET", nil)},

		// POST /api/v2/webhooks
		{"should require authentication (POST)", unauth("POST", slack)},
		{"should create a Slack webhook and never return sensitive fields", func(c *contractFixture) {
			r := c.expect(200, "POST", base, generic)
			d := r.data()
			for _, k := range []string{"name", "service", "url", "body"} {
				assert.Equal(t, generic[k], d[k], k)
			}
			assert.False(t, hasKey(d, "headers"))
			assert.False(t, hasKey(d, "queryParams"))
			assert.NotNil(t, c.stored(kindWebhook, d["id"].(string))["headers"], "persisted")
		}},
		{"should reject a duplicate service + name", func(c *contractFixture) {
			c.expect(200, "POST", base, slack)
			r := c.expect(400, "POST", base, slack)
			assert.Regexp(t, `(?i)already exists`, r.message())
		}},
		{"should reject an invalid url", reject(with(slack, "url", "not-a-url"))},
		{"should reject a private webhook URL without persisting it", func(c *contractFixture) {
			r := c.expect(400, "POST", base, with(generic, "url", "http://10.0.0.1/webhook"))
			assert.Contains(t, r.message(), "private or reserved address")
			assert.Empty(t, c.expect(200, "GET", base, nil).list())
		}},
	}
	for _, field := range []string{"headers", "queryParams", "body"} {
		body := with(slack, field, map[string]any{"X-Custom": "value"})
		if field == "body" {
			body = with(slack, "body", `{"text": "hi"}`)
		}
		cases = append(cases, hxCase{"should reject " + field + " on a slack webhook (unsupported by the service)", func(c *contractFixture) {
			r := c.expect(400, "POST", base, body)
			assert.Regexp(t, `(?i)not supported`, string(r.raw))
		}})
	}
	cases = append(cases, []hxCase{
		{"should reject header values with control characters", reject(with(generic, "headers", map[string]any{"X-Bad": "line1\nline2"}))},
		{"should reject query param values with control characters", reject(with(generic, "queryParams", map[string]any{"token": "line1\r\nX-Injected: evil"}))},
		{"should reject query param names with control characters", reject(with(generic, "queryParams", map[string]any{"bad\nkey": "value"}))},
		{"should reject a header name with characters outside the HTTP token charset", reject(with(generic, "headers", map[string]any{"X-Bad@Name": "value"}))},
		{"should reject a header name containing a colon", reject(with(generic, "headers", map[string]any{"X-Bad:Name": "value"}))},
		{"should reject a header name that starts with a digit", reject(with(generic, "headers", map[string]any{"1-Header": "value"}))},
		{"should reject an empty header name", reject(with(generic, "headers", map[string]any{"": "value"}))},
		// field size caps
		{"should reject an over-long name", reject(with(generic, "name", strings.Repeat("x", 1025)))},
		{"should reject an over-long url", reject(with(generic, "url", "https://example.com/"+strings.Repeat("a", 2049)))},
		{"should reject an over-long description", reject(with(generic, "description", strings.Repeat("x", 2049)))},
		{"should reject an over-long body", reject(with(generic, "body", strings.Repeat("x", 16*1024+1)))},
		{"should reject an over-long header value", reject(with(generic, "headers", map[string]any{"X-Big": strings.Repeat("x", 4097)}))},
		{"should reject an over-long query param value", reject(with(generic, "queryParams", map[string]any{"token": strings.Repeat("x", 4097)}))},
		{"should reject more than 100 headers", reject(with(generic, "headers", many("X-H-")))},
		{"should reject more than 100 query params", reject(with(generic, "queryParams", many("p")))},

		// PUT /api/v2/webhooks/:id
		{"should reject a private webhook URL without updating it", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(generic))
			r := c.expect(400, "PUT", base+"/"+id, with(generic, "url", "http://[fd00::1]/webhook"))
			assert.Contains(t, r.message(), "private or reserved address")
			assert.Equal(t, generic["url"], c.stored(kindWebhook, id)["url"])
		}},
		{"should replace readable fields but preserve omitted write-only fields when the destination is unchanged", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(generic))
			r := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Renamed Generic", "service": "generic", "url": generic["url"]})
			assert.Equal(t, "Renamed Generic", r.data()["name"])
			assert.Equal(t, generic["url"], r.data()["url"])
			assert.False(t, hasKey(r.data(), "headers"))
			assert.False(t, hasKey(r.data(), "queryParams"))
			st := c.stored(kindWebhook, id)
			assert.Equal(t, toAny(genericHeaders), st["headers"], "omitted with the destination unchanged: kept")
			assert.False(t, hasKey(st, "body"), "readable fields omitted are cleared (full replace)")
			assert.False(t, hasKey(st, "description"))
		}},
		{"should preserve omitted queryParams when the destination is unchanged", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(generic, "queryParams", map[string]string{"token": "secret-token"}))
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Renamed Generic", "service": "generic", "url": generic["url"]})
			assert.Equal(t, map[string]any{"token": "secret-token"}, c.stored(kindWebhook, id)["queryParams"])
		}},
		{"should NOT forward stored write-only secrets when the url changes", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(generic, "headers", map[string]string{"Authorization": "Bearer super-secret"},
				"queryParams", map[string]string{"token": "secret-token"}))
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": generic["name"], "service": "generic", "url": "https://attacker.example.com/steal"})
			st := c.stored(kindWebhook, id)
			assert.Nil(t, st["headers"])
			assert.Nil(t, st["queryParams"])
			assert.Equal(t, "https://attacker.example.com/steal", st["url"])
		}},
		{"should clear stored write-only secrets when the service changes", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(generic, "headers", map[string]string{"Authorization": "Bearer super-secret"}))
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": generic["name"], "service": "slack", "url": slack["url"]})
			assert.Nil(t, c.stored(kindWebhook, id)["headers"])
		}},
		{"should keep re-supplied write-only fields when the url changes", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(generic, "headers", map[string]string{"Authorization": "Bearer old-secret"}))
			c.expect(200, "PUT", base+"/"+id, map[string]any{
				"name": generic["name"], "service": "generic", "url": "https://example.com/new-but-trusted",
				"headers": map[string]any{"Authorization": "Bearer new-secret"},
			})
			assert.Equal(t, map[string]any{"Authorization": "Bearer new-secret"}, c.stored(kindWebhook, id)["headers"])
		}},
		{"should clear write-only fields when an explicit empty object is sent", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(generic))
			c.expect(200, "PUT", base+"/"+id, map[string]any{"name": generic["name"], "service": "generic", "url": generic["url"], "headers": map[string]any{}})
			assert.Nil(t, c.stored(kindWebhook, id)["headers"])
		}},
		{"should reject renaming a webhook onto an existing service + name", func(c *contractFixture) {
			c.put("", kindWebhook, fixtureOf(slack))
			id := c.put("", kindWebhook, fixtureOf(slack, "name", "Another Slack Webhook"))
			r := c.expect(400, "PUT", base+"/"+id, slack)
			assert.Regexp(t, `(?i)already exists`, r.message())
		}},
		{"should return 404 for a webhook belonging to another team", func(c *contractFixture) {
			id := c.put("b", kindWebhook, fixtureOf(slack))
			c.expect(404, "PUT", base+"/"+id, slack)
		}},
		{"should return 404 for a non-existent webhook", func(c *contractFixture) {
			c.expect(404, "PUT", base+"/"+newID(), slack)
		}},

		// DELETE /api/v2/webhooks/:id
		{"should delete a webhook", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(slack))
			c.expect(200, "DELETE", base+"/"+id, nil)
			assert.Nil(t, c.stored(kindWebhook, id))
		}},
		{"should return 404 for a webhook belonging to another team (DELETE)", func(c *contractFixture) {
			id := c.put("b", kindWebhook, fixtureOf(slack))
			c.expect(404, "DELETE", base+"/"+id, nil)
			other := *c
			other.team = "b"
			assert.NotNil(t, other.stored(kindWebhook, id), "untouched")
		}},
		{"should return 409 (not orphan alerts) when an alert still references the webhook", func(c *contractFixture) {
			id := c.put("", kindWebhook, fixtureOf(slack))
			c.put("", kindAlert, map[string]any{
				"source": "saved_search", "savedSearchId": newID(), "threshold": 1, "interval": "5m",
				"state": "OK", "channel": map[string]any{"type": "webhook", "webhookId": id},
			})
			r := c.expect(409, "DELETE", base+"/"+id, nil)
			assert.Regexp(t, `(?i)still reference`, r.message())
			assert.NotNil(t, c.stored(kindWebhook, id))
		}},
	}...)
	replay(t, "webhooks.int.test.ts", cases)
}

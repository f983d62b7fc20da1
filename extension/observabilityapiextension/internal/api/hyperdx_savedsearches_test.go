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
// savedSearches-crud.int.test.ts (commit hyperdxCommit). Its beforeEach
// makes a connection and a log source in Mongo: here a log source
// document of the case's team.
func TestHyperDXSavedSearchesCRUD(t *testing.T) {
	const base = "/api/v2/saved-searches"
	logSource := func(c *contractFixture, team string) string {
		return c.put(team, kindSource, map[string]any{"name": "Logs", "kind": "log", "database": "otel", "table": "otel_logs", "timestampColumn": "Timestamp"})
	}
	body := func(sourceID string) map[string]any {
		return map[string]any{
			"name": "Production Errors", "sourceId": sourceID, "select": "Timestamp, Body", "where": "SeverityText:ERROR",
			"whereLanguage": "lucene", "orderBy": "Timestamp DESC", "tags": []any{"prod"},
		}
	}
	otherTeams := func(c *contractFixture) string {
		return c.put("b", kindSaved, map[string]any{"name": "Other Team Search", "source": newID(), "whereLanguage": "lucene"})
	}
	rejectWith := func(kv ...any) func(c *contractFixture) {
		return func(c *contractFixture) { c.expect(400, "POST", base, with(body(logSource(c, "")), kv...)) }
	}
	sqlFilter := func(cond string) map[string]any { return map[string]any{"type": "sql", "condition": cond} }
	cases := []hxCase{
		{"should require authentication on list", func(c *contractFixture) {
			assert.Equal(t, http.StatusUnauthorized, c.doAuth("GET", base, nil, "").status)
		}},
		// POST
		{"should create a saved search and return the external shape", func(c *contractFixture) {
			src := logSource(c, "")
			d := c.expect(200, "POST", base, body(src)).data()
			assert.NotEmpty(t, d["id"])
			for k, v := range body(src) {
				assert.Equal(t, v, d[k], k)
			}
			assert.Equal(t, c.team, d["teamId"])
			assert.False(t, hasKey(d, "source"), "never the internal source field")
		}},
		{"should reject a sourceId that does not belong to the team", func(c *contractFixture) {
			logSource(c, "")
			r := c.expect(400, "POST", base, body(newID()))
			assert.Regexp(t, `(?i)existing source`, r.message())
		}},
		{"should reject a real source owned by another team (cross-team)", func(c *contractFixture) {
			logSource(c, "")
			r := c.expect(400, "POST", base, body(logSource(c, "b")))
			assert.Regexp(t, `(?i)existing source`, r.message())
		}},
		{"should reject a malformed sourceId", rejectWith("sourceId", "not-an-id")},
		{"should reject a missing name", func(c *contractFixture) {
			c.expect(400, "POST", base, with(body(logSource(c, "")), "name", nil))
		}},
		{"should reject more than 50 tags", func(c *contractFixture) {
			tags := []any{}
			for i := range 51 {
				tags = append(tags, fmt.Sprintf("tag-%d", i))
			}
			c.expect(400, "POST", base, with(body(logSource(c, "")), "tags", tags))
		}},
		{"should reject a tag longer than 32 characters", rejectWith("tags", []any{strings.Repeat("x", 33)})},
		{"should reject a name longer than 1024 characters", rejectWith("name", strings.Repeat("x", 1025))},
		{"should accept the sidebar-renderable IN / NOT IN / BETWEEN forms", func(c *contractFixture) {
			filters := []any{
				sqlFilter("ServiceName IN ('checkout', 'payments')"), sqlFilter("SeverityText NOT IN ('debug', 'trace')"),
				sqlFilter("Duration BETWEEN 100 AND 5000"),
				map[string]any{"condition": "StatusCode IN ('500')"},
			}
			r := c.expect(200, "POST", base, with(body(logSource(c, "")), "filters", filters))
			assert.Equal(t, []any{
				sqlFilter("ServiceName IN ('checkout', 'payments')"), sqlFilter("SeverityText NOT IN ('debug', 'trace')"),
				sqlFilter("Duration BETWEEN 100 AND 5000"), sqlFilter("StatusCode IN ('500')"),
			}, r.data()["filters"])
		}},
		{"should reject non-sql filter shapes that would not render in the sidebar", func(c *contractFixture) {
			src := logSource(c, "")
			c.expect(400, "POST", base, with(body(src), "filters", []any{map[string]any{"type": "lucene", "condition": "SeverityText:ERROR"}}))
			c.expect(400, "POST", base, with(body(src), "filters", []any{map[string]any{"type": "sql_ast", "operator": "=", "left": "ServiceName", "right": "'x'"}}))
		}},
		{"should reject a sql condition that is not a sidebar-renderable predicate", rejectWith("filters", []any{sqlFilter("ServiceName = 'checkout'")})},
		{"should reject a compound condition that only partially renders", func(c *contractFixture) {
			src := logSource(c, "")
			c.expect(400, "POST", base, with(body(src), "filters", []any{sqlFilter("ServiceName IN ('checkout') AND foo = 1")}))
			c.expect(400, "POST", base, with(body(src), "filters", []any{sqlFilter("ServiceName IN ('a') AND SeverityText IN ('error')")}))
		}},
		{"should reject a BETWEEN with non-numeric bounds", rejectWith("filters", []any{sqlFilter("Timestamp BETWEEN '2024-01-01' AND '2024-02-01'")})},
		{"should reject more than 100 filters", func(c *contractFixture) {
			var fs []any
			for range 101 {
				fs = append(fs, sqlFilter("ServiceName IN ('checkout')"))
			}
			c.expect(400, "POST", base, with(body(logSource(c, "")), "filters", fs))
		}},
		{"should reject a filter expression that exceeds the length cap", rejectWith("filters", []any{sqlFilter(strings.Repeat("x", 8*1024+1))})},
		{"should reject select longer than its cap", rejectWith("select", strings.Repeat("x", 4*1024+1))},
		{"should reject where longer than its cap", rejectWith("where", strings.Repeat("x", 8*1024+1))},
		{"should reject orderBy longer than its cap", rejectWith("orderBy", strings.Repeat("x", 1024+1))},
		// GET
		{"should list only the team saved searches", func(c *contractFixture) {
			c.expect(200, "POST", base, body(logSource(c, "")))
			otherTeams(c)
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 1)
			assert.Equal(t, "Production Errors", r.list()[0].(map[string]any)["name"])
		}},
		{"should cap the number of results with the limit param", func(c *contractFixture) {
			src := logSource(c, "")
			c.expect(200, "POST", base, with(body(src), "name", "First"))
			c.expect(200, "POST", base, with(body(src), "name", "Second"))
			assert.Len(t, c.expect(200, "GET", base+"?limit=1", nil).list(), 1)
		}},
		{"should reject an out-of-range or non-integer limit or offset", func(c *contractFixture) {
			for _, q := range []string{"limit=0", "limit=5000", "offset=-1", "limit=abc", "limit=1.5"} {
				c.expect(400, "GET", base+"?"+q, nil)
			}
		}},
		{"should paginate with limit and offset and report the total", func(c *contractFixture) {
			src := logSource(c, "")
			for _, n := range []string{"First", "Second", "Third"} {
				c.expect(200, "POST", base, with(body(src), "name", n))
			}
			p1 := c.expect(200, "GET", base+"?limit=2&offset=0", nil)
			assert.Len(t, p1.list(), 2)
			assert.Equal(t, map[string]any{"total": 3.0, "limit": 2.0, "offset": 0.0}, p1.meta())
			assert.Equal(t, "3", p1.header.Get("X-Total-Count"))
			p2 := c.expect(200, "GET", base+"?limit=2&offset=2", nil)
			assert.Len(t, p2.list(), 1)
			assert.Equal(t, map[string]any{"total": 3.0, "limit": 2.0, "offset": 2.0}, p2.meta())
			ids := map[any]bool{}
			for _, s := range append(p1.list(), p2.list()...) {
				ids[s.(map[string]any)["id"]] = true
			}
			assert.Len(t, ids, 3)
		}},
		{"should return an empty page with the correct total past the end", func(c *contractFixture) {
			c.expect(200, "POST", base, body(logSource(c, "")))
			r := c.expect(200, "GET", base+"?offset=100", nil)
			assert.Empty(t, r.list())
			assert.Equal(t, map[string]any{"total": 1.0, "limit": 1000.0, "offset": 100.0}, r.meta())
		}},
		{"should get a saved search by id", func(c *contractFixture) {
			id := c.expect(200, "POST", base, body(logSource(c, ""))).data()["id"].(string)
			assert.Equal(t, id, c.expect(200, "GET", base+"/"+id, nil).data()["id"])
		}},
		{"should return 404 for another team saved search", func(c *contractFixture) {
			c.expect(404, "GET", base+"/"+otherTeams(c), nil)
		}},
		// PUT
		{"should preserve a pre-existing non-renderable filter on read-modify-write", func(c *contractFixture) {
			src := logSource(c, "")
			lucene := map[string]any{"type": "lucene", "condition": "level:error"}
			id := c.put("", kindSaved, map[string]any{"name": "Legacy", "source": src, "whereLanguage": "lucene", "filters": []any{lucene}})
			r := c.expect(200, "PUT", base+"/"+id, map[string]any{"name": "Legacy renamed", "sourceId": src, "filters": []any{lucene}})
			assert.Equal(t, []any{lucene}, r.data()["filters"])
			c.expect(400, "PUT", base+"/"+id, map[string]any{
				"name": "Legacy renamed", "sourceId": src,
				"filters": []any{lucene, map[string]any{"type": "lucene", "condition": "status:500"}},
			})
		}},
		{"should update a saved search", func(c *contractFixture) {
			src := logSource(c, "")
			id := c.expect(200, "POST", base, body(src)).data()["id"].(string)
			d := c.expect(200, "PUT", base+"/"+id, with(body(src), "name", "Renamed", "where", "Body:timeout")).data()
			assert.Equal(t, "Renamed", d["name"])
			assert.Equal(t, "Body:timeout", d["where"])
		}},
		{"should reset every omitted optional field to its default (uniform full-replace)", func(c *contractFixture) {
			src := logSource(c, "")
			created := c.expect(200, "POST", base, with(body(src), "whereLanguage", "sql", "where", "x = 1")).data()
			assert.Equal(t, "Timestamp DESC", created["orderBy"])
			assert.Equal(t, []any{"prod"}, created["tags"])
			d := c.expect(200, "PUT", base+"/"+created["id"].(string), map[string]any{"name": "Minimal", "sourceId": src}).data()
			assert.Equal(t, "Minimal", d["name"])
			assert.Empty(t, d["select"])
			assert.Empty(t, d["where"])
			assert.Equal(t, "lucene", d["whereLanguage"])
			assert.Empty(t, d["orderBy"])
			assert.Equal(t, []any{}, d["tags"])
			assert.Equal(t, []any{}, d["filters"])
		}},
		{"should return 404 for another team saved search (PUT)", func(c *contractFixture) {
			c.expect(404, "PUT", base+"/"+otherTeams(c), body(logSource(c, "")))
		}},
		{"should reject a sourceId that does not belong to the team (PUT)", func(c *contractFixture) {
			id := c.expect(200, "POST", base, body(logSource(c, ""))).data()["id"].(string)
			r := c.expect(400, "PUT", base+"/"+id, with(body(logSource(c, "")), "sourceId", newID()))
			assert.Regexp(t, `(?i)existing source`, r.message())
		}},
		// DELETE
		{"should delete a saved search", func(c *contractFixture) {
			id := c.expect(200, "POST", base, body(logSource(c, ""))).data()["id"].(string)
			c.expect(200, "DELETE", base+"/"+id, nil)
			assert.Nil(t, c.stored(kindSaved, id))
		}},
		{"should return 404 for another team saved search (DELETE)", func(c *contractFixture) {
			id := otherTeams(c)
			c.expect(404, "DELETE", base+"/"+id, nil)
			other := *c
			other.team = "b"
			assert.NotNil(t, other.stored(kindSaved, id))
		}},
		{"should delete alerts attached to the saved search", func(c *contractFixture) {
			id := c.expect(200, "POST", base, body(logSource(c, ""))).data()["id"].(string)
			alert := c.put("", kindAlert, map[string]any{
				"savedSearchId": id, "source": "saved_search", "threshold": 1, "interval": "5m",
				"state": "OK", "channel": map[string]any{"type": nil},
			})
			c.expect(200, "DELETE", base+"/"+id, nil)
			assert.Nil(t, c.stored(kindSaved, id))
			assert.Nil(t, c.stored(kindAlert, alert), "dependent alerts are not orphaned")
		}},
	}
	replay(t, "savedSearches-crud.int.test.ts", cases)
}

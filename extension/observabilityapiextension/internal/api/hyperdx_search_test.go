package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hyperdxSearchCommit: the index this project reads HyperDX from holds
// search.int.test.ts at this commit, the nearest to hyperdxCommit.
const hyperdxSearchCommit = "52ee76db5033c02916cfc8a39b772b1ee133bb06"

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// search.int.test.ts (commit hyperdxSearchCommit). Its beforeEach (a
// log source over the logs table and three logs, ten seconds before the
// end of the range) is searchCase.
func TestHyperDXSearch(t *testing.T) {
	require.Len(t, hyperdxSearchCommit, 40)
	start, end := hxRange()
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	type world struct {
		c      *contractFixture
		source string
	}
	// searchCase is the file's beforeEach.
	searchCase := func(run func(w world)) func(c *contractFixture) {
		return func(c *contractFixture) {
			c.openTelemetry()
			src := hxLogSource("Logs")
			id := c.putSource("", src)
			now := end.Add(-10 * time.Second)
			c.insertLogs(
				hxLog{Service: "search-svc", At: now, Severity: "INFO", Body: "hello from search test"},
				hxLog{Service: "search-svc", At: now.Add(time.Second), Severity: "ERROR", Body: "error in search test"},
				hxLog{Service: "other-svc", At: now.Add(2 * time.Second), Severity: "INFO", Body: "other service log"},
			)
			run(world{c, id})
		}
	}
	search := func(w world, body map[string]any) hxResp {
		return w.c.do("POST", "/api/v2/search", body)
	}
	window := func(w world, kv ...any) map[string]any {
		return with(map[string]any{"sourceId": w.source, "startTime": iso(start), "endTime": iso(end)}, kv...)
	}
	badRequest := func(w world, body map[string]any) {
		r := search(w, body)
		assert.Equal(t, 400, r.status, string(r.raw))
		assert.Contains(t, r.body, "message")
	}
	replay(t, "search.int.test.ts", []hxCase{
		// Validation
		{"returns 400 when sourceId is missing", searchCase(func(w world) {
			badRequest(w, map[string]any{"startTime": iso(start), "endTime": iso(end)})
		})},
		{"returns 400 when sourceId is not a valid ObjectId", searchCase(func(w world) {
			badRequest(w, window(w, "sourceId", "not-an-objectid"))
		})},
		{"returns 400 when startTime is not a valid ISO string", searchCase(func(w world) {
			badRequest(w, window(w, "startTime", "not-a-date"))
		})},
		{"returns 400 when startTime is after endTime", searchCase(func(w world) {
			badRequest(w, window(w, "startTime", iso(end), "endTime", iso(start)))
		})},
		{"returns 400 when where exceeds 8192 characters", searchCase(func(w world) {
			badRequest(w, window(w, "where", strings.Repeat("x", 8*1024+1)))
		})},
		{"returns 400 when select exceeds 4096 characters", searchCase(func(w world) {
			badRequest(w, window(w, "select", strings.Repeat("x", 4*1024+1)))
		})},
		{"returns 400 when offset exceeds 10000", searchCase(func(w world) {
			badRequest(w, window(w, "offset", 10_001))
		})},
		{"returns 400 when maxResults exceeds 2000", searchCase(func(w world) {
			badRequest(w, window(w, "maxResults", 9999))
		})},
		{"returns 401 when no auth token is provided", searchCase(func(w world) {
			r := w.c.doAuth("POST", "/api/v2/search", window(w), "")
			assert.Equal(t, http.StatusUnauthorized, r.status)
		})},
		{"returns 404 when sourceId does not exist", searchCase(func(w world) {
			r := search(w, window(w, "sourceId", "000000000000000000000000"))
			assert.Equal(t, 404, r.status)
			assert.Contains(t, r.body, "message")
		})},
		{"returns 404 when the connection for a source no longer exists", searchCase(func(w world) {
			conn := w.c.put("", kindConn, map[string]any{"name": "Dead Connection", "host": "http://localhost:8123", "username": "default", "password": ""})
			orphan := hxLogSource("Orphan")
			orphan.Connection = conn
			id := w.c.putSource("", orphan)
			// Connection.deleteOne: straight from the store, past the
			// API's refusal to delete a connection a source reads.
			require.NoError(t, w.c.fx.server.opts.Store.Delete(context.Background(), w.c.team, kindConn, conn))
			r := search(w, window(w, "sourceId", id))
			assert.Equal(t, 404, r.status, string(r.raw))
			assert.Contains(t, r.body, "message")
		})},
		// Basic fetch + response shape
		{"returns rows from the source with default settings", searchCase(func(w world) {
			r := search(w, window(w))
			require.Equal(t, 200, r.status, string(r.raw))
			assert.Contains(t, r.body, "data")
			assert.Contains(t, r.body, "rows")
			assert.NotEmpty(t, r.list())
			assert.EqualValues(t, len(r.list()), r.body["rows"])
		})},
		{"returns flat row objects with column names as top-level keys (not a nested envelope)", searchCase(func(w world) {
			r := search(w, window(w, "select", "Timestamp,SeverityText,Body"))
			require.Equal(t, 200, r.status, string(r.raw))
			require.NotEmpty(t, r.list())
			for _, row := range r.list() {
				row := row.(map[string]any)
				for _, k := range []string{"Timestamp", "SeverityText", "Body"} {
					assert.IsType(t, "", row[k], k)
				}
				assert.NotContains(t, row, "meta")
				assert.NotContains(t, row, "statistics")
			}
		})},
		// Column selection
		{"returns exactly the requested select columns and no others", searchCase(func(w world) {
			r := search(w, window(w, "select", "Timestamp,SeverityText,Body"))
			require.Equal(t, 200, r.status, string(r.raw))
			require.NotEmpty(t, r.list())
			for _, row := range r.list() {
				var keys []string
				for k := range row.(map[string]any) {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				assert.Equal(t, []string{"Body", "SeverityText", "Timestamp"}, keys)
			}
		})},
		// Lucene filter
		{"filters rows by Lucene where clause", searchCase(func(w world) {
			r := search(w, window(w, "where", "SeverityText:ERROR", "select", "SeverityText,Body"))
			require.Equal(t, 200, r.status, string(r.raw))
			require.NotEmpty(t, r.list())
			for _, row := range r.list() {
				assert.Equal(t, "ERROR", row.(map[string]any)["SeverityText"])
			}
		})},
		// Pagination
		{"respects maxResults", searchCase(func(w world) {
			r := search(w, window(w, "maxResults", 1))
			require.Equal(t, 200, r.status, string(r.raw))
			assert.LessOrEqual(t, len(r.list()), 1)
		})},
		{"respects offset for pagination with deterministic DESC timestamp ordering", searchCase(func(w world) {
			page1 := search(w, window(w, "maxResults", 2, "offset", 0, "select", "Timestamp,SeverityText,Body"))
			page2 := search(w, window(w, "maxResults", 1, "offset", 1, "select", "Timestamp,SeverityText,Body"))
			require.Equal(t, 200, page1.status, string(page1.raw))
			require.Equal(t, 200, page2.status, string(page2.raw))
			require.Len(t, page1.list(), 2)
			require.Len(t, page2.list(), 1)
			p1, p2 := page1.list()[1].(map[string]any), page2.list()[0].(map[string]any)
			assert.Equal(t, p1["Body"], p2["Body"])
			assert.Equal(t, p1["Timestamp"], p2["Timestamp"])
		})},
		// SQL where language
		{"supports SQL where language", searchCase(func(w world) {
			r := search(w, window(w, "where", "SeverityText = 'ERROR'", "whereLanguage", "sql", "select", "SeverityText,Body"))
			require.Equal(t, 200, r.status, string(r.raw))
			require.NotEmpty(t, r.list())
			for _, row := range r.list() {
				assert.Equal(t, "ERROR", row.(map[string]any)["SeverityText"])
			}
		})},
		{"defaults whereLanguage to lucene when omitted", searchCase(func(w world) {
			r := search(w, window(w, "where", "SeverityText:ERROR", "select", "SeverityText,Body"))
			require.Equal(t, 200, r.status, string(r.raw))
			require.NotEmpty(t, r.list())
			for _, row := range r.list() {
				assert.Equal(t, "ERROR", row.(map[string]any)["SeverityText"])
			}
		})},
		// Empty time range
		{"returns empty data when time range has no matching rows", searchCase(func(w world) {
			farPast := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
			r := search(w, window(w, "startTime", iso(farPast), "endTime", iso(farPast.Add(time.Minute))))
			require.Equal(t, 200, r.status, string(r.raw))
			assert.Equal(t, []any{}, r.body["data"])
			assert.EqualValues(t, 0, r.body["rows"])
		})},
		// Error response shape
		{"uses { message } envelope for 4xx errors", searchCase(func(w world) {
			r := search(w, map[string]any{"sourceId": "not-an-objectid"})
			assert.Equal(t, 400, r.status)
			assert.NotEmpty(t, r.message())
			assert.NotContains(t, r.body, "error")
		})},
		{"uses { message } envelope for 404 errors", searchCase(func(w world) {
			r := search(w, window(w, "sourceId", "000000000000000000000000"))
			assert.Equal(t, 404, r.status)
			assert.IsType(t, "", r.body["message"])
			assert.NotContains(t, r.body, "error")
		})},
		{"returns 400 when whereLanguage is not lucene or sql", searchCase(func(w world) {
			badRequest(w, window(w, "whereLanguage", "graphql"))
		})},
		{"returns 400 when select contains a semicolon", searchCase(func(w world) {
			badRequest(w, window(w, "select", "Timestamp; DROP TABLE otel_logs"))
		})},
		{"returns 400 when select contains a SELECT subquery", searchCase(func(w world) {
			badRequest(w, window(w, "select", "(SELECT max(Timestamp) FROM system.tables)"))
		})},
		// Boundary values
		{"accepts maxResults at the upper boundary of 2000", searchCase(func(w world) {
			r := search(w, window(w, "maxResults", 2000))
			assert.Equal(t, 200, r.status, string(r.raw))
			assert.Contains(t, r.body, "data")
		})},
		{"accepts offset at the upper boundary of 10000", searchCase(func(w world) {
			r := search(w, window(w, "offset", 10000))
			require.Equal(t, 200, r.status, string(r.raw))
			assert.Equal(t, []any{}, r.body["data"])
		})},
		{"applies maxResults default of 100 when omitted", searchCase(func(w world) {
			var logs []hxLog
			for i := range 101 {
				logs = append(logs, hxLog{Service: "cap-svc", At: end.Add(-100*time.Second + time.Duration(i)*10*time.Millisecond), Severity: "DEBUG", Body: fmt.Sprintf("row %d", i)})
			}
			w.c.insertLogs(logs...)
			r := search(w, window(w))
			require.Equal(t, 200, r.status, string(r.raw))
			assert.LessOrEqual(t, r.body["rows"], 100.0)
		})},
		// Cross-team isolation
		{"returns 404 when sourceId belongs to a different team", searchCase(func(w world) {
			other := w.c.putSource("b", hxLogSource("Other Team Source"))
			r := search(w, window(w, "sourceId", other))
			assert.Equal(t, 404, r.status)
			assert.Contains(t, r.body, "message")
		})},
	})
}

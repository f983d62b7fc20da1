package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// HyperDX's fixtures' names (packages/api/src/fixtures.ts).
const (
	hxDefaultDatabase  = "default"
	hxDefaultLogsTable = "otel_logs"
)

// sourcesCase is HyperDX's beforeEach of the sources files: a connection
// of the team's ("Default"). The team reads hxDefaultDatabase for the
// case (a database is one team's), as HyperDX's reads its ClickHouse.
func sourcesCase(c *contractFixture) string {
	c.t.Helper()
	ten := c.fx.server.opts.Tenancy
	require.NoError(c.t, ten.Assign(context.Background(), c.team, []string{hxDefaultDatabase}))
	c.t.Cleanup(func() { _ = ten.Assign(context.Background(), c.team, []string{}) })
	return c.put("", kindConn, map[string]any{"name": "Default", "host": "http://localhost:8123", "username": "default", "password": ""})
}

// otherTeamSource is createOtherTeamSource: a log source, with its own
// connection, of a team that is not the case's.
func otherTeamSource(c *contractFixture) (team, id string) {
	team = "other-" + c.team
	conn := c.put(team, kindConn, map[string]any{"name": "Other Team Connection", "host": "http://localhost:8123", "username": "default"})
	return team, c.put(team, kindSource, map[string]any{
		"kind": "log", "name": "Other Team Source", "from": map[string]any{"databaseName": hxDefaultDatabase, "tableName": hxDefaultLogsTable},
		"timestampValueExpression": "Timestamp", "defaultTableSelectExpression": "*", "connection": conn,
	})
}

func logSourceDoc(conn string, kv ...any) map[string]any {
	return with(map[string]any{
		"kind": "log", "name": "Test Log Source", "from": map[string]any{"databaseName": hxDefaultDatabase, "tableName": hxDefaultLogsTable},
		"timestampValueExpression": "Timestamp", "defaultTableSelectExpression": "*", "connection": conn,
	}, kv...)
}

func traceSourceDoc(conn string, kv ...any) map[string]any {
	return with(map[string]any{
		"kind": "trace", "name": "Test Trace Source", "from": map[string]any{"databaseName": hxDefaultDatabase, "tableName": "otel_traces"},
		"timestampValueExpression": "Timestamp", "defaultTableSelectExpression": "*", "durationExpression": "Duration", "durationPrecision": 3,
		"traceIdExpression": "TraceId", "spanIdExpression": "SpanId", "parentSpanIdExpression": "ParentSpanId",
		"spanNameExpression": "SpanName", "spanKindExpression": "SpanKind", "connection": conn,
	}, kv...)
}

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// sources.int.test.ts (the stored copy is of commit b392f66c, the nearest
// to hyperdxCommit the reference index holds).
func TestHyperDXSources(t *testing.T) {
	const base = "/api/v2/sources"
	from := func(table string) map[string]any {
		return map[string]any{"databaseName": hxDefaultDatabase, "tableName": table}
	}
	mv := func(table, granularity string) map[string]any {
		return map[string]any{
			"databaseName": hxDefaultDatabase, "tableName": table, "dimensionColumns": "ServiceName", "minGranularity": granularity,
			"timestampColumn": "Timestamp", "aggregatedColumns": []any{map[string]any{"mvColumn": "count", "aggFn": "count"}},
		}
	}
	highlights := func() (trace, row []any) {
		return []any{map[string]any{"sqlExpression": "ResourceAttributes['ServiceName']", "alias": "ServiceName", "luceneExpression": "ResourceAttributes.ServiceName"}},
			[]any{map[string]any{"sqlExpression": "TraceId", "alias": "trace_id", "luceneExpression": "TraceId"}}
	}
	only := func(c *contractFixture) map[string]any {
		r := c.expect(200, "GET", base, nil)
		require.Len(t, r.list(), 1)
		return r.list()[0].(map[string]any)
	}
	replay(t, "sources.int.test.ts", []hxCase{
		{"should return 401 when user is not authenticated", func(c *contractFixture) {
			assert.Equal(t, http.StatusUnauthorized, c.doAuth("GET", base, nil, "").status)
		}},
		{"should return empty array when no sources exist", func(c *contractFixture) {
			sourcesCase(c)
			r := c.expect(200, "GET", base, nil)
			require.True(t, hasKey(r.body, "data"))
			assert.Equal(t, []any{}, r.list())
		}},
		{"should return a single log source", func(c *contractFixture) {
			conn := sourcesCase(c)
			id := c.put("", kindSource, logSourceDoc(conn))
			assert.Equal(t, map[string]any{
				"id": id, "name": "Test Log Source", "kind": "log", "connection": conn, "disabled": false, "from": from(hxDefaultLogsTable),
				"timestampValueExpression": "Timestamp", "defaultTableSelectExpression": "*",
				"highlightedTraceAttributeExpressions": []any{}, "highlightedRowAttributeExpressions": []any{},
				"materializedViews": []any{}, "querySettings": []any{},
			}, only(c))
		}},
		{"should return a single trace source", func(c *contractFixture) {
			conn := sourcesCase(c)
			ht, hr := highlights()
			settings := []any{map[string]any{"setting": "max_execution_time", "value": "30"}}
			id := c.put("", kindSource, traceSourceDoc(conn,
				"highlightedTraceAttributeExpressions", ht, "highlightedRowAttributeExpressions", hr,
				"materializedViews", []any{mv("traces_mv", "1 minute"), mv("traces_mv_15s", "15 second")}, "querySettings", settings))
			assert.Equal(t, map[string]any{
				"id": id, "name": "Test Trace Source", "disabled": false, "from": from("otel_traces"), "kind": "trace", "connection": conn,
				"timestampValueExpression": "Timestamp", "defaultTableSelectExpression": "*", "durationExpression": "Duration", "durationPrecision": 3.0,
				"traceIdExpression": "TraceId", "spanIdExpression": "SpanId", "parentSpanIdExpression": "ParentSpanId",
				"spanNameExpression": "SpanName", "spanKindExpression": "SpanKind",
				"highlightedTraceAttributeExpressions": ht, "highlightedRowAttributeExpressions": hr,
				"materializedViews": []any{mv("traces_mv", "1m"), mv("traces_mv_15s", "15s")}, "querySettings": settings,
			}, only(c))
		}},
		{"should return a single metric source", func(c *contractFixture) {
			conn := sourcesCase(c)
			tables := map[string]any{"gauge": "otel_metrics_gauge", "sum": "otel_metrics_sum", "histogram": "otel_metrics_histogram"}
			id := c.put("", kindSource, map[string]any{
				"kind": "metric", "name": "Test Metric Source", "from": from(""), "metricTables": tables,
				"timestampValueExpression": "TimeUnix", "resourceAttributesExpression": "ResourceAttributes", "connection": conn,
			})
			assert.Equal(t, map[string]any{
				"id": id, "name": "Test Metric Source", "kind": "metric", "connection": conn, "disabled": false, "from": from(""),
				"metricTables": tables, "timestampValueExpression": "TimeUnix", "resourceAttributesExpression": "ResourceAttributes", "querySettings": []any{},
			}, only(c))
		}},
		{"should return a single session source", func(c *contractFixture) {
			conn := sourcesCase(c)
			trace := c.put("", kindSource, traceSourceDoc(conn, "name", "Trace Source for Session"))
			id := c.put("", kindSource, map[string]any{
				"kind": "session", "name": "Test Session Source", "from": from("rrweb_events"),
				"timestampValueExpression": "Timestamp", "traceSourceId": trace, "connection": conn,
			})
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 2)
			var session map[string]any
			for _, s := range r.list() {
				if s.(map[string]any)["kind"] == "session" {
					session = s.(map[string]any)
				}
			}
			assert.Equal(t, map[string]any{
				"id": id, "name": "Test Session Source", "kind": "session", "connection": conn, "disabled": false, "from": from("rrweb_events"),
				"traceSourceId": trace, "querySettings": []any{}, "timestampValueExpression": "Timestamp",
			}, session)
		}},
		{"should return multiple sources of different kinds", func(c *contractFixture) {
			conn := sourcesCase(c)
			logs := c.put("", kindSource, logSourceDoc(conn, "name", "Logs"))
			traces := c.put("", kindSource, traceSourceDoc(conn, "name", "Traces"))
			metrics := c.put("", kindSource, map[string]any{
				"kind": "metric", "name": "Metrics", "from": from(""), "metricTables": map[string]any{"gauge": "otel_metrics_gauge"},
				"timestampValueExpression": "TimeUnix", "resourceAttributesExpression": "ResourceAttributes", "connection": conn,
			})
			r := c.expect(200, "GET", base, nil)
			require.Len(t, r.list(), 3)
			var kinds, ids []any
			for _, s := range r.list() {
				kinds = append(kinds, s.(map[string]any)["kind"])
				ids = append(ids, s.(map[string]any)["id"])
			}
			assert.ElementsMatch(t, []any{"log", "trace", "metric"}, kinds)
			assert.ElementsMatch(t, []any{logs, traces, metrics}, ids)
		}},
		{"should only return sources for the authenticated user's team", func(c *contractFixture) {
			conn := sourcesCase(c)
			mine := c.put("", kindSource, logSourceDoc(conn, "name", "Current Team Source"))
			otherTeamSource(c)
			got := only(c)
			assert.Equal(t, mine, got["id"])
			assert.Equal(t, "Current Team Source", got["name"])
		}},
		{"should format sources according to SourceSchema", func(c *contractFixture) {
			conn := sourcesCase(c)
			c.put("", kindSource, logSourceDoc(conn, "name", "Test Source"))
			got := only(c)
			assert.IsType(t, "", got["id"])
			assert.False(t, hasKey(got, "_id"))
			assert.IsType(t, "", got["connection"])
			assert.False(t, hasKey(got, "team"))
		}},
		{"should filter out sources that fail schema validation", func(c *contractFixture) {
			conn := sourcesCase(c)
			valid := c.put("", kindSource, logSourceDoc(conn, "name", "Valid Source"))
			c.put("", kindSource, map[string]any{"kind": "invalid-kind", "name": "Invalid Source", "from": from(hxDefaultLogsTable), "connection": conn})
			assert.Equal(t, valid, only(c)["id"])
		}},
		{"returns the section on a source that has one", func(c *contractFixture) {
			conn := sourcesCase(c)
			id := c.put("", kindSource, logSourceDoc(conn, "name", "Sectioned Log Source", "section", "Control Plane Prod"))
			got := only(c)
			assert.Equal(t, id, got["id"])
			assert.Equal(t, "Control Plane Prod", got["section"])
		}},
		{"omits the section on a source that has none", func(c *contractFixture) {
			conn := sourcesCase(c)
			c.put("", kindSource, logSourceDoc(conn, "name", "Unsectioned Log Source"))
			assert.False(t, hasKey(only(c), "section"))
		}},

		// backward compatibility with legacy flat-model documents
		{"returns legacy Session source without timestampValueExpression using default TimestampTime", func(c *contractFixture) {
			conn := sourcesCase(c)
			id := c.put("", kindSource, map[string]any{
				"kind": "session", "name": "Legacy Session", "connection": conn, "from": from("otel_sessions"), "traceSourceId": "some-trace-source-id",
			})
			got := only(c)
			assert.Equal(t, "session", got["kind"])
			assert.Equal(t, "TimestampTime", got["timestampValueExpression"])
			assert.False(t, hasKey(c.stored(kindSource, id), "timestampValueExpression"), "applied at read time, not persisted")
		}},
		{"returns Trace source with logSourceId: null (Zod optional accepts null)", func(c *contractFixture) {
			conn := sourcesCase(c)
			body := traceSourceDoc(conn, "name", "Trace with null logSourceId")
			body["logSourceId"] = nil
			c.put("", kindSource, body)
			got := only(c)
			assert.Equal(t, "trace", got["kind"])
			require.True(t, hasKey(got, "logSourceId"))
			assert.Nil(t, got["logSourceId"])
		}},
		{"strips cross-kind fields from legacy flat-model Log source via SourceSchema.safeParse", func(c *contractFixture) {
			conn := sourcesCase(c)
			c.put("", kindSource, logSourceDoc(conn, "name", "Flat Model Log", "defaultTableSelectExpression", "Body",
				"metricTables", map[string]any{"gauge": "otel_metrics_gauge"}, "durationExpression", "Duration"))
			got := only(c)
			assert.Equal(t, "log", got["kind"])
			assert.Equal(t, "Body", got["defaultTableSelectExpression"])
			assert.False(t, hasKey(got, "metricTables"))
			assert.False(t, hasKey(got, "durationExpression"))
		}},

		// External API v2 Sources Mapping
		{"maps supported long-form granularity $input to $expected", func(*contractFixture) {
			for in, want := range map[string]string{"1 second": "1s", "1 minute": "1m", "1 hour": "1h", "1 day": "1d"} {
				assert.Equal(t, want, sources.GranularityExternal(in), in)
			}
		}},
		{"passes through unsupported or already-short granularity $input", func(*contractFixture) {
			for _, in := range []string{"invalid", "1m", "2 minutes"} {
				assert.Equal(t, in, sources.GranularityExternal(in))
			}
		}},
		{"maps supported short-form granularity $input to $expected", func(*contractFixture) {
			for in, want := range map[string]string{"15s": "15 second", "5m": "5 minute", "2h": "2 hour", "1d": "1 day"} {
				assert.Equal(t, want, sources.GranularityInternal(in), in)
			}
		}},
		{"passes through unsupported or already-long granularity $input", func(*contractFixture) {
			for _, in := range []string{"invalid", "1 minute", "5min"} {
				assert.Equal(t, in, sources.GranularityInternal(in))
			}
		}},
	})
}

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// sources-crud.int.test.ts (the stored copy is of commit 136ddac3, the
// nearest to hyperdxCommit the reference index holds).
func TestHyperDXSourcesCRUD(t *testing.T) {
	const base = "/api/v2/sources"
	absent := newID()
	logBody := func(conn string) map[string]any {
		return logSourceDoc(conn, "name", "Created Log Source", "defaultTableSelectExpression", "Timestamp, Body")
	}
	traceBody := func(conn string) map[string]any {
		return traceSourceDoc(conn, "name", "Created Trace Source", "defaultTableSelectExpression", "Timestamp, SpanName")
	}
	otherConnection := func(c *contractFixture) string {
		return c.put("other-"+c.team, kindConn, map[string]any{"name": "Other Team Connection", "host": "http://localhost:8123", "username": "default"})
	}
	unauth := func(method, path string, body any) func(c *contractFixture) {
		return func(c *contractFixture) {
			assert.Equal(t, http.StatusUnauthorized, c.doAuth(method, path, body, "").status)
		}
	}
	teamSources := func(c *contractFixture) int {
		n, err := c.fx.server.opts.Store.Count(context.Background(), c.team, kindSource)
		require.NoError(t, err)
		return n
	}
	created := func(c *contractFixture, id string) any {
		res, err := c.fx.server.opts.Store.Get(context.Background(), c.team, kindSource, id)
		require.NoError(t, err)
		return res.CreatedAt.UTC()
	}
	replay(t, "sources-crud.int.test.ts", []hxCase{
		// GET /api/v2/sources/:id
		{"should return 401 when user is not authenticated", unauth("GET", base+"/"+absent, nil)},
		{"should return a source by id", func(c *contractFixture) {
			id := c.put("", kindSource, logBody(sourcesCase(c)))
			got := c.expect(200, "GET", base+"/"+id, nil).data()
			assert.Equal(t, id, got["id"])
			assert.Equal(t, "Created Log Source", got["name"])
			assert.Equal(t, "log", got["kind"])
		}},
		{"should return 404 for a non-existent source", func(c *contractFixture) {
			sourcesCase(c)
			c.expect(404, "GET", base+"/"+absent, nil)
		}},
		{"should return 404 for another team's source", func(c *contractFixture) {
			sourcesCase(c)
			_, id := otherTeamSource(c)
			c.expect(404, "GET", base+"/"+id, nil)
		}},
		{"should return 400 for an invalid id", func(c *contractFixture) {
			sourcesCase(c)
			c.expect(400, "GET", base+"/not-an-object-id", nil)
		}},

		// POST /api/v2/sources
		{"should return 401 when user is not authenticated", unauth("POST", base, logBody(absent))},
		{"should create a log source", func(c *contractFixture) {
			conn := sourcesCase(c)
			got := c.expect(200, "POST", base, logBody(conn)).data()
			assert.Equal(t, "Created Log Source", got["name"])
			assert.Equal(t, "log", got["kind"])
			assert.Equal(t, conn, got["connection"])
			assert.Equal(t, "Timestamp", got["timestampValueExpression"])
			assert.Equal(t, "Timestamp, Body", got["defaultTableSelectExpression"])
			require.IsType(t, "", got["id"])
			assert.NotNil(t, c.stored(kindSource, got["id"].(string)), "persisted, in the case's team")
		}},
		{"should accept external short-form granularities and store internal format", func(c *contractFixture) {
			conn := sourcesCase(c)
			got := c.expect(200, "POST", base, with(traceBody(conn), "materializedViews", []any{map[string]any{
				"databaseName": hxDefaultDatabase, "tableName": "traces_mv", "dimensionColumns": "ServiceName", "minGranularity": "5m",
				"timestampColumn": "Timestamp", "aggregatedColumns": []any{map[string]any{"mvColumn": "count", "aggFn": "count"}},
			}})).data()
			assert.Equal(t, "5m", got["materializedViews"].([]any)[0].(map[string]any)["minGranularity"])
			stored := c.stored(kindSource, got["id"].(string))
			assert.Equal(t, "5 minute", stored["materializedViews"].([]any)[0].(map[string]any)["minGranularity"])
		}},
		{"should map metadataMaterializedViews granularity to internal format", func(c *contractFixture) {
			conn := sourcesCase(c)
			got := c.expect(200, "POST", base, with(logBody(conn), "metadataMaterializedViews", map[string]any{
				"keyRollupTable": "otel_logs_key_rollup_15m", "kvRollupTable": "otel_logs_kv_rollup_15m", "granularity": "15m",
			})).data()
			assert.Equal(t, "15m", got["metadataMaterializedViews"].(map[string]any)["granularity"])
			stored := c.stored(kindSource, got["id"].(string))
			assert.Equal(t, "15 minute", stored["metadataMaterializedViews"].(map[string]any)["granularity"])
		}},
		{"should create a promql source", func(c *contractFixture) {
			conn := sourcesCase(c)
			got := c.expect(200, "POST", base, map[string]any{
				"kind": "promql", "name": "Prometheus Metrics", "from": map[string]any{"databaseName": "default", "tableName": "default"},
				"timestampValueExpression": "timestamp", "connection": conn,
			}).data()
			assert.Equal(t, "promql", got["kind"])
			assert.Equal(t, "Prometheus Metrics", got["name"])
			assert.Equal(t, "promql", c.stored(kindSource, got["id"].(string))["kind"])
		}},
		{"should return 400 when connection is not a valid id", func(c *contractFixture) {
			sourcesCase(c)
			c.expect(400, "POST", base, logBody("my-connection-name"))
		}},
		{"should return 400 when connection belongs to another team", func(c *contractFixture) {
			sourcesCase(c)
			c.expect(400, "POST", base, logBody(otherConnection(c)))
			assert.Equal(t, 0, teamSources(c))
		}},
		{"should return 400 for an invalid body", func(c *contractFixture) {
			sourcesCase(c)
			c.expect(400, "POST", base, map[string]any{"kind": "log", "name": "Missing required fields"})
		}},

		// PUT /api/v2/sources/:id
		{"should return 401 when user is not authenticated", unauth("PUT", base+"/"+absent, logBody(absent))},
		{"should update a source", func(c *contractFixture) {
			conn := sourcesCase(c)
			id := c.put("", kindSource, logBody(conn))
			got := c.expect(200, "PUT", base+"/"+id, with(logBody(conn), "name", "Updated Log Source")).data()
			assert.Equal(t, id, got["id"])
			assert.Equal(t, "Updated Log Source", got["name"])
			assert.Equal(t, "Updated Log Source", c.stored(kindSource, id)["name"])
		}},
		{"should return 404 for a non-existent source", func(c *contractFixture) {
			c.expect(404, "PUT", base+"/"+absent, logBody(sourcesCase(c)))
		}},
		{"should return 404 for another team's source", func(c *contractFixture) {
			conn := sourcesCase(c)
			team, id := otherTeamSource(c)
			c.expect(404, "PUT", base+"/"+id, with(logBody(conn), "name", "Hijacked"))
			res, err := c.fx.server.opts.Store.Get(context.Background(), team, kindSource, id)
			require.NoError(t, err)
			assert.Contains(t, string(res.Doc), `"Other Team Source"`)
		}},
		{"should return 400 for an invalid body", func(c *contractFixture) {
			id := c.put("", kindSource, logBody(sourcesCase(c)))
			c.expect(400, "PUT", base+"/"+id, map[string]any{"kind": "log", "name": "Missing required fields"})
		}},
		{"should return 400 when connection is not a valid id", func(c *contractFixture) {
			id := c.put("", kindSource, logBody(sourcesCase(c)))
			c.expect(400, "PUT", base+"/"+id, logBody("my-connection-name"))
		}},
		{"should return 400 when connection belongs to another team", func(c *contractFixture) {
			conn := sourcesCase(c)
			id := c.put("", kindSource, logBody(conn))
			c.expect(400, "PUT", base+"/"+id, logBody(otherConnection(c)))
			assert.Equal(t, conn, c.stored(kindSource, id)["connection"])
		}},
		{"should preserve createdAt on a same-kind update", func(c *contractFixture) {
			conn := sourcesCase(c)
			id := c.put("", kindSource, logBody(conn))
			before := created(c, id)
			c.expect(200, "PUT", base+"/"+id, with(logBody(conn), "name", "Updated Log Source"))
			assert.Equal(t, before, created(c, id))
		}},
		{"should change a source's kind", func(c *contractFixture) {
			conn := sourcesCase(c)
			id := c.put("", kindSource, logBody(conn))
			before := created(c, id)
			got := c.expect(200, "PUT", base+"/"+id, with(traceBody(conn), "name", "Now A Trace Source")).data()
			assert.Equal(t, id, got["id"])
			assert.Equal(t, "trace", got["kind"])
			assert.Equal(t, "Now A Trace Source", got["name"])
			stored := c.stored(kindSource, id)
			assert.Equal(t, "trace", stored["kind"])
			assert.Equal(t, before, created(c, id))
			assert.Equal(t, conn, stored["connection"], "the connection is stored as the id it is")
		}},

		// DELETE /api/v2/sources/:id
		{"should return 401 when user is not authenticated", unauth("DELETE", base+"/"+absent, nil)},
		{"should delete a source", func(c *contractFixture) {
			id := c.put("", kindSource, logBody(sourcesCase(c)))
			c.expect(200, "DELETE", base+"/"+id, nil)
			assert.Nil(t, c.stored(kindSource, id))
		}},
		{"should return 404 for a non-existent source", func(c *contractFixture) {
			sourcesCase(c)
			c.expect(404, "DELETE", base+"/"+absent, nil)
		}},
		{"should return 404 for another team's source and leave it intact", func(c *contractFixture) {
			sourcesCase(c)
			team, id := otherTeamSource(c)
			c.expect(404, "DELETE", base+"/"+id, nil)
			_, err := c.fx.server.opts.Store.Get(context.Background(), team, kindSource, id)
			assert.NoError(t, err)
		}},

		// validateConnectionId, the check behind the 400s above
		{"rejects a non-ObjectId connection with a 400", func(c *contractFixture) {
			sourcesCase(c)
			err := c.fx.server.checkConnection(context.Background(), c.team, "my-connection-name")
			assert.Equal(t, &apiError{status: http.StatusBadRequest, msg: "connection must be a valid connection id"}, err)
		}},
		{"rejects a connection belonging to another team with a 400", func(c *contractFixture) {
			sourcesCase(c)
			err := c.fx.server.checkConnection(context.Background(), c.team, otherConnection(c))
			assert.Equal(t, &apiError{status: http.StatusBadRequest, msg: "connection must be an existing connection id"}, err)
		}},
		{"accepts a valid connection owned by the team", func(c *contractFixture) {
			assert.NoError(t, c.fx.server.checkConnection(context.Background(), c.team, sourcesCase(c)))
		}},
	})
}

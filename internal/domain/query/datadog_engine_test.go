package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// seedDatadogLogs writes logs into a table shaped like the exporter's
// otel_logs, as the Datadog receiver writes them (status as the text,
// nested objects as one JSON string, host/env on the resource) and as an
// OTel SDK writes them (WARNING/ERROR, flat dotted keys). Each row's id
// attribute names it.
func seedDatadogLogs(t *testing.T, db *sql.DB) Source {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_dd",
		`CREATE TABLE IF NOT EXISTS charts_dd.otel_logs (Timestamp DateTime64(9), TraceId String, SpanId String,
		  SeverityText LowCardinality(String), SeverityNumber UInt8, ServiceName LowCardinality(String), Body String,
		  ResourceAttributes Map(LowCardinality(String), String), LogAttributes Map(LowCardinality(String), String))
		  ENGINE = MergeTree ORDER BY Timestamp`,
		"TRUNCATE TABLE charts_dd.otel_logs",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	type row struct {
		id, service, status string
		number              int
		body, trace         string
		attrs, res          map[string]string
	}
	prodWeb := func(host string) map[string]string {
		return map[string]string{"host.name": host, "deployment.environment.name": "prod", "datadog.log.source": "nginx"}
	}
	rows := []row{
		// The example, as the receiver stores an Agent's log.
		{
			"dd-match", "web", "error", 17, "upstream: connection reset by peer", "000000000000000000000000000004d2",
			map[string]string{"http": `{"method":"GET","status_code":500,"url_details":{"path":"/api/users"}}`, "usr": `{"id":"7"}`, "duration": "2000000"},
			prodWeb("web-1"),
		},
		{
			"dd-usr42", "web", "error", 17, "connection reset", "",
			map[string]string{"http": `{"status_code":500,"url_details":{"path":"/api/users"}}`, "usr": `{"id":42}`, "duration": "2000000"},
			prodWeb("web-1"),
		},
		// An OTel SDK's record: ERROR, flat dotted keys.
		{
			"otel-match", "web", "ERROR", 17, "Connection Reset", "",
			map[string]string{"http.status_code": "500", "http.url_details.path": "/api/orders", "usr.id": "8", "duration": "5000000"},
			prodWeb("web-2"),
		},
		{
			"dd-db", "web", "error", 17, "connection reset", "",
			map[string]string{"http.status_code": "500", "http.url_details.path": "/api/x", "duration": "2000000"},
			prodWeb("db-1"),
		},
		{
			"dd-staging", "web", "error", 17, "connection reset", "",
			map[string]string{"http.status_code": "500", "http.url_details.path": "/api/x", "duration": "2000000"},
			map[string]string{"host.name": "web-3", "deployment.environment.name": "staging"},
		},
		{
			"dd-fast", "web", "error", 17, "connection reset", "",
			map[string]string{"http.status_code": "500", "http.url_details.path": "/api/x", "duration": "10"},
			prodWeb("web-1"),
		},
		{
			"dd-path", "web", "error", 17, "connection reset", "",
			map[string]string{"http.status_code": "500", "http.url_details.path": "/web/x", "duration": "2000000"},
			prodWeb("web-1"),
		},
		{"dd-warn", "api", "warn", 13, "slow", "", map[string]string{"team": "core"}, prodWeb("api-1")},
		{"otel-warning", "api", "WARNING", 13, "slow", "", map[string]string{"team": "edge"}, prodWeb("api-1")},
		{"num-only", "api", "", 14, "no text", "", nil, prodWeb("api-1")},
		{"dd-info", "api", "info", 9, "ok", "", nil, map[string]string{"host.name": "api-2", "k8s.namespace.name": "shop"}},
		{"dd-notice", "api", "notice", 10, "notable", "", nil, map[string]string{"host.name": "api-2"}},
		{"dd-emerg", "api", "emergency", 24, "down", "", nil, map[string]string{"host.name": "api-2"}},
	}
	var sb strings.Builder
	for _, r := range rows {
		attrs := map[string]string{"id": r.id}
		for k, v := range r.attrs {
			attrs[k] = v
		}
		b, err := json.Marshal(map[string]any{
			"Timestamp": "2026-11-01 12:00:00", "TraceId": r.trace, "SeverityText": r.status,
			"SeverityNumber": r.number, "ServiceName": r.service, "Body": r.body, "ResourceAttributes": r.res, "LogAttributes": attrs,
		})
		require.NoError(t, err)
		sb.Write(b)
		sb.WriteByte('\n')
	}
	insertJSON(t, "charts_dd.otel_logs", sb.String())
	return Source{
		Database: "charts_dd", Table: "otel_logs", TimestampColumn: "Timestamp", BodyColumn: "Body",
		ServiceColumn: "ServiceName", SeverityColumn: "SeverityText", AttributesMap: "LogAttributes", ResourceMap: "ResourceAttributes",
	}
}

// matching runs a where through the scope, as search and charts do, and
// returns the ids of the rows it selects.
func matching(t *testing.T, db *sql.DB, src Source, language, q string) []string {
	t.Helper()
	ctx := context.Background()
	scope, err := OpenScope(ctx, db, src)
	require.NoError(t, err)
	var p Params
	cond, err := scope.Where(ctx, db, language, q, &p)
	require.NoError(t, err, q)
	params := clickhouse.Parameters{}
	for k, v := range p.Values {
		params[k] = v
	}
	rows, err := db.QueryContext(clickhouse.Context(ctx, clickhouse.WithParameters(params), clickhouse.WithSettings(UserQuerySettings(30e9))),
		"SELECT LogAttributes['id'] FROM "+scope.From+" WHERE "+cond+" ORDER BY 1")
	require.NoError(t, err, q)
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		out = append(out, id)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestDatadogSelectsRowsOnTheEngine(t *testing.T) {
	db := chtest.DB(t)
	src := seedDatadogLogs(t, db)
	for q, want := range map[string][]string{
		`service:web status:error @http.status_code:500 -@usr.id:42 host:web-* env:prod "connection reset" @duration:>1000000 @http.url_details.path:/api/*`: {"dd-match", "otel-match"},
		"status:warn":                       {"dd-warn", "num-only", "otel-warning"},
		"status:WARNING":                    {"dd-warn", "num-only", "otel-warning"},
		"status:info":                       {"dd-info"},
		"status:notice":                     {"dd-notice"},
		"status:emerg":                      {"dd-emerg"},
		"status:(warn OR emergency)":        {"dd-emerg", "dd-warn", "num-only", "otel-warning"},
		"@usr.id:42":                        {"dd-usr42"},
		"@usr.id:7 OR @usr.id:8":            {"dd-match", "otel-match"},
		"@http.method:GET":                  {"dd-match"},
		"@http.url_details.path:/api/users": {"dd-match", "dd-usr42"},
		"@http.status_code:[400 TO 599] -@http.url_details.path:/api/*": {"dd-path"},
		"@duration:<100":                {"dd-fast"},
		"@duration:*":                   {"dd-db", "dd-fast", "dd-match", "dd-path", "dd-staging", "dd-usr42", "otel-match"},
		"-@duration:* -status:info":     {"dd-emerg", "dd-notice", "dd-warn", "num-only", "otel-warning"},
		"env:staging":                   {"dd-staging"},
		"host:api-? team:core":          {"dd-warn"},
		"kube_namespace:shop":           {"dd-info"},
		"source:nginx slow":             {"dd-warn", "otel-warning"},
		"CONNECTION":                    {"dd-db", "dd-fast", "dd-match", "dd-path", "dd-staging", "dd-usr42", "otel-match"},
		"conn*reset -upstream":          {"dd-db", "dd-fast", "dd-path", "dd-staging", "dd-usr42", "otel-match"},
		"trace_id:1234":                 {"dd-match"},
		"*:edge":                        {"otel-warning"},
		"service:api (notable OR down)": {"dd-emerg", "dd-notice"},
	} {
		assert.Equal(t, want, matching(t, db, src, "datadog", q), q)
	}
}

// Issue 45: the Datadog where language selects the same rows as the
// equivalent Lucene on one data set, query by query, where Lucene can say
// it (not @http.status_code on the receiver's nested JSON: Lucene does
// not look into the JSON of a nested Datadog object, so there the two
// differ on purpose). Most pairs select something, so an agreement on
// nothing cannot pass for one on rows.
func TestDatadogAgreesWithLucene(t *testing.T) {
	db := chtest.DB(t)
	src := seedDatadogLogs(t, db)
	pairs := []struct{ datadog, lucene string }{
		{"service:web", "service:web"},
		{"-service:web", "-service:web"},
		{"service:api", "service:api"},
		{"NOT service:web", "NOT service:web"},
		{"service:web OR service:api", "service:web OR service:api"},
		{"service:w*", "service:w*"},
		{"service:*eb", "service:*eb"},
		{"service:(web OR api) -@team:core", "(service:web OR service:api) -team:core"},
		{"@team:core", "team:core"},
		{"@team:edge", "team:edge"},
		{"-@team:core", "-team:core"},
		{"@team:c*", "team:c*"},
		{"@team:core OR @team:edge", "team:core OR team:edge"},
		{"@duration:>1000000", "duration:>1000000"},
		{"@duration:>=2000000", "duration:>=2000000"},
		{"@duration:<100", "duration:<100"},
		{"@duration:<=10", "duration:<=10"},
		{"@duration:[10 TO 2000000]", "duration:[10 TO 2000000]"},
		{"@duration:*", "duration:*"},
		{"-@duration:*", "-duration:*"},
		{"service:web AND @duration:<100", "service:web AND duration:<100"},
		{"host:web-*", "host.name:web-*"},
		{"host:web-1", "host.name:web-1"},
		{"host:api-?", "host.name:api-?"},
		{"host:api-2", "host.name:api-2"},
		{"host:web-1 service:web", "host.name:web-1 service:web"},
		{"host:api-2 notable", "host.name:api-2 notable"},
		{"env:prod", "deployment.environment.name:prod"},
		{"env:staging", "deployment.environment.name:staging"},
		{"env:staging OR env:prod", "deployment.environment.name:staging OR deployment.environment.name:prod"},
		{"env:prod AND NOT @team:edge", "deployment.environment.name:prod AND NOT team:edge"},
		{"env:prod -host:web-*", "deployment.environment.name:prod -host.name:web-*"},
		{"service:web env:prod", "service:web deployment.environment.name:prod"},
		{"source:nginx", "datadog.log.source:nginx"},
		{"kube_namespace:shop", "k8s.namespace.name:shop"},
		{`"connection reset"`, `"connection reset"`},
		{`"connection reset" OR slow`, `"connection reset" OR slow`},
		{"slow", "slow"},
		{"reset", "reset"},
		{"-reset", "-reset"},
		{"upstream", "upstream"},
		{`service:web -"connection reset"`, `service:web -"connection reset"`},
		{"service:api notable", "service:api notable"},
		{"service:api (notable OR down)", "service:api (notable OR down)"},
		{"@http.url_details.path:/api/x", "http.url_details.path:/api/x"},
		{"@http.url_details.path:/web/x", "http.url_details.path:/web/x"},
		{"@usr.id:8", "usr.id:8"},
		{"@team:*", "team:*"},
		{"@id:dd-warn", "id:dd-warn"},
		{"@id:dd-*", "id:dd-*"},
		{"-@id:dd-*", "-id:dd-*"},
		{"@id:dd-warn OR @id:dd-info", "id:dd-warn OR id:dd-info"},
		{"@id:otel-* service:web", "id:otel-* service:web"},
		{"service:api -@id:dd-*", "service:api -id:dd-*"},
	}
	require.GreaterOrEqual(t, len(pairs), 50)
	selecting := 0
	for _, p := range pairs {
		t.Run(p.datadog, func(t *testing.T) {
			lucene := matching(t, db, src, "lucene", p.lucene)
			assert.Equal(t, lucene, matching(t, db, src, "datadog", p.datadog), "Lucene: %s", p.lucene)
			if len(lucene) > 0 {
				selecting++
			}
		})
	}
	assert.GreaterOrEqual(t, selecting, len(pairs)*9/10, "pairs that select rows")
}

// insertJSON posts JSONEachRow lines over the HTTP interface, as the
// exporter does.
func insertJSON(t *testing.T, into, lines string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+chtest.Endpoint(t)+"/?query="+
		url.QueryEscape("INSERT INTO "+into+" FORMAT JSONEachRow"), strings.NewReader(lines))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

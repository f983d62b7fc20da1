package query

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

const ddBenchQuery = `service:web status:error @http.status_code:500 -@usr.id:42 host:web-* env:prod "connection reset" @duration:>1000000 @http.url_details.path:/api/*`

// The translator alone: what a Datadog where costs before the engine.
func BenchmarkDatadogTranslate(b *testing.B) {
	for b.Loop() {
		var p Params
		if _, err := datadogWhere(ddBenchQuery, ddLogFields, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// The example over generated logs shaped as the receiver writes
// them (half with nested JSON objects, half with flat dotted keys, as
// OTel SDKs write them), DATADOG_BENCH_LOGS rows (default 1,000,000).
//
//	go test -run '^$' -bench BenchmarkDatadogSearch -benchtime 10x ./internal/domain/query/
func BenchmarkDatadogSearch(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("DATADOG_BENCH_LOGS")); err == nil && v > 0 {
		n = v
	}
	db := chtest.DB(b)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_ddbench",
		`CREATE TABLE IF NOT EXISTS charts_ddbench.otel_logs (Timestamp DateTime64(9), TraceId String, SpanId String,
		  SeverityText LowCardinality(String), SeverityNumber UInt8, ServiceName LowCardinality(String), Body String,
		  ResourceAttributes Map(LowCardinality(String), String), LogAttributes Map(LowCardinality(String), String),
		  INDEX idx_log_attr_key mapKeys(LogAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
		  INDEX idx_log_attr_value mapValues(LogAttributes) TYPE bloom_filter(0.01) GRANULARITY 1)
		  ENGINE = MergeTree ORDER BY (ServiceName, Timestamp)`,
		"TRUNCATE TABLE charts_ddbench.otel_logs",
		fmt.Sprintf(`INSERT INTO charts_ddbench.otel_logs SELECT toDateTime64('2026-11-01 00:00:00', 9) + number * 0.01, '', '',
		  ['info','warn','error','ERROR'][number %% 4 + 1], [9,13,17,17][number %% 4 + 1], ['web','api','worker'][intDiv(number, 3) %% 3 + 1],
		  if(number %% 11 = 0, 'connection reset by peer', concat('request ', toString(number), ' done')),
		  map('host.name', concat(['web-','db-'][number %% 2 + 1], toString(number %% 20)), 'deployment.environment.name', ['prod','staging'][number %% 5 %% 2 + 1]),
		  if(number %% 2 = 0,
		     map('http', concat('{"status_code":', ['200','500','404'][number %% 3 + 1], ',"url_details":{"path":"/api/', toString(number %% 7), '"}}'),
		         'usr', concat('{"id":"', toString(number %% 100), '"}'), 'duration', toString(number * 7 %% 5000000)),
		     map('http.status_code', ['200','500','404'][number %% 3 + 1], 'http.url_details.path', concat('/api/', toString(number %% 7)),
		         'usr.id', toString(number %% 100), 'duration', toString(number * 7 %% 5000000)))
		  FROM numbers(%d)`, n),
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(b, err)
	}
	src := Source{
		Database: "charts_ddbench", Table: "otel_logs", TimestampColumn: "Timestamp", BodyColumn: "Body",
		ServiceColumn: "ServiceName", SeverityColumn: "SeverityText", AttributesMap: "LogAttributes", ResourceMap: "ResourceAttributes",
	}
	scope, err := OpenScope(ctx, db, src)
	require.NoError(b, err)
	var matched uint64
	for b.Loop() {
		var p Params
		cond, err := scope.Where(ctx, db, "datadog", ddBenchQuery, &p)
		require.NoError(b, err)
		params := clickhouse.Parameters{}
		for k, v := range p.Values {
			params[k] = v
		}
		require.NoError(b, db.QueryRowContext(clickhouse.Context(ctx, clickhouse.WithParameters(params)),
			"SELECT count() FROM "+scope.From+" WHERE "+cond).Scan(&matched))
	}
	b.ReportMetric(float64(matched), "matched")
	b.ReportMetric(float64(n), "rows")
}

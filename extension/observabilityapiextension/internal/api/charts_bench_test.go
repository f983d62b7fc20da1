package api

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

const benchRows = 3_000_000

var benchOnce sync.Once

// benchTable holds 3 million log rows over one day, made inside the engine.
func benchTable(b *testing.B, db *sql.DB) {
	b.Helper()
	benchOnce.Do(func() {
		for _, q := range []string{
			"CREATE DATABASE IF NOT EXISTS api_bench",
			`CREATE TABLE IF NOT EXISTS api_bench.logs (Timestamp DateTime64(9), ServiceName LowCardinality(String),
			  SeverityText LowCardinality(String), Body String, LogAttributes Map(LowCardinality(String), String)) ENGINE = MergeTree ORDER BY Timestamp`,
			"TRUNCATE TABLE api_bench.logs",
			`INSERT INTO api_bench.logs SELECT toDateTime64('2026-11-01 00:00:00', 9) + toIntervalMillisecond(number * 28),
			  ['api','worker','web'][number % 3 + 1], ['info','info','warn','error'][number % 4 + 1],
			  concat('request ', toString(number)), map('team', ['x','y'][number % 2 + 1]) FROM numbers(3000000)`,
		} {
			_, err := db.ExecContext(context.Background(), q)
			require.NoError(b, err)
		}
	})
}

var benchStart = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// BenchmarkChartThroughAPI: POST /api/v2/charts/series, count of errors per
// 15 minutes by service over the day.
func BenchmarkChartThroughAPI(b *testing.B) {
	// The bench table's database is opened to sources, as an operator
	// would list it in source_databases.
	fx := setupWith(b, func(o *Options) { o.Tenancy.OwnerDatabases = append(o.Tenancy.OwnerDatabases, "api_bench") })
	db := chtest.DB(b)
	benchTable(b, db)
	src := item(call(b, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "bench", "kind": "log",
		"database": "api_bench", "table": "logs", "timestampColumn": "Timestamp", "severityColumn": "SeverityText",
		"serviceColumn": "ServiceName", "bodyColumn": "Body", "attributesMap": "LogAttributes",
	}))["id"].(string)
	q := map[string]any{
		"startTime": benchStart.UnixMilli(), "endTime": benchStart.Add(24 * time.Hour).UnixMilli(), "granularity": "15m",
		"series": []any{map[string]any{"sourceId": src, "aggFn": "count", "where": "level:error", "groupBy": []string{"service"}}},
	}
	body, _ := json.Marshal(q)
	b.ResetTimer()
	for b.Loop() {
		// A plain client: the tests' contract check is not part of the cost.
		req, _ := http.NewRequest(http.MethodPost, fx.url+"/api/v2/charts/series", bytes.NewReader(body))
		req.Header.Set("Authorization", bearer(fx.keyA))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.StatusCode)
		}
	}
	b.ReportMetric(float64(benchRows), "rows")
}

// BenchmarkChartSameSQLDirect runs the SQL the API generates, straight
// through clickhouse-go.
func BenchmarkChartSameSQLDirect(b *testing.B) {
	db := chtest.DB(b)
	benchTable(b, db)
	s := charts.Series{Source: query.Source{
		Database: "api_bench", Table: "logs", TimestampColumn: "Timestamp", SeverityColumn: "SeverityText",
		ServiceColumn: "ServiceName", BodyColumn: "Body", AttributesMap: "LogAttributes",
	}, AggFn: "count", Where: "level:error", GroupBy: []string{"service"}}
	q, params, err := charts.Build(context.Background(), db, s, benchStart, benchStart.Add(24*time.Hour), 15*time.Minute)
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		rows, err := db.QueryContext(clickhouse.Context(context.Background(), clickhouse.WithParameters(params)), q)
		require.NoError(b, err)
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if n == 0 {
			b.Fatal("no rows")
		}
	}
	b.ReportMetric(float64(benchRows), "rows")
}

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// hxDatabase holds the tables HyperDX's fixtures insert into
// (bulkInsertLogs, bulkInsertMetrics*), with the columns of the
// exporter's tables that the charts and search replays read.
const hxDatabase = "hx_telemetry"

var hxTables = []string{
	"CREATE DATABASE IF NOT EXISTS " + hxDatabase,
	"CREATE TABLE IF NOT EXISTS " + hxDatabase + ".otel_logs (Timestamp DateTime64(9), ServiceName LowCardinality(String), SeverityText LowCardinality(String), Body String, " +
		"LogAttributes Map(LowCardinality(String), String), ResourceAttributes Map(LowCardinality(String), String)) ENGINE = MergeTree ORDER BY (ServiceName, Timestamp)",
	"CREATE TABLE IF NOT EXISTS " + hxDatabase + ".otel_metrics_gauge (TimeUnix DateTime64(9), MetricName String, Value Float64, ServiceName LowCardinality(String), " +
		"Attributes Map(LowCardinality(String), String), ResourceAttributes Map(LowCardinality(String), String)) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
	"CREATE TABLE IF NOT EXISTS " + hxDatabase + ".otel_metrics_sum (TimeUnix DateTime64(9), MetricName String, Value Float64, ServiceName LowCardinality(String), " +
		"Attributes Map(LowCardinality(String), String), ResourceAttributes Map(LowCardinality(String), String), AggregationTemporality Int32, IsMonotonic Bool) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
	"CREATE TABLE IF NOT EXISTS " + hxDatabase + ".otel_metrics_histogram (TimeUnix DateTime64(9), MetricName String, ServiceName LowCardinality(String), " +
		"Attributes Map(LowCardinality(String), String), ResourceAttributes Map(LowCardinality(String), String), BucketCounts Array(UInt64), ExplicitBounds Array(Float64), " +
		"AggregationTemporality Int32) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
}

// openTelemetry gives the case's team HyperDX's fixture world: the
// telemetry tables, emptied (HyperDX's clearDBs after each case), read by
// this team. HyperDX hands each case's team a connection to its engine;
// here the team becomes the install's owner of hxDatabase, the one way a
// team reads a database without an operator's assignment.
func (c *contractFixture) openTelemetry() {
	c.t.Helper()
	db := chtest.DB(c.t)
	for _, q := range hxTables {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(c.t, err, q)
	}
	for _, t := range []string{"otel_logs", "otel_metrics_gauge", "otel_metrics_sum", "otel_metrics_histogram"} {
		_, err := db.ExecContext(context.Background(), "TRUNCATE TABLE "+hxDatabase+"."+t)
		require.NoError(c.t, err)
	}
	ten := c.fx.server.opts.Tenancy
	ten.Owner = c.team
	if !slices.Contains(ten.OwnerDatabases, hxDatabase) {
		ten.OwnerDatabases = append(ten.OwnerDatabases, hxDatabase)
	}
}

// putSource writes a source document as HyperDX's Source.create does.
func (c *contractFixture) putSource(team string, src sources.Source) string {
	c.t.Helper()
	b, err := json.Marshal(src)
	require.NoError(c.t, err)
	var doc map[string]any
	require.NoError(c.t, json.Unmarshal(b, &doc))
	return c.put(team, kindSource, doc)
}

// hxLogSource is HyperDX's log source over DEFAULT_LOGS_TABLE.
func hxLogSource(name string) sources.Source {
	return sources.Source{
		Name: name, Kind: "log", From: sources.From{DatabaseName: hxDatabase, TableName: "otel_logs"}, TimestampValueExpression: "Timestamp",
		BodyExpression: "Body", ServiceNameExpression: "ServiceName", SeverityTextExpression: "SeverityText",
		EventAttributesExpression: "LogAttributes", ResourceAttributesExpression: "ResourceAttributes",
	}
}

// hxLog is a row of bulkInsertLogs.
type hxLog struct {
	Service, Severity, Body string
	At                      time.Time
	Attributes              map[string]string
}

// chTime writes t as a DateTime64(9) literal.
func chTime(t time.Time) string { return t.UTC().Format("'2006-01-02 15:04:05.000000000'") }

// chMap writes m as a Map literal.
func chMap(m map[string]string) string {
	var kv []string
	for k, v := range m {
		kv = append(kv, fmt.Sprintf("'%s','%s'", k, v))
	}
	slices.Sort(kv)
	return "map(" + strings.Join(kv, ",") + ")"
}

func (c *contractFixture) insertLogs(logs ...hxLog) {
	c.t.Helper()
	var vals []string
	for _, l := range logs {
		body := strings.ReplaceAll(strings.ReplaceAll(l.Body, `\`, `\\`), `'`, `\'`)
		vals = append(vals, fmt.Sprintf("(%s,'%s','%s','%s',%s,map())", chTime(l.At), l.Service, l.Severity, body, chMap(l.Attributes)))
	}
	c.exec("INSERT INTO " + hxDatabase + ".otel_logs VALUES " + strings.Join(vals, ","))
}

func (c *contractFixture) exec(q string) {
	c.t.Helper()
	_, err := chtest.DB(c.t).ExecContext(context.Background(), q)
	require.NoError(c.t, err, q)
}

// hxRange is HyperDX's DEFAULT_START_TIME and DEFAULT_END_TIME: the hour
// up to the current minute.
func hxRange() (start, end time.Time) {
	end = time.Now().UTC().Truncate(time.Minute)
	return end.Add(-time.Hour), end
}

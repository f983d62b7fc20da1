package charts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

func TestParseDatadogMetric(t *testing.T) {
	e, err := ParseDatadogMetric("avg:system.cpu.user{host:web-1,env:prod} by {host}")
	require.NoError(t, err)
	assert.Equal(t, &ddMetricQuery{
		space: "avg", metric: "system.cpu.user", by: []string{"host"},
		filter: &query.TagFilter{Op: "and", Parts: []*query.TagFilter{{Op: "leaf", Key: "host", Value: "web-1"}, {Op: "leaf", Key: "env", Value: "prod"}}},
	}, e.q)

	e, err = ParseDatadogMetric("sum:trace.hits{!host:db-*, service IN (a,b), NOT env:dev, (kube_namespace:x OR region:y)} by {host,service}.as_rate().rollup(max, 120).fill(last, 300)")
	require.NoError(t, err)
	q := e.q
	assert.Equal(t, "sum", q.space)
	assert.Equal(t, []string{"host", "service"}, q.by)
	assert.True(t, q.asRate)
	assert.Equal(t, "max", q.rollup)
	assert.Equal(t, 120, q.rollupSeconds)
	assert.Equal(t, "last", q.fill)
	require.Equal(t, "and", q.filter.Op)
	require.Len(t, q.filter.Parts, 4)
	assert.Equal(t, &query.TagFilter{Op: "not", Parts: []*query.TagFilter{{Op: "leaf", Key: "host", Value: "db-*"}}}, q.filter.Parts[0])
	assert.Equal(t, &query.TagFilter{Op: "leaf", Key: "service", IsList: true, Values: []string{"a", "b"}}, q.filter.Parts[1])
	assert.Equal(t, "or", q.filter.Parts[3].Op)

	e, err = ParseDatadogMetric("top(avg:system.load.1{*} by {host}, 5, 'max', 'asc')")
	require.NoError(t, err)
	assert.Equal(t, byte('t'), e.op)
	assert.Equal(t, 5, e.topN)
	assert.Equal(t, "max", e.topBy)
	assert.False(t, e.topDesc)
	assert.Nil(t, e.left.q.filter)

	e, err = ParseDatadogMetric("(sum:a{*} - sum:b{*}) / sum:a{*} * 100")
	require.NoError(t, err)
	assert.Equal(t, byte('*'), e.op)
	assert.Equal(t, byte('/'), e.left.op)
	assert.Equal(t, byte('-'), e.left.left.op)
	assert.Equal(t, 100.0, e.right.num)

	e, err = ParseDatadogMetric("system.cpu.idle{*}.rollup(60)")
	require.NoError(t, err)
	assert.Equal(t, "avg", e.q.space, "the default space aggregator")
	assert.Equal(t, 60, e.q.rollupSeconds)

	for q, why := range map[string]string{
		"":                                   "incomplete",
		"avg:cpu":                            "needs a tag filter",
		"median:cpu{*}":                      "space aggregator at position 0 must be one of avg, sum, min, max",
		"avg:cpu{*}.rollup(p99)":             ".rollup takes one of",
		"avg:cpu{*}.rollup(avg, 0)":          "interval must be",
		"avg:cpu{*}.fill(some)":              ".fill takes",
		"avg:cpu{*}.derivative()":            "unknown function .derivative",
		"avg:cpu{host:}":                     "has no value",
		"avg:cpu{*} by {}":                   "needs tag names",
		"avg:cpu{*} +":                       "incomplete",
		"top(avg:cpu{*}, 0)":                 "count must be 1 to 100",
		"top(avg:cpu{*}, 3, 'median')":       "top ranks by one of",
		"avg:cpu{(host:a}":                   "expected ')'",
		"avg:cpu{*} avg:mem{*}":              "unexpected",
		strings.Repeat("(", 100) + "a{*}":    "nested deeper",
		strings.Repeat("a{*}+", 21) + "a{*}": "at most 20 metric queries",
	} {
		_, err := ParseDatadogMetric(q)
		if assert.Error(t, err, q) {
			assert.Contains(t, err.Error(), why, q)
		}
	}
}

// Metrics as the Datadog receiver writes them: a gauge's host and env on
// the resource, its other tags as point attributes; a count as a delta
// sum, in the sum table.
func seedDatadogMetrics(t *testing.T) query.Source {
	t.Helper()
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_ddm",
		`CREATE TABLE IF NOT EXISTS charts_ddm.otel_metrics_gauge (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9), Value Float64) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)`,
		`CREATE TABLE IF NOT EXISTS charts_ddm.otel_metrics_sum (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9), Value Float64, AggregationTemporality Int32, IsMonotonic Bool)
		  ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)`,
		"TRUNCATE TABLE charts_ddm.otel_metrics_gauge",
		"TRUNCATE TABLE charts_ddm.otel_metrics_sum",
		`INSERT INTO charts_ddm.otel_metrics_gauge VALUES
		  ({'host.name':'web-1','deployment.environment.name':'prod'},'','system.cpu.user',{'cpu':'cpu0'},'2026-11-01 12:00:00',10),
		  ({'host.name':'web-1','deployment.environment.name':'prod'},'','system.cpu.user',{'cpu':'cpu0'},'2026-11-01 12:00:30',20),
		  ({'host.name':'web-1','deployment.environment.name':'prod'},'','system.cpu.user',{'cpu':'cpu0'},'2026-11-01 12:01:00',30),
		  ({'host.name':'web-1','deployment.environment.name':'prod'},'','system.cpu.user',{'cpu':'cpu1'},'2026-11-01 12:00:00',30),
		  ({'host.name':'web-1','deployment.environment.name':'prod'},'','system.cpu.user',{'cpu':'cpu1'},'2026-11-01 12:01:00',50),
		  ({'host.name':'web-2','deployment.environment.name':'prod'},'','system.cpu.user',{},'2026-11-01 12:00:10',100),
		  ({'host.name':'db-1','deployment.environment.name':'staging'},'','system.cpu.user',{},'2026-11-01 12:00:00',7),
		  ({'host.name':'web-1'},'','system.mem.used',{},'2026-11-01 12:00:00',1)`,
		`INSERT INTO charts_ddm.otel_metrics_sum VALUES
		  ({'host.name':'web-1'},'web','requests.count',{'route':'/a'},'2026-11-01 12:00:10',5,1,true),
		  ({'host.name':'web-1'},'web','requests.count',{'route':'/a'},'2026-11-01 12:00:40',7,1,true),
		  ({'host.name':'web-1'},'web','requests.count',{'route':'/b'},'2026-11-01 12:01:10',3,1,true)`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	return query.Source{
		Database: "charts_ddm", Table: "otel_metrics_gauge", TimestampColumn: "TimeUnix", ServiceColumn: "ServiceName",
		AttributesMap: "Attributes", ResourceMap: "ResourceAttributes", MetricType: "gauge",
	}
}

func TestDatadogMetricQueriesOnTheEngine(t *testing.T) {
	src := seedDatadogMetrics(t)
	db := chtest.DB(t)
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	web1 := 45.0 // a variable: the division rounds as at run time
	// run answers group → values per minute over 12:00–12:03.
	run := func(q string) map[string][]any {
		points, err := Run(context.Background(), db, []Series{{Source: src, Query: q}}, start, start.Add(3*time.Minute), time.Minute, time.Minute)
		require.NoError(t, err, q)
		out := map[string][]any{}
		for _, p := range points {
			k := strings.Join(p.Group, ",")
			if p.Values[0] == nil {
				out[k] = append(out[k], nil)
			} else {
				out[k] = append(out[k], *p.Values[0])
			}
		}
		// Groups with no value at all are the other series' (none
		// here) or dropped by top: leave them out.
		for k, vs := range out {
			empty := true
			for _, v := range vs {
				empty = empty && v == nil
			}
			if empty && k != "" {
				delete(out, k)
			}
		}
		return out
	}
	for q, want := range map[string]map[string][]any{
		// Per series avg in the minute (15, 30, 100, 7), then their avg.
		"avg:system.cpu.user{*}":                                         {"": {38.0, 40.0, nil}},
		"sum:system.cpu.user{host:web-1} by {host}":                      {"web-1": {45.0, 80.0, nil}},
		"max:system.cpu.user{env:prod,!host:web-2} by {host}":            {"web-1": {30.0, 50.0, nil}},
		"avg:system.cpu.user{host:web-*} by {host}":                      {"web-1": {22.5, 40.0, nil}, "web-2": {100.0, nil, nil}},
		"avg:system.cpu.user{host:web-*} by {host}.fill(zero)":           {"web-1": {22.5, 40.0, 0.0}, "web-2": {100.0, 0.0, 0.0}},
		"avg:system.cpu.user{host:web-2}.fill(last)":                     {"": {100.0, 100.0, 100.0}},
		"avg:system.cpu.user{host:web-1}.rollup(max)":                    {"": {25.0, 40.0, nil}},
		"avg:system.cpu.user{host:web-1}.rollup(sum, 120)":               {"": {70.0, nil, nil}},
		"sum:system.cpu.user{cpu IN (cpu0)}":                             {"": {15.0, 30.0, nil}},
		"sum:system.cpu.user{host:web-1 AND NOT cpu:cpu1} by {cpu}":      {"cpu0": {15.0, 30.0, nil}},
		"sum:system.cpu.user{env:staging OR host:web-2} by {env}":        {"prod": {100.0, nil, nil}, "staging": {7.0, nil, nil}},
		"top(avg:system.cpu.user{*} by {host}, 2, 'mean', 'desc')":       {"web-2": {100.0, nil, nil}, "web-1": {22.5, 40.0, nil}},
		"top(avg:system.cpu.user{*} by {host}, 1, 'min', 'asc')":         {"db-1": {7.0, nil, nil}},
		"sum:system.cpu.user{host:web-1} / sum:system.cpu.user{*} * 100": {"": {web1 / 152 * 100, 100.0, nil}},
		"sum:system.cpu.user{*} by {host} - 5":                           {"web-1": {40.0, 75.0, nil}, "web-2": {95.0, nil, nil}, "db-1": {2.0, nil, nil}},
		// A count is in the sum table: found there from the gauge source.
		"sum:requests.count{*}.as_count()":          {"": {12.0, 3.0, nil}},
		"sum:requests.count{service:web}.as_rate()": {"": {0.2, 0.05, nil}},
		"sum:requests.count{*} by {route}":          {"/a": {12.0, nil, nil}, "/b": {nil, 3.0, nil}},
		"avg:no.such.metric{*}":                     {"": {nil, nil, nil}},
	} {
		assert.Equal(t, want, run(q), q)
	}

	// Mistakes are the caller's: a query.Error with the reason.
	for q, why := range map[string]string{
		"avg:system.cpu.user{*} by {host} / avg:system.cpu.user{*} by {env}": "group by different tags",
		"avg:system.cpu.user{@:x}": "field name is empty",
		"avg:cpu{":                 "expected",
	} {
		_, err := Run(context.Background(), db, []Series{{Source: src, Query: q}}, start, start.Add(3*time.Minute), time.Minute, time.Minute)
		require.Error(t, err, q)
		assert.Contains(t, err.Error(), why, q)
		var qe query.Error
		assert.ErrorAs(t, err, &qe, q)
	}
}

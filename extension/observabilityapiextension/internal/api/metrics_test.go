package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// seedExplorerMetrics writes metrics into the exporter's tables of the
// otel database (the default metric source's): an Agent gauge with host
// on the resource, an OTLP counter, and a histogram.
func seedExplorerMetrics(t *testing.T) {
	t.Helper()
	db := chtest.DB(t)
	ctx := context.Background()
	cols := "ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String), MetricName LowCardinality(String)," +
		" MetricDescription String, MetricUnit String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9)"
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS otel",
		"CREATE TABLE IF NOT EXISTS otel.otel_metrics_gauge (" + cols + ", Value Float64) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
		"CREATE TABLE IF NOT EXISTS otel.otel_metrics_sum (" + cols + ", Value Float64, AggregationTemporality Int32, IsMonotonic Bool) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
		"CREATE TABLE IF NOT EXISTS otel.otel_metrics_histogram (" + cols + ", Count UInt64, Sum Float64, BucketCounts Array(UInt64), ExplicitBounds Array(Float64)," +
			" AggregationTemporality Int32) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)",
		"TRUNCATE TABLE otel.otel_metrics_gauge",
		"TRUNCATE TABLE otel.otel_metrics_sum",
		"TRUNCATE TABLE otel.otel_metrics_histogram",
		`INSERT INTO otel.otel_metrics_gauge VALUES
		  ({'host.name':'web-1'},'','system.cpu.user','Percent of CPU in user space','%',{'cpu':'cpu0'},'2026-11-01 12:00:00',10),
		  ({'host.name':'web-1'},'','system.cpu.user','Percent of CPU in user space','%',{'cpu':'cpu1'},'2026-11-01 12:00:00',30),
		  ({'host.name':'web-2'},'','system.cpu.user','Percent of CPU in user space','%',{'cpu':'cpu0'},'2026-11-01 12:00:00',50),
		  ({'host.name':'web-2'},'','system.cpu.idle','','%',{},'2026-11-01 12:00:00',50),
		  ({'host.name':'web-2'},'','system.cpu.old','','%',{},'2026-10-01 12:00:00',50)`,
		`INSERT INTO otel.otel_metrics_sum VALUES
		  ({'service.name':'shop'},'shop','http.server.requests','','{request}',{'http.route':'/pay'},'2026-11-01 12:00:00',5,1,true),
		  ({'service.name':'shop'},'shop','http.server.requests','','{request}',{'http.route':'/pay'},'2026-11-01 12:00:30',7,1,true)`,
		`INSERT INTO otel.otel_metrics_histogram VALUES
		  ({'service.name':'shop'},'shop','http.server.duration','Duration of HTTP requests','ms',{'http.route':'/pay'},'2026-11-01 12:00:00',10,120,[1,2,3,4],[1,5,10],1)`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
}

func TestMetricsExplorer(t *testing.T) {
	fx := setup(t)
	seedExplorerMetrics(t)
	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	rng := fmt.Sprintf("startTime=%d&endTime=%d", m0.UnixMilli(), m0.Add(time.Hour).UnixMilli())
	get := func(path string) resp { return call(t, http.MethodGet, fx.url+path, bearer(fx.keyA), nil) }

	t.Run("list", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  []string // name/type
		}{
			{"", []string{"http.server.duration/histogram", "http.server.requests/sum", "system.cpu.idle/gauge", "system.cpu.user/gauge"}},
			{"&search=CPU.U", []string{"system.cpu.user/gauge"}},
			{"&search=http&sourceId=metrics", []string{"http.server.duration/histogram", "http.server.requests/sum"}},
			{"&search=nothing-like-it", nil},
		} {
			t.Run("?"+tc.query, func(t *testing.T) {
				r := get("/api/v2/metrics?" + rng + tc.query)
				require.Equal(t, http.StatusOK, r.status, r.body)
				var got []string
				for _, m := range r.body["data"].([]any) {
					mm := m.(map[string]any)
					got = append(got, mm["name"].(string)+"/"+mm["type"].(string))
				}
				assert.Equal(t, tc.want, got, tc.query)
				assert.Equal(t, false, r.body["truncated"])
			})
		}
		r := get("/api/v2/metrics?" + rng + "&search=user")
		m := r.body["data"].([]any)[0].(map[string]any)
		assert.Equal(t, "Percent of CPU in user space", m["description"])
		assert.Equal(t, "%", m["unit"])
		assert.EqualValues(t, 3, m["series"], "web-1 cpu0, web-1 cpu1, web-2 cpu0")
		r = get("/api/v2/metrics?" + rng + "&search=requests")
		assert.Equal(t, true, r.body["data"].([]any)[0].(map[string]any)["monotonic"])
	})

	t.Run("a source over a table of its own", func(t *testing.T) {
		db := chtest.DB(t)
		for _, q := range []string{
			"CREATE TABLE IF NOT EXISTS otel.api_my_gauges (ServiceName String, MetricName String, Attributes Map(String, String)," +
				" ResourceAttributes Map(String, String), TimeUnix DateTime64(9), Value Float64) ENGINE = MergeTree ORDER BY TimeUnix",
			"TRUNCATE TABLE otel.api_my_gauges",
			"INSERT INTO otel.api_my_gauges VALUES ('', 'queue.depth', {}, {}, '2026-11-01 12:00:00', 3)",
		} {
			_, err := db.ExecContext(context.Background(), q)
			require.NoError(t, err, q)
		}
		src := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
			"name": "my gauges", "kind": "metric",
			"database": "otel", "table": "api_my_gauges", "timestampColumn": "TimeUnix", "attributesMap": "Attributes", "resourceMap": "ResourceAttributes",
		})
		require.Equal(t, http.StatusOK, src.status, src.body)
		r := get("/api/v2/metrics?" + rng + "&search=e&sourceId=" + item(src)["id"].(string))
		require.Equal(t, http.StatusOK, r.status, r.body)
		var got []string
		for _, m := range r.body["data"].([]any) {
			got = append(got, m.(map[string]any)["name"].(string))
		}
		assert.Equal(t, []string{"http.server.duration", "http.server.requests", "queue.depth", "system.cpu.idle", "system.cpu.user"}, got,
			"its table's metrics beside the exporter's tables of its database")
	})

	t.Run("tags", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"&metric=system.cpu.user", []string{"cpu/attribute", "host/resource/host.name"}},
			{"&metric=system.cpu.user&prefix=HO", []string{"host/resource/host.name"}},
			{"&metric=system.cpu.user&key=host", []string{"web-1=2", "web-2=1"}},
			{"&metric=system.cpu.user&key=host.name&prefix=web-2", []string{"web-2=1"}},
			{"&metric=http.server.duration&key=http.route", []string{"/pay=1"}},
			{"&metric=no.such.metric", nil},
		} {
			t.Run("?"+tc.query, func(t *testing.T) {
				r := get("/api/v2/metrics/tags?" + rng + tc.query)
				require.Equal(t, http.StatusOK, r.status, r.body)
				var got []string
				for _, x := range r.body["data"].([]any) {
					m := x.(map[string]any)
					if v, ok := m["value"]; ok {
						got = append(got, fmt.Sprintf("%s=%v", v, m["count"]))
						continue
					}
					s := m["key"].(string) + "/" + m["from"].(string)
					if a, ok := m["attribute"]; ok {
						s += "/" + a.(string)
					}
					got = append(got, s)
				}
				assert.Equal(t, tc.want, got, tc.query)
			})
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct {
			path, want string
			status     int
		}{
			{"/api/v2/metrics?startTime=2026-11-02T00:00:00Z&endTime=2026-11-01T00:00:00Z", "startTime must be before endTime", 400},
			{"/api/v2/metrics?startTime=yesterday", "startTime", 400},
			{"/api/v2/metrics?search=" + url.QueryEscape(string(make([]byte, 2000))), "search is longer", 400},
			{"/api/v2/metrics?sourceId=logs", "not a metric source", 400},
			{"/api/v2/metrics?sourceId=nope", "not found", 404},
			{"/api/v2/metrics/tags?" + rng, "metric is required", 400},
			{"/api/v2/metrics/tags?metric=x&limit=501", "limit", 400},
			{"/api/v2/metrics/tags?metric=x&key=" + url.QueryEscape("a\x01b"), "key", 400},
		} {
			t.Run(tc.want, func(t *testing.T) {
				r := get(tc.path)
				assert.Equal(t, tc.status, r.status, "%s: %v", tc.path, r.body)
				assert.Contains(t, r.body["message"], tc.want, tc.path)
			})
		}
	})

	t.Run("a team reads only its sources", func(t *testing.T) {
		r := call(t, http.MethodGet, fx.url+"/api/v2/metrics?"+rng, bearer(fx.keyB), nil)
		assert.Equal(t, http.StatusNotFound, r.status, r.body)
		r = call(t, http.MethodGet, fx.url+"/api/v2/metrics/tags?metric=system.cpu.user&"+rng, bearer(fx.keyB), nil)
		assert.Equal(t, http.StatusNotFound, r.status, r.body)
	})

	t.Run("the picked metric charts by host", func(t *testing.T) {
		r := call(t, http.MethodPost, fx.url+"/api/v2/charts/series", bearer(fx.keyA), map[string]any{
			"startTime": m0.UnixMilli(), "endTime": m0.Add(time.Minute).UnixMilli(), "granularity": "1m",
			"series": []any{map[string]any{"sourceId": "metrics", "query": "avg:system.cpu.user{*} by {host}"}},
		})
		require.Equal(t, http.StatusOK, r.status, r.body)
		got := map[string]any{}
		for _, d := range r.body["data"].([]any) {
			m := d.(map[string]any)
			got[fmt.Sprint(m["group"])] = m["series_0.data"]
		}
		assert.Equal(t, map[string]any{"[web-1]": 20.0, "[web-2]": 50.0}, got)
	})
}

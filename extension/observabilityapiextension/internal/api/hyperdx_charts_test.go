package api

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// hyperdxChartsCommit: the index this project reads HyperDX from holds
// charts.int.test.ts at this commit only, the nearest to hyperdxCommit.
const hyperdxChartsCommit = "52ee76db5033c02916cfc8a39b772b1ee133bb06"

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// charts.int.test.ts (commit hyperdxChartsCommit). Its beforeEach (a log
// source, a metric source over the gauge, sum and histogram tables, and
// their rows ten seconds before the end of the range) is chartCase; its
// createSeriesRequestPayload is payload.
func TestHyperDXCharts(t *testing.T) {
	require.Len(t, hyperdxChartsCommit, 40)
	const base = "/api/v2/charts/series"
	start, end := hxRange()
	type world struct {
		c             *contractFixture
		logs, metrics string
	}
	chartCase := func(run func(w world)) func(c *contractFixture) {
		return func(c *contractFixture) {
			c.openTelemetry()
			logs := c.putSource("", hxLogSource("Logs"))
			metrics := c.putSource("", sources.Source{
				Name: "Metrics", Kind: "metric", From: sources.From{DatabaseName: hxDatabase}, TimestampValueExpression: "TimeUnix",
				MetricTables: map[string]string{"gauge": "otel_metrics_gauge"}, ServiceNameExpression: "ServiceName", ResourceAttributesExpression: "ResourceAttributes",
			})
			now := end.Add(-10 * time.Second)
			later := now.Add(time.Second)
			metricBody := func(v int) string {
				return fmt.Sprintf(`{"MetricName":"test.metric.gauge","Value":%d,"ResourceAttributes":{"service.name":"metric-test-service"},"Attributes":{"attr1":"value1"}}`, v)
			}
			c.insertLogs(
				hxLog{Service: "test-service-2", At: now, Severity: "info", Body: "Test log message 1", Attributes: map[string]string{"num_attr": "10"}},
				hxLog{Service: "test-service", At: later, Severity: "info", Body: "Test log message 2", Attributes: map[string]string{"num_attr": "20"}},
				hxLog{Service: "metric-test-service", At: now, Severity: "metric", Body: metricBody(15), Attributes: map[string]string{"metric_log_marker": "true"}},
				hxLog{Service: "metric-test-service", At: later, Severity: "metric", Body: metricBody(25), Attributes: map[string]string{"metric_log_marker": "true"}},
			)
			const res = "map('service.name','metric-test-service')"
			c.exec(fmt.Sprintf("INSERT INTO %s.otel_metrics_gauge VALUES (%s,'test.metric.gauge',15,'metric-test-service',map('attr1','value1'),%s), (%s,'test.metric.gauge',25,'metric-test-service',map('attr1','value1'),%s)",
				hxDatabase, chTime(now), res, chTime(later), res))
			c.exec(fmt.Sprintf("INSERT INTO %s.otel_metrics_sum VALUES (%s,'test.metric.sum',100,'metric-test-service',map(),%s,1,true), (%s,'test.metric.sum',150,'metric-test-service',map(),%s,1,true)",
				hxDatabase, chTime(now), res, chTime(later), res))
			c.exec(fmt.Sprintf("INSERT INTO %s.otel_metrics_histogram VALUES (%s,'test.metric.histogram','metric-test-service',map(),%s,[5,10,3,0],[10,50,100],1), (%s,'test.metric.histogram','metric-test-service',map(),%s,[3,12,5,2],[10,50,100],1)",
				hxDatabase, chTime(now), res, chTime(later), res))
			run(world{c, logs, metrics})
		}
	}
	// payload is createSeriesRequestPayload: the hour, one count series
	// of the source by default; a metric series gets a gauge of Value of
	// test.metric.gauge unless it says otherwise.
	payload := func(source string, kv ...any) map[string]any {
		p := with(map[string]any{
			"startTime": start.UnixMilli(), "endTime": end.UnixMilli(),
			"series": []any{map[string]any{"sourceId": source, "dataSource": "events", "aggFn": "count", "where": "", "groupBy": []any{}}},
		}, kv...)
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] != "series" {
				continue
			}
			var out []any
			for _, s := range kv[i+1].([]any) {
				s := with(map[string]any{"sourceId": source}, flatten(s.(map[string]any))...)
				if s["dataSource"] == "metrics" {
					for k, v := range map[string]any{"metricDataType": "Gauge", "field": "Value", "metricName": "test.metric.gauge"} {
						if _, ok := s[k]; !ok {
							s[k] = v
						}
					}
				}
				out = append(out, s)
			}
			p["series"] = out
		}
		return p
	}
	count := func(v any) float64 {
		switch x := v.(type) {
		case string:
			f, err := strconv.ParseFloat(x, 64)
			require.NoError(t, err)
			return f
		case float64:
			return x
		}
		t.Fatalf("not a number: %#v", v)
		return 0
	}
	row := func(r hxResp, i int) map[string]any { return r.list()[i].(map[string]any) }
	numeric := func(v any) {
		t.Helper()
		require.NotNil(t, v)
		_ = count(v)
	}
	metricSeries := func(kv ...any) map[string]any {
		return with(map[string]any{"dataSource": "metrics", "where": "", "groupBy": []any{}}, kv...)
	}
	oneRow := func(r hxResp, series ...int) map[string]any {
		require.Len(t, r.list(), 1, string(r.raw))
		m := row(r, 0)
		assert.Contains(t, m, "ts_bucket")
		for _, i := range series {
			assert.Contains(t, m, "series_"+strconv.Itoa(i)+".data")
		}
		return m
	}
	replay(t, "charts.int.test.ts", []hxCase{
		// Authentication & basic validation
		{"should return 401 when user is not authenticated", chartCase(func(w world) {
			assert.Equal(t, http.StatusUnauthorized, w.c.doAuth("POST", base, nil, "").status)
		})},
		{"should return 404 if sourceId is invalid or not found", chartCase(func(w world) {
			w.c.expect(404, "POST", base, map[string]any{
				"startTime": start.UnixMilli(), "endTime": end.UnixMilli(),
				"series": []any{map[string]any{"sourceId": newID(), "aggFn": "count", "where": "", "groupBy": []any{}}},
			})
		})},
		{"should return 400 if series array is missing or empty", chartCase(func(w world) {
			w.c.expect(400, "POST", base, map[string]any{"startTime": start.UnixMilli(), "endTime": end.UnixMilli(), "series": []any{}})
			w.c.expect(400, "POST", base, map[string]any{"startTime": start.UnixMilli(), "endTime": end.UnixMilli()})
		})},
		{"should return 400 if invalid time range is provided", chartCase(func(w world) {
			w.c.expect(400, "POST", base, map[string]any{
				"startTime": 142415152, "endTime": 5215152,
				"series": []any{map[string]any{"sourceId": w.logs, "aggFn": "count", "where": "SeverityText:info", "groupBy": []any{"ServiceName"}}},
			})
		})},
		{"should return 400 if series array exceeds max length (5)", chartCase(func(w world) {
			six := make([]any, 6)
			for i := range six {
				six[i] = map[string]any{"aggFn": "count", "where": "", "groupBy": []any{}}
			}
			w.c.expect(400, "POST", base, payload(w.logs, "series", six))
		})},
		{"should return 400 if groupBy fields are inconsistent across series", chartCase(func(w world) {
			w.c.expect(400, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"aggFn": "count", "where": "", "groupBy": []any{"field1"}},
				map[string]any{"aggFn": "count", "where": "", "groupBy": []any{"field2"}},
			}))
		})},
		{"should return 400 for invalid aggFn", chartCase(func(w world) {
			w.c.expect(400, "POST", base, payload(w.logs, "series", []any{map[string]any{"aggFn": "invalid_function", "where": "", "groupBy": []any{}}}))
		})},
		// Data querying (logs as source)
		{"should return total count when where clause is empty", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs))
			require.Len(t, r.list(), 1, string(r.raw))
			assert.Equal(t, 4.0, count(row(r, 0)["series_0.data"]))
		})},
		{"should handle lucene where clause (default)", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"aggFn": "count", "where": `SeverityText:info AND ServiceName:"test-service-2"`, "groupBy": []any{}},
			}))
			require.Len(t, r.list(), 1, string(r.raw))
			assert.Equal(t, 1.0, count(row(r, 0)["series_0.data"]))
		})},
		{"should handle sql where clause", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"aggFn": "count", "where": "SeverityText = 'info' AND Body LIKE '%message 2%'", "whereLanguage": "sql", "groupBy": []any{}},
			}))
			require.Len(t, r.list(), 1, string(r.raw))
			assert.Equal(t, 1.0, count(row(r, 0)["series_0.data"]))
		})},
		{"should return data grouped by a single field", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"aggFn": "count", "where": "SeverityText:info", "groupBy": []any{"ServiceName"}},
			}))
			require.Len(t, r.list(), 2, string(r.raw))
			assert.Subset(t, r.list(), []any{
				map[string]any{"group": []any{"test-service"}, "series_0.data": "1", "ts_bucket": row(r, 0)["ts_bucket"]},
				map[string]any{"group": []any{"test-service-2"}, "series_0.data": "1", "ts_bucket": row(r, 0)["ts_bucket"]},
			})
		})},
		{"should return data grouped by multiple fields", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"aggFn": "count", "where": "SeverityText:info", "groupBy": []any{"ServiceName", "SeverityText"}},
			}))
			require.Len(t, r.list(), 2, string(r.raw))
			assert.Subset(t, r.list(), []any{
				map[string]any{"group": []any{"test-service", "info"}, "series_0.data": "1", "ts_bucket": row(r, 0)["ts_bucket"]},
				map[string]any{"group": []any{"test-service-2", "info"}, "series_0.data": "1", "ts_bucket": row(r, 0)["ts_bucket"]},
			})
		})},
		{"should return data from multiple series (joined)", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"dataSource": "events", "aggFn": "count", "where": "SeverityText:info", "groupBy": []any{"ServiceName"}},
				map[string]any{"dataSource": "events", "aggFn": "count", "where": `ServiceName:"test-service" AND SeverityText:info`, "groupBy": []any{"ServiceName"}},
			}))
			require.GreaterOrEqual(t, len(r.list()), 1)
			ts := row(r, 0)["ts_bucket"]
			assert.IsType(t, 0.0, ts)
			assert.Subset(t, r.list(), []any{
				map[string]any{"series_0.data": "1", "series_1.data": "1", "group": []any{"test-service"}, "ts_bucket": ts},
				map[string]any{"series_0.data": "1", "group": []any{"test-service-2"}, "ts_bucket": ts},
			})
		})},
		{"should apply granularity", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "granularity", "1s", "series", []any{
				map[string]any{"aggFn": "count", "where": "SeverityText:info", "groupBy": []any{"ServiceName"}},
			}))
			require.Len(t, r.list(), 2, string(r.raw))
			for i := range r.list() {
				assert.Contains(t, row(r, i), "ts_bucket")
				assert.Equal(t, 1.0, count(row(r, i)["series_0.data"]))
			}
		})},
		{"should return data in column format", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "seriesReturnType", "column", "series", []any{
				map[string]any{"aggFn": "count", "where": "SeverityText:info", "groupBy": []any{}},
			}))
			require.Len(t, r.list(), 1, string(r.raw))
			assert.IsType(t, "", row(r, 0)["__hdx_time_bucket"])
			assert.Equal(t, "2", row(r, 0)["series_0"])
		})},
		{"should return data in ratio format", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"aggFn": "count", "where": "SeverityText:info", "groupBy": []any{}},
				map[string]any{"aggFn": "count", "where": `ServiceName:"test-service" AND SeverityText:info`, "groupBy": []any{}},
			}))
			require.GreaterOrEqual(t, len(r.list()), 1)
			var s0, s1 float64
			for i := range r.list() {
				if v, ok := row(r, i)["series_0.data"]; ok {
					s0 += count(v)
				}
				if v, ok := row(r, i)["series_1.data"]; ok {
					s1 += count(v)
				}
			}
			assert.Equal(t, 2.0, s0)
			assert.Equal(t, 1.0, s1)
		})},
		{"should return count for metric series stored as logs", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.logs, "series", []any{
				map[string]any{"dataSource": "events", "aggFn": "count", "where": `ServiceName:"metric-test-service" AND SeverityText:metric`, "groupBy": []any{}},
			}))
			require.Len(t, r.list(), 1, string(r.raw))
			assert.Equal(t, 2.0, count(row(r, 0)["series_0.data"]))
		})},
		// Metric sources
		{"should return data for a single metric series using metric source", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.metrics, "series", []any{
				metricSeries("aggFn", "avg", "metricName", "test.metric.gauge", "metricDataType", "Gauge", "field", "Value"),
			}))
			assert.Equal(t, 25.0, count(oneRow(r, 0)["series_0.data"]))
		})},
		{"should return data for a single sum metric series using metric source", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.metrics, "series", []any{
				metricSeries("aggFn", "sum", "metricName", "test.metric.sum", "metricDataType", "Sum", "field", "Value"),
			}))
			numeric(oneRow(r, 0)["series_0.data"])
		})},
		{"should return data for a single histogram metric series using metric source", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.metrics, "series", []any{
				metricSeries("aggFn", "quantile", "level", 0.95, "metricName", "test.metric.histogram", "metricDataType", "Histogram", "field", "Value"),
			}))
			numeric(oneRow(r, 0)["series_0.data"])
		})},
		{"should return data for multiple series with different metric types", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, payload(w.metrics, "series", []any{
				metricSeries("aggFn", "avg", "metricName", "test.metric.gauge", "metricDataType", "Gauge", "field", "Value"),
				metricSeries("aggFn", "sum", "metricName", "test.metric.sum", "metricDataType", "Sum", "field", "Value"),
				metricSeries("aggFn", "quantile", "level", 0.95, "metricName", "test.metric.histogram", "metricDataType", "Histogram", "field", "Value"),
			}))
			m := oneRow(r, 0, 1, 2)
			for i := range 3 {
				numeric(m["series_"+strconv.Itoa(i)+".data"])
			}
		})},
		{"should use field as metricName when metricName is not provided", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, map[string]any{"startTime": start.UnixMilli(), "endTime": end.UnixMilli(), "series": []any{
				map[string]any{"sourceId": w.metrics, "dataSource": "metrics", "aggFn": "avg", "metricDataType": "Gauge", "field": "test.metric.gauge", "where": "", "groupBy": []any{}},
			}})
			assert.Equal(t, 25.0, count(oneRow(r, 0)["series_0.data"]))
		})},
		{"should use field as metricName for sum metrics when metricName is not provided", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, map[string]any{"startTime": start.UnixMilli(), "endTime": end.UnixMilli(), "series": []any{
				map[string]any{"sourceId": w.metrics, "dataSource": "metrics", "aggFn": "sum", "metricDataType": "Sum", "field": "test.metric.sum", "where": "", "groupBy": []any{}},
			}})
			require.Len(t, r.list(), 1, string(r.raw))
			numeric(row(r, 0)["series_0.data"])
		})},
		{"should use field as metricName for histogram metrics when metricName is not provided", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, map[string]any{"startTime": start.UnixMilli(), "endTime": end.UnixMilli(), "series": []any{
				map[string]any{"sourceId": w.metrics, "dataSource": "metrics", "aggFn": "quantile", "level": 0.95, "metricDataType": "Histogram", "field": "test.metric.histogram", "where": "", "groupBy": []any{}},
			}})
			require.Len(t, r.list(), 1, string(r.raw))
			numeric(row(r, 0)["series_0.data"])
		})},
		{"should use metricName over field when both are provided", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, map[string]any{"startTime": start.UnixMilli(), "endTime": end.UnixMilli(), "series": []any{
				map[string]any{"sourceId": w.metrics, "dataSource": "metrics", "aggFn": "avg", "metricDataType": "Gauge", "metricName": "test.metric.gauge", "field": "Value", "where": "", "groupBy": []any{}},
			}})
			assert.Equal(t, 25.0, count(oneRow(r, 0)["series_0.data"]))
		})},
		{"should process series from different sources", chartCase(func(w world) {
			r := w.c.expect(200, "POST", base, map[string]any{"startTime": start.UnixMilli(), "endTime": end.UnixMilli(), "series": []any{
				map[string]any{"sourceId": w.logs, "dataSource": "events", "aggFn": "count", "where": "SeverityText:info", "groupBy": []any{}},
				map[string]any{"sourceId": w.metrics, "dataSource": "metrics", "aggFn": "avg", "metricName": "test.metric.gauge", "metricDataType": "Gauge", "field": "Value", "where": "", "groupBy": []any{}},
			}})
			require.Len(t, r.list(), 1, string(r.raw))
			assert.Contains(t, row(r, 0), "series_0.data")
			assert.Contains(t, row(r, 0), "series_1.data")
		})},
	})
}

// flatten is a map as with's key, value list.
func flatten(m map[string]any) []any {
	var kv []any
	for k, v := range m {
		kv = append(kv, k, v)
	}
	return kv
}

package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Times the store cannot hold: the tables are DateTime64(9), nanoseconds
// since 1970 in an Int64, and OTLP times are unsigned. Before the shipped
// config's transform/storable_times, 2^64-1 ns was stored as 1969-12-31,
// 2^63 as 1677-09-21, and a span ending before its start as a duration of
// about 584 years.
const (
	maxU64 = "18446744073709551615" // 2^64-1
	pow63  = "9223372036854775808"  // 2^63, the first time past 2262-04-11
)

func otlpBadTimeSpans(now int64) string {
	id := 0
	span := func(name, start, end, events string) string {
		id++
		return fmt.Sprintf(`{"traceId":"%s","spanId":"%016x","name":%q,"startTimeUnixNano":"%s","endTimeUnixNano":"%s","events":[%s]}`,
			otlpTraceID, id, name, start, end, events)
	}
	n := func(d int64) string { return strconv.FormatInt(now+d, 10) }
	spans := []string{
		span("ok", n(0), n(1e6), ""),
		span("negative", n(0), n(-1e9), ""),
		span("start-max", maxU64, n(0), ""),
		span("end-2^63", n(0), pow63, ""),
		span("both-max", maxU64, maxU64, ""),
		span("events", n(0), n(1e6), fmt.Sprintf(`{"timeUnixNano":"%s","name":"late"},{"timeUnixNano":"%s","name":"fine"}`, maxU64, n(5e5))),
	}
	return `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"ts-otlp"}}]},"scopeSpans":[{"spans":[` +
		strings.Join(spans, ",") + `]}]}]}`
}

func otlpBadTimeLogs(now int64) string {
	return fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"ts-otlp"}}]},"scopeLogs":[{"logRecords":[
	 {"timeUnixNano":"%[1]d","observedTimeUnixNano":"%[1]d","body":{"stringValue":"log-ok"}},
	 {"timeUnixNano":"%[2]s","observedTimeUnixNano":"%[1]d","body":{"stringValue":"log-max"}},
	 {"timeUnixNano":"%[2]s","observedTimeUnixNano":"%[3]s","body":{"stringValue":"log-both"}}]}]}]}`, now, maxU64, pow63)
}

func otlpBadTimeMetrics(now int64) string {
	return fmt.Sprintf(`{"resourceMetrics":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"ts-otlp"}}]},"scopeMetrics":[{"metrics":[
	 {"name":"ts.gauge","gauge":{"dataPoints":[{"timeUnixNano":"%[2]s","asDouble":1},{"timeUnixNano":"%[1]d","asDouble":2},{"timeUnixNano":"%[3]d","asDouble":4}]}},
	 {"name":"ts.sum","sum":{"aggregationTemporality":1,"isMonotonic":true,"dataPoints":[{"startTimeUnixNano":"%[2]s","timeUnixNano":"%[1]d","asDouble":3}]}}]}]}]}`, now, maxU64, int64(1)<<32*1e9)
}

// ddBadTimeEvents is a Datadog span whose `events` meta (older tracers'
// span events) has one time past 2262.
func ddBadTimeEvents(now int64) string {
	return fmt.Sprintf(`[[{"service":"ts-dd","name":"op","resource":"r","trace_id":77,"span_id":1,"start":%d,"duration":1000,
	  "meta":{"events":"[{\"name\":\"late\",\"time_unix_nano\":%s},{\"name\":\"fine\",\"time_unix_nano\":%d}]"}}]]`, now, maxU64, now+500)
}

func TestUnstorableTimesAreAdjustedAndMarked(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	before := time.Now().UnixNano()
	now := before - int64(time.Minute) // apart from the receive time
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	require.Equal(t, 200, post(t, otlp+"/v1/traces", "application/json", otlpBadTimeSpans(now)))
	require.Equal(t, 200, post(t, otlp+"/v1/logs", "application/json", otlpBadTimeLogs(now)))
	require.Equal(t, 200, post(t, otlp+"/v1/metrics", "application/json", otlpBadTimeMetrics(now)))
	require.Equal(t, 200, post(t, fmt.Sprintf("http://127.0.0.1:%d/v0.4/traces", c.datadog), "application/json", ddBadTimeEvents(now)))

	counts := "SELECT (SELECT count() FROM otel.otel_traces WHERE ServiceName IN ('ts-otlp', 'ts-dd'))," +
		" (SELECT count() FROM otel.otel_logs WHERE ServiceName = 'ts-otlp')," +
		" (SELECT count() FROM otel.otel_metrics_gauge WHERE MetricName = 'ts.gauge') + (SELECT count() FROM otel.otel_metrics_sum WHERE MetricName = 'ts.sum')"
	require.Eventually(t, func() bool { return c.sql(t, counts) == "7\t3\t4" }, 30*time.Second, 250*time.Millisecond)
	after := time.Now().UnixNano()

	// The receive time, which the rule puts where no usable time was sent.
	received := func(s string) bool {
		v, err := strconv.ParseInt(s, 10, 64)
		return err == nil && v >= before && v <= after
	}
	receivedSecs := func(s string) bool {
		v, err := strconv.ParseInt(s, 10, 64)
		return err == nil && v >= before/1e9 && v <= after/1e9
	}
	n := func(d int64) string { return strconv.FormatInt(now+d, 10) }

	type row = []string
	// rows reads a TSV answer keyed by its first column; each query ends
	// its rows with a '|' column, so that the answer's trimming keeps the
	// last row's empty fields.
	rows := func(q string) map[string]row {
		out := map[string]row{}
		for _, line := range strings.Split(c.sql(t, q), "\n") {
			f := strings.Split(line, "\t")
			if len(f) < 2 || f[len(f)-1] != "|" {
				t.Errorf("unexpected answer line %q to %s", line, q)
				continue
			}
			out[f[0]] = f[1 : len(f)-1]
		}
		return out
	}

	spans := rows("SELECT SpanName, toUnixTimestamp64Nano(Timestamp), Duration, SpanAttributes['otelhouse.time_adjusted']," +
		" arrayStringConcat(arrayMap(t -> toString(toUnixTimestamp64Nano(t)), Events.Timestamp), ','), arrayStringConcat(arrayMap(a -> a['otelhouse.time_adjusted'], Events.Attributes), ','), '|'" +
		" FROM otel.otel_traces WHERE ServiceName = 'ts-otlp' FORMAT TSV")
	assert.Equal(t, row{n(0), "1000000", "", "", ""}, spans["ok"], "a storable span is untouched")
	assert.Equal(t, row{n(0), "0", "negative_duration", "", ""}, spans["negative"], "end before start: length 0, not 584 years")
	assert.Equal(t, row{n(0), "0", "start_after_2262", "", ""}, spans["start-max"])
	assert.Equal(t, row{n(0), "0", "end_after_2262", "", ""}, spans["end-2^63"])
	if assert.Len(t, spans["both-max"], 5) {
		assert.True(t, received(spans["both-max"][0]), "a span with no usable time sits at its receive time: %v", spans["both-max"])
		assert.Equal(t, row{"0", "start_after_2262,end_after_2262", "", ""}, spans["both-max"][1:])
	}
	assert.Equal(t, row{n(0), "1000000", "", n(0) + "," + n(5e5), "time_after_2262,"}, spans["events"], "an unstorable event time is the span's start")

	dd := c.sql(t, "SELECT arrayStringConcat(arrayMap(t -> toString(toUnixTimestamp64Nano(t)), Events.Timestamp), ','), arrayStringConcat(arrayMap(a -> a['otelhouse.time_adjusted'], Events.Attributes), ',')"+
		" FROM otel.otel_traces WHERE ServiceName = 'ts-dd' FORMAT TSV")
	assert.Equal(t, n(0)+","+n(500)+"\ttime_after_2262,", dd, "Datadog span events go through the same rule")

	logs := rows("SELECT toString(Body), toUnixTimestamp64Nano(Timestamp), LogAttributes['otelhouse.time_adjusted'], '|' FROM otel.otel_logs WHERE ServiceName = 'ts-otlp' FORMAT TSV")
	assert.Equal(t, row{n(0), ""}, logs["log-ok"])
	assert.Equal(t, row{n(0), "time_after_2262"}, logs["log-max"], "the record takes its observed (receive) time")
	if assert.Len(t, logs["log-both"], 2) {
		assert.True(t, received(logs["log-both"][0]), "%v", logs["log-both"])
		assert.Equal(t, "time_after_2262,observed_time_after_2262", logs["log-both"][1])
	}

	points := rows("SELECT toString(Value), toUnixTimestamp(TimeUnix), toUnixTimestamp(StartTimeUnix), Attributes['otelhouse.time_adjusted'], '|' FROM otel.otel_metrics_gauge WHERE MetricName = 'ts.gauge'" +
		" UNION ALL SELECT toString(Value), toUnixTimestamp(TimeUnix), toUnixTimestamp(StartTimeUnix), Attributes['otelhouse.time_adjusted'], '|' FROM otel.otel_metrics_sum WHERE MetricName = 'ts.sum' FORMAT TSV")
	secs := func(d int64) string { return strconv.FormatInt((now+d)/1e9, 10) }
	assert.Equal(t, row{secs(0), "0", ""}, points["2"], "a storable point is untouched")
	if assert.Len(t, points["1"], 3) {
		assert.True(t, receivedSecs(points["1"][0]), "an unstorable point time is the receive time: %v", points["1"])
		assert.Equal(t, "time_after_2106", points["1"][2])
	}
	assert.Equal(t, row{secs(0), secs(0), "start_time_after_2106"}, points["3"], "an unstorable start is the point's time")
	if assert.Len(t, points["4"], 3) {
		assert.True(t, receivedSecs(points["4"][0]), "metric tables hold seconds up to 2106: %v", points["4"])
		assert.Equal(t, row{"0", "time_after_2106"}, points["4"][1:])
	}

	// Nothing wrapped anywhere: no row before 1970-01-02 or with a
	// duration longer than a day.
	assert.Equal(t, "0\t0\t0", c.sql(t, "SELECT (SELECT countIf(Timestamp < '1970-01-02' OR Duration > 86400e9) FROM otel.otel_traces),"+
		" (SELECT countIf(Timestamp < '1970-01-02') FROM otel.otel_logs), (SELECT countIf(TimeUnix < '1970-01-02') FROM otel.otel_metrics_gauge)"))
}

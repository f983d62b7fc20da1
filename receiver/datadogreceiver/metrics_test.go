package datadogreceiver

import (
	"net/http"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func TestMetricsEndpoints(t *testing.T) {
	h := startAll(t, nil, nil, nil, new(consumertest.MetricsSink))
	v2, err := (&gogen.MetricPayload{Series: []*gogen.MetricPayload_MetricSeries{{
		Metric: "m2", Type: gogen.MetricPayload_GAUGE,
		Points: []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: 1}, {Timestamp: 1_700_000_010, Value: 2}},
	}}}).Marshal()
	require.NoError(t, err)
	sk, err := (&gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
		Metric:      "lat",
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{{Ts: 1_700_000_000, Cnt: 1, Sum: 1, Min: 1, Max: 1, K: []int32{1338}, N: []uint32{1}}},
	}}}).Marshal()
	require.NoError(t, err)
	stats, err := (&pb.ClientStatsPayload{Service: "s", Stats: []*pb.ClientStatsBucket{{
		Start: 1, Duration: 10e9,
		Stats: []*pb.ClientGroupedStats{{Service: "s", Resource: "r", Hits: 3}},
	}}}).MarshalMsg(nil)
	require.NoError(t, err)
	agentStats, err := (&pb.StatsPayload{Stats: []*pb.ClientStatsPayload{{Service: "s", Stats: []*pb.ClientStatsBucket{{
		Start: 1, Duration: 10e9,
		Stats: []*pb.ClientGroupedStats{{Service: "s", Resource: "r", Hits: 3}},
	}}}}}).MarshalMsg(nil)
	require.NoError(t, err)

	cases := []struct {
		path, ct, enc string
		body          []byte
		want, points  int
	}{
		{"/api/v1/series", "application/json", "gzip", []byte(`{"series":[{"metric":"m1","points":[[1700000000,1]],"type":"gauge"}]}`), 202, 1},
		{"/api/v1/series", "text/json", "deflate", []byte(`{"series":[{"metric":"m1","points":[[1700000000,1]]}]}`), 202, 1},
		{"/api/v2/series", "application/x-protobuf", "zstd", v2, 202, 2},
		{"/api/v2/series", "application/x-protobuf", "deflate", v2, 202, 2},
		{"/api/v2/series", "application/json", "", []byte(`{"series":[{"metric":"j","type":3,"points":[{"timestamp":1700000000,"value":1}]}]}`), 202, 1},
		{"/api/beta/sketches", "application/x-protobuf", "zstd1", sk, 202, 1},
		{"/api/v1/sketches", "application/x-protobuf", "", sk, 202, 1},
		{"/api/v1/check_run", "application/json", "gzip", []byte(`[{"check":"c","status":1,"timestamp":1700000000}]`), 202, 1},
		{"/v0.6/stats", "application/msgpack", "", stats, 200, 4},
		{"/api/v0.2/stats", "application/msgpack", "gzip", agentStats, 202, 4},
		{"/api/v2/series", "application/x-protobuf", "", []byte{0xff, 0xff}, 400, 0},
		{"/dogstatsd/v2/proxy", "text/plain", "", []byte("a:1|c\nb:2|g|#env:x\nbroken\n"), 200, 2},
		{"/dogstatsd/v1/proxy", "text/plain", "", []byte("c:1|g"), 200, 1},
		{"/dogstatsd/v2/proxy", "text/plain", "", []byte("nonsense"), 400, 0},
	}
	total := 0
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.enc, func(t *testing.T) {
			status, resp, _ := h.do(t, http.MethodPost, tc.path, compressTB(t, tc.enc, tc.body), "Content-Type", tc.ct, "Content-Encoding", tc.enc)
			assert.Equal(t, tc.want, status, "%s %s: %s", tc.path, tc.enc, resp)
			total += tc.points
		})
	}
	assert.Equal(t, total, h.metrics.DataPointCount())
	assert.Equal(t, int64(total), sumMetric(t, h.tel, "otelcol_receiver_accepted_metric_points"))
}

func TestSeriesV3IsRefusedLoudly(t *testing.T) {
	h := startAll(t, nil, nil, nil, new(consumertest.MetricsSink))
	for i := 0; i < 2; i++ {
		status, resp, _ := h.do(t, http.MethodPost, "/api/intake/metrics/v3/series", []byte("x"), "Content-Type", "application/x-protobuf")
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, resp, "use_v3_api.series.enabled: false")
	}
	assert.Equal(t, 0, h.metrics.DataPointCount())
}

func TestHousekeepingIsDiscardedAndCounted(t *testing.T) {
	h := startAll(t, func(c *Config) { c.APIKeys = []configopaque.String{"k"} }, new(consumertest.TracesSink), new(consumertest.LogsSink), new(consumertest.MetricsSink))
	for _, p := range []string{"/api/v1/metadata", "/api/v2/host_metadata", "/intake/"} {
		status, _, _ := h.do(t, http.MethodPost, p, []byte(`{"hostname":"h"}`), "DD-API-KEY", "k")
		assert.Equal(t, http.StatusAccepted, status, p)
	}
	// Events on /intake/ are not discarded: they become logs.
	status, _, _ := h.do(t, http.MethodPost, "/intake/", compressTB(t, "deflate", []byte(`{"events":{"api":[{"msg_title":"deploy"}]}}`)),
		"DD-API-KEY", "k", "Content-Encoding", "deflate")
	assert.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, 1, h.logs.LogRecordCount())
	status, _, _ = h.do(t, http.MethodPost, "/api/v1/metadata", []byte(`{}`))
	assert.Equal(t, http.StatusForbidden, status, "agent paths need the key")
	status, _, _ = h.do(t, http.MethodPost, "/telemetry/proxy/api/v2/apmtelemetry", []byte(`{}`))
	assert.Equal(t, http.StatusAccepted, status, "tracer paths are open")
	status, _, _ = h.do(t, http.MethodPost, "/profiling/v1/input", []byte("--multipart--"))
	assert.Equal(t, http.StatusAccepted, status)
	for _, p := range []string{"/evp_proxy/v4/api/v2/llmobs", "/evp_proxy/v4/api/v2/citestcov", "/debugger/v1/input"} {
		status, _, _ = h.do(t, http.MethodPost, p, []byte(`[]`))
		assert.Equal(t, http.StatusAccepted, status, p)
	}

	m, err := h.tel.GetMetric("otelcol_receiver_datadog_discarded_requests")
	require.NoError(t, err)
	byPath := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		v, _ := dp.Attributes.Value(attribute.Key("path"))
		byPath[v.AsString()] += dp.Value
	}
	assert.Equal(t, map[string]int64{
		"/api/v1/metadata": 1, "/api/v2/host_metadata": 1, "/intake/": 1,
		"/telemetry/proxy/api/v2/apmtelemetry": 1, "/profiling/v1/input": 1,
		"/evp_proxy/v4/": 2, "/debugger/v1/input": 1,
	}, byPath, "counted by route, so senders cannot grow the series")
}

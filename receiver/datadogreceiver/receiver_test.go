package datadogreceiver

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configtls"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/metadata"
)

func enableGate(t testing.TB) {
	t.Helper()
	require.NoError(t, featuregate.GlobalRegistry().Set(FeatureGateID, true))
	t.Cleanup(func() { _ = featuregate.GlobalRegistry().Set(FeatureGateID, false) })
}

type harness struct {
	url     string
	client  *http.Client
	traces  *consumertest.TracesSink
	logs    *consumertest.LogsSink
	metrics *consumertest.MetricsSink
	tel     *componenttest.Telemetry
}

// start runs a receiver on a free loopback port with the given consumers
// (nil: that signal has no pipeline).
func start(t testing.TB, mutate func(*Config), tc consumer.Traces, lc consumer.Logs) *harness {
	t.Helper()
	return startAll(t, mutate, tc, lc, nil)
}

func startAll(t testing.TB, mutate func(*Config), tc consumer.Traces, lc consumer.Logs, mc consumer.Metrics) *harness {
	t.Helper()
	enableGate(t)
	cfg := createDefaultConfig().(*Config)
	cfg.NetAddr.Endpoint = "127.0.0.1:0"
	if mutate != nil {
		mutate(cfg)
	}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := receivertest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()
	f := NewFactory()
	var comps []component.Component
	if tc != nil {
		r, err := f.CreateTraces(context.Background(), set, cfg, tc)
		require.NoError(t, err)
		comps = append(comps, r)
	}
	if lc != nil {
		r, err := f.CreateLogs(context.Background(), set, cfg, lc)
		require.NoError(t, err)
		comps = append(comps, r)
	}
	if mc != nil {
		r, err := f.CreateMetrics(context.Background(), set, cfg, mc)
		require.NoError(t, err)
		comps = append(comps, r)
	}
	for _, c := range comps {
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	}
	t.Cleanup(func() {
		for _, c := range comps {
			require.NoError(t, c.Shutdown(context.Background()))
		}
	})
	h := &harness{
		url: "http://" + comps[0].(*datadogReceiver).addr.String(), tel: tel,
		client: &http.Client{Transport: &http.Transport{}},
	}
	t.Cleanup(h.client.CloseIdleConnections)
	h.traces, _ = tc.(*consumertest.TracesSink)
	h.logs, _ = lc.(*consumertest.LogsSink)
	h.metrics, _ = mc.(*consumertest.MetricsSink)
	return h
}

func (h *harness) do(t *testing.T, method, path string, body []byte, headers ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, h.url+path, bytes.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func msgpackTraces(t *testing.T, n int) []byte {
	t.Helper()
	var tr pb.Trace
	for i := 0; i < n; i++ {
		tr = append(tr, &pb.Span{
			Service: "svc", Name: "op", Resource: "r", TraceID: 7, SpanID: uint64(i + 1), Start: 1, Duration: 2,
			Meta: map[string]string{"k": "v"},
		})
	}
	b, err := pb.Traces{tr}.MarshalMsg(nil)
	require.NoError(t, err)
	return b
}

const logsBody = `[{"message":"a","status":"info"},{"message":"b","status":"error"}]`

func compress(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	return compressTB(t, enc, b)
}

func compressTB(t testing.TB, enc string, b []byte) []byte {
	t.Helper()
	t.Helper()
	var buf bytes.Buffer
	switch enc {
	case "gzip":
		w := gzip.NewWriter(&buf)
		_, _ = w.Write(b)
		require.NoError(t, w.Close())
	case "deflate":
		w := zlib.NewWriter(&buf)
		_, _ = w.Write(b)
		require.NoError(t, w.Close())
	case "zstd", "zstd1":
		w, _ := zstd.NewWriter(&buf)
		_, _ = w.Write(b)
		require.NoError(t, w.Close())
	default:
		return b
	}
	return buf.Bytes()
}

func TestTracesEndpoints(t *testing.T) {
	h := start(t, nil, new(consumertest.TracesSink), new(consumertest.LogsSink))
	body := msgpackTraces(t, 3)
	for _, path := range []string{"/v0.3/traces", "/v0.4/traces", "/v0.7/traces"} {
		for _, method := range []string{http.MethodPost, http.MethodPut} {
			b := body
			if path == "/v0.7/traces" {
				tp := &pb.TracerPayload{Chunks: []*pb.TraceChunk{{Spans: pb.Trace{{Service: "s", TraceID: 1, SpanID: 1}}}}}
				b, _ = tp.MarshalMsg(nil)
			}
			status, resp, _ := h.do(t, method, path, b, "Content-Type", "application/msgpack", "Datadog-Meta-Lang", "go")
			assert.Equal(t, http.StatusOK, status, path)
			if path == "/v0.3/traces" {
				assert.Equal(t, "OK\n", resp)
			} else {
				assert.JSONEq(t, `{"rate_by_service":{"service:,env:":1}}`, resp, path)
			}
		}
	}
	assert.Equal(t, 2*3+2*3+2*1, h.traces.SpanCount())
	lang, _ := h.traces.AllTraces()[0].ResourceSpans().At(0).Resource().Attributes().Get("telemetry.sdk.language")
	assert.Equal(t, "go", lang.Str())

	ap := &pb.AgentPayload{HostName: "h", TracerPayloads: []*pb.TracerPayload{{Chunks: []*pb.TraceChunk{{Spans: pb.Trace{{Service: "s", TraceID: 1, SpanID: 1}}}}}}}
	b, _ := ap.MarshalVT()
	status, _, _ := h.do(t, http.MethodPost, "/api/v0.2/traces", compress(t, "gzip", b),
		"Content-Encoding", "gzip", "Content-Type", "application/x-protobuf")
	assert.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, 15, h.traces.SpanCount())

	// Empty probes answer like the agent, without reaching the pipeline.
	for _, probe := range [][]byte{nil, {0x90}} {
		status, _, _ = h.do(t, http.MethodPut, "/v0.4/traces", probe)
		assert.Equal(t, http.StatusOK, status)
	}
	assert.Len(t, h.traces.AllTraces(), 7)
}

func TestCompressions(t *testing.T) {
	h := start(t, nil, new(consumertest.TracesSink), new(consumertest.LogsSink))
	for _, enc := range []string{"", "gzip", "deflate", "zstd", "zstd1"} {
		status, resp, _ := h.do(t, http.MethodPost, "/api/v2/logs", compress(t, enc, []byte(logsBody)),
			"Content-Encoding", enc, "Content-Type", "application/json; charset=utf-8", "DD-PROTOCOL", "agent-json")
		assert.Equal(t, http.StatusAccepted, status, enc+": "+resp)
		status, _, _ = h.do(t, http.MethodPost, "/v0.4/traces", compress(t, enc, msgpackTraces(t, 1)), "Content-Encoding", enc)
		assert.Equal(t, http.StatusOK, status, enc)
	}
	assert.Equal(t, 10, h.logs.LogRecordCount())
	assert.Equal(t, 5, h.traces.SpanCount())

	// Decoders are reused: one that failed half-way through a corrupt body
	// must decode the next body whole.
	for _, enc := range []string{"gzip", "deflate", "zstd"} {
		for i := 0; i < 3; i++ {
			good := compress(t, enc, []byte(logsBody))
			bad := append([]byte(nil), good[:len(good)*2/3]...)
			bad = append(bad, bytes.Repeat([]byte{0x5a}, 16)...)
			status, _, _ := h.do(t, http.MethodPost, "/api/v2/logs", bad, "Content-Encoding", enc)
			assert.Equal(t, http.StatusBadRequest, status, enc)
			status, resp, _ := h.do(t, http.MethodPost, "/api/v2/logs", good, "Content-Encoding", enc)
			assert.Equal(t, http.StatusAccepted, status, enc+": "+resp)
		}
	}
	assert.Equal(t, 10+3*3*2, h.logs.LogRecordCount())

	status, resp, _ := h.do(t, http.MethodPost, "/api/v2/logs", []byte("not gzip"), "Content-Encoding", "gzip")
	assert.Equal(t, http.StatusBadRequest, status, resp)
	status, _, _ = h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody), "Content-Encoding", "br")
	assert.Equal(t, http.StatusBadRequest, status)

	// As HTTP spells codings: any case, identity for none, a list.
	before := h.logs.LogRecordCount()
	for _, enc := range []string{"identity", "GZIP", "gzip, identity", "identity, Deflate", "x-gzip"} {
		body := []byte(logsBody)
		switch c, _ := contentCoding(enc); c {
		case "gzip", "deflate":
			body = compress(t, c, body)
		}
		status, resp, _ := h.do(t, http.MethodPost, "/api/v2/logs", body, "Content-Encoding", enc)
		assert.Equal(t, http.StatusAccepted, status, enc+": "+resp)
	}
	assert.Equal(t, before+5*2, h.logs.LogRecordCount())
	status, resp, _ = h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody), "Content-Encoding", "gzip, zstd")
	assert.Equal(t, http.StatusUnsupportedMediaType, status)
	assert.Contains(t, resp, "more than one coding")
}

func TestBodyLimits(t *testing.T) {
	h := start(t, func(c *Config) { c.MaxRequestBodySize = 64 << 10 }, new(consumertest.TracesSink), new(consumertest.LogsSink))
	// A zstd bomb: 16 MiB of zeros in a few hundred bytes.
	bomb := compress(t, "zstd", make([]byte, 16<<20))
	require.Less(t, len(bomb), 4096)
	status, resp, _ := h.do(t, http.MethodPost, "/api/v2/logs", bomb, "Content-Encoding", "zstd")
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	assert.Contains(t, resp, "max_request_body_size")
	status, _, _ = h.do(t, http.MethodPost, "/v0.4/traces", compress(t, "gzip", make([]byte, 1<<20)), "Content-Encoding", "gzip")
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	status, _, _ = h.do(t, http.MethodPost, "/api/v2/logs", bytes.Repeat([]byte(" "), 128<<10))
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	assert.Equal(t, 0, h.logs.LogRecordCount())
}

func TestErrorsAndRouting(t *testing.T) {
	h := start(t, nil, new(consumertest.TracesSink), nil)
	cases := []struct {
		method, path string
		body         string
		want         int
		reason       string
	}{
		{http.MethodPost, "/v0.4/traces", "\x91\x91\x8c", http.StatusBadRequest, "decoding v0.4 msgpack traces"},
		{http.MethodPost, "/v0.4/traces", "[[{", http.StatusBadRequest, "JSON"},
		{http.MethodGet, "/v0.4/traces", "", http.StatusMethodNotAllowed, ""},
		{http.MethodPost, "/v0.9/traces", "", http.StatusNotFound, ""},
		{http.MethodPost, "/api/v2/logs", logsBody, http.StatusNotFound, ""}, // no logs pipeline
		{http.MethodPost, "/api/v1/series", "{}", http.StatusNotFound, ""},
		{http.MethodPost, "/api/v0.2/traces", "\xff\xff", http.StatusBadRequest, "AgentPayload"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			ct := "application/msgpack"
			if strings.HasPrefix(tc.body, "[") {
				ct = "application/json"
			}
			status, resp, _ := h.do(t, tc.method, tc.path, []byte(tc.body), "Content-Type", ct)
			assert.Equal(t, tc.want, status, tc.method+" "+tc.path)
			assert.Contains(t, resp, tc.reason)
		})
	}
	assert.Equal(t, 0, h.traces.SpanCount())
}

func TestInfoListsExactlyWhatIsServed(t *testing.T) {
	h := start(t, nil, new(consumertest.TracesSink), new(consumertest.LogsSink))
	status, body, _ := h.do(t, http.MethodGet, "/info", nil)
	require.Equal(t, http.StatusOK, status)
	var info struct {
		Endpoints     []string `json:"endpoints"`
		ClientDropP0s bool     `json:"client_drop_p0s"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &info))
	assert.True(t, info.ClientDropP0s, "stats are consumed, as by an Agent")
	assert.Contains(t, info.Endpoints, "/v0.4/traces")
	assert.NotContains(t, info.Endpoints, "/v0.6/stats")
	assert.Contains(t, info.Endpoints, "/v0.7/config")
	assert.Contains(t, info.Endpoints, "/debugger/v1/input")
	for _, p := range info.Endpoints {
		assert.NotContains(t, p, "/evp_proxy/", "tracers that see no EVP proxy send test spans as traces")
	}
	for _, p := range info.Endpoints {
		status, _, _ := h.do(t, http.MethodOptions, p, nil)
		assert.Equal(t, http.StatusMethodNotAllowed, status, "%s is advertised, so it must be routed", p)
	}
	status, body, _ = h.do(t, http.MethodPost, "/v0.7/config", []byte(`{"client":{"id":"x","products":["APM_TRACING"]}}`))
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{}`, body, "nothing to configure, as an Agent says when nothing changed")
	status, _, _ = h.do(t, http.MethodPost, "/evp_proxy/v2/api/v2/citestcycle", []byte(`{}`),
		"X-Datadog-EVP-Subdomain", "citestcycle-intake")
	assert.Equal(t, http.StatusAccepted, status, "served though not advertised, so a tracer that sends anyway stops")
	status, _, _ = h.do(t, http.MethodPost, "/telemetry/proxy/api/v2/apmtelemetry", []byte(`{"request_type":"app-heartbeat"}`))
	assert.Equal(t, http.StatusAccepted, status)
	status, body, _ = h.do(t, http.MethodGet, "/api/v1/validate", nil)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"valid":true}`, body)
}

func TestAPIKeys(t *testing.T) {
	h := start(t, func(c *Config) { c.APIKeys = []configopaque.String{"", "s3cret"} }, new(consumertest.TracesSink), new(consumertest.LogsSink))
	status, resp, _ := h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody))
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, resp, "API key")
	status, _, _ = h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody), "DD-API-KEY", "wrong")
	assert.Equal(t, http.StatusForbidden, status)
	status, _, _ = h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody), "DD-API-KEY", "s3cret")
	assert.Equal(t, http.StatusAccepted, status)
	status, _, _ = h.do(t, http.MethodPost, "/api/v2/logs?api_key=s3cret", []byte(logsBody))
	assert.Equal(t, http.StatusAccepted, status)
	status, _, _ = h.do(t, http.MethodGet, "/api/v1/validate", nil, "DD-API-KEY", "nope")
	assert.Equal(t, http.StatusForbidden, status)
	// Tracer paths stay open: tracers never send a key.
	status, _, _ = h.do(t, http.MethodPost, "/v0.4/traces", msgpackTraces(t, 1))
	assert.Equal(t, http.StatusOK, status)

	locked := start(t, func(c *Config) {
		c.APIKeys = []configopaque.String{"s3cret"}
		c.RequireKeyOnTracerPaths = true
	}, new(consumertest.TracesSink), nil)
	status, _, _ = locked.do(t, http.MethodPost, "/v0.4/traces", msgpackTraces(t, 1))
	assert.Equal(t, http.StatusForbidden, status)
}

type failing struct{ err error }

func (f failing) Capabilities() consumer.Capabilities                { return consumer.Capabilities{} }
func (f failing) ConsumeTraces(context.Context, ptrace.Traces) error { return f.err }
func (f failing) ConsumeLogs(context.Context, plog.Logs) error       { return f.err }

func TestBackpressure(t *testing.T) {
	h := start(t, func(c *Config) { c.RetryAfterSeconds = 7 }, failing{errors.New("memory limit")}, failing{errors.New("queue full")})
	status, resp, hdr := h.do(t, http.MethodPost, "/v0.4/traces", msgpackTraces(t, 2))
	assert.Equal(t, http.StatusServiceUnavailable, status, resp)
	assert.Equal(t, "7", hdr.Get("Retry-After"))
	status, _, hdr = h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody))
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "7", hdr.Get("Retry-After"))

	// The refused items are counted by the standard receiver metrics.
	refused := sumMetric(t, h.tel, "otelcol_receiver_refused_spans")
	assert.Equal(t, int64(2), refused)

	p := start(t, nil, failing{consumererror.NewPermanent(errors.New("bad data"))}, nil)
	status, resp, hdr = p.do(t, http.MethodPost, "/v0.4/traces", msgpackTraces(t, 1))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, resp, "bad data")
	assert.Empty(t, hdr.Get("Retry-After"))
}

// gate holds every batch in ConsumeLogs until it is opened, as a pipeline
// that blocks does.
type gate struct {
	entered chan struct{}
	open    chan struct{}
	sink    consumertest.LogsSink
}

func (g *gate) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }
func (g *gate) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.open
	return g.sink.ConsumeLogs(ctx, ld)
}

// TestConcurrencyBound: with every slot busy, a request waits
// max_request_wait and is then answered 429 with Retry-After; a sender
// that gives up while waiting frees nothing it did not take; GET /info is
// never held; a waiting request is served once a slot frees.
func TestConcurrencyBound(t *testing.T) {
	g := &gate{entered: make(chan struct{}, 1), open: make(chan struct{})}
	h := start(t, func(c *Config) {
		c.MaxConcurrentRequests = 1
		c.MaxRequestWait = 300 * time.Millisecond
		c.RetryAfterSeconds = 3
	}, nil, g)
	var opened sync.Once
	openGate := func() { opened.Do(func() { close(g.open) }) }
	t.Cleanup(openGate) // before the receiver's shutdown waits for held requests
	post := func(ctx context.Context) (int, string, http.Header, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"/api/v2/logs", strings.NewReader(logsBody))
		require.NoError(t, err)
		resp, err := h.client.Do(req)
		if err != nil {
			return 0, "", nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header, nil
	}
	type result struct {
		status int
		err    error
	}
	held := make(chan result, 1)
	go func() {
		status, _, _, err := post(context.Background())
		held <- result{status, err}
	}()
	<-g.entered // the only slot is taken

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, _, _, err := post(ctx)
	cancel()
	require.Error(t, err, "gave up while waiting")

	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second) // not forever if unbounded
	status, body, hdr, err := post(ctx)
	cancel()
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, status, body)
	assert.Equal(t, "3", hdr.Get("Retry-After"))
	assert.Contains(t, body, "max_concurrent_requests")
	// Both are counted: an HTTP/1.1 server sees a sender hang up only once
	// it reads the body, so the abandoned request also waited it out.
	require.Eventually(t, func() bool {
		m, err := h.tel.GetMetric("otelcol_receiver_datadog_throttled_requests")
		if err != nil {
			return false
		}
		dps := m.Data.(metricdata.Sum[int64]).DataPoints
		if len(dps) != 1 {
			return false
		}
		path, _ := dps[0].Attributes.Value("path")
		return dps[0].Value == 2 && path.AsString() == "/api/v2/logs"
	}, 5*time.Second, 10*time.Millisecond)

	infoStatus, _, _ := h.do(t, http.MethodGet, "/info", nil)
	assert.Equal(t, http.StatusOK, infoStatus, "GET /info is not held by busy slots")

	waiting := make(chan result, 1)
	go func() {
		status, _, _, err := post(context.Background())
		waiting <- result{status, err}
	}()
	time.Sleep(100 * time.Millisecond) // usually waiting by now; served either way
	openGate()
	for _, ch := range []chan result{held, waiting} {
		r := <-ch
		require.NoError(t, r.err)
		assert.Equal(t, http.StatusAccepted, r.status)
	}
	status, _, _, err = post(context.Background())
	require.NoError(t, err)
	assert.Equal(t, http.StatusAccepted, status, "no slot leaked")
	assert.Equal(t, 6, g.sink.LogRecordCount())
}

func TestAcceptedMetrics(t *testing.T) {
	h := start(t, nil, new(consumertest.TracesSink), new(consumertest.LogsSink))
	h.do(t, http.MethodPost, "/v0.4/traces", msgpackTraces(t, 4))
	h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody))
	assert.Equal(t, int64(4), sumMetric(t, h.tel, "otelcol_receiver_accepted_spans"))
	assert.Equal(t, int64(2), sumMetric(t, h.tel, "otelcol_receiver_accepted_log_records"))
}

func sumMetric(t *testing.T, tel *componenttest.Telemetry, name string) int64 {
	t.Helper()
	m, err := tel.GetMetric(name)
	require.NoError(t, err)
	var total int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		total += dp.Value
	}
	return total
}

func TestGateOff(t *testing.T) {
	_, err := NewFactory().CreateTraces(context.Background(), receivertest.NewNopSettings(metadata.Type),
		createDefaultConfig(), consumertest.NewNop())
	require.Error(t, err)
	assert.Contains(t, err.Error(), FeatureGateID)
	assert.Contains(t, err.Error(), EnableEnvVar)
}

func TestConfigValidate(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, cfg.Validate())
	assert.Equal(t, "localhost:8126", cfg.NetAddr.Endpoint)
	assert.GreaterOrEqual(t, cfg.MaxConcurrentRequests, 4)
	cfg.MaxRequestBodySize = -1
	cfg.RetryAfterSeconds = -2
	cfg.MaxConcurrentRequests = -1
	cfg.MaxRequestWait = -time.Second
	cfg.MaxDecodedSize = -1
	err := cfg.Validate()
	require.Error(t, err)
	for _, name := range []string{"max_request_body_size", "retry_after_seconds", "max_concurrent_requests", "max_request_wait", "max_decoded_size"} {
		assert.Contains(t, err.Error(), name)
	}
}

var _ receiver.Factory = NewFactory()

func TestReasonsAreOneBoundedLine(t *testing.T) {
	h := start(t, nil, nil, new(consumertest.LogsSink))
	body := "[{\"message\":\"a\"},\n" + strings.Repeat("{\"x\":\n", 2000)
	status, resp, _ := h.do(t, http.MethodPost, "/api/v2/logs", []byte(body))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, 1, strings.Count(resp, "\n"), resp)
	assert.LessOrEqual(t, len(resp), maxReason+8)
}

func TestTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeSelfSigned(t, dir)
	h := start(t, func(c *Config) {
		c.TLS = configoptional.Some(configtls.ServerConfig{Config: configtls.Config{CertFile: certFile, KeyFile: keyFile}})
	}, new(consumertest.TracesSink), nil)
	url := strings.Replace(h.url, "http://", "https://", 1)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed test cert
	defer client.CloseIdleConnections()
	resp, err := client.Post(url+"/v0.4/traces", "application/msgpack", bytes.NewReader(msgpackTraces(t, 2)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 2, h.traces.SpanCount())
	status, _, _ := h.do(t, http.MethodPost, "/v0.4/traces", msgpackTraces(t, 1))
	assert.Equal(t, http.StatusBadRequest, status, "plain HTTP on the TLS port")
	assert.Equal(t, 2, h.traces.SpanCount(), "nothing accepted over plain HTTP")
}

func writeSelfSigned(t *testing.T, dir string) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kb, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	return certFile, keyFile
}

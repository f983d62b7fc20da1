package ddtracego

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/DataDog/dd-trace-go/v2/ddtrace/tracer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// startReceiver runs the receiver on a free loopback port with a sink
// standing in for the rest of the pipeline.
func startReceiver(t *testing.T) (string, *consumertest.TracesSink) {
	t.Helper()
	require.NoError(t, featuregate.GlobalRegistry().Set(datadogreceiver.FeatureGateID, true))
	f := datadogreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*datadogreceiver.Config)
	addr := freeAddr(t)
	cfg.NetAddr.Endpoint = addr
	sink := new(consumertest.TracesSink)
	r, err := f.CreateTraces(context.Background(), receivertest.NewNopSettings(component.MustNewType("datadog")), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, r.Shutdown(context.Background())) })
	return addr, sink
}

func spansByID(sink *consumertest.TracesSink) map[string]ptrace.Span {
	out := map[string]ptrace.Span{}
	for _, td := range sink.AllTraces() {
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			for j := 0; j < rs.ScopeSpans().Len(); j++ {
				ss := rs.ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					out[ss.At(k).SpanID().String()] = ss.At(k)
				}
			}
		}
	}
	return out
}

func resourceOf(sink *consumertest.TracesSink, spanID string) map[string]any {
	for _, td := range sink.AllTraces() {
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			ss := rs.ScopeSpans().At(0).Spans()
			for k := 0; k < ss.Len(); k++ {
				if ss.At(k).SpanID().String() == spanID {
					return rs.Resource().Attributes().AsRaw()
				}
			}
		}
	}
	return nil
}

func hexID(v uint64) string { return fmt.Sprintf("%016x", v) }

// TestRealTracer runs the tracer with each trace protocol it speaks: 1.0,
// which it picks because /info advertises /v1.0/traces, and 0.4.
func TestRealTracer(t *testing.T) {
	for protocol, path := range map[string]string{"1.0": "/v1.0/traces", "0.4": "/v0.4/traces"} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			t.Setenv("DD_TRACE_AGENT_PROTOCOL_VERSION", protocol)
			paths := runTracer(t)
			assert.Contains(t, paths, path, "the tracer must have used %s", path)
			assert.Contains(t, paths, "/info")
		})
	}
}

// recordingProxy forwards to the receiver and records the paths called, so
// the test knows which endpoints the tracer really used.
func recordingProxy(t *testing.T, target string) (string, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: target})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}

func runTracer(t *testing.T) map[string]int {
	t.Helper()
	recv, sink := startReceiver(t)
	addr, paths := recordingProxy(t, recv)
	t.Setenv("DD_TRACE_STARTUP_LOGS", "false")
	t.Setenv("DD_INSTRUMENTATION_TELEMETRY_ENABLED", "true") // exercised: telemetry is accepted and dropped
	require.NoError(t, tracer.Start(
		tracer.WithAgentAddr(addr),
		tracer.WithService("checkout"),
		tracer.WithEnv("e2e"),
		tracer.WithServiceVersion("1.2.3"),
		tracer.WithLogStartup(false),
	))

	root := tracer.StartSpan("http.request", tracer.ResourceName("GET /cart"), tracer.SpanType("web"))
	root.SetTag("http.method", "GET")
	root.SetTag("cart.items", 3)
	child := root.StartChild("postgres.query", tracer.ResourceName("SELECT 1"),
		tracer.SpanType("sql"))
	child.AddEvent("retry", tracer.WithSpanEventAttributes(map[string]any{"attempt": 2}))
	child.AddLink(tracer.SpanLink{TraceID: 42, TraceIDHigh: 7, SpanID: 43, Attributes: map[string]string{"why": "batch"}})
	child.Finish(tracer.WithError(errors.New("deadlock detected")))
	root.Finish()
	tracer.Flush()
	tracer.Stop()

	require.Eventually(t, func() bool { return sink.SpanCount() >= 2 }, 20*time.Second, 50*time.Millisecond,
		"the tracer's spans never reached the pipeline")
	spans := spansByID(sink)
	rootID, childID := hexID(root.Context().SpanID()), hexID(child.Context().SpanID())
	r, ok := spans[rootID]
	require.True(t, ok, "root span %s missing", rootID)
	c, ok := spans[childID]
	require.True(t, ok, "child span %s missing", childID)

	// Full 128-bit ids, as the tracer generated them, on both spans.
	traceID := root.Context().TraceIDBytes()
	assert.Equal(t, hex.EncodeToString(traceID[:]), r.TraceID().String())
	assert.NotZero(t, root.Context().TraceIDUpper(), "dd-trace-go v2 generates 128-bit ids")
	assert.Equal(t, r.TraceID(), c.TraceID())
	assert.Equal(t, r.SpanID(), c.ParentSpanID())
	assert.True(t, r.ParentSpanID().IsEmpty())

	assert.Equal(t, "http.request", r.Name())
	assert.Equal(t, ptrace.SpanKindServer, r.Kind())
	ra := r.Attributes().AsRaw()
	assert.Equal(t, "GET /cart", ra["resource.name"])
	assert.Equal(t, "GET", ra["http.method"])
	assert.Equal(t, float64(3), ra["cart.items"], "numeric tags arrive as metrics, kept as numbers")
	for k := range ra {
		assert.NotContains(t, k, "_dd.", "internal key leaked")
	}

	assert.Equal(t, ptrace.SpanKindClient, c.Kind())
	assert.Equal(t, ptrace.StatusCodeError, c.Status().Code())
	assert.Equal(t, "deadlock detected", c.Status().Message())
	events := map[string]map[string]any{}
	for i := 0; i < c.Events().Len(); i++ {
		events[c.Events().At(i).Name()] = c.Events().At(i).Attributes().AsRaw()
	}
	require.Contains(t, events, "exception")
	assert.Equal(t, "deadlock detected", events["exception"]["exception.message"])
	assert.Equal(t, "*errors.errorString", events["exception"]["exception.type"])
	assert.NotEmpty(t, events["exception"]["exception.stacktrace"])
	require.Contains(t, events, "retry")
	require.Equal(t, 1, c.Links().Len())
	assert.Equal(t, "0000000000000007000000000000002a", c.Links().At(0).TraceID().String())
	assert.Equal(t, "batch", c.Links().At(0).Attributes().AsRaw()["why"])

	res := resourceOf(sink, rootID)
	assert.Equal(t, "checkout", res["service.name"])
	assert.Equal(t, "e2e", res["deployment.environment.name"])
	assert.Equal(t, "1.2.3", res["service.version"])
	assert.Equal(t, "go", res["telemetry.sdk.language"])
	assert.Equal(t, "datadog", res["telemetry.sdk.name"])
	assert.NotEmpty(t, res["telemetry.sdk.version"])
	return paths()
}

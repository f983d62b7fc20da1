package ddtracego

import (
	"context"
	"testing"
	"time"

	"github.com/DataDog/dd-trace-go/v2/ddtrace/tracer"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

// hits sums datadog.trace.hits for one resource across what was received.
func hits(all []pmetric.Metrics, resource string) float64 {
	var total float64
	for _, md := range all {
		for i := 0; i < md.ResourceMetrics().Len(); i++ {
			ms := md.ResourceMetrics().At(i).ScopeMetrics().At(0).Metrics()
			for j := 0; j < ms.Len(); j++ {
				if ms.At(j).Name() != "datadog.trace.hits" {
					continue
				}
				dps := ms.At(j).Sum().DataPoints()
				for k := 0; k < dps.Len(); k++ {
					if r, _ := dps.At(k).Attributes().Get("resource.name"); r.Str() == resource {
						total += dps.At(k).DoubleValue()
					}
				}
			}
		}
	}
	return total
}

// TestClientStatsHitsMatchTheTracer: with client-side stats on, the tracer
// posts /v0.6/stats; the hit count a user charts must be the span count.
func TestClientStatsHitsMatchTheTracer(t *testing.T) {
	require.NoError(t, featuregate.GlobalRegistry().Set(datadogreceiver.FeatureGateID, true))
	f := datadogreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*datadogreceiver.Config)
	recv := freeAddr(t)
	cfg.NetAddr.Endpoint = recv
	set := receivertest.NewNopSettings(component.MustNewType("datadog"))
	spans, metrics := new(consumertest.TracesSink), new(consumertest.MetricsSink)
	tr, err := f.CreateTraces(context.Background(), set, cfg, spans)
	require.NoError(t, err)
	mr, err := f.CreateMetrics(context.Background(), set, cfg, metrics)
	require.NoError(t, err)
	for _, c := range []component.Component{tr, mr} {
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
		t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
	}

	addr, paths := recordingProxy(t, recv)
	t.Setenv("DD_TRACE_STARTUP_LOGS", "false")
	require.NoError(t, tracer.Start(tracer.WithAgentAddr(addr), tracer.WithService("stats-svc"), tracer.WithEnv("e2e"),
		tracer.WithStatsComputation(true), tracer.WithLogStartup(false)))
	const n = 7
	for i := 0; i < n; i++ {
		s := tracer.StartSpan("web.request", tracer.ResourceName("GET /stats"), tracer.SpanType("web"))
		s.Finish()
	}
	tracer.Flush()
	tracer.Stop() // flushes the stats concentrator

	require.Eventually(t, func() bool { return hits(metrics.AllMetrics(), "GET /stats") >= n }, 20*time.Second, 50*time.Millisecond,
		"the tracer's stats never reached the pipeline (hits so far: %v)", hits(metrics.AllMetrics(), "GET /stats"))
	require.Equal(t, float64(n), hits(metrics.AllMetrics(), "GET /stats"), "hits = spans the tracer made")
	require.Contains(t, paths(), "/v0.6/stats")
}

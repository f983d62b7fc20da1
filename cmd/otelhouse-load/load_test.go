package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

// decoded is a payload's body after its Content-Encoding.
func decoded(t *testing.T, p payload) []byte {
	t.Helper()
	var r io.Reader = bytes.NewReader(p.Body)
	var err error
	switch p.Header.Get("Content-Encoding") {
	case "gzip":
		r, err = gzip.NewReader(r)
	case "deflate":
		r, err = zlib.NewReader(r)
	case "zstd":
		var d *zstd.Decoder
		d, err = zstd.NewReader(r)
		r = d
	}
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Len(t, b, p.RawSize)
	return b
}

// Every kind decodes with the decoder its receiver uses, holding the
// items it claims.
func TestPayloadsDecode(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			for _, p := range k.make(newGen(7), 2) {
				raw := decoded(t, p)
				n := 0
				switch k.name {
				case "traces_v04":
					var tr pb.Traces
					_, err := tr.UnmarshalMsg(raw)
					require.NoError(t, err)
					n = spanCount(tr)
				case "traces_v05":
					var tr pb.Traces
					require.NoError(t, tr.UnmarshalMsgDictionary(raw))
					n = spanCount(tr)
				case "traces_v02_gzip":
					var ap pb.AgentPayload
					require.NoError(t, ap.UnmarshalVT(raw))
					for _, tp := range ap.TracerPayloads {
						for _, c := range tp.Chunks {
							n += len(c.Spans)
						}
					}
				case "series_v2_zstd", "series_v2_deflate":
					var mp gogen.MetricPayload
					require.NoError(t, mp.Unmarshal(raw))
					for _, s := range mp.Series {
						n += len(s.Points)
					}
				case "series_v1_gzip":
					var v struct {
						Series []struct{ Points [][2]float64 }
					}
					require.NoError(t, json.Unmarshal(raw, &v))
					for _, s := range v.Series {
						n += len(s.Points)
					}
				case "logs_zstd", "logs_gzip":
					var v []map[string]any
					require.NoError(t, json.Unmarshal(raw, &v))
					n = len(v)
				case "otlp_traces":
					req := ptraceotlp.NewExportRequest()
					require.NoError(t, req.UnmarshalProto(raw))
					n = req.Traces().SpanCount()
				case "otlp_logs":
					req := plogotlp.NewExportRequest()
					require.NoError(t, req.UnmarshalProto(raw))
					n = req.Logs().LogRecordCount()
				default:
					t.Fatalf("no decoder for %s", k.name)
				}
				assert.Equal(t, p.Items, n)
				assert.Positive(t, n)
			}
		})
	}
}

// v0.5 has no encoder in Datadog's libraries: what this one writes must
// decode to the spans it was given.
func TestV05RoundTrip(t *testing.T) {
	in := newGen(3).traces(5)
	var out pb.Traces
	require.NoError(t, out.UnmarshalMsgDictionary(tracesV05(in).Body))
	require.Len(t, out, len(in))
	for i := range in {
		require.Len(t, out[i], len(in[i]))
		for j, s := range in[i] {
			o := out[i][j]
			assert.Equal(t, []any{s.Service, s.Name, s.Resource, s.Type, s.TraceID, s.SpanID, s.ParentID, s.Start, s.Duration, s.Error, s.Meta, s.Metrics},
				[]any{o.Service, o.Name, o.Resource, o.Type, o.TraceID, o.SpanID, o.ParentID, o.Start, o.Duration, o.Error, o.Meta, o.Metrics})
		}
	}
}

// The traces nest as a service's do: every span but the root under a
// span of its trace and inside its time, a parent's calls one after
// another, and some calls two levels down (another service's server span
// under a gRPC client span, its queries under it); about ten spans each.
func TestTracesNest(t *testing.T) {
	in := newGen(5).traces(200)
	deep, spans := 0, 0
	for _, tr := range in {
		spans += len(tr)
		byID := map[uint64]*pb.Span{}
		for _, s := range tr {
			byID[s.SpanID] = s
		}
		require.Zero(t, tr[0].ParentID, "the root comes first")
		last := map[uint64]int64{}
		for _, s := range tr[1:] {
			p := byID[s.ParentID]
			require.NotNil(t, p, "%s has its parent in the trace", s.Name)
			assert.GreaterOrEqual(t, s.Start, p.Start, "%s starts inside %s", s.Name, p.Name)
			assert.LessOrEqual(t, s.Start+s.Duration, p.Start+p.Duration, "%s ends inside %s", s.Name, p.Name)
			assert.Greater(t, s.Start, last[p.SpanID], "%s starts after its sibling before it ended", s.Name)
			last[p.SpanID] = s.Start + s.Duration
			if byID[p.ParentID] != nil {
				deep++
			}
		}
	}
	assert.Positive(t, deep, "some spans two levels or more under the root")
	assert.InDelta(t, 10, float64(spans)/float64(len(in)), 2, "about ten spans a trace")
}

// A corpus written by gen is sent as generated.
func TestGenWritesWhatRunReads(t *testing.T) {
	dir := t.TempDir()
	k, _ := kindNamed("logs_zstd")
	pls := k.make(newGen(1), 3)
	require.NoError(t, writeKind(dir, k, pls))
	got, err := readKind(dir, k.name)
	require.NoError(t, err)
	assert.Equal(t, pls, got)
}

// The tool against the project's own Datadog receiver on loopback: every
// Datadog kind for a moment, and what the receiver passed on is what the
// tool counted as accepted.
func TestRunAgainstTheReceiver(t *testing.T) {
	require.NoError(t, featuregate.GlobalRegistry().Set(datadogreceiver.FeatureGateID, true))
	t.Cleanup(func() { _ = featuregate.GlobalRegistry().Set(datadogreceiver.FeatureGateID, false) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	f := datadogreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*datadogreceiver.Config)
	cfg.NetAddr.Endpoint = addr
	set := receivertest.NewNopSettings(f.Type())
	traces, logs, metrics := new(consumertest.TracesSink), new(consumertest.LogsSink), new(consumertest.MetricsSink)
	// The signals share one server: every one is made before it starts.
	tr, err := f.CreateTraces(context.Background(), set, cfg, traces)
	require.NoError(t, err)
	lr, err := f.CreateLogs(context.Background(), set, cfg, logs)
	require.NoError(t, err)
	mr, err := f.CreateMetrics(context.Background(), set, cfg, metrics)
	require.NoError(t, err)
	for _, c := range []component.Component{tr, lr, mr} {
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
		t.Cleanup(func() { assert.NoError(t, c.Shutdown(context.Background())) })
	}

	sent := map[string]int{}
	for _, k := range kinds {
		if k.name == "otlp_traces" || k.name == "otlp_logs" {
			continue // the OTLP receiver's, not this one's
		}
		ld := &load{
			target: "http://" + addr, payloads: k.make(newGen(1), 4), duration: 150 * time.Millisecond,
			concurrency: 2, timeout: 5 * time.Second, maxWait: time.Second,
		}
		st, err := ld.run(context.Background())
		require.NoError(t, err)
		assert.Positive(t, st.ok, k.name)
		assert.Zero(t, st.failed+st.netErrors, "%s: %s", k.name, st.firstErr)
		assert.Len(t, st.latencies, st.requests)
		sent[k.unit] += st.items
	}
	// No warm-up here, and requests in flight at the end finish: every
	// item the receiver passed on was counted.
	assert.Eventually(t, func() bool {
		return traces.SpanCount() == sent["span"] && logs.LogRecordCount() == sent["log"] && metrics.DataPointCount() == sent["point"]
	}, 5*time.Second, 20*time.Millisecond, "spans %d/%d logs %d/%d points %d/%d",
		traces.SpanCount(), sent["span"], logs.LogRecordCount(), sent["log"], metrics.DataPointCount(), sent["point"])
}

// A 429 or 503 is waited out as its Retry-After says and the payload
// sent again; it is a refusal, not a failure.
func TestRefusalsHonourRetryAfter(t *testing.T) {
	var (
		mu    sync.Mutex
		times []time.Time
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		times = append(times, time.Now())
		n := len(times)
		mu.Unlock()
		switch n {
		case 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable) // no Retry-After: a second
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	k, _ := kindNamed("logs_gzip")
	ld := &load{
		target: srv.URL, payloads: k.make(newGen(1), 1), duration: 2500 * time.Millisecond, concurrency: 1,
		timeout: time.Second, maxWait: 5 * time.Second,
	}
	st, err := ld.run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, st.refused)
	assert.Zero(t, st.failed)
	assert.Equal(t, map[int]int{429: 1, 503: 1, 202: st.ok}, st.codes)
	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, len(times), 3)
	assert.GreaterOrEqual(t, times[1].Sub(times[0]), time.Second)
	assert.GreaterOrEqual(t, times[2].Sub(times[1]), time.Second)
}

func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"3", 3 * time.Second},
		{"0", 0},
		{"", time.Second},
		{"soon", time.Second},
	} {
		t.Run(tc.in, func(t *testing.T) { assert.Equal(t, tc.want, retryAfter(tc.in)) })
	}
}

// --rate holds the request rate, and says how many it could not send
// while every connection waited on the target.
func TestRate(t *testing.T) {
	var slow atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if slow.Load() {
			time.Sleep(300 * time.Millisecond)
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	k, _ := kindNamed("series_v1_gzip")
	ld := &load{
		target: srv.URL, payloads: k.make(newGen(1), 2), duration: time.Second, concurrency: 2, rate: 40,
		timeout: 5 * time.Second, maxWait: time.Second,
	}
	st, err := ld.run(context.Background())
	require.NoError(t, err)
	assert.InDelta(t, 40, st.requests, 12, "about the rate, not as fast as answered")
	assert.Zero(t, st.behind)

	slow.Store(true)
	ld.concurrency = 1
	st, err = ld.run(context.Background())
	require.NoError(t, err)
	assert.LessOrEqual(t, st.requests, 5)
	assert.Positive(t, st.behind, "the rate the target could not take is said")
}

package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/mutate"
)

// viaDatadog is the reference: Datadog's own decoder, then ToTraces.
func viaDatadog(t testing.TB, body []byte) (ptrace.Traces, error) {
	t.Helper()
	tp, err := DecodeTracer("v0.4", "application/msgpack", body, goTracer, nil)
	if err != nil {
		return ptrace.Traces{}, err
	}
	return ToTraces([]*pb.TracerPayload{tp}, Agent{}, nil)
}

func assertSame(t testing.TB, body []byte) {
	t.Helper()
	want, errWant := viaDatadog(t, body)
	got, errGot := TranslateTracer("v0.4", "application/msgpack", body, goTracer, nil)
	if errWant != nil {
		// The hand path may accept a little more (float32 metrics), never less.
		return
	}
	require.NoError(t, errGot)
	err := ptracetest.CompareTraces(want, got, ptracetest.IgnoreResourceSpansOrder(), ptracetest.IgnoreSpansOrder())
	if err != nil && hasNaN(want) {
		return // NaN never equals itself; both sides carry it
	}
	require.NoError(t, err)
}

func hasNaN(td ptrace.Traces) bool {
	b, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	return bytes.Contains(b, []byte("NaN"))
}

func TestMsgpackPathMatchesDatadogDecoder(t *testing.T) {
	body, err := fixture().MarshalMsg(nil)
	require.NoError(t, err)
	assertSame(t, body)

	bench, _ := benchTraces().MarshalMsg(nil)
	assertSame(t, bench)

	// Shrunk integers, nil strings and bin-typed strings, as some tracers send.
	var b []byte
	b = msgp.AppendArrayHeader(b, 1)
	b = msgp.AppendArrayHeader(b, 2)
	b = msgp.AppendMapHeader(b, 8)
	b = msgp.AppendString(b, "service")
	b = msgp.AppendBytes(b, []byte("bin-svc"))
	b = msgp.AppendString(b, "name")
	b = msgp.AppendNil(b)
	b = msgp.AppendString(b, "trace_id")
	b = msgp.AppendInt8(b, 5)
	b = msgp.AppendString(b, "span_id")
	b = msgp.AppendUint16(b, 6)
	b = msgp.AppendString(b, "start")
	b = msgp.AppendUint64(b, 1_700_000_000_000_000_000)
	b = msgp.AppendString(b, "duration")
	b = msgp.AppendInt32(b, 10)
	b = msgp.AppendString(b, "metrics")
	b = msgp.AppendMapHeader(b, 2)
	b = msgp.AppendString(b, "int.metric")
	b = msgp.AppendInt(b, 3)
	b = msgp.AppendString(b, "_sampling_priority_v1")
	b = msgp.AppendUint8(b, 2)
	b = msgp.AppendString(b, "meta_struct")
	b = msgp.AppendMapHeader(b, 1)
	b = msgp.AppendString(b, "appsec")
	b = msgp.AppendBytes(b, []byte{0x80})
	b = msgp.AppendNil(b) // a nil span
	assertSame(t, b)
	got, err := TranslateTracer("v0.4", "", b, goTracer, nil)
	require.NoError(t, err)
	require.Equal(t, 1, got.SpanCount())
	s := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	assert.Equal(t, int64(2), s.Attributes().AsRaw()["sampling.priority"])
	assert.Equal(t, float64(3), s.Attributes().AsRaw()["int.metric"])
}

func TestMsgpackPathRejects(t *testing.T) {
	for name, body := range map[string][]byte{
		"truncated":         {0x91, 0x91, 0x8c},
		"claims 4G spans":   {0x91, 0xdd, 0xff, 0xff, 0xff, 0xff},
		"meta value is int": append([]byte{0x91, 0x91, 0x81, 0xa4, 'm', 'e', 't', 'a', 0x81, 0xa1, 'k'}, 0x01),
		"not an array":      []byte("hello"),
	} {
		_, err := TranslateTracer("v0.4", "application/msgpack", body, Tracer{}, nil)
		assert.Error(t, err, name)
	}
}

// TestMsgpackPathMatchesOnMutations holds the hand path to Datadog's
// decoder on corrupted, truncated payloads (fixed seed, fixed count).
func TestMsgpackPathMatchesOnMutations(t *testing.T) {
	body, err := fixture().MarshalMsg(nil)
	require.NoError(t, err)
	mutate.Each(body, 1, func(b []byte) { assertSame(t, b) })
}

func FuzzMsgpackPath(f *testing.F) {
	body, _ := fixture().MarshalMsg(nil)
	f.Add(body)
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) == 0 {
			return
		}
		assertSame(t, body)
	})
}

func BenchmarkV04MsgpackDirect(b *testing.B) {
	body, _ := benchTraces().MarshalMsg(nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TranslateTracer("v0.4", "application/msgpack", body, goTracer, budget.New(256<<20)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500), "ns/span")
}

// TestWideSpansAreLinear: a span with 100,000 tags keeps them all, by the
// msgpack path and the decoded-payload path alike (pdata's own puts are
// quadratic: this took minutes).
func TestWideSpansAreLinear(t *testing.T) {
	meta := map[string]string{}
	metrics := map[string]float64{}
	for i := 0; i < 100000; i++ {
		meta[fmt.Sprint("tag.", i)] = "v"
		metrics[fmt.Sprint("num.", i%1000)] = float64(i)
	}
	traces := pb.Traces{{&pb.Span{Service: "s", Name: "n", TraceID: 1, SpanID: 1, Meta: meta, Metrics: metrics}}}
	body, err := traces.MarshalMsg(nil)
	require.NoError(t, err)
	for _, ct := range []string{"application/msgpack", "application/json"} {
		in := body
		if ct == "application/json" {
			in, err = json.Marshal(traces)
			require.NoError(t, err)
		}
		td, err := TranslateTracer("v0.4", ct, in, Tracer{}, nil)
		require.NoError(t, err, ct)
		attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
		assert.Equal(t, 100000+1000, attrs.Len(), ct)
		v, ok := attrs.Get("tag.99999")
		require.True(t, ok, ct)
		assert.Equal(t, "v", v.Str())
		n, _ := attrs.Get("num.7")
		assert.Equal(t, float64(99007), n.Double(), ct)
	}
}

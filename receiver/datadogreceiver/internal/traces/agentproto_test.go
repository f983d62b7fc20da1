package traces

import (
	"math"
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/mutate"
)

// agentReference is the path TranslateAgent is held to: Datadog's
// generated decoder, then AgentToTraces.
func agentReference(body []byte) (ptrace.Traces, error) {
	ap, err := DecodeAgent(body, nil)
	if err != nil {
		return ptrace.Traces{}, err
	}
	return AgentToTraces(ap, nil)
}

// assertSameAgent: the direct path accepts what the reference accepts,
// and only that, and translates it to the same spans, in the same order.
func assertSameAgent(t testing.TB, body []byte) {
	t.Helper()
	want, errWant := agentReference(body)
	got, errGot := TranslateAgent(body, budget.New(1<<30)) // counting, never over
	if errWant != nil {
		require.Error(t, errGot, "the reference refused it: %v", errWant)
		return
	}
	require.NoError(t, errGot)
	err := ptracetest.CompareTraces(want, got)
	if err != nil && hasNaN(want) {
		return // NaN never equals itself; both sides carry it
	}
	require.NoError(t, err)
}

// agentFixture is two tracer payloads behind one Agent: the fixture's
// traces with the Agent's host and env filling in, and a payload that
// carries its own env, app version, host and container tags.
func agentFixture(t testing.TB) []byte {
	t.Helper()
	first := &pb.TracerPayload{LanguageName: "java", TracerVersion: "1.40.0", ContainerID: "abc"}
	for _, tr := range fixture() {
		first.Chunks = append(first.Chunks, &pb.TraceChunk{
			Priority: 2, Origin: "lambda", Spans: tr,
			Tags: map[string]string{"_dd.p.dm": "-4"},
		})
	}
	for _, s := range first.Chunks[0].Spans {
		delete(s.Meta, "_dd.hostname")
	}
	second := &pb.TracerPayload{
		LanguageName: "python", LanguageVersion: "3.12", TracerVersion: "2.9.0", RuntimeID: "rt-1",
		Env: "qa", AppVersion: "9", Hostname: "py-host",
		Tags: map[string]string{"_dd.tags.container": "kube_namespace:shop,pod_name:p-1", "_dd.tags.process": "entrypoint.name:app"},
		Chunks: []*pb.TraceChunk{{Spans: []*pb.Span{
			{
				Service: "api", Name: "flask.request", TraceID: 9, SpanID: 90, Start: t0, Duration: 10,
				Meta: map[string]string{
					"_dd.p.tid": "00000000000000ff", "long": string(make([]byte, 100)),
					"env": "span-env", "version": "span-version",
				},
				Metrics:    map[string]float64{"_sampling_priority_v1": 2, "size": 1.5},
				MetaStruct: map[string][]byte{"appsec": {1, 2, 3}},
			},
			{
				Service: "api", Name: "child", TraceID: 9, SpanID: 91, ParentID: 90, Start: t0 + 1, Duration: 5,
				Meta: map[string]string{"otel.trace_id": "ZZf7651916cd43dd8448eb211c80319c"},
			},
		}}},
		ContainerDebug: &pb.ContainerDebug{Error: "none"},
	}
	ap := &pb.AgentPayload{
		HostName: "agent-host", Env: "agent-env", AgentVersion: "7.60.0", TargetTPS: 10,
		ErrorTPS: 1, RareSamplerEnabled: true, Tags: map[string]string{"k": "v"},
		TracerPayloads: []*pb.TracerPayload{first, second},
	}
	body, err := ap.MarshalVT()
	require.NoError(t, err)
	return body
}

func TestAgentPathMatchesDatadogDecoder(t *testing.T) {
	assertSameAgent(t, agentFixture(t))

	assertSameAgent(t, benchAgentPayload())

	// The Agent's own fields after its tracer payloads, a span's fields in
	// reverse order, a duplicate meta key (the last wins) and a metric
	// that shadows a meta key: encoders may order fields as they like.
	span := protowire.AppendTag(nil, 11, protowire.BytesType)
	span = protowire.AppendBytes(span, entry("db.rows", 0, 3.5))
	for _, kv := range [][2]string{{"db.rows", "meta"}, {"env", "a"}, {"env", "b"}} {
		span = protowire.AppendTag(span, 10, protowire.BytesType)
		span = protowire.AppendBytes(span, entry(kv[0], 1, kv[1]))
	}
	span = protowire.AppendTag(span, 5, protowire.VarintType)
	span = protowire.AppendVarint(span, 7)
	span = protowire.AppendTag(span, 1, protowire.BytesType)
	span = protowire.AppendString(span, "svc")
	chunk := protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), span)
	tracer := protowire.AppendBytes(protowire.AppendTag(nil, 6, protowire.BytesType), chunk)
	tracer = protowire.AppendTag(tracer, 9, protowire.BytesType)
	tracer = protowire.AppendString(tracer, "tracer-host")
	body := protowire.AppendBytes(protowire.AppendTag(nil, 5, protowire.BytesType), tracer)
	body = protowire.AppendTag(body, 2, protowire.BytesType)
	body = protowire.AppendString(body, "late-env")
	assertSameAgent(t, body)
	td, err := TranslateAgent(body, nil)
	require.NoError(t, err)
	rs := td.ResourceSpans().At(0)
	env, _ := rs.Resource().Attributes().Get("deployment.environment.name")
	assert.Equal(t, "b", env.Str(), "the last env of the span wins")
	v, _ := rs.ScopeSpans().At(0).Spans().At(0).Attributes().Get("db.rows")
	assert.Equal(t, 3.5, v.Double(), "metrics are put after meta, as ToTraces does")
}

// entry is a map entry: key, then a string (kind 1) or double (kind 0).
func entry(key string, kind int, value any) []byte {
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendString(b, key)
	if kind == 1 {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		return protowire.AppendString(b, value.(string))
	}
	b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(value.(float64)))
}

// TestAgentPathTakesV1Payloads: a payload with v1.0 (idx) tracer payloads
// takes the reference path, and translates as it does.
func TestAgentPathTakesV1Payloads(t *testing.T) {
	body := agentWithV1(t)
	want, err := agentReference(body)
	require.NoError(t, err)
	got, err := TranslateAgent(body, nil)
	require.NoError(t, err)
	require.NoError(t, ptracetest.CompareTraces(want, got))
	assert.Positive(t, got.SpanCount())
}

func TestAgentPathRejects(t *testing.T) {
	for name, body := range map[string][]byte{
		"empty":              {},
		"truncated":          agentFixture(t)[:40],
		"wrong wire type":    {0x2d, 0, 0, 0, 0}, // field 5 as fixed32
		"field zero":         {0x02, 0x00},
		"length past end":    {0x2a, 0x7f, 0x01},
		"end group":          {0x2c},
		"overlong varint":    {0x50, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"bad span in chunk":  {0x2a, 0x05, 0x32, 0x03, 0x1a, 0x01, 0x25},
		"bad link in a span": append([]byte{0x2a, 0x08, 0x32, 0x06, 0x1a, 0x04, 0x72, 0x02}, 0x08, 0x80),
	} {
		_, errWant := agentReference(body)
		_, err := TranslateAgent(body, nil)
		require.Error(t, errWant, "reference: %s", name)
		assert.Error(t, err, name)
	}
}

// TestAgentPathMatchesOnMutations holds the direct path to Datadog's
// decoder on corrupted, truncated payloads (fixed seed, fixed count).
func TestAgentPathMatchesOnMutations(t *testing.T) {
	mutate.Each(agentFixture(t), 3, func(b []byte) { assertSameAgent(t, b) })
}

// TestAgentPathStaysInBudget: what the direct path builds is counted, so
// a budget too small for the payload refuses it.
func TestAgentPathStaysInBudget(t *testing.T) {
	_, err := TranslateAgent(agentFixture(t), budget.New(2000))
	var over *budget.ExceededError
	require.ErrorAs(t, err, &over)
	_, err = TranslateAgent(agentFixture(t), budget.New(1<<20))
	require.NoError(t, err)
}

func FuzzAgentPath(f *testing.F) {
	f.Add(agentFixture(f))
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) == 0 {
			return
		}
		assertSameAgent(t, body)
	})
}

func BenchmarkAgentPayloadDirect(b *testing.B) {
	body := benchAgentPayload()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TranslateAgent(body, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500), "ns/span")
}

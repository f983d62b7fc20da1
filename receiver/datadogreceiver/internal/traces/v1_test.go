package traces

import (
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace/idx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func attrs(st *idx.StringTable, kv map[string]any) map[uint32]*idx.AnyValue {
	out := map[uint32]*idx.AnyValue{}
	for k, v := range kv {
		var av idx.AnyValue
		switch x := v.(type) {
		case string:
			av.Value = &idx.AnyValue_StringValueRef{StringValueRef: st.Add(x)}
		case float64:
			av.Value = &idx.AnyValue_DoubleValue{DoubleValue: x}
		case int64:
			av.Value = &idx.AnyValue_IntValue{IntValue: x}
		case bool:
			av.Value = &idx.AnyValue_BoolValue{BoolValue: x}
		}
		out[st.Add(k)] = &av
	}
	return out
}

var v1TraceID = []byte{0x64, 0x0c, 0xfd, 0x8d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0x57}

// v1Fixture is the web request + DB call of fixture() in the v1.0 layout,
// encoded with Datadog's own encoder.
func v1Fixture(t testing.TB) []byte {
	t.Helper()
	st := idx.NewStringTable()
	root := idx.NewInternalSpan(st, &idx.Span{
		ServiceRef: st.Add("checkout"), NameRef: st.Add("http.request"), ResourceRef: st.Add("GET /cart"),
		TypeRef: st.Add("web"), SpanID: 1, Start: uint64(t0), Duration: 5_000_000,
		EnvRef: st.Add("prod"), VersionRef: st.Add("1.2.3"), ComponentRef: st.Add("net/http"),
		Kind: idx.SpanKind_SPAN_KIND_SERVER,
		Attributes: attrs(st, map[string]any{
			"http.method": "GET", "http.status_code": "200", "_dd.p.dm": "-1",
			"process_id": 42.0, "retries": int64(2), "cached": true, "_sampling_priority_v1": 1.0,
		}),
	})
	child := idx.NewInternalSpan(st, &idx.Span{
		ServiceRef: st.Add("checkout-db"), NameRef: st.Add("postgres.query"), ResourceRef: st.Add("SELECT 1"),
		TypeRef: st.Add("sql"), SpanID: 2, ParentID: 1, Start: uint64(t0 + 1_000_000), Duration: 2_000_000,
		EnvRef: st.Add("prod"), Error: true,
		Attributes: attrs(st, map[string]any{"error.message": "deadlock", "error.type": "PgError", "error.stack": "db.go:1"}),
		Links: []*idx.SpanLink{{
			TraceID: v1TraceID, SpanID: 9, TracestateRef: st.Add("dd=s:1"), Flags: 1<<31 | 1,
			Attributes: attrs(st, map[string]any{"why": "retry"}),
		}},
		Events: []*idx.SpanEvent{{Time: uint64(t0 + 5), NameRef: st.Add("cache.miss"), Attributes: attrs(st, map[string]any{"hits": int64(0)})}},
	})
	chunk := idx.NewInternalTraceChunk(st, 1, "", nil, []*idx.InternalSpan{root, child}, false, v1TraceID, 0)
	tp := &idx.InternalTracerPayload{Strings: st, Chunks: []*idx.InternalTraceChunk{chunk}}
	tp.SetHostname("web-1")
	tp.SetLanguageName("go")
	tp.SetTracerVersion("v2.12.0")
	body, err := tp.MarshalMsg(nil)
	require.NoError(t, err)
	return body
}

func TestV1Golden(t *testing.T) {
	td, err := TranslateTracer("v1.0", "application/msgpack", v1Fixture(t), Tracer{LangVersion: "1.26"}, nil)
	require.NoError(t, err)
	checkGolden(t, "v10", td)

	spans := spansByID(td)
	root, child := spans[1], spans[2]
	assert.Equal(t, "640cfd8d000000000000000000000457", root.TraceID().String(), "full id from the chunk")
	assert.Equal(t, root.TraceID(), child.TraceID())
	assert.Equal(t, root.SpanID(), child.ParentSpanID())
	assert.Equal(t, ptrace.SpanKindServer, root.Kind(), "kind field")
	assert.Equal(t, ptrace.SpanKindClient, child.Kind(), "from type sql")
	ra := root.Attributes().AsRaw()
	assert.Equal(t, int64(2), ra["retries"], "typed attributes keep their type")
	assert.Equal(t, true, ra["cached"])
	assert.Equal(t, float64(42), ra["process_id"])
	assert.Equal(t, int64(1), ra["sampling.priority"])
	assert.Equal(t, "net/http", ra["component"])
	assert.NotContains(t, ra, "_dd.p.dm")
	assert.Equal(t, ptrace.StatusCodeError, child.Status().Code())
	assert.Equal(t, "deadlock", child.Status().Message())
	assert.Equal(t, uint32(1), child.Links().At(0).Flags())
}

// agentWithV1 is an AgentPayload with a classic and a v1.0 tracer payload.
func agentWithV1(t testing.TB) []byte {
	t.Helper()
	var tp idx.InternalTracerPayload
	_, err := tp.UnmarshalMsg(v1Fixture(t))
	require.NoError(t, err)
	ap := &pb.AgentPayload{
		HostName: "agent-host", Env: "agent-env",
		TracerPayloads:    []*pb.TracerPayload{{Chunks: []*pb.TraceChunk{{Spans: []*pb.Span{{Service: "legacy", TraceID: 5, SpanID: 5}}}}}},
		IdxTracerPayloads: []*idx.TracerPayload{tp.ToProto()},
	}
	body, err := ap.MarshalVT()
	require.NoError(t, err)
	return body
}

func TestAgentPayloadWithV1(t *testing.T) {
	got, err := DecodeAgent(agentWithV1(t), nil)
	require.NoError(t, err)
	td, err := AgentToTraces(got, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, td.SpanCount(), "classic and v1.0 payloads both translated")
	assert.Equal(t, "640cfd8d000000000000000000000457", spansByID(td)[1].TraceID().String())
}

func TestV1Malformed(t *testing.T) {
	for _, body := range [][]byte{{0x91}, []byte("junk"), {0x85, 0x01}} {
		_, err := TranslateTracer("v1.0", "application/msgpack", body, Tracer{}, nil)
		require.Error(t, err)
	}
	td, err := TranslateTracer("v1.0", "application/msgpack", nil, Tracer{}, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, td.SpanCount())
}

// TestV1RefsAreChecked: a v1.0 payload inside an AgentPayload whose string
// references run past its table is refused; idx.FromProto would have
// panicked on the first one read.
func TestV1RefsAreChecked(t *testing.T) {
	good := func() *idx.TracerPayload {
		return &idx.TracerPayload{Strings: []string{"", "svc", "k"}, LanguageNameRef: 1, Chunks: []*idx.TraceChunk{{
			Spans: []*idx.Span{{ServiceRef: 1, NameRef: 1, Attributes: map[uint32]*idx.AnyValue{
				2: {Value: &idx.AnyValue_KeyValueList{KeyValueList: &idx.KeyValueList{KeyValues: []*idx.KeyValue{
					{Key: 2, Value: &idx.AnyValue{Value: &idx.AnyValue_StringValueRef{StringValueRef: 1}}},
				}}}},
			}}},
		}}}
	}
	for name, spoil := range map[string]func(*idx.TracerPayload){
		"none":          func(*idx.TracerPayload) {},
		"payload field": func(p *idx.TracerPayload) { p.LanguageNameRef = 3 },
		"empty table":   func(p *idx.TracerPayload) { p.Strings = nil },
		"span field":    func(p *idx.TracerPayload) { p.Chunks[0].Spans[0].NameRef = 9 },
		"attribute key": func(p *idx.TracerPayload) { p.Chunks[0].Spans[0].Attributes[7] = &idx.AnyValue{} },
		"nested key":    func(p *idx.TracerPayload) { p.Chunks[0].Spans[0].Attributes[2].GetKeyValueList().KeyValues[0].Key = 5 },
		"nested string value": func(p *idx.TracerPayload) {
			p.Chunks[0].Spans[0].Attributes[2].GetKeyValueList().KeyValues[0].Value = &idx.AnyValue{Value: &idx.AnyValue_StringValueRef{StringValueRef: 3}}
		},
	} {
		p := good()
		spoil(p)
		body, err := (&pb.AgentPayload{IdxTracerPayloads: []*idx.TracerPayload{p}}).MarshalVT()
		require.NoError(t, err)
		td, err := TranslateAgent(body, nil)
		if name == "none" {
			require.NoError(t, err)
			assert.Equal(t, 1, td.SpanCount())
			continue
		}
		assert.ErrorContains(t, err, "refers to string", name)
	}
}

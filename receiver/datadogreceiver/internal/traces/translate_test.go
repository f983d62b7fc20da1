package traces

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var goTracer = Tracer{Lang: "go", LangVersion: "go1.26.8", TracerVersion: "v2.12.0", ContainerID: "c0ffee"}

// checkGolden compares td with testdata/<name>.yaml; UPDATE_GOLDEN=1 rewrites it.
func checkGolden(t *testing.T, name string, td ptrace.Traces) {
	t.Helper()
	path := filepath.Join("testdata", name+".yaml")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		require.NoError(t, golden.WriteTracesToFile(path, td))
	}
	want, err := golden.ReadTraces(path)
	require.NoError(t, err)
	require.NoError(t, ptracetest.CompareTraces(want, td,
		ptracetest.IgnoreResourceSpansOrder(), ptracetest.IgnoreSpansOrder()))
}

func TestFormatsGolden(t *testing.T) {
	msgpackV04, err := fixture().MarshalMsg(nil)
	require.NoError(t, err)
	jsonV04, err := json.Marshal(fixture())
	require.NoError(t, err)

	v07 := &pb.TracerPayload{
		LanguageName: "python", LanguageVersion: "3.12", TracerVersion: "2.9.0", RuntimeID: "r1",
		Env: "prod", Hostname: "py-host", AppVersion: "9.9",
		Tags: map[string]string{"_dd.tags.container": "kube_namespace:shop,pod_name:web-abc,image_tag:1.2"},
	}
	for _, tr := range fixture() {
		v07.Chunks = append(v07.Chunks, &pb.TraceChunk{Priority: 1, Spans: tr})
	}
	msgpackV07, err := v07.MarshalMsg(nil)
	require.NoError(t, err)

	cases := []struct {
		name, version, contentType string
		body                       []byte
	}{
		{"v04_msgpack", "v0.4", "application/msgpack", msgpackV04},
		{"v04_json", "v0.4", "application/json; charset=utf-8", jsonV04},
		{"v03_msgpack", "v0.3", "", msgpackV04},
		{"v05", "v0.5", "application/msgpack", encodeV05(withoutNativeLinksEvents(fixture()))},
		{"v07", "v0.7", "application/msgpack", msgpackV07},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := DecodeTracer(tc.version, tc.contentType, tc.body, goTracer, nil)
			require.NoError(t, err)
			td := toTraces(t, []*pb.TracerPayload{tp}, Agent{})
			assert.Equal(t, 3, td.SpanCount())
			golden := tc.name
			if tc.name == "v03_msgpack" {
				golden = "v04_msgpack" // same wire format
			}
			checkGolden(t, golden, td)
		})
	}
}

func TestAgentPayloadGolden(t *testing.T) {
	tp := &pb.TracerPayload{LanguageName: "java", TracerVersion: "1.40.0", ContainerID: "abc"}
	for _, tr := range fixture() {
		tp.Chunks = append(tp.Chunks, &pb.TraceChunk{Priority: 2, Spans: tr})
	}
	// Host and env of the Agent fill what the tracer left empty.
	for _, s := range tp.Chunks[0].Spans {
		delete(s.Meta, "_dd.hostname")
	}
	ap := &pb.AgentPayload{HostName: "agent-host", Env: "agent-env", AgentVersion: "7.60.0", TracerPayloads: []*pb.TracerPayload{tp}}
	body, err := ap.MarshalVT()
	require.NoError(t, err)
	got, err := DecodeAgent(body, nil)
	require.NoError(t, err)
	td := toTraces(t, got.TracerPayloads, Agent{Hostname: got.HostName, Env: got.Env})
	checkGolden(t, "agent_v02", td)
	// The receiver's path, straight from the wire, gives the same.
	td, err = TranslateAgent(body, nil)
	require.NoError(t, err)
	checkGolden(t, "agent_v02", td)
}

func spansByID(td ptrace.Traces) map[uint64]ptrace.Span {
	out := map[uint64]ptrace.Span{}
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		ss := td.ResourceSpans().At(i).ScopeSpans().At(0).Spans()
		for j := 0; j < ss.Len(); j++ {
			id := ss.At(j).SpanID()
			var n uint64
			for _, b := range id {
				n = n<<8 | uint64(b)
			}
			out[n] = ss.At(j)
		}
	}
	return out
}

func translateFixture(t *testing.T) (ptrace.Traces, map[uint64]ptrace.Span) {
	t.Helper()
	body, err := fixture().MarshalMsg(nil)
	require.NoError(t, err)
	tp, err := DecodeTracer("v0.4", "application/msgpack", body, goTracer, nil)
	require.NoError(t, err)
	td := toTraces(t, []*pb.TracerPayload{tp}, Agent{})
	return td, spansByID(td)
}

func TestTraceIDs(t *testing.T) {
	_, spans := translateFixture(t)
	// The child has no _dd.p.tid: the high half comes from the root of its chunk.
	want := "640cfd8d00000000" + "0000000000000457"
	assert.Equal(t, want, spans[1].TraceID().String())
	assert.Equal(t, want, spans[2].TraceID().String())
	assert.Equal(t, spans[1].SpanID(), spans[2].ParentSpanID())
	assert.True(t, spans[1].ParentSpanID().IsEmpty())
	// OTel-origin spans keep their own full id.
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", spans[10].TraceID().String())
}

func TestAttributesAndKinds(t *testing.T) {
	_, spans := translateFixture(t)
	root := spans[1].Attributes().AsRaw()
	assert.Equal(t, "GET /cart", root["resource.name"])
	assert.Equal(t, "web", root["span.type"])
	assert.Equal(t, "200", root["http.status_code"], "meta stays a string")
	assert.Equal(t, float64(42), root["process_id"], "metrics stay numbers")
	assert.Equal(t, int64(1), root["sampling.priority"])
	for k := range root {
		assert.NotRegexp(t, `^_dd|^_sampling|^env$|^version$|^span\.kind$`, k, "internal key leaked")
	}
	assert.Equal(t, ptrace.SpanKindServer, spans[1].Kind(), "span.kind meta")
	assert.Equal(t, ptrace.SpanKindClient, spans[2].Kind(), "from type sql")
	assert.Equal(t, ptrace.SpanKindConsumer, spans[10].Kind(), "from type worker")
	assert.Equal(t, "http.request", spans[1].Name())
	assert.Equal(t, pcommon.Timestamp(t0+5_000_000), spans[1].EndTimestamp())
}

func TestErrorStatusAndException(t *testing.T) {
	_, spans := translateFixture(t)
	w := spans[10]
	assert.Equal(t, ptrace.StatusCodeError, w.Status().Code())
	assert.Equal(t, "card declined", w.Status().Message())
	var found bool
	for i := 0; i < w.Events().Len(); i++ {
		ev := w.Events().At(i)
		if ev.Name() != "exception" {
			continue
		}
		found = true
		a := ev.Attributes().AsRaw()
		assert.Equal(t, "PaymentError", a["exception.type"])
		assert.Equal(t, "card declined", a["exception.message"])
		assert.Contains(t, a["exception.stacktrace"], "charge.go:10")
	}
	assert.True(t, found, "exception event")
	assert.Equal(t, ptrace.StatusCodeUnset, spans[1].Status().Code())
}

func TestHandlingStackIsTheFallbackStacktrace(t *testing.T) {
	s := &pb.Span{Service: "s", TraceID: 1, SpanID: 1, Error: 1, Meta: map[string]string{
		"error.message": "boom", "error.handling_stack": "main.handle()\n\tmain.go:3",
	}}
	td := toTraces(t, []*pb.TracerPayload{{Chunks: []*pb.TraceChunk{{Spans: []*pb.Span{s}}}}}, Agent{})
	ev := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().At(0)
	assert.Equal(t, "main.handle()\n\tmain.go:3", ev.Attributes().AsRaw()["exception.stacktrace"])
}

func TestLinksAndEvents(t *testing.T) {
	_, spans := translateFixture(t)
	w := spans[10]
	require.Equal(t, 2, w.Links().Len())
	native := w.Links().At(0)
	assert.Equal(t, "0000000000000005000000000000004d", native.TraceID().String())
	assert.Equal(t, "dd=s:1", native.TraceState().AsRaw())
	assert.Equal(t, "batch", native.Attributes().AsRaw()["reason"])
	fromMeta := w.Links().At(1)
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319d", fromMeta.TraceID().String())
	assert.Equal(t, "b7ad6b7169203331", fromMeta.SpanID().String())
	assert.Equal(t, uint32(1), fromMeta.Flags(), "W3C sampled bit kept, Datadog's presence bit dropped")

	names := map[string]map[string]any{}
	for i := 0; i < w.Events().Len(); i++ {
		names[w.Events().At(i).Name()] = w.Events().At(i).Attributes().AsRaw()
	}
	assert.Equal(t, "user:1", names["cache.miss"]["key"])
	assert.Equal(t, []any{"a", 1.5}, names["cache.miss"]["tags"])
	assert.Equal(t, float64(2), names["retry"]["attempt"])
	assert.Contains(t, names, "exception")
}

func TestResourceGrouping(t *testing.T) {
	td, _ := translateFixture(t)
	// checkout/prod/1.2.3/web-1, checkout-db/prod//web-1, billing/staging.
	require.Equal(t, 3, td.ResourceSpans().Len())
	got := map[string]map[string]any{}
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		a := td.ResourceSpans().At(i).Resource().Attributes().AsRaw()
		got[a["service.name"].(string)] = a
	}
	assert.Equal(t, map[string]any{
		"service.name": "checkout", "deployment.environment.name": "prod", "service.version": "1.2.3",
		"host.name": "web-1", "telemetry.sdk.name": "datadog", "telemetry.sdk.language": "go",
		"telemetry.sdk.version": "v2.12.0", "process.runtime.version": "go1.26.8", "container.id": "c0ffee",
	}, got["checkout"])
	assert.Equal(t, "staging", got["billing"]["deployment.environment.name"])
}

func TestEmptyProbes(t *testing.T) {
	for _, body := range [][]byte{nil, {0x90}} {
		for _, v := range []string{"v0.3", "v0.4", "v0.5", "v0.7"} {
			if v == "v0.5" && len(body) > 0 {
				body = []byte{0x92, 0x90, 0x90} // [[],[]]
			}
			tp, err := DecodeTracer(v, "application/msgpack", body, Tracer{}, nil)
			if v == "v0.7" && len(body) > 0 {
				continue // a v0.7 payload is a map, not an array
			}
			require.NoError(t, err, v)
			assert.Equal(t, 0, toTraces(t, []*pb.TracerPayload{tp}, Agent{}).SpanCount())
		}
	}
	tp, err := DecodeTracer("v0.4", "application/json", []byte("[]"), Tracer{}, nil)
	require.NoError(t, err)
	assert.Empty(t, tp.Chunks)
}

func TestMalformed(t *testing.T) {
	cases := map[string][]byte{
		"truncated":      {0x91, 0x91, 0x8c},
		"not an array":   []byte("hello"),
		"huge array len": {0xdd, 0xff, 0xff, 0xff, 0xff},
	}
	for name, body := range cases {
		for _, v := range []string{"v0.4", "v0.5", "v0.7"} {
			_, err := DecodeTracer(v, "application/msgpack", body, Tracer{}, nil)
			require.Error(t, err, name+" "+v)
		}
	}
	_, err := DecodeAgent([]byte{0xff, 0xff}, nil)
	assert.Error(t, err)
}

// toTraces translates without a budget, which cannot fail.
func toTraces(t testing.TB, tps []*pb.TracerPayload, agent Agent) ptrace.Traces {
	t.Helper()
	td, err := ToTraces(tps, agent, nil)
	require.NoError(t, err)
	return td
}

// TestOwnFieldsWinOverTags: a span's resource and type are what Datadog
// shows; OTel-bridged tracers also send resource.name as a tag, which must
// not replace them, whichever path decodes the span.
func TestOwnFieldsWinOverTags(t *testing.T) {
	tr := pb.Traces{{{
		Service: "s", Name: "n", Resource: "GET /x", Type: "web", TraceID: 1, SpanID: 1,
		Meta: map[string]string{"resource.name": "from-tag", "span.type": "tag-type"},
	}}}
	v04, err := tr.MarshalMsg(nil)
	require.NoError(t, err)
	v04JSON, err := json.Marshal(tr)
	require.NoError(t, err)
	agent, err := (&pb.AgentPayload{TracerPayloads: []*pb.TracerPayload{{Chunks: []*pb.TraceChunk{{Spans: tr[0]}}}}}).MarshalVT()
	require.NoError(t, err)
	paths := map[string]func() (ptrace.Traces, error){
		"v0.4 msgpack": func() (ptrace.Traces, error) {
			return TranslateTracer("v0.4", "application/msgpack", v04, goTracer, nil)
		},
		"v0.4 JSON": func() (ptrace.Traces, error) {
			return TranslateTracer("v0.4", "application/json", v04JSON, goTracer, nil)
		},
		"v0.5": func() (ptrace.Traces, error) {
			return TranslateTracer("v0.5", "application/msgpack", encodeV05(tr), goTracer, nil)
		},
		"AgentPayload": func() (ptrace.Traces, error) { return TranslateAgent(agent, nil) },
	}
	for name, translate := range paths {
		td, err := translate()
		require.NoError(t, err, name)
		attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
		rn, _ := attrs.Get("resource.name")
		st, _ := attrs.Get("span.type")
		assert.Equal(t, "GET /x", rn.Str(), name)
		assert.Equal(t, "web", st.Str(), name)
	}
}

// badTimes are spans whose times the store cannot hold as sent: an end
// before the start, a start before 1970, an end past 2262-04-11 (the
// DateTime64(9) columns hold nanoseconds in an Int64), and one of each
// kind at once. The agent path and every tracer format agree on them.
func badTimes() pb.Traces {
	span := func(id uint64, start, duration int64) *pb.Span {
		return &pb.Span{
			Service: "clock", Name: "op", Resource: "r", TraceID: 99, SpanID: id, Start: start, Duration: duration,
			Meta: map[string]string{"_dd.hostname": "h"},
		}
	}
	return pb.Traces{{
		span(1, t0, 5_000),                    // fine: untouched
		span(2, t0, -5_000),                   // end before start: end = start
		span(3, -1_000, 2_000),                // before 1970: receive time - duration
		span(4, math.MaxInt64-10, 1_000),      // would end past 2262: duration 0
		span(5, math.MinInt64, math.MinInt64), // all at once
		span(6, math.MaxInt64, 0),             // the last storable instant
	}}
}

func TestBadSpanTimesGolden(t *testing.T) {
	msgpackV04, err := badTimes().MarshalMsg(nil)
	require.NoError(t, err)
	jsonV04, err := json.Marshal(badTimes())
	require.NoError(t, err)
	for _, tc := range []struct {
		version, contentType string
		body                 []byte
	}{
		{"v0.4", "application/msgpack", msgpackV04},
		{"v0.4", "application/json", jsonV04},
		{"v0.5", "application/msgpack", encodeV05(badTimes())},
	} {
		t.Run(tc.version+" "+tc.contentType, func(t *testing.T) {
			td, err := TranslateTracer(tc.version, tc.contentType, tc.body, goTracer, nil)
			require.NoError(t, err, tc.version)
			checkGolden(t, "bad_times", td)
			byID := spansByID(td)
			for id, want := range map[uint64]string{
				2: "negative_duration", 3: "start_before_1970", 4: "end_after_2262",
				5: "negative_duration,start_before_1970",
			} {
				v, ok := byID[id].Attributes().Get(TimeAdjustedKey)
				require.True(t, ok, "span %d", id)
				assert.Equal(t, want, v.Str(), "span %d", id)
			}
			for _, s := range byID {
				assert.LessOrEqual(t, s.StartTimestamp(), s.EndTimestamp(), "no span ends before it starts")
				assert.LessOrEqual(t, uint64(s.EndTimestamp()), uint64(math.MaxInt64), "every end fits an Int64")
			}
		})
	}
}

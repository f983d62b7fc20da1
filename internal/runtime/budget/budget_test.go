package budget

import (
	"math"
	"strings"
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestTakeIsStickyAndSaturates(t *testing.T) {
	b := New(1000)
	assert.True(t, b.Take(600))
	require.NoError(t, b.Err())
	assert.False(t, b.Take(500))
	assert.False(t, b.Take(0), "once spent, always spent")
	var over *ExceededError
	require.ErrorAs(t, b.Err(), &over)
	assert.Equal(t, int64(1000), over.Limit)
	assert.Equal(t, "the payload would take more than 1000 bytes of memory once decoded (max_decoded_size); send it in smaller payloads",
		b.Err().Error())
	assert.Contains(t, (&ExceededError{Limit: 256 << 20, Setting: "max_decoded_size"}).Error(), "more than 256 MiB of memory")
	named := New(10).For("otlp_budget max_decoded_size")
	named.Take(11)
	require.ErrorContains(t, named.Err(), "(otlp_budget max_decoded_size)")
	assert.Nil(t, (*Budget)(nil).For("x"), "an unbounded budget stays unbounded")

	huge := New(1 << 62)
	assert.False(t, huge.Values(math.MaxInt), "a product past int64 saturates")
	assert.False(t, New(10).Take(-1), "a negative size is never a refund")
	assert.Equal(t, int64(0), mul(0, Item))
	assert.Equal(t, int64(0), mul(5, 0))
}

func TestNilIsUnbounded(t *testing.T) {
	var b *Budget
	assert.Nil(t, New(0))
	assert.Nil(t, New(-1))
	assert.True(t, b.Take(math.MaxInt64))
	assert.True(t, b.Entries(math.MaxInt))
	assert.NoError(t, b.Err())
	assert.NoError(t, b.Msgpack([]byte{0xdd, 0xff, 0xff, 0xff, 0xff}))
	assert.NoError(t, b.JSON([]byte("[{}]"), Node))
	assert.NoError(t, b.Proto(agentPayload(), []byte{0x2a, 0x00}))
}

func used(b *Budget) int64 { return b.used }

func TestMsgpackCounts(t *testing.T) {
	for _, c := range []struct {
		name string
		body []byte
		want int64
	}{
		{"empty array", msgp.AppendArrayHeader(nil, 0), Node},
		{"array of 3 empty maps", append(msgp.AppendArrayHeader(nil, 3), 0x80, 0x80, 0x80), Node + 3*Slot + 3*Item},
		{"map of 2 strings", msgp.AppendString(msgp.AppendString(msgp.AppendString(msgp.AppendString(
			msgp.AppendMapHeader(nil, 2), "a"), "b"), "c"), "d"), Item + 2*Value},
		{"scalar", msgp.AppendInt64(nil, 7), 0},
		// Claims a million elements with three bytes behind it: counting
		// stops, the decoder reports it.
		{"claimed length past the body", append(msgp.AppendArrayHeader(nil, 1_000_000), 1, 2, 3), 0},
		{
			"map cut by a bad byte", append(msgp.AppendString(msgp.AppendString(msgp.AppendMapHeader(nil, 2), "a"), "b"), 0xc1, 'x'),
			Item + 2*Value,
		},
		{"no body", nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := New(1 << 30)
			require.NoError(t, b.Msgpack(c.body))
			assert.Equal(t, c.want, used(b))
		})
	}
	deep := []byte{}
	for range 10_000 {
		deep = msgp.AppendArrayHeader(deep, 1)
	}
	b := New(1 << 30)
	require.NoError(t, b.Msgpack(deep), "nesting past maxDepth stops counting")
	assert.Equal(t, int64(maxDepth+1)*(Node+Slot), used(b))
}

func TestJSONCounts(t *testing.T) {
	for _, c := range []struct {
		body                     string
		values, objects, members int64
	}{
		{`[]`, 1, 0, 0},
		{`[{},{}]`, 3, 2, 0},
		{`{"a":1,"b":[true,null,-2.5e3]}`, 6, 1, 2},
		{`["a:b", "x\"y{[,", "\\"]`, 4, 0, 0},
		{`{"k" : "v"}`, 2, 1, 1},
		{`"unterminated {`, 0, 0, 0},
	} {
		t.Run(c.body, func(t *testing.T) {
			b := New(1 << 30)
			require.NoError(t, b.JSON([]byte(c.body), Node))
			assert.Equal(t, c.values*Node+c.objects*(Item-Node)+c.members*Slot, used(b))
			tree := New(1 << 30)
			require.NoError(t, tree.JSONText(c.body, TreeNode))
			assert.Equal(t, c.values*TreeNode+c.members*Slot, used(tree), "a tree node costs more than an item")
		})
	}
	over := New(100 * Node)
	assert.Error(t, over.JSON([]byte("["+strings.Repeat("1,", 100)+"1]"), Node))
}

func agentPayload() protoreflect.MessageDescriptor {
	return (&pb.AgentPayload{}).ProtoReflect().Descriptor()
}

func TestProtoCounts(t *testing.T) {
	span := &pb.Span{Service: "s", Meta: map[string]string{"a": "b", "c": "d"}, Metrics: map[string]float64{"m": 1}}
	ap := &pb.AgentPayload{HostName: "h", TracerPayloads: []*pb.TracerPayload{{
		Chunks: []*pb.TraceChunk{{Spans: []*pb.Span{span, {}}}},
		Tags:   map[string]string{"t": "v"},
	}}}
	body, err := ap.MarshalVT()
	require.NoError(t, err)
	b := New(1 << 30)
	require.NoError(t, b.Proto(agentPayload(), body))
	// Messages: tracer payload, chunk, two spans (an empty message is
	// still on the wire); map entries: two meta, one metric, one tag.
	tracer := agentPayload().Fields().ByName("tracerPayloads").Message()
	chunk := tracer.Fields().ByName("chunks").Message()
	spanMsg := chunk.Fields().ByName("spans").Message()
	assert.Equal(t, structSize(tracer)+structSize(chunk)+2*structSize(spanMsg)+4*Value, used(b))
	assert.Equal(t, int64(2*Slot+15*Slot), structSize(spanMsg), "a span's 15 fields")

	cut := New(1 << 30)
	require.NoError(t, cut.Proto(agentPayload(), body[:len(body)-3]), "a truncated body counts what precedes the cut")
	assert.Less(t, used(cut), used(b))

	small := New(Item)
	assert.Error(t, small.Proto(agentPayload(), body))
}

// Real bodies must fit: what Datadog's own encoders write for ordinary
// spans is estimated at a few times its size (msgpack and JSON are dearer:
// a struct's fields are counted like map entries), so payloads of the
// sizes tracers and Agents send, a few MB, stay far under the default
// 256 MiB.
func TestRealBodiesAreEstimatedAtAFewTimesTheirSize(t *testing.T) {
	var spans []*pb.Span
	for i := range 500 {
		spans = append(spans, &pb.Span{
			Service: "checkout", Name: "http.request", Resource: "GET /cart/{id}",
			TraceID: uint64(i/10 + 1), SpanID: uint64(i + 1), ParentID: uint64(i), Start: 1_700_000_000_000_000_000, Duration: 12_345,
			Type: "web", Meta: map[string]string{
				"env": "prod", "version": "1.2.3", "http.method": "GET",
				"http.url": "https://shop.example.com/cart/123", "http.status_code": "200", "component": "net/http",
				"span.kind": "server", "_dd.p.tid": "6560000000000000", "language": "go", "runtime-id": "8f2c4a1e-0a4b",
			},
			Metrics: map[string]float64{"_sampling_priority_v1": 1, "_dd.top_level": 1, "process_id": 4242},
		})
	}
	v04, err := pb.Traces{spans}.MarshalMsg(nil)
	require.NoError(t, err)
	ap, err := (&pb.AgentPayload{TracerPayloads: []*pb.TracerPayload{{Chunks: []*pb.TraceChunk{{Spans: spans}}}}}).MarshalVT()
	require.NoError(t, err)
	for name, c := range map[string]struct {
		body  []byte
		count func(*Budget, []byte) error
	}{
		"v0.4 msgpack":        {v04, (*Budget).Msgpack},
		"AgentPayload":        {ap, func(b *Budget, body []byte) error { return b.Proto(agentPayload(), body) }},
		"v0.4 JSON (structs)": {[]byte(`[[` + strings.Repeat(`{"service":"checkout","name":"http.request","meta":{"env":"prod","http.method":"GET"},"start":1,"duration":2},`, 499) + `{}]]`), func(b *Budget, body []byte) error { return b.JSON(body, Node) }},
	} {
		b := New(1 << 40)
		require.NoError(t, c.count(b, c.body))
		ratio := float64(used(b)) / float64(len(c.body))
		assert.Less(t, ratio, 10.0, "%s: decoding estimated at %.1f× the body", name, ratio)
	}
}

// The counters read hostile bytes: whatever they get, they return.
func FuzzCounters(f *testing.F) {
	f.Add([]byte(`[{"a":"b\"c"},[1,2,{}]]`))
	f.Add(emptySpans())
	f.Add([]byte{0x2a, 0x02, 0x52, 0x00, 0x0a})
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(_ *testing.T, body []byte) {
		for _, perValue := range []int64{Node, TreeNode} {
			_ = New(1<<20).JSON(body, perValue)
		}
		_ = New(1 << 20).Msgpack(body)
		_ = New(1<<20).Proto(agentPayload(), body)
	})
}

func emptySpans() []byte {
	b := msgp.AppendArrayHeader(msgp.AppendArrayHeader(nil, 1), 3)
	return append(b, 0x80, 0x80, 0x80)
}

package traces

import (
	"time"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/tinylib/msgp/msgp"
)

// testNow is the receive time in tests: a span that started before 1970
// is moved to it, and two translations of one body (the fuzz targets
// compare paths) must agree.
var testNow = time.Unix(1_800_000_000, 0)

func init() { clock = func() time.Time { return testNow } }

const (
	t0      = int64(1_700_000_000_000_000_000)
	tidHigh = "640cfd8d00000000"
)

// fixture is two traces as a Go tracer would send them: a web request with a
// child DB call (128-bit id carried by `_dd.p.tid` on the root only), and
// an erroring worker span with links and events.
func fixture() pb.Traces {
	root := &pb.Span{
		Service: "checkout", Name: "http.request", Resource: "GET /cart", Type: "web",
		TraceID: 1111, SpanID: 1, ParentID: 0, Start: t0, Duration: 5_000_000,
		Meta: map[string]string{
			"_dd.p.tid": tidHigh, "_dd.p.dm": "-1", "env": "prod", "version": "1.2.3",
			"http.method": "GET", "http.status_code": "200", "language": "go", "span.kind": "server",
			"_dd.hostname": "web-1",
		},
		Metrics: map[string]float64{"_sampling_priority_v1": 1, "_dd.top_level": 1, "_dd.agent_psr": 1, "process_id": 42},
	}
	child := &pb.Span{
		Service: "checkout-db", Name: "postgres.query", Resource: "SELECT 1", Type: "sql",
		TraceID: 1111, SpanID: 2, ParentID: 1, Start: t0 + 1_000_000, Duration: 2_000_000,
		Meta:    map[string]string{"env": "prod", "db.system": "postgresql", "_dd.hostname": "web-1"},
		Metrics: map[string]float64{"db.row_count": 3},
	}
	worker := &pb.Span{
		Service: "billing", Name: "job.run", Resource: "charge", Type: "worker",
		TraceID: 2222, SpanID: 10, Start: t0, Duration: 9_000_000, Error: 1,
		Meta: map[string]string{
			"env": "staging", "error.message": "card declined", "error.type": "PaymentError",
			"error.stack":      "main.charge()\n\tcharge.go:10",
			"otel.trace_id":    "0af7651916cd43dd8448eb211c80319c",
			"_dd.span_links":   `[{"trace_id":"0af7651916cd43dd8448eb211c80319d","span_id":"b7ad6b7169203331","attributes":{"link.kind":"follows"},"flags":2147483649}]`,
			"events":           `[{"name":"retry","time_unix_nano":1700000000000000500,"attributes":{"attempt":2,"final":false}}]`,
			"otel.status_code": "Error",
		},
		SpanLinks: []*pb.SpanLink{{TraceID: 77, TraceIDHigh: 5, SpanID: 78, Tracestate: "dd=s:1", Attributes: map[string]string{"reason": "batch"}}},
		SpanEvents: []*pb.SpanEvent{{TimeUnixNano: uint64(t0 + 100), Name: "cache.miss", Attributes: map[string]*pb.AttributeAnyValue{
			"key":  {Type: pb.AttributeAnyValue_STRING_VALUE, StringValue: "user:1"},
			"hits": {Type: pb.AttributeAnyValue_INT_VALUE, IntValue: 0},
			"tags": {Type: pb.AttributeAnyValue_ARRAY_VALUE, ArrayValue: &pb.AttributeArray{Values: []*pb.AttributeArrayValue{
				{Type: pb.AttributeArrayValue_STRING_VALUE, StringValue: "a"}, {Type: pb.AttributeArrayValue_DOUBLE_VALUE, DoubleValue: 1.5},
			}}},
		}}},
	}
	return pb.Traces{{root, child}, {worker}}
}

// encodeV05 writes traces in the v0.5 layout: a string dictionary, then
// spans as 12-element arrays of dictionary indexes and values.
func encodeV05(traces pb.Traces) []byte {
	var dict []string
	index := map[string]uint32{}
	ref := func(s string) uint32 {
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = uint32(len(dict))
		dict = append(dict, s)
		return index[s]
	}
	var body []byte
	body = msgp.AppendArrayHeader(body, uint32(len(traces)))
	for _, tr := range traces {
		body = msgp.AppendArrayHeader(body, uint32(len(tr)))
		for _, s := range tr {
			body = msgp.AppendArrayHeader(body, 12)
			body = msgp.AppendUint32(body, ref(s.Service))
			body = msgp.AppendUint32(body, ref(s.Name))
			body = msgp.AppendUint32(body, ref(s.Resource))
			body = msgp.AppendUint64(body, s.TraceID)
			body = msgp.AppendUint64(body, s.SpanID)
			body = msgp.AppendUint64(body, s.ParentID)
			body = msgp.AppendInt64(body, s.Start)
			body = msgp.AppendInt64(body, s.Duration)
			body = msgp.AppendInt32(body, s.Error)
			body = msgp.AppendMapHeader(body, uint32(len(s.Meta)))
			for k, v := range s.Meta {
				body = msgp.AppendUint32(body, ref(k))
				body = msgp.AppendUint32(body, ref(v))
			}
			body = msgp.AppendMapHeader(body, uint32(len(s.Metrics)))
			for k, v := range s.Metrics {
				body = msgp.AppendUint32(body, ref(k))
				body = msgp.AppendFloat64(body, v)
			}
			body = msgp.AppendUint32(body, ref(s.Type))
		}
	}
	out := msgp.AppendArrayHeader(nil, 2)
	out = msgp.AppendArrayHeader(out, uint32(len(dict)))
	for _, s := range dict {
		out = msgp.AppendString(out, s)
	}
	return append(out, body...)
}

// withoutNativeLinksEvents drops what the v0.5 layout cannot carry.
func withoutNativeLinksEvents(traces pb.Traces) pb.Traces {
	for _, tr := range traces {
		for _, s := range tr {
			s.SpanLinks, s.SpanEvents = nil, nil
		}
	}
	return traces
}

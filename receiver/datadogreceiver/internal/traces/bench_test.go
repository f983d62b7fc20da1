package traces

import (
	"encoding/json"
	"fmt"
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace/idx"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// benchTraces is 50 traces × 10 spans with tags like a web service's.
func benchTraces() pb.Traces {
	var out pb.Traces
	for t := 0; t < 50; t++ {
		var tr pb.Trace
		for s := 0; s < 10; s++ {
			meta := map[string]string{
				"env": "prod", "version": "1.4.2", "http.method": "GET", "http.url": fmt.Sprintf("/api/items/%d", s),
				"http.status_code": "200", "component": "net/http", "span.kind": "server", "language": "go",
			}
			if s == 0 {
				meta["_dd.p.tid"] = "640cfd8d00000000"
				meta["_dd.p.dm"] = "-1"
			}
			tr = append(tr, &pb.Span{
				Service: "web", Name: "http.request", Resource: "GET /api/items", Type: "web",
				TraceID: uint64(1000 + t), SpanID: uint64(t*100 + s + 1), ParentID: uint64(t*100 + s),
				Start: 1_700_000_000_000_000_000, Duration: 1_000_000, Meta: meta,
				Metrics: map[string]float64{"_sampling_priority_v1": 1, "_dd.top_level": 1, "process_id": 7},
			})
		}
		out = append(out, tr)
	}
	return out
}

func benchDecodeTranslate(b *testing.B, version, ct string, body []byte) {
	b.Helper()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		tp, err := DecodeTracer(version, ct, body, goTracer, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = ToTraces([]*pb.TracerPayload{tp}, Agent{}, nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500), "ns/span")
}

func BenchmarkV04Msgpack(b *testing.B) {
	body, _ := benchTraces().MarshalMsg(nil)
	benchDecodeTranslate(b, "v0.4", "application/msgpack", body)
}

func BenchmarkV04JSON(b *testing.B) {
	body, _ := json.Marshal(benchTraces())
	benchDecodeTranslate(b, "v0.4", "application/json", body)
}

func BenchmarkV05(b *testing.B) {
	benchDecodeTranslate(b, "v0.5", "application/msgpack", encodeV05(benchTraces()))
}

func BenchmarkV07(b *testing.B) {
	tp := &pb.TracerPayload{LanguageName: "go"}
	for _, tr := range benchTraces() {
		tp.Chunks = append(tp.Chunks, &pb.TraceChunk{Spans: tr})
	}
	body, _ := tp.MarshalMsg(nil)
	benchDecodeTranslate(b, "v0.7", "application/msgpack", body)
}

// benchAgentPayload is benchTraces as a trace-agent sends them.
func benchAgentPayload() []byte {
	tp := &pb.TracerPayload{LanguageName: "go"}
	for _, tr := range benchTraces() {
		tp.Chunks = append(tp.Chunks, &pb.TraceChunk{Spans: tr})
	}
	body, _ := (&pb.AgentPayload{HostName: "h", TracerPayloads: []*pb.TracerPayload{tp}}).MarshalVT()
	return body
}

// BenchmarkAgentPayload is the reference path: Datadog's decoder, then
// ToTraces (the receiver takes TranslateAgent, BenchmarkAgentPayloadDirect).
func BenchmarkAgentPayload(b *testing.B) {
	body := benchAgentPayload()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ap, err := DecodeAgent(body, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = ToTraces(ap.TracerPayloads, Agent{Hostname: ap.HostName}, nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500), "ns/span")
}

func FuzzDecodeTracer(f *testing.F) {
	body, _ := fixture().MarshalMsg(nil)
	f.Add("v0.4", body)
	f.Add("v0.5", encodeV05(withoutNativeLinksEvents(fixture())))
	f.Add("v1.0", v1Fixture(f))
	f.Fuzz(func(_ *testing.T, _ string, body []byte) {
		for _, v := range []string{"v0.4", "v0.5", "v0.7"} {
			if tp, err := DecodeTracer(v, "application/msgpack", body, Tracer{}, budget.New(1<<20)); err == nil {
				_, _ = ToTraces([]*pb.TracerPayload{tp}, Agent{}, budget.New(1<<20))
			}
		}
		if tp, err := DecodeV1(body, Tracer{}, budget.New(1<<20)); err == nil {
			_, _ = V1ToTraces([]*idx.InternalTracerPayload{tp}, Agent{}, budget.New(1<<20))
		}
		if ap, err := DecodeAgent(body, budget.New(1<<20)); err == nil {
			_, _ = ToTraces(ap.TracerPayloads, Agent{}, budget.New(1<<20))
		}
	})
}

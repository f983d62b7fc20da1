package datadogreceiver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/perfcorpus"
)

// corpusLogs mirrors the perf corpus: 1000 agent-json records, 40% with
// JSON messages carrying log-injection ids, about 100 distinct pods.
func corpusLogs() []byte {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		msg := fmt.Sprintf(`10.0.%d.%d - - [01/Jun/2025:00:00:%02d +0000] \"GET /api/v1/products/%d HTTP/1.1\" 200 %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\" rt=0.%03d`, i%255, i%97, i%60, i*31, 200+i, i%1000)
		if i%5 < 2 {
			msg = fmt.Sprintf(`{\"dd\":{\"env\":\"prod\",\"service\":\"web-store\",\"span_id\":\"%d\",\"trace_id\":\"%d\",\"version\":\"1.42.0\"},\"latency_ms\":%d.5,\"level\":\"info\",\"logger\":\"http.access\",\"method\":\"GET\",\"msg\":\"request completed\",\"path\":\"/api/v1/users/%d/orders\",\"status\":200,\"ts\":1748736000.%03d,\"user_id\":\"u-%06d\"}`,
				1020931849181923626+i, 8104500093440784933+i, i%250, i*7, i%1000, i*13)
		}
		ids := ""
		if i%2 == 0 {
			ids = fmt.Sprintf(`"dd.span_id":"%d","dd.trace_id":"%d",`, 561652311212034341+i, 1350062755934387415+i)
		}
		fmt.Fprintf(&sb, `{%s"ddsource":"go","ddtags":"env:prod,version:1.42.0,kube_namespace:shop,kube_deployment:web-store,pod_name:web-store-7d9f8c-%05d,image_tag:1.42.0","hostname":"ip-10-0-0-%d","message":"%s","service":"web-store","status":"info","timestamp":%d}`,
			ids, i%20, 10+i/100, msg, 1748736000000+int64(i))
	}
	sb.WriteByte(']')
	return []byte(sb.String())
}

// corpusTraces mirrors the perf corpus: 50 traces × 10 spans.
func corpusTraces() pb.Traces {
	var out pb.Traces
	for t := 0; t < 50; t++ {
		var tr pb.Trace
		for s := 0; s < 10; s++ {
			meta := map[string]string{
				"env": "prod", "version": "1.42.0", "component": "net/http", "span.kind": "server",
				"http.method": "GET", "http.url": fmt.Sprintf("https://shop.example.com/api/v1/products/%d", t*10+s),
				"http.status_code": "200", "http.route": "/api/v1/products/{id}", "language": "go",
				"runtime-id": "8e6c7b4e-1d7a-4b3b-9f3e-2c9d1f0a7b6c", "_dd.p.dm": "-0",
			}
			if s == 0 {
				meta["_dd.p.tid"] = "6838a5c000000000"
			}
			tr = append(tr, &pb.Span{
				Service: "web-store", Name: "http.request", Resource: "GET /api/v1/products/{id}", Type: "web",
				TraceID: uint64(77_000 + t), SpanID: uint64(t*100 + s + 1), ParentID: uint64(t*100 + s),
				Start: 1_748_736_000_000_000_000, Duration: 1_250_000, Meta: meta,
				Metrics: map[string]float64{"_sampling_priority_v1": 1, "_dd.top_level": 1, "_dd.measured": 1, "process_id": 4242, "_dd.agent_psr": 1},
			})
		}
		out = append(out, tr)
	}
	return out
}

func benchHTTP(b *testing.B, path string, body []byte, items int, headers ...string) {
	b.Helper()
	h := startAll(b, nil, consumertest.NewNop(), consumertest.NewNop(), consumertest.NewNop())
	client := h.client
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, h.url+path, bytes.NewReader(body))
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := client.Do(req)
		require.NoError(b, err)
		_ = resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*items), "ns/item")
}

func BenchmarkHTTPTracesV04(b *testing.B) {
	body, _ := corpusTraces().MarshalMsg(nil)
	benchHTTP(b, "/v0.4/traces", body, 500, "Content-Type", "application/msgpack")
}

func BenchmarkHTTPAgentTracesGzip(b *testing.B) {
	tp := &pb.TracerPayload{LanguageName: "go", TracerVersion: "2.12.0"}
	for _, tr := range corpusTraces() {
		tp.Chunks = append(tp.Chunks, &pb.TraceChunk{Priority: 1, Spans: tr})
	}
	raw, _ := (&pb.AgentPayload{HostName: "ip-10-0-0-10", Env: "prod", TracerPayloads: []*pb.TracerPayload{tp}}).MarshalVT()
	benchHTTP(b, "/api/v0.2/traces", compressTB(b, "gzip", raw), 500, "Content-Encoding", "gzip", "Content-Type", "application/x-protobuf")
}

func BenchmarkHTTPLogsGzip(b *testing.B) {
	benchHTTP(b, "/api/v2/logs", compressTB(b, "gzip", corpusLogs()), 1000, "Content-Encoding", "gzip", "Content-Type", "application/json")
}

func BenchmarkHTTPLogsZstd(b *testing.B) {
	benchHTTP(b, "/api/v2/logs", compressTB(b, "zstd", corpusLogs()), 1000, "Content-Encoding", "zstd", "Content-Type", "application/json")
}

// BenchmarkDecompressLogs is the receiver's own decoders alone on logs
// payloads of 1000 records: the part of BenchmarkHTTPLogs* that no
// translation work can take back. The synthetic corpus compresses far
// better than real logs; PERF_CORPUS=/tmp/otelhouse-load/corpus (what
// cmd/otelhouse-load gen writes) measures its logs_gzip and logs_zstd payloads.
func BenchmarkDecompressLogs(b *testing.B) {
	for _, c := range []struct {
		enc string
		dec func(io.ReadCloser) (io.ReadCloser, error)
	}{{"gzip", gzipDecoder}, {"zstd", zstdDecoder}} {
		b.Run(c.enc, func(b *testing.B) {
			bodies := perfcorpus.Payloads(b, "logs_"+c.enc)
			if bodies == nil {
				bodies = [][]byte{compressTB(b, c.enc, corpusLogs())}
			}
			var out bytes.Buffer
			i := 0
			for b.Loop() {
				r, err := c.dec(io.NopCloser(bytes.NewReader(bodies[i%len(bodies)])))
				require.NoError(b, err)
				i++
				out.Reset()
				_, err = out.ReadFrom(r)
				require.NoError(b, err)
				_ = r.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/record")
		})
	}
}

func benchSeriesV2() []byte {
	p := &gogen.MetricPayload{}
	for i := 0; i < 500; i++ {
		p.Series = append(p.Series, &gogen.MetricPayload_MetricSeries{
			Metric: fmt.Sprintf("system.metric.%d", i%60), Type: gogen.MetricPayload_MetricType(i % 4), Interval: 10,
			Resources: []*gogen.MetricPayload_Resource{{Type: "host", Name: fmt.Sprintf("ip-10-0-0-%d", i%10)}},
			Tags: []string{
				"env:prod", "service:web-store", "kube_namespace:shop", fmt.Sprintf("pod_name:web-store-%05d", i%40),
				fmt.Sprintf("device:sd%c", 'a'+i%4),
			},
			Points: []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: float64(i)}, {Timestamp: 1_700_000_010, Value: float64(i + 1)}},
		})
	}
	b, _ := p.Marshal()
	return b
}

func BenchmarkHTTPSeriesV2Zstd(b *testing.B) {
	benchHTTP(b, "/api/v2/series", compressTB(b, "zstd", benchSeriesV2()), 1000, "Content-Encoding", "zstd", "Content-Type", "application/x-protobuf")
}

func BenchmarkHTTPSeriesV2Deflate(b *testing.B) {
	benchHTTP(b, "/api/v2/series", compressTB(b, "deflate", benchSeriesV2()), 1000, "Content-Encoding", "deflate", "Content-Type", "application/x-protobuf")
}

func BenchmarkHTTPSeriesV1Gzip(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"series":[`)
	for i := 0; i < 500; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"metric":"system.metric.%d","points":[[1700000000,%d.5],[1700000010,%d.5]],"type":"gauge","interval":10,"host":"ip-10-0-0-%d","tags":["env:prod","kube_namespace:shop","pod_name:web-store-%05d"]}`,
			i%60, i, i+1, i%10, i%40)
	}
	sb.WriteString(`]}`)
	benchHTTP(b, "/api/v1/series", compressTB(b, "gzip", []byte(sb.String())), 1000, "Content-Encoding", "gzip", "Content-Type", "application/json")
}

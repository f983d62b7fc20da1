package logs

import (
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
)

// benchLogs has the shape of an Agent's logs payload: 1000 agent-json
// records, 40% structured JSON messages with log-injection ids, the rest
// access-log lines with escaped quotes, 20 pods over 10 hosts and 20
// services (about 380 resources), half the records with dd.* ids.
func benchLogs() []byte {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		svc := fmt.Sprintf("svc-%d", i/50)
		pod := (i * 7919) % 20
		msg := fmt.Sprintf(`10.0.%d.%d - - [01/Jun/2025:00:00:%02d +0000] \"GET /api/v1/products/%d HTTP/1.1\" 200 %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36\" rt=0.%03d`,
			i%255, i%97, i%60, i*31, 200+i, i%1000)
		if i%5 < 2 {
			msg = fmt.Sprintf(`{\"dd\":{\"env\":\"prod\",\"service\":\"%s\",\"span_id\":\"%d\",\"trace_id\":\"%d\",\"version\":\"1.42.0\"},\"latency_ms\":%d.817,\"level\":\"info\",\"logger\":\"http.access\",\"method\":\"GET\",\"msg\":\"request completed\",\"path\":\"/api/v1/users/%d/orders\",\"status\":200,\"ts\":1748736000.%03d,\"user_id\":\"u-%06d\"}`,
				svc, 1020931849181923626+i, 8104500093440784933+i, i%250, i*7, i%1000, i*13)
		}
		ids := ""
		if i%2 == 0 {
			ids = fmt.Sprintf(`"dd.span_id":"%d","dd.trace_id":"%d",`, 561652311212034341+i, 1350062755934387415+i)
		}
		fmt.Fprintf(&sb, `{%s"ddsource":"go","ddtags":"env:prod,version:1.42.0,kube_namespace:shop,kube_deployment:%s,pod_name:%s-7d9f8c-%05d,image_tag:1.42.0","hostname":"ip-10-0-0-%d","message":"%s","service":"%s","status":"info","timestamp":%d}`,
			ids, svc, svc, pod, 10+i/100, msg, svc, 1748736000000+int64(i))
	}
	sb.WriteByte(']')
	return []byte(sb.String())
}

func BenchmarkTranslate(b *testing.B) {
	body := benchLogs()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := on.Translate(body, Defaults{}, now, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/record")
}

// BenchmarkScan is the scanner alone over the same payload: the floor
// under the translation.
func BenchmarkScan(b *testing.B) {
	body := benchLogs()
	var tmp []byte
	var fields, inner []field
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		s := &scanner{buf: body, tmp: &tmp, lift: &inner}
		s.array(func(int) {
			tmp = tmp[:0]
			fields = s.object(fields[:0])
			for _, f := range fields {
				if string(f.key) == "message" && !f.lifted && len(f.raw) > 0 && f.raw[0] == '{' {
					in := scanner{buf: f.raw, tmp: &tmp}
					inner = in.object(inner[:0])
				}
			}
		})
		if s.err != nil {
			b.Fatal(s.err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/record")
}

// BenchmarkPdataCopy copies the translation of the same payload with
// pdata's own deep copy: the allocations the translation cannot avoid
// (pdata allocates each record, attribute value and resource apart), with
// no parsing and no lookups. It is the floor under BenchmarkTranslate.
func BenchmarkPdataCopy(b *testing.B) {
	ld, err := on.Translate(benchLogs(), Defaults{}, now, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ld.CopyTo(plog.NewLogs())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ld.LogRecordCount()), "ns/record")
}

// benchNestedLogs is benchLogs' shape with the nested attributes Datadog
// integrations send (http, network, usr, error objects, two to three
// levels deep), top-level on half the records and inside a JSON message
// on the other half: the flattening to dotted keys at its busiest.
func benchNestedLogs() []byte {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		svc := fmt.Sprintf("svc-%d", i/50)
		nested := fmt.Sprintf(`"http":{"method":"GET","status_code":%d,"url":"/api/v1/products/%d","url_details":{"host":"shop.example.com","path":"/api/v1/products/%d","queryString":{"page":"%d"}},"useragent_details":{"browser":{"family":"Firefox"},"os":{"family":"Linux"}}},"network":{"client":{"ip":"10.0.%d.%d","port":%d}},"usr":{"id":"u-%06d","name":"user %d"},"duration":%d`,
			200+i%5*100, i*31, i*31, i%9, i%255, i%97, 40000+i, i*13, i, 1000000+i*17)
		if i%2 == 0 {
			msg := strings.ReplaceAll(fmt.Sprintf(`{"level":"info","msg":"request completed",%s}`, nested), `"`, `\"`)
			fmt.Fprintf(&sb, `{"ddsource":"go","ddtags":"env:prod,version:1.42.0,kube_namespace:shop","hostname":"ip-10-0-0-%d","message":"%s","service":"%s","status":"info","timestamp":%d}`,
				10+i/100, msg, svc, 1748736000000+int64(i))
			continue
		}
		fmt.Fprintf(&sb, `{"ddsource":"nginx","ddtags":"env:prod,version:1.42.0,kube_namespace:shop","hostname":"ip-10-0-0-%d","message":"GET /api/v1/products/%d 200","service":"%s","status":"info","timestamp":%d,%s}`,
			10+i/100, i*31, svc, 1748736000000+int64(i), nested)
	}
	sb.WriteByte(']')
	return []byte(sb.String())
}

func BenchmarkTranslateNested(b *testing.B) {
	body := benchNestedLogs()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := on.Translate(body, Defaults{}, now, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/record")
}

package logs

import (
	"fmt"
	"strings"
	"testing"
)

// benchLogs is 1000 agent-json records, a third with JSON messages.
func benchLogs() []byte {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		msg := fmt.Sprintf(`GET /api/items/%d 200 12ms user=alice request_id=%08x`, i, i*7919)
		if i%3 == 0 {
			msg = fmt.Sprintf(`{\"level\":\"info\",\"msg\":\"served\",\"path\":\"/api/items/%d\",\"dd\":{\"trace_id\":\"%d\",\"span_id\":\"%d\"}}`, i, 1000+i, 2000+i)
		}
		fmt.Fprintf(&sb, `{"message":"%s","status":"info","timestamp":%d,"hostname":"web-1","service":"web","ddsource":"go","ddtags":"env:prod,version:1.4.2,kube_namespace:shop,pod_name:web-7f9c,team:core"}`,
			msg, 1_700_000_000_000+int64(i))
	}
	sb.WriteByte(']')
	return []byte(sb.String())
}

func BenchmarkTranslate(b *testing.B) {
	body := benchLogs()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := on.Translate(body, Defaults{}, now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/record")
}

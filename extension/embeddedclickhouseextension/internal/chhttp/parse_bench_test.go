package chhttp

import (
	"strconv"
	"testing"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

// BenchmarkInsertHead is what the engine parse adds to each of the
// exporter's INSERTs: its head, never its data.
func BenchmarkInsertHead(b *testing.B) {
	if srvURL == "" {
		testenv.Missing(b, "OTELHOUSE_LIBCHDB not set")
	}
	p := &engineParser{conn: spare}
	head := "INSERT INTO otel.otel_logs (Timestamp, TraceId, SpanId, TraceFlags, SeverityText, SeverityNumber, ServiceName, Body, ResourceSchemaUrl, ResourceAttributes, ScopeSchemaUrl, ScopeName, ScopeVersion, ScopeAttributes, LogAttributes) FORMAT Native"
	for b.Loop() {
		if _, ok, err := p.splitInsert(head, nil); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkSelectWithParams is what the engine parse adds to a chart's or
// a search page's query: the same text each time, with new parameters.
func BenchmarkSelectWithParams(b *testing.B) {
	if srvURL == "" {
		testenv.Missing(b, "OTELHOUSE_LIBCHDB not set")
	}
	p := &engineParser{conn: spare}
	q := "SELECT toStartOfInterval(Timestamp, INTERVAL 60 second) AS b, count() FROM otel.otel_logs WHERE Timestamp >= fromUnixTimestamp64Milli({p0:Int64}) AND Timestamp < fromUnixTimestamp64Milli({p1:Int64}) AND ServiceName = {p2:String} GROUP BY b ORDER BY b"
	i := 0
	for b.Loop() {
		i++
		params := map[string]string{"p0": strconv.Itoa(i), "p1": strconv.Itoa(i + 60000), "p2": "api"}
		if _, err := p.parse(q, params); err != nil {
			b.Fatal(err)
		}
	}
}

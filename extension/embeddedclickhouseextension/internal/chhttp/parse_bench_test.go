package chhttp

import "testing"

// BenchmarkInsertHead is what the engine parse adds to each of the
// exporter's INSERTs: its head, never its data.
func BenchmarkInsertHead(b *testing.B) {
	if srvURL == "" {
		b.Skip("OTELHOUSE_LIBCHDB not set")
	}
	p := &engineParser{conn: spare}
	head := "INSERT INTO otel.otel_logs (Timestamp, TraceId, SpanId, TraceFlags, SeverityText, SeverityNumber, ServiceName, Body, ResourceSchemaUrl, ResourceAttributes, ScopeSchemaUrl, ScopeName, ScopeVersion, ScopeAttributes, LogAttributes) FORMAT Native"
	for b.Loop() {
		if _, ok, err := p.splitInsert(head, nil); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

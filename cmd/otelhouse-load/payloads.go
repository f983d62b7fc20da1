package main

// The payloads: what a Datadog Agent, a Datadog tracer and an OTLP
// exporter send, built with Datadog's own message types where the
// project already depends on them, so the receiver decodes what it meets
// in production rather than what a test author guessed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/tinylib/msgp/msgp"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// payload is one request: its path, headers and body, and the items it
// carries (spans, points or log records).
type payload struct {
	Path    string      `json:"path"`
	Header  http.Header `json:"header"`
	Items   int         `json:"items"`
	Body    []byte      `json:"-"`
	RawSize int         `json:"rawSize"` // before Content-Encoding
}

// kind is a family of payloads sent to one endpoint.
type kind struct {
	name  string
	unit  string // what an item is
	about string
	// make builds n payloads of the kind.
	make func(g *gen, n int) []payload
}

var kinds = []kind{
	{"traces_v04", "span", "POST /v0.4/traces, msgpack, 50 traces × ~10 spans (a tracer)", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return tracesV04(g.traces(50)) })
	}},
	{"traces_v05", "span", "POST /v0.5/traces, msgpack with a string table, 50 traces × ~10 spans", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return tracesV05(g.traces(50)) })
	}},
	{"traces_v02_gzip", "span", "POST /api/v0.2/traces, AgentPayload protobuf, gzip, 2 × 25 traces (the Agent)", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return g.agentTraces(2, 25) })
	}},
	{"series_v2_zstd", "point", "POST /api/v2/series, MetricPayload protobuf, zstd, 500 series × 2 points", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return g.seriesV2(500, 2, "zstd") })
	}},
	{"series_v2_deflate", "point", "POST /api/v2/series, MetricPayload protobuf, deflate, 500 series × 2 points", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return g.seriesV2(500, 2, "deflate") })
	}},
	{"series_v1_gzip", "point", "POST /api/v1/series, JSON, gzip, 500 series × 2 points", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return g.seriesV1(500, 2) })
	}},
	{"logs_zstd", "log", "POST /api/v2/logs, JSON array, zstd, 1000 records", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return g.logs(1000, "zstd") })
	}},
	{"logs_gzip", "log", "POST /api/v2/logs, JSON array, gzip, 1000 records", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return g.logs(1000, "gzip") })
	}},
	{"otlp_traces", "span", "POST /v1/traces (OTLP/HTTP protobuf), 50 traces × ~10 spans", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return otlpTraces(g.traces(50)) })
	}},
	{"otlp_logs", "log", "POST /v1/logs (OTLP/HTTP protobuf), 1000 records", func(g *gen, n int) []payload {
		return g.each(n, func() payload { return g.otlpLogs(1000) })
	}},
}

func kindNamed(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

// apiKey is the ingestion key: DD-API-KEY of Agent payloads, the Bearer
// token of OTLP ones; a receiver that checks keys takes one
// with --api-key.
var apiKey = "0123456789abcdef0123456789abcdef"

// gen makes payloads from a seed, the same ones for the same seed; its
// clock starts a little before now so that a receiver keeps the data.
type gen struct {
	r     *rand.Rand
	clock time.Time
}

func newGen(seed uint64) *gen {
	//nolint:gosec // repeatable test data, not secrets
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), clock: time.Now().Add(-time.Minute).Truncate(time.Second)}
}

func (g *gen) each(n int, one func() payload) []payload {
	out := make([]payload, n)
	for i := range out {
		out[i] = one()
	}
	return out
}

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) tick(d time.Duration) time.Time {
	g.clock = g.clock.Add(d)
	return g.clock
}

var (
	services  = []string{"storefront", "cart", "catalog-api", "accounts", "billing"}
	hosts     = []string{"ip-10-0-1-17", "ip-10-0-1-42", "ip-10-0-2-8", "ip-10-0-3-101"}
	endpoints = []struct{ method, route string }{
		{"GET", "/v1/items/{id}"},
		{"GET", "/v1/items"},
		{"POST", "/v1/cart/{id}"},
		{"GET", "/v1/accounts/{id}/invoices"},
		{"POST", "/v1/pay"},
		{"GET", "/health"},
	}
	queries = []string{
		"SELECT id, title, price FROM items WHERE id = ? AND shop_id = ?",
		"SELECT i.id, i.amount FROM invoices i WHERE i.account_id = ? ORDER BY i.issued_at DESC LIMIT 25",
		"UPDATE carts SET touched_at = ?, lines = lines + 1 WHERE id = ?",
		"INSERT INTO payments (invoice_id, amount, currency) VALUES (?, ?, ?)",
	}
)

// traces makes n traces as a web service's tracer reports them: an HTTP
// request span whose calls run one after another under it, a database
// query, a cache read or a gRPC call to another service, whose server
// span holds that service's own queries; some fail.
func (g *gen) traces(n int) pb.Traces {
	out := make(pb.Traces, n)
	for i := range out {
		out[i] = g.trace()
	}
	return out
}

// us is n microseconds in nanoseconds, a span's unit.
func us(n int) int64 { return int64(n) * 1000 }

func (g *gen) trace() pb.Trace {
	svc := g.pick(services)
	ep := endpoints[g.r.IntN(len(endpoints))]
	traceID := g.r.Uint64()
	start := g.tick(time.Duration(g.r.IntN(20)) * time.Millisecond)
	failed := g.r.IntN(20) == 0
	status := "200"
	if failed {
		status = "500"
	}
	root := &pb.Span{
		Service: svc, Name: "http.request", Resource: ep.method + " " + ep.route, Type: "web",
		TraceID: traceID, SpanID: g.r.Uint64(), Start: start.UnixNano(),
		Meta: map[string]string{
			"http.method": ep.method, "http.route": ep.route, "http.status_code": status,
			"http.url":  "https://shop.example" + strings.ReplaceAll(ep.route, "{id}", strconv.Itoa(g.r.IntN(100000))),
			"span.kind": "server", "env": "prod", "version": "2.8.1", "language": "go",
			"runtime-id": fmt.Sprintf("%016x", traceID>>8), "_dd.p.dm": "-1", "component": "net/http",
		},
		Metrics: map[string]float64{"_sampling_priority_v1": 1, "_dd.top_level": 1, "_dd.measured": 1, "process_id": float64(1000 + g.r.IntN(9000))},
	}
	spans := pb.Trace{root}
	// The handler's calls, each starting after the one before ended.
	at := root.Start + us(50+g.r.IntN(300))
	for range 3 + g.r.IntN(5) {
		var end int64
		if g.r.IntN(3) == 2 {
			spans, end = g.rpc(spans, root, svc, at)
		} else {
			var leaf *pb.Span
			leaf, end = g.leaf(root, svc, at)
			spans = append(spans, leaf)
		}
		at = end + us(20+g.r.IntN(200))
	}
	if failed {
		// The last call failed, and with it each span above it.
		last := spans[len(spans)-1]
		last.Error = 1
		last.Meta["error.type"] = "*net.OpError"
		last.Meta["error.message"] = "dial tcp 10.0.4.2:5432: connect: connection refused"
		last.Meta["error.stack"] = "goroutine 81 [running]:\nmain.(*store).query(...)\n\t/src/store.go:112 +0x1c4\nmain.handler(...)\n\t/src/handler.go:48 +0x9a"
		byID := map[uint64]*pb.Span{}
		for _, s := range spans {
			byID[s.SpanID] = s
		}
		for p := byID[last.ParentID]; p != nil; p = byID[p.ParentID] {
			p.Error = 1
		}
	}
	root.Duration = at - root.Start + us(g.r.IntN(500))
	return spans
}

// leaf is a call of svc under parent from at: a database query or a
// cache read, with the time it ended.
func (g *gen) leaf(parent *pb.Span, svc string, at int64) (*pb.Span, int64) {
	s := &pb.Span{
		Service: svc, TraceID: parent.TraceID, SpanID: g.r.Uint64(), ParentID: parent.SpanID, Start: at,
		Meta: map[string]string{"env": "prod", "version": "2.8.1"},
	}
	if g.r.IntN(2) == 0 {
		q := g.pick(queries)
		s.Service, s.Name, s.Resource, s.Type = svc+"-postgres", "postgres.query", q, "sql"
		s.Meta["db.system"], s.Meta["db.statement"], s.Meta["span.kind"] = "postgresql", q, "client"
		s.Metrics = map[string]float64{"db.row_count": float64(g.r.IntN(50))}
		s.Duration = us(300 + g.r.IntN(8000))
	} else {
		s.Service, s.Name, s.Resource, s.Type = svc+"-redis", "redis.command", "GET", "cache"
		s.Meta["db.system"], s.Meta["out.host"] = "redis", "cache-1.internal"
		s.Duration = us(50 + g.r.IntN(900))
	}
	return s, at + s.Duration
}

// rpc is a gRPC call of svc under parent from at to another service: the
// client span, the other service's server span inside it (after the
// network's delay) and that service's own calls one after another; with
// the time the client span ended.
func (g *gen) rpc(spans pb.Trace, parent *pb.Span, svc string, at int64) (pb.Trace, int64) {
	down := g.pick(services)
	method := "/" + down + ".v1.Service/Get"
	client := &pb.Span{
		Service: svc, Name: "grpc.client", Resource: method, Type: "rpc",
		TraceID: parent.TraceID, SpanID: g.r.Uint64(), ParentID: parent.SpanID, Start: at,
		Meta: map[string]string{"env": "prod", "version": "2.8.1", "rpc.service": down, "peer.service": down, "span.kind": "client"},
	}
	server := &pb.Span{
		Service: down, Name: "grpc.server", Resource: method, Type: "rpc",
		TraceID: parent.TraceID, SpanID: g.r.Uint64(), ParentID: client.SpanID, Start: at + us(100+g.r.IntN(400)),
		Meta:    map[string]string{"env": "prod", "version": "2.8.1", "rpc.service": down, "span.kind": "server"},
		Metrics: map[string]float64{"_dd.top_level": 1},
	}
	spans = append(spans, client, server)
	inner := server.Start + us(30+g.r.IntN(200))
	for range 1 + g.r.IntN(2) {
		var leaf *pb.Span
		leaf, inner = g.leaf(server, down, inner)
		spans = append(spans, leaf)
		inner += us(10 + g.r.IntN(100))
	}
	server.Duration = inner - server.Start
	client.Duration = server.Start + server.Duration + us(100+g.r.IntN(400)) - at
	return spans, at + client.Duration
}

func spanCount(t pb.Traces) int {
	n := 0
	for _, tr := range t {
		n += len(tr)
	}
	return n
}

func tracerHeader(traces int) http.Header {
	return http.Header{
		"Content-Type":                  {"application/msgpack"},
		"Datadog-Meta-Lang":             {"go"},
		"Datadog-Meta-Lang-Version":     {"go1.25.1"},
		"Datadog-Meta-Tracer-Version":   {"v2.2.3"},
		"X-Datadog-Trace-Count":         {strconv.Itoa(traces)},
		"Datadog-Client-Computed-Stats": {"yes"},
	}
}

func tracesV04(t pb.Traces) payload {
	body, err := t.MarshalMsg(nil)
	if err != nil {
		panic(err) // the types are the library's own: it cannot fail
	}
	return payload{Path: "/v0.4/traces", Header: tracerHeader(len(t)), Items: spanCount(t), Body: body, RawSize: len(body)}
}

// tracesV05 encodes v0.5: [strings, traces], every string of a span an
// index into strings and a span a 12-element array. Datadog's libraries
// decode it (Traces.UnmarshalMsgDictionary) but have no encoder.
func tracesV05(t pb.Traces) payload {
	index := map[string]uint32{}
	var strs []string
	ref := func(s string) uint32 {
		i, ok := index[s]
		if !ok {
			i = uint32(len(strs)) //nolint:gosec // a payload's strings are few
			index[s] = i
			strs = append(strs, s)
		}
		return i
	}
	ref("") // an absent string is index 0, as tracers write it
	var spans []byte
	spans = msgp.AppendArrayHeader(spans, uint32(len(t))) //nolint:gosec // 50 traces
	for _, tr := range t {
		spans = msgp.AppendArrayHeader(spans, uint32(len(tr))) //nolint:gosec // a trace's spans are few
		for _, s := range tr {
			spans = msgp.AppendArrayHeader(spans, 12)
			spans = msgp.AppendUint32(spans, ref(s.Service))
			spans = msgp.AppendUint32(spans, ref(s.Name))
			spans = msgp.AppendUint32(spans, ref(s.Resource))
			spans = msgp.AppendUint64(spans, s.TraceID)
			spans = msgp.AppendUint64(spans, s.SpanID)
			spans = msgp.AppendUint64(spans, s.ParentID)
			spans = msgp.AppendInt64(spans, s.Start)
			spans = msgp.AppendInt64(spans, s.Duration)
			spans = msgp.AppendInt32(spans, s.Error)
			spans = msgp.AppendMapHeader(spans, uint32(len(s.Meta))) //nolint:gosec // a span's tags are few
			for _, k := range sortedKeys(s.Meta) {
				spans = msgp.AppendUint32(spans, ref(k))
				spans = msgp.AppendUint32(spans, ref(s.Meta[k]))
			}
			spans = msgp.AppendMapHeader(spans, uint32(len(s.Metrics))) //nolint:gosec // as above
			for _, k := range sortedKeys(s.Metrics) {
				spans = msgp.AppendUint32(spans, ref(k))
				spans = msgp.AppendFloat64(spans, s.Metrics[k])
			}
			spans = msgp.AppendUint32(spans, ref(s.Type))
		}
	}
	body := msgp.AppendArrayHeader(nil, 2)
	body = msgp.AppendArrayHeader(body, uint32(len(strs))) //nolint:gosec // bounded by the spans' strings
	for _, s := range strs {
		body = msgp.AppendString(body, s)
	}
	body = append(body, spans...)
	return payload{Path: "/v0.5/traces", Header: tracerHeader(len(t)), Items: spanCount(t), Body: body, RawSize: len(body)}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// agentTraces is what the Datadog Agent forwards: tracer payloads of
// chunks, each chunk a trace with its sampling priority.
func (g *gen) agentTraces(tracers, perTracer int) payload {
	p := &pb.AgentPayload{HostName: g.pick(hosts), Env: "prod", AgentVersion: "7.70.0", TargetTPS: 10, ErrorTPS: 10}
	items := 0
	for range tracers {
		tp := &pb.TracerPayload{
			ContainerID: fmt.Sprintf("%064x", g.r.Uint64()), LanguageName: "go", LanguageVersion: "go1.25.1",
			TracerVersion: "v2.2.3", RuntimeID: fmt.Sprintf("%032x", g.r.Uint64()), Env: "prod", Hostname: p.HostName, AppVersion: "2.8.1",
		}
		for _, tr := range g.traces(perTracer) {
			tp.Chunks = append(tp.Chunks, &pb.TraceChunk{Priority: 1, Spans: tr})
			items += len(tr)
		}
		p.TracerPayloads = append(p.TracerPayloads, tp)
	}
	raw, err := p.MarshalVT()
	if err != nil {
		panic(err)
	}
	return payload{Path: "/api/v0.2/traces", Items: items, Body: encoded(raw, "gzip"), RawSize: len(raw), Header: http.Header{
		"Content-Type": {"application/x-protobuf"}, "Content-Encoding": {"gzip"}, "Dd-Api-Key": {apiKey},
		"X-Datadog-Reported-Languages": {"go"},
	}}
}

var metricNames = []struct {
	name string
	typ  gogen.MetricPayload_MetricType
	unit string
}{
	{"system.cpu.user", gogen.MetricPayload_GAUGE, "percent"},
	{"system.mem.used", gogen.MetricPayload_GAUGE, "byte"},
	{"system.net.bytes_rcvd", gogen.MetricPayload_RATE, "byte"},
	{"trace.http.request.hits", gogen.MetricPayload_COUNT, "hit"},
	{"trace.http.request.errors", gogen.MetricPayload_COUNT, "error"},
	{"shop.checkout.latency", gogen.MetricPayload_GAUGE, "millisecond"},
	{"kubernetes.cpu.usage.total", gogen.MetricPayload_GAUGE, "nanocore"},
	{"postgresql.rows_fetched", gogen.MetricPayload_RATE, "row"},
}

func (g *gen) seriesTags(i int) []string {
	return []string{
		"env:prod", "service:" + services[i%len(services)], "version:2.8.1",
		"availability-zone:eu-west-1" + string(rune('a'+i%3)), "kube_namespace:shop", "pod_name:" + services[i%len(services)] + "-" + strconv.Itoa(i%40),
	}
}

// seriesV2 is the Agent's metric intake: MetricPayload protobuf.
func (g *gen) seriesV2(series, points int, encoding string) payload {
	p := &gogen.MetricPayload{}
	ts := g.tick(10 * time.Second).Unix()
	for i := range series {
		m := metricNames[i%len(metricNames)]
		s := &gogen.MetricPayload_MetricSeries{
			Metric: m.name, Type: m.typ, Unit: m.unit, Tags: g.seriesTags(i),
			Resources: []*gogen.MetricPayload_Resource{{Type: "host", Name: hosts[i%len(hosts)]}}, SourceTypeName: "System",
		}
		if m.typ != gogen.MetricPayload_GAUGE {
			s.Interval = 10
		}
		for j := range points {
			s.Points = append(s.Points, &gogen.MetricPayload_MetricPoint{Timestamp: ts - int64(10*(points-1-j)), Value: float64(g.r.IntN(100000)) / 100})
		}
		p.Series = append(p.Series, s)
	}
	raw, err := p.Marshal()
	if err != nil {
		panic(err)
	}
	h := http.Header{"Content-Type": {"application/x-protobuf"}, "Dd-Api-Key": {apiKey}, "Dd-Agent-Version": {"7.70.0"}}
	body := encoded(raw, encoding)
	h.Set("Content-Encoding", encoding)
	return payload{Path: "/api/v2/series", Header: h, Items: series * points, Body: body, RawSize: len(raw)}
}

// seriesV1 is the older JSON intake, still sent by DogStatsD clients and
// older Agents.
func (g *gen) seriesV1(series, points int) payload {
	type s struct {
		Metric   string       `json:"metric"`
		Points   [][2]float64 `json:"points"`
		Tags     []string     `json:"tags"`
		Host     string       `json:"host"`
		Type     string       `json:"type"`
		Interval int          `json:"interval,omitempty"`
	}
	ts := g.tick(10 * time.Second).Unix()
	all := make([]s, series)
	for i := range all {
		m := metricNames[i%len(metricNames)]
		typ := map[gogen.MetricPayload_MetricType]string{gogen.MetricPayload_GAUGE: "gauge", gogen.MetricPayload_RATE: "rate", gogen.MetricPayload_COUNT: "count"}[m.typ]
		all[i] = s{Metric: m.name, Tags: g.seriesTags(i), Host: hosts[i%len(hosts)], Type: typ}
		if typ != "gauge" {
			all[i].Interval = 10
		}
		for j := range points {
			all[i].Points = append(all[i].Points, [2]float64{float64(ts - int64(10*(points-1-j))), float64(g.r.IntN(100000)) / 100})
		}
	}
	raw, _ := json.Marshal(map[string]any{"series": all})
	return payload{Path: "/api/v1/series", Items: series * points, Body: encoded(raw, "gzip"), RawSize: len(raw), Header: http.Header{
		"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}, "Dd-Api-Key": {apiKey},
	}}
}

// logRecord is one record of the logs intake, as the Agent forwards it:
// plain lines, JSON lines (which the receiver parses), some with the
// trace they belong to.
func (g *gen) logRecord() map[string]any {
	svc := g.pick(services)
	ts := g.tick(time.Duration(g.r.IntN(3)) * time.Millisecond)
	status := []string{"info", "info", "info", "info", "warn", "error", "debug"}[g.r.IntN(7)]
	var msg string
	switch g.r.IntN(3) {
	case 0:
		b, _ := json.Marshal(map[string]any{
			"level": status, "msg": "request served", "route": endpoints[g.r.IntN(len(endpoints))].route,
			"status": 200, "duration_ms": g.r.IntN(900), "dd": map[string]string{"trace_id": strconv.FormatUint(g.r.Uint64(), 10), "span_id": strconv.FormatUint(g.r.Uint64(), 10)},
		})
		msg = string(b)
	case 1:
		msg = fmt.Sprintf(`10.0.%d.%d - - [%s] "GET /v1/items/%d HTTP/1.1" 200 %d "-" "Mozilla/5.0"`,
			g.r.IntN(8), g.r.IntN(255), ts.Format("02/Jan/2006:15:04:05 -0700"), g.r.IntN(100000), g.r.IntN(40000))
	default:
		if status == "error" {
			msg = "payment declined for invoice " + strconv.Itoa(g.r.IntN(1e6)) + ": card_expired"
		} else {
			msg = "cache refreshed: " + strconv.Itoa(g.r.IntN(5000)) + " keys in " + strconv.Itoa(g.r.IntN(300)) + "ms"
		}
	}
	return map[string]any{
		"message": msg, "status": status, "timestamp": ts.UnixMilli(), "hostname": g.pick(hosts), "service": svc,
		"ddsource": "go", "ddtags": "env:prod,version:2.8.1,kube_namespace:shop,pod_name:" + svc + "-" + strconv.Itoa(g.r.IntN(40)),
	}
}

func (g *gen) logs(n int, encoding string) payload {
	recs := make([]map[string]any, n)
	for i := range recs {
		recs[i] = g.logRecord()
	}
	raw, _ := json.Marshal(recs)
	body := encoded(raw, encoding)
	return payload{Path: "/api/v2/logs", Items: n, Body: body, RawSize: len(raw), Header: http.Header{
		"Content-Type": {"application/json"}, "Content-Encoding": {encoding}, "Dd-Api-Key": {apiKey}, "Dd-Evp-Origin": {"agent-json"},
	}}
}

// otlpTraces sends the same traces as OTLP, grouped by service.
func otlpTraces(t pb.Traces) payload {
	td := ptrace.NewTraces()
	bySvc := map[string]ptrace.SpanSlice{}
	for _, tr := range t {
		for _, s := range tr {
			ss, ok := bySvc[s.Service]
			if !ok {
				rs := td.ResourceSpans().AppendEmpty()
				rs.Resource().Attributes().PutStr("service.name", s.Service)
				rs.Resource().Attributes().PutStr("deployment.environment.name", "prod")
				sc := rs.ScopeSpans().AppendEmpty()
				sc.Scope().SetName("otelhouse-load")
				ss = sc.Spans()
				bySvc[s.Service] = ss
			}
			sp := ss.AppendEmpty()
			var tid [16]byte
			putUint64(tid[8:], s.TraceID)
			sp.SetTraceID(tid)
			sp.SetSpanID(spanID(s.SpanID))
			if s.ParentID != 0 {
				sp.SetParentSpanID(spanID(s.ParentID))
			}
			sp.SetName(s.Name)
			sp.SetStartTimestamp(pcommon.Timestamp(s.Start))            //nolint:gosec // a clock near now
			sp.SetEndTimestamp(pcommon.Timestamp(s.Start + s.Duration)) //nolint:gosec // as above
			sp.Attributes().PutStr("resource.name", s.Resource)
			for _, k := range sortedKeys(s.Meta) {
				sp.Attributes().PutStr(k, s.Meta[k])
			}
			if s.Error != 0 {
				sp.Status().SetCode(ptrace.StatusCodeError)
			}
		}
	}
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		panic(err)
	}
	return payload{Path: "/v1/traces", Header: otlpHeader(), Items: td.SpanCount(), Body: body, RawSize: len(body)}
}

func (g *gen) otlpLogs(n int) payload {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", g.pick(services))
	rl.Resource().Attributes().PutStr("host.name", g.pick(hosts))
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for range n {
		rec := g.logRecord()
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(pcommon.Timestamp(rec["timestamp"].(int64) * int64(time.Millisecond))) //nolint:gosec // a clock near now
		lr.SetSeverityText(rec["status"].(string))
		lr.Body().SetStr(rec["message"].(string))
		lr.Attributes().PutStr("ddsource", "go")
	}
	body, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		panic(err)
	}
	return payload{Path: "/v1/logs", Header: otlpHeader(), Items: n, Body: body, RawSize: len(body)}
}

// otlpHeader is an OTLP/HTTP exporter's: the ingestion key as a Bearer
// token, as the collector's ingestion auth takes it.
func otlpHeader() http.Header {
	return http.Header{"Content-Type": {"application/x-protobuf"}, "Authorization": {"Bearer " + apiKey}}
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[7-i] = byte(v >> (8 * i))
	}
}

func spanID(v uint64) pcommon.SpanID {
	var id [8]byte
	putUint64(id[:], v)
	return id
}

var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))

// encoded compresses b as a Content-Encoding names it (gzip, deflate or
// zstd), the way the Agent does.
func encoded(b []byte, encoding string) []byte {
	if encoding == "zstd" {
		return zstdEncoder.EncodeAll(b, nil)
	}
	var buf bytes.Buffer
	var w io.WriteCloser
	if encoding == "deflate" {
		w = zlib.NewWriter(&buf)
	} else {
		w = gzip.NewWriter(&buf)
	}
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

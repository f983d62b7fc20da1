package traces

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// Agent is what an AgentPayload says about the Agent that sent it; its
// fields fill what a tracer payload leaves empty.
type Agent struct {
	Hostname, Env, Version string
}

// ScopeName is the instrumentation scope of every translated span.
const ScopeName = "datadog"

// resKey is what makes a ResourceSpans: spans of one tracer payload that
// share service, env, version and host.
type resKey struct{ service, env, version, host string }

// grouper hands out the span slice of a resource, creating the
// ResourceSpans on first use; reset between tracer payloads, whose
// attributes differ. Its budget bounds everything built for the request.
type grouper struct {
	td     ptrace.Traces
	groups map[resKey]ptrace.SpanSlice
	bud    *budget.Budget
	// tagged holds the resource attributes of the container and process
	// tags of payload tp, parsed once per payload rather than per resource.
	tp     *pb.TracerPayload
	tagged [][2]string
}

func newGrouper(bud *budget.Budget) *grouper {
	return &grouper{td: ptrace.NewTraces(), groups: map[resKey]ptrace.SpanSlice{}, bud: bud}
}

func (g *grouper) reset() { clear(g.groups) }

// resourceAttrs is the most attributes fillResource sets.
const resourceAttrs = 10

func (g *grouper) spans(k resKey, tp *pb.TracerPayload) ptrace.SpanSlice {
	if s, ok := g.groups[k]; ok {
		return s
	}
	if g.tp != tp {
		g.tp, g.tagged = tp, taggedResource(tp, g.tagged[:0])
	}
	g.bud.Entries(resourceAttrs + len(g.tagged))
	rs := g.td.ResourceSpans().AppendEmpty()
	fillResource(rs.Resource().Attributes(), k, tp, g.tagged)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName(ScopeName)
	ss.Scope().SetVersion(tp.TracerVersion)
	g.groups[k] = ss.Spans()
	return ss.Spans()
}

// ToTraces translates tracer payloads to pdata: one ResourceSpans per
// (payload, service, env, version, host). It is pure: the same input gives
// the same output, with no state kept between calls. It stops with the
// budget's error once the budget is spent.
func ToTraces(tps []*pb.TracerPayload, agent Agent, bud *budget.Budget) (ptrace.Traces, error) {
	g := newGrouper(bud)
	for _, tp := range tps {
		if tp == nil {
			continue
		}
		g.reset()
		for _, chunk := range tp.Chunks {
			if chunk == nil {
				continue
			}
			high, highOf := chunkTraceIDHigh(chunk.Spans)
			for _, s := range chunk.Spans {
				if s == nil {
					continue
				}
				spans := g.spans(resourceKey(s.Service, s.Meta["env"], s.Meta["version"], s.Meta["_dd.hostname"], tp, agent), tp)
				var h uint64
				if s.TraceID == highOf {
					h = high
				}
				if !bud.Entries(spanValues(s)) {
					return ptrace.Traces{}, bud.Err()
				}
				translateSpan(s, h, spans.AppendEmpty(), bud)
			}
		}
	}
	return g.td, bud.Err()
}

// spanValues is what a span becomes beside itself: attributes, and links
// and events with theirs.
func spanValues(s *pb.Span) int {
	n := len(s.Meta) + len(s.Metrics) + 2
	for _, l := range s.SpanLinks {
		if l != nil {
			n += 3 + len(l.Attributes) // a link is about three values' worth
		}
	}
	for _, e := range s.SpanEvents {
		if e != nil {
			n += 3 + len(e.Attributes)
		}
	}
	return n
}

// resourceKey is the resource a span goes to: its own env, version and
// host, else its tracer payload's, else the Agent's.
func resourceKey(service, env, version, host string, tp *pb.TracerPayload, agent Agent) resKey {
	return resKey{
		service: service,
		env:     first(env, tp.Env, agent.Env),
		version: first(version, tp.AppVersion, agent.Version),
		host:    first(host, tp.Hostname, agent.Hostname),
	}
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func fillResource(attrs pcommon.Map, k resKey, tp *pb.TracerPayload, tagged [][2]string) {
	attrs.EnsureCapacity(resourceAttrs + len(tagged))
	tags.PutNonEmpty(attrs, tags.Service, k.service)
	tags.PutNonEmpty(attrs, tags.Env, k.env)
	tags.PutNonEmpty(attrs, tags.Version, k.version)
	tags.PutNonEmpty(attrs, tags.Host, k.host)
	attrs.PutStr("telemetry.sdk.name", "datadog")
	tags.PutNonEmpty(attrs, "telemetry.sdk.language", tp.LanguageName)
	tags.PutNonEmpty(attrs, "telemetry.sdk.version", tp.TracerVersion)
	tags.PutNonEmpty(attrs, "process.runtime.version", tp.LanguageVersion)
	tags.PutNonEmpty(attrs, "container.id", tp.ContainerID)
	for _, kv := range tagged {
		if _, exists := attrs.Get(kv[0]); !exists {
			attrs.PutStr(kv[0], kv[1])
		}
	}
}

// taggedResource appends to dst the resource attributes of the container
// and process tags the trace-agent attached to tp, the first of each key.
func taggedResource(tp *pb.TracerPayload, dst [][2]string) [][2]string {
	for _, key := range []string{"_dd.tags.container", "_dd.tags.process"} {
		tags.Each(tp.Tags[key], func(dk, v string) {
			rk, ok := tags.ResourceKey(dk)
			if !ok || v == "" {
				return
			}
			for _, kv := range dst {
				if kv[0] == rk {
					return
				}
			}
			dst = append(dst, [2]string{rk, v})
		})
	}
	return dst
}

// chunkSpan is a span a decoder has translated before seeing its whole
// chunk, kept until the chunk's `_dd.p.tid` is known.
type chunkSpan struct {
	span     ptrace.Span
	low      uint64
	fullID   bool
	tidValue string
}

// applyTraceIDHigh gives every span of a chunk that shares the carrier's
// low id the upper half found in `_dd.p.tid`, as ToTraces does, for the
// paths that translate a span before they have seen its whole chunk.
func applyTraceIDHigh(chunk []chunkSpan) {
	for _, c := range chunk {
		if c.tidValue == "" {
			continue
		}
		high, err := strconv.ParseUint(c.tidValue, 16, 64)
		if err != nil {
			continue
		}
		for _, o := range chunk {
			if o.low == c.low && !o.fullID {
				o.span.SetTraceID(traceID(high, o.low))
			}
		}
		return
	}
}

// isFullTraceID reports whether finish takes a span's trace id whole from
// its otel.trace_id tag: 32 hex digits.
func isFullTraceID(v string) bool {
	if len(v) != 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// chunkTraceIDHigh finds the upper 64 bits of a chunk's 128-bit trace id:
// tracers put `_dd.p.tid` on one span of the chunk only (usually the first
// or the root), so the whole chunk is scanned. It returns the high half and
// the low trace id it belongs to.
func chunkTraceIDHigh(spans []*pb.Span) (high, low uint64) {
	for _, s := range spans {
		if s == nil {
			continue
		}
		if v, ok := s.Meta["_dd.p.tid"]; ok {
			if h, err := strconv.ParseUint(v, 16, 64); err == nil {
				return h, s.TraceID
			}
		}
	}
	return 0, 0
}

func traceID(high, low uint64) pcommon.TraceID {
	var id pcommon.TraceID
	binary.BigEndian.PutUint64(id[:8], high)
	binary.BigEndian.PutUint64(id[8:], low)
	return id
}

func spanID(id uint64) pcommon.SpanID {
	var s pcommon.SpanID
	if id != 0 {
		binary.BigEndian.PutUint64(s[:], id)
	}
	return s
}

// special holds the meta values that are mapped rather than copied:
// both decoding paths fill it, and finish applies it, so the rules live in
// one place.
type special struct {
	env, version, host                   string
	kind, otelTraceID                    string
	statusCode, statusDesc               string
	errMsg, errMsgAlt, errType, errStack string
	errHandlingStack                     string
	tid, links, events                   string
}

// note records a meta entry in sp if it is one of the mapped keys.
func (sp *special) note(k, v string) {
	switch k {
	case "env":
		sp.env = v
	case "version":
		sp.version = v
	case "_dd.hostname":
		sp.host = v
	case "span.kind":
		sp.kind = v
	case "otel.trace_id":
		sp.otelTraceID = v
	case "otel.status_code":
		sp.statusCode = v
	case "otel.status_description":
		sp.statusDesc = v
	case "error.message":
		sp.errMsg = v
	case "error.msg":
		sp.errMsgAlt = v
	case "error.type":
		sp.errType = v
	case "error.stack":
		sp.errStack = v
	case "error.handling_stack":
		// dd-trace-go v2 puts the stack where the error was captured here
		// when the error itself carries none.
		sp.errHandlingStack = v
	case "_dd.p.tid":
		sp.tid = v
	case "_dd.span_links":
		sp.links = v
	case "events":
		sp.events = v
	}
}

// scalars are a span's own fields, whatever format carried them.
type scalars struct {
	name, resource, typ       string
	traceID, spanID, parentID uint64
	start, duration           int64
	error                     int32
}

func translateSpan(s *pb.Span, high uint64, out ptrace.Span, bud *budget.Budget) {
	var sp special
	attrs := out.Attributes()
	attrmap.Reserve(attrs, len(s.Meta)+len(s.Metrics)+2)
	w := attrmap.NewWriter(attrs)
	for k, v := range s.Meta {
		sp.note(k, v)
		if keepMeta(k) {
			w.PutStr(k, v)
		}
	}
	for k, v := range s.Metrics {
		putMetric(&w, k, v)
	}
	w.Flush()
	putOwnFields(attrs, s.Resource, s.Type)
	for _, l := range s.SpanLinks {
		if l != nil {
			addLink(out.Links(), l.TraceID, l.TraceIDHigh, l.SpanID, l.Tracestate, l.Flags, l.Attributes)
		}
	}
	for _, e := range s.SpanEvents {
		if e != nil {
			addEvent(out.Events(), e)
		}
	}
	finish(out, &sp, scalars{
		name: s.Name, resource: s.Resource, typ: s.Type, traceID: s.TraceID, spanID: s.SpanID,
		parentID: s.ParentID, start: s.Start, duration: s.Duration, error: s.Error,
	}, high, bud)
}

// putOwnFields sets the attributes of the span's own resource and type
// fields last, so that a tag of the same name (OTel-bridged tracers send
// resource.name) does not stand in for what Datadog itself shows.
func putOwnFields(attrs pcommon.Map, resource, typ string) {
	tags.PutNonEmpty(attrs, "resource.name", resource)
	tags.PutNonEmpty(attrs, "span.type", typ)
}

func putMetric(w *attrmap.Writer, k string, v float64) {
	switch {
	case k == "_sampling_priority_v1":
		w.Put("sampling.priority").SetInt(int64(v))
	case isInternal(k):
	default:
		w.Put(k).SetDouble(v)
	}
}

// finish sets everything of a span that is derived rather than copied:
// ids, times, kind, status, exception event, and the links and events
// older tracers carry as JSON meta (within the budget).
func finish(out ptrace.Span, sp *special, sc scalars, high uint64, bud *budget.Budget) {
	tid := traceID(high, sc.traceID)
	// Spans that began life in OpenTelemetry carry their full id.
	if v := sp.otelTraceID; len(v) == 32 {
		var full pcommon.TraceID
		if _, err := hex.Decode(full[:], []byte(v)); err == nil {
			tid = full
		}
	}
	out.SetTraceID(tid)
	out.SetSpanID(spanID(sc.spanID))
	out.SetParentSpanID(spanID(sc.parentID))
	out.SetName(sc.name)
	start, end, adjusted := spanTimes(sc.start, sc.duration, clock)
	out.SetStartTimestamp(start)
	out.SetEndTimestamp(end)
	if adjusted != "" {
		out.Attributes().PutStr(TimeAdjustedKey, adjusted)
	}
	out.SetKind(spanKind(sp.kind, sc.typ))
	setStatus(out, sp, sc)
	if sp.links != "" && bud.JSONText(sp.links, budget.Node) == nil {
		addJSONLinks(out.Links(), sp.links)
	}
	if sp.events != "" && bud.JSONText(sp.events, budget.Node) == nil {
		addJSONEvents(out.Events(), sp.events)
	}
}

// clock gives the receive time a span that started before 1970 is moved
// to; tests that compare two translations of one body fix it.
var clock = time.Now

// TimeAdjustedKey marks a span whose times were not storable as sent,
// with the reasons (comma-separated): negative_duration, start_before_1970,
// end_after_2262.
const TimeAdjustedKey = "datadog.span.time_adjusted"

// spanTimes is a span's start and end as the store can hold them
// (DateTime64(9): nanoseconds since 1970 in an Int64), following the
// trace-agent's normalizer, which Datadog's intake sees spans through:
// a negative duration becomes 0 (end = start, not a made-up length); a
// start before 1970 becomes the receive time less the duration; a
// duration that would end past 2262-04-11 becomes 0. Before, a negative
// duration stored an end before the start, and both of the others wrapped
// to 1677.
func spanTimes(start, duration int64, now func() time.Time) (s, e pcommon.Timestamp, adjusted string) {
	var why []string
	if duration < 0 {
		duration = 0
		why = append(why, "negative_duration")
	}
	if start < 0 {
		start = max(now().UnixNano()-duration, 0)
		why = append(why, "start_before_1970")
	}
	if duration > math.MaxInt64-start {
		duration = 0
		why = append(why, "end_after_2262")
	}
	return pcommon.Timestamp(start), pcommon.Timestamp(start + duration), strings.Join(why, ",")
}

// keepMeta tells which meta keys become span attributes: Datadog-internal
// keys and the ones mapped elsewhere (resource, ids, kind, status, links,
// events) are left out on purpose.
func keepMeta(k string) bool {
	switch k {
	case "env", "version", "span.kind", "otel.trace_id", "otel.status_code", "otel.status_description",
		"events":
		return false
	}
	return !isInternal(k)
}

// isInternal: `_dd.*` (propagation, sampling decisions, hostname, origin…),
// `_dd1.*` and the `_sample_rate`/`_top_level` bookkeeping tracers send.
func isInternal(k string) bool {
	return strings.HasPrefix(k, "_dd") || k == "_sample_rate" || k == "_top_level" || k == "_sampling_priority_v1"
}

func spanKind(kind, typ string) ptrace.SpanKind {
	switch strings.ToLower(kind) {
	case "server":
		return ptrace.SpanKindServer
	case "client":
		return ptrace.SpanKindClient
	case "producer":
		return ptrace.SpanKindProducer
	case "consumer":
		return ptrace.SpanKindConsumer
	case "internal":
		return ptrace.SpanKindInternal
	}
	switch typ {
	case "web", "serverless":
		return ptrace.SpanKindServer
	case "http", "grpc", "db", "sql", "cache", "redis", "memcached", "cassandra", "elasticsearch",
		"mongodb", "leveldb", "dns", "aerospike", "opensearch", "graphql":
		return ptrace.SpanKindClient
	case "queue", "worker":
		return ptrace.SpanKindConsumer
	case "custom", "template":
		return ptrace.SpanKindInternal
	}
	return ptrace.SpanKindUnspecified
}

func setStatus(out ptrace.Span, sp *special, sc scalars) {
	if sc.error != 0 {
		st := out.Status()
		st.SetCode(ptrace.StatusCodeError)
		msg := first(sp.errMsg, sp.errMsgAlt, sp.statusDesc)
		st.SetMessage(msg)
		ev := out.Events().AppendEmpty()
		ev.SetName("exception")
		ev.SetTimestamp(out.EndTimestamp())
		ea := ev.Attributes()
		tags.PutNonEmpty(ea, "exception.type", sp.errType)
		tags.PutNonEmpty(ea, "exception.message", msg)
		tags.PutNonEmpty(ea, "exception.stacktrace", first(sp.errStack, sp.errHandlingStack))
		return
	}
	switch sp.statusCode {
	case "Ok", "OK", "STATUS_CODE_OK":
		out.Status().SetCode(ptrace.StatusCodeOk)
	}
}

func addLink(links ptrace.SpanLinkSlice, low, high, sid uint64, tracestate string, flags uint32, attrs map[string]string) {
	l := links.AppendEmpty()
	l.SetTraceID(traceID(high, low))
	l.SetSpanID(spanID(sid))
	l.TraceState().FromRaw(tracestate)
	// Datadog sets bit 31 to say "flags present"; OTel keeps the W3C bits.
	l.SetFlags(flags &^ (1 << 31))
	w := attrmap.NewWriter(l.Attributes())
	for k, v := range attrs {
		w.PutStr(k, v)
	}
	w.Flush()
}

// jsonLink is one entry of the `_dd.span_links` meta that tracers use when
// the agent does not take native span links: ids are hex strings.
type jsonLink struct {
	TraceID    string            `json:"trace_id"`
	TraceIDHi  string            `json:"trace_id_high"`
	SpanID     string            `json:"span_id"`
	Attributes map[string]string `json:"attributes"`
	Tracestate string            `json:"tracestate"`
	Flags      uint32            `json:"flags"`
}

func addJSONLinks(links ptrace.SpanLinkSlice, raw string) {
	var ls []jsonLink
	if json.Unmarshal([]byte(raw), &ls) != nil {
		return
	}
	for _, l := range ls {
		tid := l.TraceID
		var high uint64
		if len(tid) > 16 {
			high, _ = strconv.ParseUint(tid[:len(tid)-16], 16, 64)
			tid = tid[len(tid)-16:]
		} else if l.TraceIDHi != "" {
			high, _ = strconv.ParseUint(l.TraceIDHi, 16, 64)
		}
		low, err1 := strconv.ParseUint(tid, 16, 64)
		sid, err2 := strconv.ParseUint(l.SpanID, 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		addLink(links, low, high, sid, l.Tracestate, l.Flags, l.Attributes)
	}
}

func addEvent(events ptrace.SpanEventSlice, e *pb.SpanEvent) {
	ev := events.AppendEmpty()
	ev.SetName(e.Name)
	ev.SetTimestamp(pcommon.Timestamp(e.TimeUnixNano))
	w := attrmap.NewWriter(ev.Attributes())
	for k, v := range e.Attributes {
		if v != nil {
			putAnyValue(w.Put(k), v)
		}
	}
	w.Flush()
}

func putAnyValue(dst pcommon.Value, v *pb.AttributeAnyValue) {
	switch v.Type {
	case pb.AttributeAnyValue_STRING_VALUE:
		dst.SetStr(v.StringValue)
	case pb.AttributeAnyValue_BOOL_VALUE:
		dst.SetBool(v.BoolValue)
	case pb.AttributeAnyValue_INT_VALUE:
		dst.SetInt(v.IntValue)
	case pb.AttributeAnyValue_DOUBLE_VALUE:
		dst.SetDouble(v.DoubleValue)
	case pb.AttributeAnyValue_ARRAY_VALUE:
		sl := dst.SetEmptySlice()
		if v.ArrayValue == nil {
			return
		}
		for _, av := range v.ArrayValue.Values {
			if av == nil {
				continue
			}
			switch av.Type {
			case pb.AttributeArrayValue_STRING_VALUE:
				sl.AppendEmpty().SetStr(av.StringValue)
			case pb.AttributeArrayValue_BOOL_VALUE:
				sl.AppendEmpty().SetBool(av.BoolValue)
			case pb.AttributeArrayValue_INT_VALUE:
				sl.AppendEmpty().SetInt(av.IntValue)
			case pb.AttributeArrayValue_DOUBLE_VALUE:
				sl.AppendEmpty().SetDouble(av.DoubleValue)
			}
		}
	}
}

// jsonEvent is one entry of the `events` meta older tracers write.
type jsonEvent struct {
	Name         string         `json:"name"`
	TimeUnixNano uint64         `json:"time_unix_nano"`
	Attributes   map[string]any `json:"attributes"`
}

func addJSONEvents(events ptrace.SpanEventSlice, raw string) {
	var es []jsonEvent
	if json.Unmarshal([]byte(raw), &es) != nil {
		return
	}
	for _, e := range es {
		ev := events.AppendEmpty()
		ev.SetName(e.Name)
		ev.SetTimestamp(pcommon.Timestamp(e.TimeUnixNano))
		_ = ev.Attributes().FromRaw(e.Attributes)
	}
}

package traces

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace/idx"
	"github.com/tinylib/msgp/msgp"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/intern"
)

// The v0.3/v0.4 msgpack body is what tracers send most; decoding it
// straight into pdata skips the pb.Span maps and most string copies (keys
// and short repeated values are interned per request). It accepts what
// Datadog's own decoder accepts (nil for strings, any int width for
// numbers, bin for str) and yields the same spans: an equivalence test and
// fuzz target hold it to pb.Traces.UnmarshalMsg + ToTraces.

// maxInterned is the longest value worth interning: tag values such as
// env, http.method, status codes and runtime ids repeat; URLs rarely do.
const maxInterned = 64

type msgpackDecoder struct {
	tracer   *pb.TracerPayload // the header fields, for the resource
	g        *grouper
	interned *intern.Table
	scratch  ptrace.Span
	chunk    []chunkSpan
}

// TranslateTracer decodes and translates what a tracer posts to
// /v0.3/traces../v0.7/traces in one step, by the fastest path for the
// format, within the request's budget.
func TranslateTracer(version, contentType string, body []byte, t Tracer, bud *budget.Budget) (ptrace.Traces, error) {
	if (version == "v0.3" || version == "v0.4") && len(body) > 0 && !isJSON(contentType) {
		return decodeMsgpackV04(body, t, bud)
	}
	if version == "v1.0" {
		tp, err := DecodeV1(body, t, bud)
		if err != nil {
			return ptrace.Traces{}, err
		}
		return V1ToTraces([]*idx.InternalTracerPayload{tp}, Agent{}, bud)
	}
	tp, err := DecodeTracer(version, contentType, body, t, bud)
	if err != nil {
		return ptrace.Traces{}, err
	}
	return ToTraces([]*pb.TracerPayload{tp}, Agent{}, bud)
}

// msgpackTables keeps the decoder's intern tables between requests.
var msgpackTables = intern.NewPool(validString)

func decodeMsgpackV04(body []byte, t Tracer, bud *budget.Budget) (ptrace.Traces, error) {
	d := msgpackDecoder{
		g: newGrouper(bud), interned: msgpackTables.Get(), scratch: ptrace.NewSpan(),
		tracer: &pb.TracerPayload{
			LanguageName: t.Lang, LanguageVersion: t.LangVersion,
			TracerVersion: t.TracerVersion, ContainerID: t.ContainerID,
		},
	}
	defer msgpackTables.Put(d.interned)
	if err := d.traces(body); err != nil {
		if over := bud.Err(); over != nil {
			return ptrace.Traces{}, over
		}
		return ptrace.Traces{}, fmt.Errorf("decoding v0.4 msgpack traces: %w", err)
	}
	return d.g.td, bud.Err()
}

// arrayHeader reads an array header whose length the rest of the body can
// hold (every element takes at least one byte), so no length a payload
// claims can make us allocate more than the body's size.
func arrayHeader(b []byte) (uint32, []byte, error) {
	if msgp.IsNil(b) {
		b, err := msgp.ReadNilBytes(b)
		return 0, b, err
	}
	n, b, err := msgp.ReadArrayHeaderBytes(b)
	if err == nil && int(n) > len(b) {
		err = msgp.ErrShortBytes
	}
	return n, b, err
}

func mapHeader(b []byte) (uint32, []byte, error) {
	if msgp.IsNil(b) {
		b, err := msgp.ReadNilBytes(b)
		return 0, b, err
	}
	n, b, err := msgp.ReadMapHeaderBytes(b)
	if err == nil && int(n) > len(b)/2 {
		err = msgp.ErrShortBytes
	}
	return n, b, err
}

func (d *msgpackDecoder) traces(b []byte) error {
	n, b, err := arrayHeader(b)
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		var m uint32
		if m, b, err = arrayHeader(b); err != nil {
			return err
		}
		d.chunk = d.chunk[:0]
		for j := uint32(0); j < m; j++ {
			if b, err = d.span(b); err != nil {
				return fmt.Errorf("trace %d span %d: %w", i, j, err)
			}
		}
		applyTraceIDHigh(d.chunk)
	}
	return nil // trailing bytes are ignored, as by Datadog's decoder
}

func (d *msgpackDecoder) span(b []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		return msgp.ReadNilBytes(b)
	}
	n, b, err := mapHeader(b)
	if err != nil {
		return b, err
	}
	if !d.g.bud.Entries(2) { // the span, resource.name and span.type
		return b, d.g.bud.Err()
	}
	out := d.scratch
	attrs := out.Attributes()
	var sp special
	var sc scalars
	var service string
	var key []byte
	for i := uint32(0); i < n; i++ {
		if key, b, err = msgp.ReadMapKeyZC(b); err != nil {
			return b, err
		}
		switch string(key) {
		case "service":
			service, b, err = d.str(b)
		case "name":
			sc.name, b, err = d.str(b)
		case "resource":
			sc.resource, b, err = d.str(b)
		case "type":
			sc.typ, b, err = d.str(b)
		case "trace_id":
			sc.traceID, b, err = readUint64(b)
		case "span_id":
			sc.spanID, b, err = readUint64(b)
		case "parent_id":
			sc.parentID, b, err = readUint64(b)
		case "start":
			sc.start, b, err = readInt64(b)
		case "duration":
			sc.duration, b, err = readInt64(b)
		case "error":
			var e int64
			e, b, err = readInt64(b)
			sc.error = int32(e)
		case "meta":
			b, err = d.meta(b, attrs, &sp)
		case "metrics":
			b, err = d.metrics(b, attrs)
		case "span_links":
			b, err = d.links(b, out)
		case "span_events":
			b, err = d.events(b, out)
		default: // meta_struct and anything newer: not mapped
			b, err = msgp.Skip(b)
		}
		if err != nil {
			return b, fmt.Errorf("field %q: %w", key, err)
		}
	}
	putOwnFields(attrs, sc.resource, sc.typ)
	finish(out, &sp, sc, 0, d.g.bud)

	spans := d.g.spans(resourceKey(service, sp.env, sp.version, sp.host, d.tracer, Agent{}), d.tracer)
	dst := spans.AppendEmpty()
	out.MoveTo(dst)
	d.chunk = append(d.chunk, chunkSpan{span: dst, low: sc.traceID, fullID: isFullTraceID(sp.otelTraceID), tidValue: sp.tid})
	return b, nil
}

func (d *msgpackDecoder) meta(b []byte, attrs pcommon.Map, sp *special) ([]byte, error) {
	n, b, err := mapHeader(b)
	if err != nil {
		return b, err
	}
	if !d.g.bud.Values(int(n)) {
		return b, d.g.bud.Err()
	}
	attrmap.Reserve(attrs, int(n)+4)
	w := attrmap.NewWriter(attrs)
	defer w.Flush()
	var kb, vb []byte
	for i := uint32(0); i < n; i++ {
		if kb, b, err = readStrBytes(b); err != nil {
			return b, err
		}
		if vb, b, err = readStrBytes(b); err != nil {
			return b, err
		}
		k := d.intern(kb)
		v := d.value(vb)
		sp.note(k, v)
		if keepMeta(k) {
			w.PutStr(k, v)
		}
	}
	return b, nil
}

func (d *msgpackDecoder) metrics(b []byte, attrs pcommon.Map) ([]byte, error) {
	n, b, err := mapHeader(b)
	if err != nil {
		return b, err
	}
	if !d.g.bud.Values(int(n)) {
		return b, d.g.bud.Err()
	}
	w := attrmap.NewWriter(attrs)
	defer w.Flush()
	var kb []byte
	var v float64
	for i := uint32(0); i < n; i++ {
		if kb, b, err = readStrBytes(b); err != nil {
			return b, err
		}
		if v, b, err = readFloat64(b); err != nil {
			return b, err
		}
		putMetric(&w, d.intern(kb), v)
	}
	return b, nil
}

// eachElement calls fn for every non-nil element of an array, fn reading
// the element and returning what follows it.
func eachElement(b []byte, fn func([]byte) ([]byte, error)) ([]byte, error) {
	n, b, err := arrayHeader(b)
	for i := uint32(0); err == nil && i < n; i++ {
		if msgp.IsNil(b) {
			b, err = msgp.ReadNilBytes(b)
		} else {
			b, err = fn(b)
		}
	}
	return b, err
}

func (d *msgpackDecoder) links(b []byte, out ptrace.Span) ([]byte, error) {
	return eachElement(b, func(b []byte) ([]byte, error) {
		if err := d.g.bud.Msgpack(b); err != nil { // what decoding it builds
			return b, err
		}
		var l pb.SpanLink
		b, err := l.UnmarshalMsg(b)
		if err == nil && !d.g.bud.Entries(len(l.Attributes)) {
			err = d.g.bud.Err()
		}
		if err == nil {
			addLink(out.Links(), l.TraceID, l.TraceIDHigh, l.SpanID, l.Tracestate, l.Flags, l.Attributes)
		}
		return b, err
	})
}

func (d *msgpackDecoder) events(b []byte, out ptrace.Span) ([]byte, error) {
	return eachElement(b, func(b []byte) ([]byte, error) {
		if err := d.g.bud.Msgpack(b); err != nil { // what decoding it builds
			return b, err
		}
		var e pb.SpanEvent
		b, err := e.UnmarshalMsg(b)
		if err == nil && !d.g.bud.Entries(len(e.Attributes)) {
			err = d.g.bud.Err()
		}
		if err == nil {
			addEvent(out.Events(), &e)
		}
		return b, err
	})
}

func (d *msgpackDecoder) str(b []byte) (string, []byte, error) {
	v, b, err := readStrBytes(b)
	if err != nil {
		return "", b, err
	}
	return d.intern(v), b, nil
}

// intern returns v as a string allocated once per request.
func (d *msgpackDecoder) intern(v []byte) string { return d.interned.String(v) }

func (d *msgpackDecoder) value(v []byte) string {
	if len(v) <= maxInterned {
		return d.intern(v)
	}
	return validString(v)
}

// validString copies v, replacing each invalid UTF-8 byte with U+FFFD as
// Datadog's decoder does.
func validString(v []byte) string {
	if utf8.Valid(v) {
		return string(v)
	}
	var sb strings.Builder
	sb.Grow(len(v) + 8)
	for len(v) > 0 {
		r, size := utf8.DecodeRune(v)
		sb.WriteRune(r)
		v = v[size:]
	}
	return sb.String()
}

// readStrBytes reads a str, bin or nil (as empty) without copying.
func readStrBytes(b []byte) ([]byte, []byte, error) {
	switch msgp.NextType(b) {
	case msgp.NilType:
		b, err := msgp.ReadNilBytes(b)
		return nil, b, err
	case msgp.BinType:
		return msgp.ReadBytesZC(b)
	case msgp.StrType:
		return msgp.ReadStringZC(b)
	default:
		return nil, b, msgp.TypeError{Encoded: msgp.NextType(b), Method: msgp.StrType}
	}
}

// readUint64 accepts any integer encoding (tracers shrink them) and nil.
func readUint64(b []byte) (uint64, []byte, error) {
	switch msgp.NextType(b) {
	case msgp.NilType:
		b, err := msgp.ReadNilBytes(b)
		return 0, b, err
	case msgp.IntType:
		v, b, err := msgp.ReadInt64Bytes(b)
		return uint64(v), b, err
	case msgp.UintType:
		return msgp.ReadUint64Bytes(b)
	default:
		return 0, b, msgp.TypeError{Encoded: msgp.NextType(b), Method: msgp.UintType}
	}
}

func readInt64(b []byte) (int64, []byte, error) {
	switch msgp.NextType(b) {
	case msgp.NilType:
		b, err := msgp.ReadNilBytes(b)
		return 0, b, err
	case msgp.IntType:
		return msgp.ReadInt64Bytes(b)
	case msgp.UintType:
		v, b, err := msgp.ReadUint64Bytes(b)
		if v > math.MaxInt64 {
			v = 0
		}
		return int64(v), b, err
	default:
		return 0, b, msgp.TypeError{Encoded: msgp.NextType(b), Method: msgp.IntType}
	}
}

func readFloat64(b []byte) (float64, []byte, error) {
	switch msgp.NextType(b) {
	case msgp.NilType:
		b, err := msgp.ReadNilBytes(b)
		return 0, b, err
	case msgp.IntType:
		v, b, err := msgp.ReadInt64Bytes(b)
		return float64(v), b, err
	case msgp.UintType:
		v, b, err := msgp.ReadUint64Bytes(b)
		return float64(v), b, err
	case msgp.Float32Type:
		v, b, err := msgp.ReadFloat32Bytes(b)
		return float64(v), b, err
	default:
		return msgp.ReadFloat64Bytes(b)
	}
}

package traces

import (
	"errors"
	"fmt"
	"math"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/intern"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/pbwire"
)

// The AgentPayload a trace-agent posts to /api/v0.2/traces carries every
// span of every tracer behind an Agent. Decoding it straight into pdata
// skips the pb structs, whose Meta and Metrics maps cost more than the
// translation itself. It reads the wire as Datadog's generated decoder
// (UnmarshalVT) does, quirks included, so it accepts what that accepts and
// yields the same spans: an equivalence test and fuzz target hold it to
// DecodeAgent + AgentToTraces. Payloads with v1.0 (idx) tracer payloads,
// still rare, take that reference path whole.

// agentTables keeps the decoder's intern tables between requests.
var agentTables = intern.NewPool(nil)

// TranslateAgent decodes and translates an AgentPayload within bud.
func TranslateAgent(body []byte, bud *budget.Budget) (ptrace.Traces, error) {
	if len(body) == 0 {
		return ptrace.Traces{}, errors.New("empty AgentPayload")
	}
	d := agentDecoder{g: newGrouper(bud), interned: agentTables.Get(), scratch: ptrace.NewSpan()}
	defer agentTables.Put(d.interned)
	idx, err := d.payload(body)
	if idx {
		ap, err := DecodeAgent(body, bud)
		if err != nil {
			return ptrace.Traces{}, err
		}
		return AgentToTraces(ap, bud)
	}
	if err != nil {
		if over := bud.Err(); over != nil {
			return ptrace.Traces{}, over
		}
		return ptrace.Traces{}, fmt.Errorf("decoding AgentPayload protobuf: %w", err)
	}
	return d.g.td, bud.Err()
}

type agentDecoder struct {
	g        *grouper
	agent    Agent
	interned *intern.Table
	scratch  ptrace.Span
	chunk    []chunkSpan
	// The span being read: its map entries and links and events, kept as
	// wire bytes until its own fields are known: translateSpan puts meta
	// first, metrics after it, then resource.name and span.type.
	meta    [][2][]byte
	metrics []metricEntry
	links   [][]byte
	events  [][]byte
}

var (
	spanLink  = (&pb.SpanLink{}).ProtoReflect().Descriptor()
	spanEvent = (&pb.SpanEvent{}).ProtoReflect().Descriptor()
)

type metricEntry struct {
	key   []byte
	value float64
}

// payload reads the AgentPayload's own fields first (the Agent's host and
// env fill what tracers leave empty, wherever they sit on the wire), then
// translates its tracer payloads in order, into d.g.td. idx reports v1.0
// payloads.
func (d *agentDecoder) payload(b []byte) (idx bool, err error) {
	var tps [][]byte
	err = pbwire.Fields(b, func(num int32, typ, i int) (int, error) {
		switch num {
		case agentPayloadHostName, agentPayloadEnv, agentPayloadTracerPayloads, agentPayloadAgentVersion:
			v, e, err := pbwire.Field(b, i, typ, num)
			if err != nil {
				return i, err
			}
			switch num {
			case agentPayloadHostName:
				d.agent.Hostname = string(v)
			case agentPayloadEnv:
				d.agent.Env = string(v)
			case agentPayloadTracerPayloads:
				tps = append(tps, v)
			}
			return e, nil
		case agentPayloadTags:
			return pbwire.MapEntry(b, i, typ, num, false, nil)
		case agentPayloadTargetTPS, agentPayloadErrorTPS:
			_, i, err := pbwire.Fixed64(b, i, typ, num)
			return i, err
		case agentPayloadRareSamplerEnabled:
			_, i, err := pbwire.VarintField(b, i, typ, num)
			return i, err
		case agentPayloadIdxTracerPayloads:
			idx = true
			return len(b), nil
		}
		return i, pbwire.ErrSkip
	})
	if idx || err != nil {
		return idx, err
	}
	for _, tp := range tps {
		if err := d.tracerPayload(tp); err != nil {
			return false, err
		}
	}
	return false, nil
}

// tracerPayload reads the payload's own fields, which follow its chunks on
// the wire, then its chunks.
func (d *agentDecoder) tracerPayload(b []byte) error {
	tp := &pb.TracerPayload{}
	var chunks [][]byte
	err := pbwire.Fields(b, func(num int32, typ, i int) (int, error) {
		switch num {
		case tracerPayloadContainerID, tracerPayloadLanguageName, tracerPayloadLanguageVersion, tracerPayloadTracerVersion, tracerPayloadRuntimeID, tracerPayloadChunks, tracerPayloadEnv, tracerPayloadHostname, tracerPayloadAppVersion:
			v, e, err := pbwire.Field(b, i, typ, num)
			if err != nil {
				return i, err
			}
			switch num {
			case tracerPayloadContainerID:
				tp.ContainerID = d.str(v)
			case tracerPayloadLanguageName:
				tp.LanguageName = d.str(v)
			case tracerPayloadLanguageVersion:
				tp.LanguageVersion = d.str(v)
			case tracerPayloadTracerVersion:
				tp.TracerVersion = d.str(v)
			case tracerPayloadChunks:
				chunks = append(chunks, v)
			case tracerPayloadEnv:
				tp.Env = d.str(v)
			case tracerPayloadHostname:
				tp.Hostname = d.str(v)
			case tracerPayloadAppVersion:
				tp.AppVersion = d.str(v)
			}
			return e, nil
		case tracerPayloadTags:
			return pbwire.MapEntry(b, i, typ, num, false, func(k, v []byte, _ uint64) {
				// Only these tags become resource attributes (taggedResource).
				if key := string(k); key == "_dd.tags.container" || key == "_dd.tags.process" {
					if tp.Tags == nil {
						tp.Tags = map[string]string{}
					}
					tp.Tags[key] = string(v)
				}
			})
		case tracerPayloadContainerDebug:
			v, e, err := pbwire.Field(b, i, typ, num)
			if err == nil {
				err = (&pb.ContainerDebug{}).UnmarshalVT(v)
			}
			return e, err
		}
		return i, pbwire.ErrSkip
	})
	if err != nil {
		return err
	}
	d.g.reset()
	for _, c := range chunks {
		if err := d.traceChunk(c, tp); err != nil {
			return err
		}
	}
	return nil
}

func (d *agentDecoder) traceChunk(b []byte, tp *pb.TracerPayload) error {
	d.chunk = d.chunk[:0]
	err := pbwire.Fields(b, func(num int32, typ, i int) (int, error) {
		switch num {
		case traceChunkPriority, traceChunkDroppedTrace:
			_, i, err := pbwire.VarintField(b, i, typ, num)
			return i, err
		case traceChunkOrigin, traceChunkSpans:
			v, e, err := pbwire.Field(b, i, typ, num)
			if err == nil && num == traceChunkSpans {
				err = d.span(v, tp)
			}
			return e, err
		case traceChunkTags:
			return pbwire.MapEntry(b, i, typ, num, false, nil)
		}
		return i, pbwire.ErrSkip
	})
	if err != nil {
		return err
	}
	applyTraceIDHigh(d.chunk)
	return nil
}

func (d *agentDecoder) span(b []byte, tp *pb.TracerPayload) error {
	d.meta, d.metrics, d.links, d.events = d.meta[:0], d.metrics[:0], d.links[:0], d.events[:0]
	var sc scalars
	var service string
	bud := d.g.bud
	// A span is read with a pbwire.Reader, not through pbwire.Fields'
	// callback: a call through a closure for each of its fields cost more
	// than reading it.
	r := pbwire.NewReader(b)
	for r.Next() {
		switch num := r.Num; num {
		case spanService, spanName, spanResource, spanType, spanSpanLinks, spanSpanEvents:
			v := r.Bytes()
			if r.Err() != nil {
				return r.Err()
			}
			switch num {
			case spanService:
				service = d.str(v)
			case spanName:
				sc.name = d.str(v)
			case spanResource:
				sc.resource = d.str(v)
			case spanType:
				sc.typ = d.str(v)
			case spanSpanLinks:
				d.links = append(d.links, v)
			case spanSpanEvents:
				d.events = append(d.events, v)
			}
			if num >= spanSpanLinks && !bud.Entries(0) { // the link or event
				return bud.Err()
			}
		case spanTraceID, spanSpanID, spanParentID, spanStart, spanDuration, spanError:
			v := r.Varint()
			switch num {
			case spanTraceID:
				sc.traceID = v
			case spanSpanID:
				sc.spanID = v
			case spanParentID:
				sc.parentID = v
			case spanStart:
				sc.start = int64(v) //nolint:gosec // the generated decoder's conversion
			case spanDuration:
				sc.duration = int64(v) //nolint:gosec // the generated decoder's conversion
			case spanError:
				sc.error = int32(v) //nolint:gosec // the generated decoder's conversion
			}
		case spanMeta, spanMetrics:
			r.MapEntry(num == spanMetrics, func(k, v []byte, bits uint64) {
				if num == spanMeta {
					d.meta = append(d.meta, [2][]byte{k, v})
				} else {
					d.metrics = append(d.metrics, metricEntry{k, math.Float64frombits(bits)})
				}
			})
			if r.Err() == nil && !bud.Values(1) { // counted as read: empty entries are 2 bytes
				return bud.Err()
			}
		case spanMetaStruct: // meta_struct: not mapped, as by ToTraces
			r.MapEntry(false, nil)
		default:
			r.Skip()
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return d.translate(service, sc, tp)
}

// translate builds the span read, in translateSpan's order, and files it
// under its resource.
func (d *agentDecoder) translate(service string, sc scalars, tp *pb.TracerPayload) error {
	bud := d.g.bud
	if !bud.Entries(2) { // the span; its entries were counted as read
		return bud.Err()
	}
	out := d.scratch
	attrs := out.Attributes()
	attrmap.Reserve(attrs, len(d.meta)+len(d.metrics)+2)
	var sp special
	w := attrmap.NewWriter(attrs)
	for _, kv := range d.meta {
		k, v := d.str(kv[0]), d.value(kv[1])
		sp.note(k, v)
		if keepMeta(k) {
			w.PutStr(k, v)
		}
	}
	for _, m := range d.metrics {
		putMetric(&w, d.str(m.key), m.value)
	}
	w.Flush()
	putOwnFields(attrs, sc.resource, sc.typ)
	for _, raw := range d.links {
		var l pb.SpanLink
		if err := decodeWithin(bud, spanLink, raw, &l, func() int { return len(l.Attributes) }); err != nil {
			return err
		}
		addLink(out.Links(), l.TraceID, l.TraceIDHigh, l.SpanID, l.Tracestate, l.Flags, l.Attributes)
	}
	for _, raw := range d.events {
		var e pb.SpanEvent
		if err := decodeWithin(bud, spanEvent, raw, &e, func() int { return len(e.Attributes) }); err != nil {
			return err
		}
		addEvent(out.Events(), &e)
	}
	finish(out, &sp, sc, 0, bud)

	spans := d.g.spans(resourceKey(service, sp.env, sp.version, sp.host, tp, d.agent), tp)
	dst := spans.AppendEmpty()
	out.MoveTo(dst)
	d.chunk = append(d.chunk, chunkSpan{span: dst, low: sc.traceID, fullID: isFullTraceID(sp.otelTraceID), tidValue: sp.tid})
	return nil
}

// decodeWithin decodes a link or event with Datadog's decoder, taking
// from bud first what decoding builds, then its attributes in pdata.
func decodeWithin(bud *budget.Budget, md protoreflect.MessageDescriptor, raw []byte,
	m interface{ UnmarshalVT([]byte) error }, attrs func() int,
) error {
	if err := bud.Proto(md, raw); err != nil {
		return err
	}
	if err := m.UnmarshalVT(raw); err != nil {
		return err
	}
	if !bud.Values(attrs()) {
		return bud.Err()
	}
	return nil
}

// str returns v as a string copied once per request.
func (d *agentDecoder) str(v []byte) string { return d.interned.String(v) }

func (d *agentDecoder) value(v []byte) string {
	if len(v) <= maxInterned {
		return d.str(v)
	}
	return string(v)
}

package traces

import (
	"encoding/binary"
	"fmt"
	"strings"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace/idx"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// The v1.0 format ("idx") interns every string in one table per payload,
// carries full 128-bit trace ids on the chunk, typed attributes, and env,
// version, component and kind as span fields. Tracers use it when /info
// advertises /v1.0/traces; newer trace-agents put it in AgentPayload.

// DecodeV1 decodes a /v1.0/traces body with Datadog's own decoder, after
// taking from bud what that builds.
func DecodeV1(body []byte, t Tracer, bud *budget.Budget) (*idx.InternalTracerPayload, error) {
	var tp idx.InternalTracerPayload
	if len(body) == 0 {
		return &tp, nil
	}
	if err := bud.Msgpack(body); err != nil {
		return nil, err
	}
	if _, err := tp.UnmarshalMsg(body); err != nil {
		return nil, fmt.Errorf("decoding v1.0 tracer payload: %w", err)
	}
	if tp.Strings == nil {
		tp.Strings = idx.NewStringTable()
	}
	for _, f := range []struct {
		get func() string
		set func(string)
		v   string
	}{
		{tp.LanguageName, tp.SetLanguageName, t.Lang},
		{tp.LanguageVersion, tp.SetLanguageVersion, t.LangVersion},
		{tp.TracerVersion, tp.SetTracerVersion, t.TracerVersion},
		{tp.ContainerID, tp.SetContainerID, t.ContainerID},
	} {
		if f.get() == "" && f.v != "" {
			f.set(f.v)
		}
	}
	return &tp, nil
}

// AgentToTraces translates everything an AgentPayload carries: classic
// tracer payloads and the v1.0 ones newer trace-agents send.
func AgentToTraces(ap *pb.AgentPayload, bud *budget.Budget) (ptrace.Traces, error) {
	agent := Agent{Hostname: ap.HostName, Env: ap.Env}
	td, err := ToTraces(ap.TracerPayloads, agent, bud)
	if err != nil {
		return ptrace.Traces{}, err
	}
	if len(ap.IdxTracerPayloads) > 0 {
		tps := make([]*idx.InternalTracerPayload, 0, len(ap.IdxTracerPayloads))
		for i, p := range ap.IdxTracerPayloads {
			if p == nil {
				continue
			}
			if err := checkRefs(p.ProtoReflect(), uint32(len(p.Strings))); err != nil {
				return ptrace.Traces{}, fmt.Errorf("v1.0 tracer payload %d: %w", i, err)
			}
			tps = append(tps, idx.FromProto(p))
		}
		v1, err := V1ToTraces(tps, agent, bud)
		if err != nil {
			return ptrace.Traces{}, err
		}
		v1.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
	}
	return td, nil
}

// checkRefs refuses a v1.0 protobuf payload with a string reference past
// its table: idx.FromProto does not check, and the table's Get indexes
// without a bound, so one would panic. References are the uint32 fields
// named *Ref, the keys of attribute maps and a KeyValue's key.
func checkRefs(m protoreflect.Message, n uint32) error {
	var err error
	check := func(ref uint32, what protoreflect.Name) bool {
		if ref >= n {
			err = fmt.Errorf("%s refers to string %d of a table of %d", what, ref, n)
		}
		return err == nil
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapKey().Kind() == protoreflect.Uint32Kind && !check(uint32(k.Uint()), fd.Name()) {
					return false
				}
				if fd.MapValue().Message() != nil {
					err = checkRefs(mv.Message(), n)
				}
				return err == nil
			})
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && err == nil; i++ {
				err = checkRefs(v.List().Get(i).Message(), n)
			}
		case fd.Message() != nil:
			err = checkRefs(v.Message(), n)
		case fd.Kind() == protoreflect.Uint32Kind:
			name := string(fd.Name())
			if strings.HasSuffix(name, "Ref") || name == "key" && m.Descriptor().Name() == "KeyValue" {
				check(uint32(v.Uint()), fd.Name())
			}
		}
		return err == nil
	})
	return err
}

// V1ToTraces translates v1.0 payloads with the same rules as ToTraces.
func V1ToTraces(tps []*idx.InternalTracerPayload, agent Agent, bud *budget.Budget) (ptrace.Traces, error) {
	g := newGrouper(bud)
	for _, tp := range tps {
		if tp == nil || tp.Strings == nil {
			continue
		}
		g.reset()
		shell := &pb.TracerPayload{
			LanguageName: tp.LanguageName(), LanguageVersion: tp.LanguageVersion(),
			TracerVersion: tp.TracerVersion(), ContainerID: tp.ContainerID(), Tags: map[string]string{},
		}
		for _, k := range []string{"_dd.tags.container", "_dd.tags.process"} {
			if v, ok := tp.GetAttributeAsString(k); ok {
				shell.Tags[k] = v
			}
		}
		for _, chunk := range tp.Chunks {
			if chunk == nil {
				continue
			}
			var high, low uint64
			if len(chunk.TraceID) == 16 {
				high = binary.BigEndian.Uint64(chunk.TraceID[:8])
				low = binary.BigEndian.Uint64(chunk.TraceID[8:])
			}
			for _, s := range chunk.Spans {
				if s == nil {
					continue
				}
				spans := g.spans(resKey{
					service: s.Service(),
					env:     first(s.Env(), tp.Env(), agent.Env),
					version: first(s.Version(), tp.AppVersion(), agent.Version),
					host:    first(tp.Hostname(), agent.Hostname),
				}, shell)
				if !bud.Entries(v1SpanValues(s)) {
					return ptrace.Traces{}, bud.Err()
				}
				translateV1Span(tp.Strings, s, high, low, spans.AppendEmpty(), bud)
			}
		}
	}
	return g.td, bud.Err()
}

// v1SpanValues is what a v1.0 span becomes beside itself, nested values
// included.
func v1SpanValues(s *idx.InternalSpan) int {
	n := 3 + attrValues(s.Attributes())
	for _, l := range s.Links() {
		if l != nil {
			n += 3 + attrValues(l.Attributes())
		}
	}
	for _, e := range s.Events() {
		if e != nil {
			n += 3 + attrValues(e.Attributes())
		}
	}
	return n
}

func attrValues(m map[uint32]*idx.AnyValue) int {
	n := 0
	for _, v := range m {
		n += anyValues(v)
	}
	return n
}

func anyValues(v *idx.AnyValue) int {
	n := 1
	switch x := v.GetValue().(type) {
	case *idx.AnyValue_ArrayValue:
		for _, e := range x.ArrayValue.GetValues() {
			if e != nil {
				n += anyValues(e)
			}
		}
	case *idx.AnyValue_KeyValueList:
		for _, kv := range x.KeyValueList.GetKeyValues() {
			if kv != nil && kv.Value != nil {
				n += anyValues(kv.Value)
			}
		}
	}
	return n
}

func translateV1Span(st *idx.StringTable, s *idx.InternalSpan, high, low uint64, out ptrace.Span, bud *budget.Budget) {
	var sp special
	attrs := out.Attributes()
	attrmap.Reserve(attrs, len(s.Attributes())+3)
	w := attrmap.NewWriter(attrs)
	for ref, v := range s.Attributes() {
		k := st.Get(ref)
		if sv, ok := v.GetValue().(*idx.AnyValue_StringValueRef); ok {
			str := st.Get(sv.StringValueRef)
			sp.note(k, str)
			if keepMeta(k) {
				w.PutStr(k, str)
			}
			continue
		}
		if dv, ok := v.GetValue().(*idx.AnyValue_DoubleValue); ok {
			putMetric(&w, k, dv.DoubleValue)
			continue
		}
		if !isInternal(k) {
			setAnyValue(st, w.Put(k), v)
		}
	}
	w.Flush()
	putOwnFields(attrs, s.Resource(), s.Type())
	tags.PutNonEmpty(attrs, "component", s.Component())
	for _, l := range s.Links() {
		if l == nil {
			continue
		}
		var lh, ll uint64
		if id := l.TraceID(); len(id) == 16 {
			lh, ll = binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])
		}
		link := out.Links().AppendEmpty()
		link.SetTraceID(traceID(lh, ll))
		link.SetSpanID(spanID(l.SpanID()))
		link.TraceState().FromRaw(l.Tracestate())
		link.SetFlags(l.Flags() &^ (1 << 31))
		lw := attrmap.NewWriter(link.Attributes())
		for ref, v := range l.Attributes() {
			setAnyValue(st, lw.Put(st.Get(ref)), v)
		}
		lw.Flush()
	}
	for _, e := range s.Events() {
		if e == nil {
			continue
		}
		ev := out.Events().AppendEmpty()
		ev.SetName(e.Name())
		ev.SetTimestamp(pcommon.Timestamp(e.Time()))
		ew := attrmap.NewWriter(ev.Attributes())
		for ref, v := range e.Attributes() {
			setAnyValue(st, ew.Put(st.Get(ref)), v)
		}
		ew.Flush()
	}
	var errFlag int32
	if s.Error() {
		errFlag = 1
	}
	finish(out, &sp, scalars{
		name: s.Name(), resource: s.Resource(), typ: s.Type(), traceID: low, spanID: s.SpanID(),
		parentID: s.ParentID(), start: int64(s.Start()), duration: int64(s.Duration()), error: errFlag,
	}, high, bud)
	// v1.0 carries the OTel kind as a field; the tag and type are fallbacks.
	if k := s.Kind(); k != idx.SpanKind_SPAN_KIND_UNSPECIFIED && sp.kind == "" {
		out.SetKind(ptrace.SpanKind(k))
	}
}

// setAnyValue converts a v1.0 typed value, resolving string references.
func setAnyValue(st *idx.StringTable, dst pcommon.Value, v *idx.AnyValue) {
	switch x := v.GetValue().(type) {
	case *idx.AnyValue_StringValueRef:
		dst.SetStr(st.Get(x.StringValueRef))
	case *idx.AnyValue_BoolValue:
		dst.SetBool(x.BoolValue)
	case *idx.AnyValue_DoubleValue:
		dst.SetDouble(x.DoubleValue)
	case *idx.AnyValue_IntValue:
		dst.SetInt(x.IntValue)
	case *idx.AnyValue_BytesValue:
		dst.SetEmptyBytes().FromRaw(x.BytesValue)
	case *idx.AnyValue_ArrayValue:
		s := dst.SetEmptySlice()
		for _, e := range x.ArrayValue.GetValues() {
			if e != nil {
				setAnyValue(st, s.AppendEmpty(), e)
			}
		}
	case *idx.AnyValue_KeyValueList:
		w := attrmap.NewWriter(dst.SetEmptyMap())
		for _, kv := range x.KeyValueList.GetKeyValues() {
			if kv != nil && kv.Value != nil {
				setAnyValue(st, w.Put(st.Get(kv.Key)), kv.Value)
			}
		}
		w.Flush()
	}
}

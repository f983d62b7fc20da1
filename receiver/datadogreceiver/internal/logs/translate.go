// Package logs translates what the Datadog log agent and HTTP log senders
// post to /api/v2/logs into pdata.
package logs

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/freelist"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// Translator holds the translation options; it keeps no state between calls.
type Translator struct {
	// DecodeJSONMessage lifts body, timestamp, severity, trace ids and
	// resource fields out of a message that is a JSON object.
	DecodeJSONMessage bool
	// TraceIDs maps dd.trace_id/dd.span_id to the record's TraceId/SpanId.
	TraceIDs bool
}

// Defaults come from the request's query string and apply to every record
// that does not say otherwise.
type Defaults struct {
	Tags, Source, Service, Hostname string
}

// SourceAttr is the resource attribute that keeps ddsource.
const SourceAttr = "datadog.log.source"

// ScopeName is the instrumentation scope of every translated record.
const ScopeName = "datadog"

// Two parsers per request (payload and JSON messages), a few requests at
// a time; kept across GCs, see freelist.
var parsers = freelist.New(4*runtime.GOMAXPROCS(0), func() *fastjson.Parser { return new(fastjson.Parser) })

// Translate decodes a JSON array of log objects (or one object) and returns
// one ResourceLogs per distinct host, service and resource tags. now stamps
// the observed time, and the time of records that carry none.
func (t Translator) Translate(body []byte, d Defaults, now time.Time) (plog.Logs, error) {
	ld := plog.NewLogs()
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ld, nil
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return ld, fmt.Errorf("decoding logs JSON: %w", err)
	}
	var items []*fastjson.Value
	switch v.Type() {
	case fastjson.TypeArray:
		items, _ = v.Array()
	case fastjson.TypeObject:
		items = []*fastjson.Value{v}
	default:
		return ld, errors.New("logs body must be a JSON array of objects or a single object")
	}
	// The inner parser lives as long as the batch: byte slices taken from
	// a decoded message stay valid until their record is built.
	inner := parsers.Get()
	defer parsers.Put(inner)
	b := batch{t: t, ld: ld, now: pcommon.NewTimestampFromTime(now), groups: map[string]plog.LogRecordSlice{},
		tagCache: map[string]*parsedTags{}, scratch: plog.NewLogRecord(), inner: inner, interned: map[string]string{}}
	for i, it := range items {
		obj, err := it.Object()
		if err != nil {
			return plog.NewLogs(), fmt.Errorf("log %d is a JSON %s, not an object", i, it.Type())
		}
		b.add(obj, d)
	}
	return ld, nil
}

// record is what one log's fields say before it is placed in a resource.
// Host and service come, by precedence, from the explicit dd.* fields, the
// log object's own fields, the JSON message's fields (inner*), then the
// query string.
type record struct {
	host, service, env, version, source, tags string
	innerHost, innerService, ddService        string
	status                                    string
	ts                                        pcommon.Timestamp
	traceID, spanID, traceIDHigh              []byte
	hasBody                                   bool
	message                                   string
}

type kv struct{ k, v string }

// parsedTags is a ddtags list split into resource attributes and record
// attributes; a payload usually repeats one list, so it is parsed once.
type parsedTags struct {
	res, attrs []kv
	env, ver   string
}

type batch struct {
	t        Translator
	ld       plog.Logs
	now      pcommon.Timestamp
	groups   map[string]plog.LogRecordSlice
	tagCache map[string]*parsedTags
	scratch  plog.LogRecord
	key      []byte
	inner    *fastjson.Parser
	// interned holds the keys and repeated values (host, service, tags,
	// status…) of this batch, so each is allocated once, not per record.
	interned map[string]string
	// rec and inner are reused for every record: taken by the field
	// visitors, a local would escape to the heap once per record.
	rec, innerRec record
}

func (b *batch) intern(v []byte) string {
	if s, ok := b.interned[string(v)]; ok {
		return s
	}
	s := string(v)
	b.interned[s] = s
	return s
}

// scalar renders a string, number or bool as text ("" for anything
// else), interned.
func (b *batch) scalar(v *fastjson.Value) string {
	switch v.Type() {
	case fastjson.TypeString:
		return b.intern(v.GetStringBytes())
	case fastjson.TypeNumber, fastjson.TypeTrue, fastjson.TypeFalse:
		return v.String()
	}
	return ""
}

var syslogLevels = [...]string{"0", "1", "2", "3", "4", "5", "6", "7"}

// statusText is a status as text; numbers count only as syslog levels 0–7.
func (b *batch) statusText(v *fastjson.Value) string {
	if v.Type() == fastjson.TypeNumber {
		if f := v.GetFloat64(); f >= 0 && f <= 7 && f == float64(int(f)) {
			return syslogLevels[int(f)]
		}
		return ""
	}
	return b.scalar(v)
}

// idBytes is the raw text of an id (string or number), valid while the
// batch's parsers are.
func idBytes(v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeString:
		return v.GetStringBytes()
	case fastjson.TypeNumber:
		return []byte(v.String())
	}
	return nil
}

func (b *batch) add(obj *fastjson.Object, d Defaults) {
	lr := b.scratch
	attrs := lr.Attributes()
	b.rec = record{}
	r := &b.rec
	b.fields(obj, r, attrs, false)

	r.host = first(r.host, r.innerHost, d.Hostname)
	r.service = first(r.ddService, r.service, r.innerService, d.Service)
	if r.source == "" {
		r.source = d.Source
	}
	tagList := r.tags
	if d.Tags != "" {
		if tagList == "" {
			tagList = d.Tags
		} else {
			tagList = d.Tags + "," + tagList
		}
	}
	pt := b.parseTags(tagList)
	for _, a := range pt.attrs {
		tags.Put(attrs, a.k, a.v)
	}
	if r.env == "" {
		r.env = pt.env
	}
	if r.version == "" {
		r.version = pt.ver
	}

	if r.hasBody {
		lr.Body().SetStr(r.message)
	}
	lr.SetObservedTimestamp(b.now)
	if r.ts == 0 {
		r.ts = b.now
	}
	lr.SetTimestamp(r.ts)
	if r.status != "" {
		lr.SetSeverityText(r.status)
		lr.SetSeverityNumber(severity(r.status))
	}
	if b.t.TraceIDs {
		if id, ok := parseTraceID(r.traceID, r.traceIDHigh); ok {
			lr.SetTraceID(id)
		}
		if id, ok := parseSpanID(r.spanID); ok {
			lr.SetSpanID(id)
		}
	}
	lr.MoveTo(b.slice(r, tagList, pt).AppendEmpty())
}

// slice returns the record slice of the record's resource, creating it.
func (b *batch) slice(r *record, tagList string, pt *parsedTags) plog.LogRecordSlice {
	k := append(b.key[:0], r.host...)
	k = append(k, 0)
	k = append(k, r.service...)
	k = append(k, 0)
	k = append(k, r.env...)
	k = append(k, 0)
	k = append(k, r.version...)
	k = append(k, 0)
	k = append(k, r.source...)
	k = append(k, 0)
	for _, a := range pt.res {
		k = append(k, a.k...)
		k = append(k, ':')
		k = append(k, a.v...)
		k = append(k, ',')
	}
	b.key = k
	if s, ok := b.groups[string(k)]; ok {
		return s
	}
	rl := b.ld.ResourceLogs().AppendEmpty()
	ra := rl.Resource().Attributes()
	putNonEmpty(ra, tags.Host, r.host)
	putNonEmpty(ra, tags.Service, r.service)
	putNonEmpty(ra, tags.Env, r.env)
	putNonEmpty(ra, tags.Version, r.version)
	// The source names the integration that produced the logs.
	putNonEmpty(ra, SourceAttr, r.source)
	for _, a := range pt.res {
		tags.Put(ra, a.k, a.v)
	}
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(ScopeName)
	s := sl.LogRecords()
	b.groups[string(k)] = s
	return s
}

func (b *batch) parseTags(list string) *parsedTags {
	if pt, ok := b.tagCache[list]; ok {
		return pt
	}
	pt := &parsedTags{}
	tags.Each(list, func(k, v string) {
		switch k {
		case "env":
			pt.env = v
			return
		case "version":
			pt.ver = v
			return
		case "service", "host", "source":
			// service and host come from their own fields; a tag repeating
			// them stays a record attribute.
		default:
			if rk, ok := tags.ResourceKey(k); ok {
				pt.res = append(pt.res, kv{rk, v})
				return
			}
		}
		pt.attrs = append(pt.attrs, kv{k, v})
	})
	b.tagCache[list] = pt
	return pt
}

// fields reads a log object's fields into r (the reserved ones) and attrs
// (everything else). inner is set for the object decoded from a JSON
// message, whose values take precedence where they are explicit.
func (b *batch) fields(obj *fastjson.Object, r *record, attrs pcommon.Map, inner bool) {
	obj.Visit(func(key []byte, v *fastjson.Value) {
		switch string(key) {
		case "message", "msg", "log":
			if string(key) != "message" && !inner {
				break
			}
			if v.Type() == fastjson.TypeString {
				msg := v.GetStringBytes()
				if !inner && b.t.DecodeJSONMessage && b.decodeJSONMessage(msg, r, attrs) {
					return
				}
				r.message, r.hasBody = string(msg), true
			} else {
				r.message, r.hasBody = v.String(), true
			}
			return
		case "status", "level", "severity", "lvl", "loglevel", "log.level", "syslog.severity":
			s := b.statusText(v)
			if inner && severity(s) == plog.SeverityNumberUnspecified {
				break // e.g. an HTTP "status":200 in an access log: an attribute
			}
			if s != "" && (inner || r.status == "") {
				r.status = s
			}
			return
		case "timestamp", "@timestamp", "_timestamp", "Timestamp", "eventTime", "date", "time", "ts", "published_date", "syslog.timestamp":
			if ts, ok := parseTimestamp(v); ok {
				r.ts = ts
				return
			}
		case "hostname", "host", "syslog.hostname":
			if s := b.scalar(v); s != "" {
				if inner {
					r.innerHost = s
				} else {
					r.host = s
				}
				return
			}
		case "service", "syslog.appname":
			if s := b.scalar(v); s != "" {
				if inner {
					r.innerService = s
				} else {
					r.service = s
				}
				return
			}
		case "ddsource":
			r.source = b.scalar(v)
			return
		case "ddtags":
			if s := b.scalar(v); s != "" {
				if r.tags != "" {
					r.tags += "," + s
				} else {
					r.tags = s
				}
			}
			return
		case "dd.trace_id", "trace_id", "otel.trace_id":
			if b.t.TraceIDs {
				if id := idBytes(v); len(id) > 0 && (len(r.traceID) == 0 || string(key) == "otel.trace_id") {
					r.traceID = id
				}
				return
			}
		case "dd.span_id", "span_id", "otel.span_id":
			if b.t.TraceIDs {
				r.spanID = idBytes(v)
				return
			}
		case "_dd.p.tid", "dd.p.tid":
			if b.t.TraceIDs {
				r.traceIDHigh = idBytes(v)
				return
			}
		case "dd.service":
			r.ddService = b.scalar(v)
			return
		case "dd.env":
			r.env = b.scalar(v)
			return
		case "dd.version":
			r.version = b.scalar(v)
			return
		case "dd":
			// Log injection writes {"dd":{"trace_id":…,"span_id":…,"service":…}}.
			if o, err := v.Object(); err == nil {
				b.ddObject(o, r, attrs)
				return
			}
		}
		setValue(attrs.PutEmpty(b.intern(key)), v)
	})
}

func (b *batch) ddObject(o *fastjson.Object, r *record, attrs pcommon.Map) {
	o.Visit(func(key []byte, v *fastjson.Value) {
		switch string(key) {
		case "trace_id":
			if b.t.TraceIDs {
				r.traceID = idBytes(v)
				return
			}
		case "span_id":
			if b.t.TraceIDs {
				r.spanID = idBytes(v)
				return
			}
		case "service":
			r.ddService = b.scalar(v)
			return
		case "env":
			r.env = b.scalar(v)
			return
		case "version":
			r.version = b.scalar(v)
			return
		}
		setValue(attrs.PutEmpty("dd."+string(key)), v)
	})
}

// decodeJSONMessage lifts the fields of a message that is a JSON object;
// it reports false (message kept as is) when the message is not one.
func (b *batch) decodeJSONMessage(msg []byte, r *record, attrs pcommon.Map) bool {
	if len(msg) < 2 || msg[0] != '{' {
		return false
	}
	v, err := b.inner.ParseBytes(msg)
	if err != nil {
		return false
	}
	o, err := v.Object()
	if err != nil {
		return false
	}
	b.innerRec = record{}
	inner := &b.innerRec
	b.fields(o, inner, attrs, true)
	if inner.hasBody {
		r.message, r.hasBody = inner.message, true
	} else {
		r.message, r.hasBody = string(msg), true
	}
	if inner.status != "" {
		r.status = inner.status
	}
	if inner.ts != 0 {
		r.ts = inner.ts
	}
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&r.innerHost, inner.innerHost}, {&r.innerService, inner.innerService}, {&r.ddService, inner.ddService},
		{&r.env, inner.env}, {&r.version, inner.version}, {&r.source, inner.source},
	} {
		if f.src != "" {
			*f.dst = f.src
		}
	}
	for _, f := range []struct {
		dst *[]byte
		src []byte
	}{
		{&r.traceID, inner.traceID}, {&r.spanID, inner.spanID}, {&r.traceIDHigh, inner.traceIDHigh},
	} {
		if len(f.src) > 0 {
			*f.dst = f.src
		}
	}
	if inner.tags != "" {
		if r.tags != "" {
			r.tags += "," + inner.tags
		} else {
			r.tags = inner.tags
		}
	}
	return true
}

// parseTimestamp reads epoch numbers (s, ms, µs or ns, told apart by
// magnitude) and RFC 3339 strings.
func parseTimestamp(v *fastjson.Value) (pcommon.Timestamp, bool) {
	var f float64
	switch v.Type() {
	case fastjson.TypeNumber:
		f = v.GetFloat64()
	case fastjson.TypeString:
		s := string(v.GetStringBytes())
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			f = n
			break
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, false
		}
		return pcommon.NewTimestampFromTime(t), true
	default:
		return 0, false
	}
	switch {
	case f <= 0:
		return 0, false
	case f >= 1e17:
		return pcommon.Timestamp(f), true
	case f >= 1e14:
		return pcommon.Timestamp(f * 1e3), true
	case f >= 1e11:
		// Datadog's own unit: milliseconds.
		return pcommon.Timestamp(int64(f) * 1e6), true
	default:
		return pcommon.Timestamp(f * 1e9), true
	}
}

// setValue stores a JSON value with its type: integers as Int, other
// numbers as Double, objects as Map, arrays as Slice, null as empty.
func setValue(dst pcommon.Value, v *fastjson.Value) {
	switch v.Type() {
	case fastjson.TypeString:
		dst.SetStr(string(v.GetStringBytes()))
	case fastjson.TypeNumber:
		// Whole numbers are Int; v.Int64 is only asked beyond float64's
		// exact range, as its error path allocates.
		f := v.GetFloat64()
		switch {
		case f != math.Trunc(f) || math.IsInf(f, 0):
			dst.SetDouble(f)
		case math.Abs(f) < 1<<53:
			dst.SetInt(int64(f))
		default:
			if i, err := v.Int64(); err == nil {
				dst.SetInt(i)
			} else {
				dst.SetDouble(f)
			}
		}
	case fastjson.TypeTrue:
		dst.SetBool(true)
	case fastjson.TypeFalse:
		dst.SetBool(false)
	case fastjson.TypeObject:
		m := dst.SetEmptyMap()
		o, _ := v.Object()
		m.EnsureCapacity(o.Len())
		o.Visit(func(key []byte, cv *fastjson.Value) { setValue(m.PutEmpty(string(key)), cv) })
	case fastjson.TypeArray:
		s := dst.SetEmptySlice()
		arr, _ := v.Array()
		s.EnsureCapacity(len(arr))
		for _, e := range arr {
			setValue(s.AppendEmpty(), e)
		}
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

func putNonEmpty(m pcommon.Map, k, v string) {
	if v != "" {
		m.PutStr(k, v)
	}
}

// Package logs translates what the Datadog log agent and HTTP log senders
// post to /api/v2/logs into pdata.
package logs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/internal/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/freelist"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/intern"
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

// A batch's lists, maps and scratch grow to a payload's size; they are
// reused by the next request rather than regrown.
var batches = freelist.New(4*runtime.GOMAXPROCS(0), func() *batch {
	return &batch{groups: map[string]plog.LogRecordSlice{}, lists: map[string]*parsedTags{},
		last: map[*parsedTags]lastGroup{}, interned: intern.New()}
})

// liftMessages reads JSON messages in place; tests turn it off to compare
// with unescaping them first.
var liftMessages = true

// Translate decodes a JSON array of log objects (or one object) and returns
// one ResourceLogs per distinct host, service and resource tags. now stamps
// the observed time, and the time of records that carry none. It stops
// with the budget's error once what it built would exceed bud.
func (t Translator) Translate(body []byte, d Defaults, now time.Time, bud *budget.Budget) (plog.Logs, error) {
	ld := plog.NewLogs()
	b := batches.Get()
	defer b.release()
	b.t, b.ld, b.now, b.bud = t, ld, pcommon.NewTimestampFromTime(now), bud
	b.def = defaults{tags: []byte(d.Tags), source: []byte(d.Source), service: []byte(d.Service), host: []byte(d.Hostname)}
	s := &scanner{buf: body, tmp: &b.tmp}
	if t.DecodeJSONMessage && liftMessages {
		s.lift = &b.inner
	}
	switch s.peek() {
	case '[':
		s.array(func(i int) {
			if k := s.kindAt(); k != kindObject && k != 0 {
				s.err = fmt.Errorf("log %d is a JSON %s, not an object", i, k)
				return
			}
			b.tmp = b.tmp[:0]
			b.fields = s.object(b.fields[:0])
			if s.err == nil && !b.add(b.fields) {
				s.err = bud.Err()
			}
		})
	case '{':
		b.tmp = b.tmp[:0]
		b.fields = s.object(b.fields[:0])
		if s.err == nil {
			b.add(b.fields)
		}
	case 0:
		if s.atEnd() {
			return ld, nil
		}
		fallthrough
	default:
		return ld, errors.New("logs body must be a JSON array of objects or a single object")
	}
	if err := bud.Err(); err != nil {
		return plog.NewLogs(), err
	}
	if s.err == nil && !s.atEnd() {
		s.fail("unexpected data after the logs JSON")
	}
	if s.err != nil {
		return plog.NewLogs(), fmt.Errorf("decoding logs JSON: %w", s.err)
	}
	return ld, nil
}

type defaults struct{ tags, source, service, host []byte }

// record is what one log's fields say before it is placed in a resource.
// Host and service come, by precedence, from the explicit dd.* fields, the
// log object's own fields, the JSON message's fields (inner*), then the
// query string. The slices point into the payload or the batch's tmp.
type record struct {
	host, service, env, version, source, tags []byte
	innerHost, innerService, ddService        []byte
	status                                    []byte
	ts                                        pcommon.Timestamp
	traceID, spanID, traceIDHigh              []byte
	hasBody                                   bool
	message                                   []byte
}

// lastGroup is the resource the last record with a tag list went to:
// records that share a list mostly share host and service too.
type lastGroup struct {
	key   []byte
	slice plog.LogRecordSlice
}

// attr is a field that becomes a record attribute, in document order.
type attr struct {
	key  string
	kind kind
	esc  bool
	raw  []byte
}

type batch struct {
	t   Translator
	ld  plog.Logs
	now pcommon.Timestamp
	def defaults
	bud *budget.Budget
	// groups maps host, service, env, version, source and resource tags
	// to their records.
	groups map[string]plog.LogRecordSlice
	// lists caches the shared tag-list cache without its lock; unlike the
	// rest of a batch it is kept from one request to the next.
	lists map[string]*parsedTags
	last  map[*parsedTags]lastGroup
	// lastKeys holds the keys of last.
	lastKeys []byte
	// interned holds the keys and repeated values (status, resource
	// values) of this batch, so each is allocated once, not per record.
	interned *intern.Table
	strs     arena
	// Reused per record: the object's fields, a JSON message's fields, a
	// "dd" object's fields, the attributes found in them, scratch.
	fields, inner, dd []field
	attrs             []attr
	tmp, key          []byte
	rec, innerRec     record
}

func (b *batch) release() {
	clear(b.groups)
	clear(b.last)
	b.lastKeys = b.lastKeys[:0]
	if len(b.lists) > maxBatchLists {
		clear(b.lists)
	}
	b.interned.Reset()
	// The records keep the arena's blocks; the next batch starts its own.
	b.strs = arena{}
	b.ld = plog.Logs{}
	b.def = defaults{}
	b.bud = nil
	b.rec, b.innerRec = record{}, record{}
	clear(b.fields[:cap(b.fields)])
	clear(b.inner[:cap(b.inner)])
	clear(b.dd[:cap(b.dd)])
	clear(b.attrs[:cap(b.attrs)])
	b.tmp, b.key = b.tmp[:0], b.key[:0]
	if cap(b.tmp) > keepScratch || cap(b.fields)+cap(b.inner)+cap(b.dd)+cap(b.attrs) > keepFields {
		return // grown by an outsized payload: not worth pinning
	}
	batches.Put(b)
}

// A pooled batch keeps at most this much scratch, this many fields and
// this many tag lists.
const (
	keepScratch   = 4 << 20
	keepFields    = 1 << 14
	maxBatchLists = 4096
)

func (b *batch) intern(v []byte) string { return b.interned.String(v) }

var (
	litTrue, litFalse, litNull = []byte("true"), []byte("false"), []byte("null")
	syslogLevels               = [...][]byte{[]byte("0"), []byte("1"), []byte("2"), []byte("3"), []byte("4"), []byte("5"), []byte("6"), []byte("7")}
)

// scalar is a string, number or bool as text (nil for anything else).
func scalar(f *field) []byte {
	switch f.kind {
	case kindString, kindNumber:
		return f.raw
	case kindTrue:
		return litTrue
	case kindFalse:
		return litFalse
	}
	return nil
}

// statusText is a status as text; numbers count only as syslog levels 0–7.
func statusText(f *field) []byte {
	if f.kind == kindNumber {
		if v := float(f.raw); v >= 0 && v <= 7 && v == float64(int(v)) {
			return syslogLevels[int(v)]
		}
		return nil
	}
	return scalar(f)
}

// idBytes is the text of an id, string or number.
func idBytes(f *field) []byte {
	if f.kind == kindString || f.kind == kindNumber {
		return f.raw
	}
	return nil
}

// text is the message of a non-string "message": its JSON text.
func (b *batch) text(f *field) []byte {
	switch f.kind {
	case kindTrue:
		return litTrue
	case kindFalse:
		return litFalse
	case kindNull:
		return litNull
	}
	if f.esc {
		return b.unquote(f.raw)
	}
	return f.raw
}

// unquote unescapes text read in esc mode into tmp.
func (b *batch) unquote(text []byte) []byte {
	mark := len(b.tmp)
	b.tmp = unquote(b.tmp, text)
	return b.tmp[mark:]
}

// add places one log object's record; it reports false, having built
// nothing, once the budget is spent.
func (b *batch) add(fs []field) bool {
	b.rec = record{}
	r := &b.rec
	b.attrs = b.attrs[:0]
	b.classify(fs, r, false)
	d := &b.def

	host := first(r.host, r.innerHost, d.host)
	service := first(r.ddService, r.service, r.innerService, d.service)
	source := first(r.source, d.source)
	tagList := r.tags
	if len(d.tags) > 0 {
		b.bud.Take(int64(len(d.tags))) // read again for every record
		if len(tagList) == 0 {
			tagList = d.tags
		} else {
			mark := len(b.tmp)
			b.tmp = append(append(append(b.tmp, d.tags...), ','), tagList...)
			tagList = b.tmp[mark:]
		}
	}
	pt := b.tagsOf(tagList)
	env, version := first(r.env, pt.env), first(r.version, pt.ver)

	if !b.bud.Entries(len(b.attrs) + len(pt.attrs)) {
		return false
	}
	lr := b.slice(host, service, env, version, source, pt).AppendEmpty()
	if n := len(b.attrs) + len(pt.attrs); n > 0 {
		attrs := lr.Attributes()
		attrmap.Reserve(attrs, n)
		w := attrmap.NewWriter(attrs)
		for i := range b.attrs {
			a := &b.attrs[i]
			b.setValue(w.Put(a.key), a.kind, a.raw, a.esc)
		}
		for _, a := range pt.attrs {
			w.AddTag(a.k, a.v)
		}
		w.Flush()
	}
	if r.hasBody {
		lr.Body().SetStr(b.strs.string(r.message))
	}
	lr.SetObservedTimestamp(b.now)
	if r.ts == 0 {
		r.ts = b.now
	}
	lr.SetTimestamp(r.ts)
	if len(r.status) > 0 {
		lr.SetSeverityText(b.intern(r.status))
		lr.SetSeverityNumber(severity(view(r.status)))
	}
	if b.t.TraceIDs {
		if id, ok := parseTraceID(r.traceID, r.traceIDHigh); ok {
			lr.SetTraceID(id)
		}
		if id, ok := parseSpanID(r.spanID); ok {
			lr.SetSpanID(id)
		}
	}
	return true
}

// slice returns the record slice of the record's resource, creating it.
func (b *batch) slice(host, service, env, version, source []byte, pt *parsedTags) plog.LogRecordSlice {
	k := append(b.key[:0], host...)
	k = append(k, 0)
	k = append(k, service...)
	k = append(k, 0)
	k = append(k, env...)
	k = append(k, 0)
	k = append(k, version...)
	k = append(k, 0)
	k = append(k, source...)
	k = append(k, 0)
	b.key = k
	last, ok := b.last[pt]
	if ok && string(last.key) == string(k) {
		return last.slice
	}
	k = binary.LittleEndian.AppendUint64(k, pt.resID)
	s, ok := b.groups[string(k)]
	if !ok {
		s = b.newResource(host, service, env, version, source, pt)
		b.groups[b.strs.string(k)] = s // the key in the arena: no allocation of its own
	}
	mark := len(b.lastKeys)
	b.lastKeys = append(b.lastKeys, k[:len(k)-8]...)
	b.last[pt] = lastGroup{key: b.lastKeys[mark:], slice: s}
	return s
}

func (b *batch) newResource(host, service, env, version, source []byte, pt *parsedTags) plog.LogRecordSlice {
	b.bud.Entries(5 + len(pt.res))
	rl := b.ld.ResourceLogs().AppendEmpty()
	ra := rl.Resource().Attributes()
	ra.EnsureCapacity(5 + len(pt.res))
	b.putNonEmpty(ra, tags.Host, host)
	b.putNonEmpty(ra, tags.Service, service)
	b.putNonEmpty(ra, tags.Env, env)
	b.putNonEmpty(ra, tags.Version, version)
	// The source names the integration that produced the logs.
	b.putNonEmpty(ra, SourceAttr, source)
	for _, a := range pt.res {
		tags.Put(ra, a.k, a.v)
	}
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(ScopeName)
	// Resources hold a few records each in agent payloads: room for four
	// is one allocation where growing one by one would be three.
	s := sl.LogRecords()
	s.EnsureCapacity(4)
	return s
}

func (b *batch) putNonEmpty(m pcommon.Map, k string, v []byte) {
	if len(v) > 0 {
		m.PutStr(k, b.strs.string(v))
	}
}

// tagsOf returns a tag list's parsed form.
func (b *batch) tagsOf(list []byte) *parsedTags {
	if pt, ok := b.lists[string(list)]; ok {
		return pt
	}
	pt := lookupTags(list)
	b.lists[pt.list] = pt // the shared list's string: no copy per batch
	return pt
}

// classify reads a log object's fields into r (the reserved ones) and
// b.attrs (everything else). inner is set for the object decoded from a
// JSON message, whose values take precedence where they are explicit.
func (b *batch) classify(fs []field, r *record, inner bool) {
	for i := range fs {
		if f := &fs[i]; !b.reserved(f, r, inner) {
			b.attrs = append(b.attrs, attr{key: b.intern(f.key), kind: f.kind, esc: f.esc, raw: f.raw})
		}
	}
}

// reserved applies a field Datadog gives a meaning to and reports whether
// it did; a field it does not take becomes an attribute.
func (b *batch) reserved(f *field, r *record, inner bool) bool {
	switch string(f.key) {
	case "message", "msg", "log":
		if string(f.key) != "message" && !inner {
			return false
		}
		if f.kind != kindString {
			r.message, r.hasBody = b.text(f), true
			return true
		}
		if !inner && b.t.DecodeJSONMessage && b.decodeJSONMessage(f, r) {
			return true
		}
		r.message, r.hasBody = f.raw, true
		return true
	case "status", "level", "severity", "lvl", "loglevel", "log.level", "syslog.severity":
		s := statusText(f)
		if inner && severity(view(s)) == plog.SeverityNumberUnspecified {
			return false // e.g. an HTTP "status":200 in an access log: an attribute
		}
		if len(s) > 0 && (inner || len(r.status) == 0) {
			r.status = s
		}
		return true
	case "timestamp", "@timestamp", "_timestamp", "Timestamp", "eventTime", "date", "time", "ts", "published_date", "syslog.timestamp":
		ts, ok := parseTimestamp(f)
		if ok {
			r.ts = ts
		}
		return ok
	case "hostname", "host", "syslog.hostname":
		s := scalar(f)
		if len(s) == 0 {
			return false
		}
		if inner {
			r.innerHost = s
		} else {
			r.host = s
		}
		return true
	case "service", "syslog.appname":
		s := scalar(f)
		if len(s) == 0 {
			return false
		}
		if inner {
			r.innerService = s
		} else {
			r.service = s
		}
		return true
	case "ddsource":
		r.source = scalar(f)
		return true
	case "ddtags":
		if s := scalar(f); len(s) > 0 {
			r.tags = b.joinTags(r.tags, s)
		}
		return true
	case "dd.trace_id", "trace_id", "otel.trace_id":
		if !b.t.TraceIDs {
			return false
		}
		if id := idBytes(f); len(id) > 0 && (len(r.traceID) == 0 || string(f.key) == "otel.trace_id") {
			r.traceID = id
		}
		return true
	case "dd.span_id", "span_id", "otel.span_id":
		if !b.t.TraceIDs {
			return false
		}
		r.spanID = idBytes(f)
		return true
	case "_dd.p.tid", "dd.p.tid":
		if !b.t.TraceIDs {
			return false
		}
		r.traceIDHigh = idBytes(f)
		return true
	case "dd.service":
		r.ddService = scalar(f)
		return true
	case "dd.env":
		r.env = scalar(f)
		return true
	case "dd.version":
		r.version = scalar(f)
		return true
	case "dd":
		// Log injection writes {"dd":{"trace_id":…,"span_id":…,"service":…}}.
		if f.kind != kindObject {
			return false
		}
		b.ddObject(f, r)
		return true
	}
	return false
}

// joinTags appends a tag list to another, in tmp.
func (b *batch) joinTags(list, more []byte) []byte {
	if len(list) == 0 {
		return more
	}
	mark := len(b.tmp)
	b.tmp = append(append(append(b.tmp, list...), ','), more...)
	return b.tmp[mark:]
}

func (b *batch) ddObject(f *field, r *record) {
	s := scanner{buf: f.raw, tmp: &b.tmp, esc: f.esc}
	b.dd = s.object(b.dd[:0])
	for i := range b.dd {
		f := &b.dd[i]
		switch string(f.key) {
		case "trace_id":
			if b.t.TraceIDs {
				r.traceID = idBytes(f)
				continue
			}
		case "span_id":
			if b.t.TraceIDs {
				r.spanID = idBytes(f)
				continue
			}
		case "service":
			r.ddService = scalar(f)
			continue
		case "env":
			r.env = scalar(f)
			continue
		case "version":
			r.version = scalar(f)
			continue
		}
		b.key = append(append(b.key[:0], "dd."...), f.key...)
		b.attrs = append(b.attrs, attr{key: b.intern(b.key), kind: f.kind, esc: f.esc, raw: f.raw})
	}
}

// decodeJSONMessage lifts the fields of a message that is a JSON object;
// it reports false (message kept as is) when the message is not one. A
// message the scanner lifted already has its members in inner.
func (b *batch) decodeJSONMessage(f *field, r *record) bool {
	msg := f.raw
	if !f.lifted {
		if len(msg) < 2 || msg[0] != '{' {
			return false
		}
		s := scanner{buf: msg, tmp: &b.tmp}
		b.inner = s.object(b.inner[:0])
		if s.err != nil || !s.atEnd() {
			return false
		}
	}
	b.innerRec = record{}
	inner := &b.innerRec
	b.classify(b.inner, inner, true)
	switch {
	case inner.hasBody:
		r.message, r.hasBody = inner.message, true
	case f.lifted:
		r.message, r.hasBody = b.unquote(msg), true
	default:
		r.message, r.hasBody = msg, true
	}
	if len(inner.status) > 0 {
		r.status = inner.status
	}
	if inner.ts != 0 {
		r.ts = inner.ts
	}
	for _, f := range [...]struct{ dst, src *[]byte }{
		{&r.innerHost, &inner.innerHost}, {&r.innerService, &inner.innerService}, {&r.ddService, &inner.ddService},
		{&r.env, &inner.env}, {&r.version, &inner.version}, {&r.source, &inner.source},
		{&r.traceID, &inner.traceID}, {&r.spanID, &inner.spanID}, {&r.traceIDHigh, &inner.traceIDHigh},
	} {
		if len(*f.src) > 0 {
			*f.dst = *f.src
		}
	}
	if len(inner.tags) > 0 {
		r.tags = b.joinTags(r.tags, inner.tags)
	}
	return true
}

// parseTimestamp reads epoch numbers (s, ms, µs or ns, told apart by
// magnitude) and RFC 3339 strings.
func parseTimestamp(f *field) (pcommon.Timestamp, bool) {
	var v float64
	switch f.kind {
	case kindNumber:
		v = float(f.raw)
	case kindString:
		if n, err := strconv.ParseFloat(view(f.raw), 64); err == nil {
			v = n
			break
		}
		t, err := time.Parse(time.RFC3339Nano, view(f.raw))
		if err != nil {
			return 0, false
		}
		return pcommon.NewTimestampFromTime(t), true
	default:
		return 0, false
	}
	switch {
	case v <= 0 || math.IsNaN(v):
		return 0, false
	case v >= 1e17:
		return pcommon.Timestamp(v), true
	case v >= 1e14:
		return pcommon.Timestamp(v * 1e3), true
	case v >= 1e11:
		// Datadog's own unit: milliseconds.
		return pcommon.Timestamp(int64(v) * 1e6), true
	default:
		return pcommon.Timestamp(v * 1e9), true
	}
}

// setValue stores a JSON value with its type: integers as Int, other
// numbers as Double, objects as Map, arrays as Slice, null as empty.
func (b *batch) setValue(dst pcommon.Value, k kind, raw []byte, esc bool) {
	switch k {
	case kindString:
		dst.SetStr(b.strs.string(raw))
	case kindNumber:
		setNumber(dst, raw)
	case kindTrue:
		dst.SetBool(true)
	case kindFalse:
		dst.SetBool(false)
	case kindObject, kindArray:
		s := scanner{buf: raw, tmp: &b.tmp, esc: esc}
		b.build(dst, &s)
	}
}

// build stores the (already validated) value at s.pos, recursively, each
// nested value taken from the budget.
func (b *batch) build(dst pcommon.Value, s *scanner) {
	if !b.bud.Values(1) {
		s.fail("over budget")
		return
	}
	switch k := s.kindAt(); k {
	case kindObject:
		w := attrmap.NewWriter(dst.SetEmptyMap())
		defer w.Flush()
		s.pos++
		if s.peek() == '}' {
			s.pos++
			return
		}
		for s.err == nil && s.peek() == s.quote() {
			key := s.str()
			if s.peek() != ':' {
				s.fail("expected ':'")
				return
			}
			s.pos++
			b.build(w.Put(b.intern(key)), s)
			if s.peek() != ',' {
				s.pos++
				return
			}
			s.pos++
		}
	case kindArray:
		sl := dst.SetEmptySlice()
		s.array(func(int) { b.build(sl.AppendEmpty(), s) })
	default:
		_, raw := s.value(maxDepth)
		b.setValue(dst, k, raw, s.esc)
	}
}

// setNumber keeps whole numbers as Int (within int64, or when the value is
// exact in a float64) and the rest as Double.
func setNumber(dst pcommon.Value, num []byte) {
	if i, ok := smallInt(num, 18); ok {
		dst.SetInt(i)
		return
	}
	if isInt(num) {
		if i, err := strconv.ParseInt(view(num), 10, 64); err == nil {
			dst.SetInt(i)
			return
		}
		dst.SetDouble(float(num))
		return
	}
	f := float(num)
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		dst.SetInt(int64(f))
		return
	}
	dst.SetDouble(f)
}

func first(vs ...[]byte) []byte {
	for _, v := range vs {
		if len(v) > 0 {
			return v
		}
	}
	return nil
}

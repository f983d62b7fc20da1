// Package logs translates what the Datadog log agent and HTTP log senders
// post to /api/v2/logs into pdata.
package logs

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/freelist"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/intern"
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
	return &batch{
		groups: map[string]plog.LogRecordSlice{}, lists: map[string]*parsedTags{},
		last: map[*parsedTags]lastGroup{}, interned: intern.New(),
	}
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
		// The record's attribute count, each object counted as what
		// flattening it wrote, bounds the flattening of the next.
		written := len(pt.attrs)
		for i := range b.attrs {
			a := &b.attrs[i]
			if a.kind == kindObject {
				written += b.putObject(&w, a, written+len(b.attrs)-i-1)
				continue
			}
			b.setValue(w.Put(a.key), a.kind, a.raw, a.esc)
			written++
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

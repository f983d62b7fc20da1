package logs

// A record's reserved fields (message, status, timestamp, host, service,
// ddtags, ddsource, the dd trace ids, a JSON message) go to the record's
// own parts; the rest become attributes.

import (
	"go.opentelemetry.io/collector/pdata/plog"
)

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
		{&r.innerHost, &inner.innerHost},
		{&r.innerService, &inner.innerService},
		{&r.ddService, &inner.ddService},
		{&r.env, &inner.env},
		{&r.version, &inner.version},
		{&r.source, &inner.source},
		{&r.traceID, &inner.traceID},
		{&r.spanID, &inner.spanID},
		{&r.traceIDHigh, &inner.traceIDHigh},
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

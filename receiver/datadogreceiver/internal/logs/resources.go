package logs

// Records are grouped into one resource per host, service, env, version,
// source and tag list, as the Agent's logs of one source share one.

import (
	"encoding/binary"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

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

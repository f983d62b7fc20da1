// Package metrics translates what Datadog Agents, API clients and tracers
// send on the metrics side (series v1/v2, sketches, service checks, APM
// stats) into pdata. Translators are pure: no state survives a call, so no
// per-series memory grows with cardinality.
package metrics

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/intern"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// ScopeName is the instrumentation scope of every translated metric.
const ScopeName = "datadog"

// Type is a Datadog metric type.
type Type int

// The metric types an intake names (Unspecified: none given, a gauge).
const (
	Unspecified Type = iota
	Count
	Rate
	Gauge
	// distribution is a sketch: an exponential histogram.
	distribution Type = 100
)

// DefaultInterval is the Agent's flush interval, in seconds: the span of a
// count or rate that does not say its own.
const DefaultInterval = 10

// series is one Datadog series, whatever carried it.
type series struct {
	name, unit, host, device, sourceType string
	typ                                  Type
	interval                             int64
	resources                            [][2]string // v2 resources: type, name
	tags                                 []string
	origin                               *origin
}

type origin struct{ product, category, service uint32 }

// builder groups series into ResourceMetrics (host, device, source type,
// resources and resource tags) and Metrics (name, type, unit, interval).
// Points stop being added once the budget is spent: a series' tags are
// copied to each of its points, so a small body can ask for a great many.
type builder struct {
	md     pmetric.Metrics
	bud    *budget.Budget
	groups groups
	key    []byte
	split  []splitTag // the series' tags, split and classified
	// attrs are the data-point attributes of the series being built.
	// Its first point takes them (a move, not a copy: the copy was a
	// tenth of the translation), later points copy that point's.
	attrs pcommon.Map
	moved bool        // attrs went to the series' first point…
	first pcommon.Map // …whose attributes these are
	// counts is where setBuckets sums a histogram point's buckets.
	counts []uint64
	// strs copies the request's names, hosts and tags, each distinct one
	// once, for every decoder: a payload repeats them series after series.
	strs *intern.Table
	// unstorable counts the points left out for their time, the first
	// such time as sent.
	unstorable      int
	firstUnstorable string
}

// splitTag is a series' tag as the builder reads it: where its key ends
// (its colon, or its length), and the resource attribute the key maps to,
// if any. It holds no pointers, so that filling it needs no write
// barriers while a collection runs (a thirtieth of the translation under
// load, when it held the strings).
type splitTag struct {
	keyEnd      int32
	resourceKey uint8
	resource    bool
}

// key and value are tag t's, split as t.keyEnd says.
func (t splitTag) key(tag string) string { return tag[:t.keyEnd] }

func (t splitTag) value(tag string) string {
	if int(t.keyEnd) < len(tag) {
		return tag[t.keyEnd+1:]
	}
	return ""
}

// builders keeps builders between requests: their maps, cleared, keep
// their room, where a new builder grew each from empty on every request
// (a twentieth of a series payload's translation).
var builders = sync.Pool{New: func() any {
	return &builder{groups: newGroups(), attrs: pcommon.NewMap(), strs: intern.New()}
}}

// newBuilder returns a builder for one request; its caller releases it
// once the result is taken.
func newBuilder(bud *budget.Budget) *builder {
	b := builders.Get().(*builder)
	b.md, b.bud = pmetric.NewMetrics(), bud
	return b
}

// release lets go of what the builder holds of its request and pools it.
func (b *builder) release() {
	b.md, b.bud = pmetric.Metrics{}, nil
	b.groups.reset()
	b.attrs.Clear()
	b.moved, b.first = false, pcommon.Map{}
	b.strs.Reset()
	b.unstorable, b.firstUnstorable = 0, ""
	if cap(b.counts) > 2*maxBuckets {
		b.counts = nil // a sketch spread wider than downscaling could bound
	}
	builders.Put(b)
}

// more reports whether the budget has room left: translators stop at the
// next series once it has none, rather than reading on for nothing.
func (b *builder) more() bool { return b.bud.Err() == nil }

// result is what was built, or the budget's error if it was spent. When
// points were left out for their time, it is what was built and an
// *UnstorableError saying how many.
func (b *builder) result() (pmetric.Metrics, error) {
	if err := b.bud.Err(); err != nil {
		return pmetric.Metrics{}, err
	}
	if b.unstorable > 0 {
		// A series whose every point was left out is no metric at all.
		b.md.ResourceMetrics().RemoveIf(func(rm pmetric.ResourceMetrics) bool {
			rm.ScopeMetrics().RemoveIf(func(sm pmetric.ScopeMetrics) bool {
				sm.Metrics().RemoveIf(func(m pmetric.Metric) bool { return pointCount(m) == 0 })
				return sm.Metrics().Len() == 0
			})
			return rm.ScopeMetrics().Len() == 0
		})
		return b.md, &UnstorableError{Points: b.unstorable, First: b.firstUnstorable}
	}
	return b.md, nil
}

func pointCount(m pmetric.Metric) int {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len()
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		return m.ExponentialHistogram().DataPoints().Len()
	}
	return 1
}

// MaxSeconds is the last second a metric point can be stored at: the
// metric tables keep their times as DateTime, seconds since 1970 in a
// UInt32 (2106-02-07 06:28:15). A time before 1970 or past it wrapped (a
// v1 timestamp of 1e300 was stored in 1970 or 1677, by the conversion).
const MaxSeconds = math.MaxUint32

// UnstorableError says that points were left out because their time is
// outside what the store can hold. It comes with the points that were
// kept, if any: the caller counts the others, and refuses the payload
// when none is left.
type UnstorableError struct {
	Points int    // left out
	First  string // the first such timestamp, as sent
}

func (e *UnstorableError) Error() string {
	return fmt.Sprintf("%d point(s) have a timestamp outside what the store can hold (seconds 0 to %d, 1970-01-01 to 2106-02-07), the first %s; they were left out",
		e.Points, MaxSeconds, e.First)
}

// storable reports whether a point at ts (seconds) can be stored; one
// that cannot is left out and counted.
func (b *builder) storable(ts int64) bool {
	if ts >= 0 && ts <= MaxSeconds {
		return true
	}
	b.leaveOut(strconv.FormatInt(ts, 10))
	return false
}

// floatSeconds is a JSON timestamp in whole seconds; false (the point
// left out and counted) when it is no time the store can hold. The range
// is checked on the float: converting 1e300 to an int64 is undefined.
func (b *builder) floatSeconds(f float64) (int64, bool) {
	if f >= 0 && f < MaxSeconds+1 {
		return int64(f), true
	}
	b.leaveOut(strconv.FormatFloat(f, 'g', -1, 64))
	return 0, false
}

func (b *builder) leaveOut(ts string) {
	if b.unstorable == 0 {
		b.firstUnstorable = ts
	}
	b.unstorable++
}

// metric returns the Metric a series' points go to, after splitting its
// tags: resource tags to the resource, the rest into b.attrs.
func (b *builder) metric(s *series) pmetric.Metric {
	b.attrs.Clear()
	b.moved = false
	k := append(b.key[:0], s.host...)
	k = append(k, 0)
	k = append(k, s.device...)
	k = append(k, 0)
	k = append(k, s.sourceType...)
	k = append(k, 0)
	for _, r := range s.resources {
		k = append(k, r[0]...)
		k = append(k, '=')
		k = append(k, r[1]...)
		k = append(k, 0)
	}
	// Tags are split and classified once: resource tags go to the key
	// (and to a new resource's attributes), the rest to the points.
	b.split = b.split[:0]
	resTags := 0
	for _, t := range s.tags {
		key, _ := tags.Split(t)
		rk, res := tags.ResourceIndex(key)
		if res {
			k = append(k, t...)
			k = append(k, ',')
			resTags++
		}
		b.split = append(b.split, splitTag{keyEnd: int32(len(key)), resourceKey: rk, resource: res}) //nolint:gosec // a tag is shorter than a body
	}
	// Room for the point attributes at once: added one by one they grew
	// the slice four times for a usual series (pdata's CopyTo sizes it
	// once).
	attrmap.Reserve(b.attrs, len(s.tags)-resTags)
	w := attrmap.NewWriter(b.attrs)
	for i, t := range b.split {
		if !t.resource {
			w.AddTag(t.key(s.tags[i]), t.value(s.tags[i]))
		}
	}
	w.Flush()
	b.key = k
	b.bud.Take(int64(len(s.tags)) * budget.Slot)
	ri, hash, ok := b.groups.resource(k)
	if !ok {
		b.bud.Entries(3 + len(s.resources) + resTags)
		b.bud.Take(int64(len(k)))
		rm := b.md.ResourceMetrics().AppendEmpty()
		ra := rm.Resource().Attributes()
		host, n := s.host, resTags
		for _, r := range s.resources {
			if r[0] != "host" {
				n++
			} else if host == "" {
				host = r[1]
			}
		}
		// As many entries as the resource will have (fewer only if a key
		// repeats): a slot reserved and left empty was a tenth of its
		// attributes' bytes.
		for _, v := range [...]string{host, s.device, s.sourceType} {
			if v != "" {
				n++
			}
		}
		attrmap.Reserve(ra, n)
		tags.PutNonEmpty(ra, tags.Host, host)
		tags.PutNonEmpty(ra, "datadog.device", s.device)
		tags.PutNonEmpty(ra, "datadog.source_type_name", s.sourceType)
		rw := attrmap.NewWriter(ra)
		for _, r := range s.resources {
			if r[0] != "host" {
				rw.AddTag("datadog.resource."+r[0], r[1])
			}
		}
		for i, t := range b.split {
			if t.resource {
				rw.AddTag(tags.ResourceName(t.resourceKey), t.value(s.tags[i]))
			}
		}
		rw.Flush()
		sm := rm.ScopeMetrics().AppendEmpty()
		sm.Scope().SetName(ScopeName)
		ri = b.groups.addResource(k, hash, sm.Metrics())
	}
	mk := metricKey{res: ri, name: s.name, unit: s.unit, typ: s.typ, interval: s.interval}
	m, hash, found := b.groups.metric(mk)
	if found {
		return m
	}
	b.bud.Entries(3)
	b.bud.Take(int64(len(k)))
	m = b.groups.resources[ri].metrics.AppendEmpty()
	m.SetName(s.name)
	m.SetUnit(s.unit)
	switch s.typ {
	case distribution:
		m.SetEmptyExponentialHistogram().SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
	case Count, Rate:
		sum := m.SetEmptySum()
		sum.SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
		// Datadog counts and rates are deltas over the interval; counts
		// are monotonic by Datadog's definition of the type.
		sum.SetIsMonotonic(s.typ == Count)
		if s.typ == Rate {
			m.Metadata().PutStr("datadog.type", "rate")
		}
	default:
		m.SetEmptyGauge()
	}
	if o := s.origin; o != nil {
		md := m.Metadata()
		md.PutInt("datadog.origin.product", int64(o.product))
		md.PutInt("datadog.origin.category", int64(o.category))
		md.PutInt("datadog.origin.service", int64(o.service))
	}
	b.groups.addMetric(mk, hash, m)
	return m
}

// point appends one point of s (ts in seconds) to m with the series'
// attributes. Rates become the delta they stand for (value × interval).
func (b *builder) point(m pmetric.Metric, s *series, ts int64, v float64) {
	if !b.storable(ts) || !b.bud.Entries(b.pointAttrs().Len()) {
		return
	}
	var dp pmetric.NumberDataPoint
	if m.Type() == pmetric.MetricTypeSum {
		dp = m.Sum().DataPoints().AppendEmpty()
		iv := s.interval
		if iv <= 0 {
			iv = DefaultInterval
		}
		dp.SetStartTimestamp(startSeconds(ts, iv))
		if s.typ == Rate {
			v *= float64(iv)
		}
	} else {
		dp = m.Gauge().DataPoints().AppendEmpty()
	}
	dp.SetTimestamp(seconds(ts))
	dp.SetDoubleValue(v)
	b.giveAttrs(dp.Attributes())
}

// reservePoints makes room for a new metric's n points at once: appended
// one by one, a series' points grew the slice for each of the first two
// (pdata's CopyTo sizes it once). A metric that has points already keeps
// pdata's doubling, where sizing it exactly for each series would copy it
// each time.
func (b *builder) reservePoints(m pmetric.Metric, n int) {
	switch m.Type() {
	case pmetric.MetricTypeSum:
		if dps := m.Sum().DataPoints(); dps.Len() == 0 {
			dps.EnsureCapacity(n)
		}
	case pmetric.MetricTypeGauge:
		if dps := m.Gauge().DataPoints(); dps.Len() == 0 {
			dps.EnsureCapacity(n)
		}
	}
}

// pointAttrs are the attributes the series' points carry.
func (b *builder) pointAttrs() pcommon.Map {
	if b.moved {
		return b.first
	}
	return b.attrs
}

// giveAttrs sets a new point's attributes: the first point of a series
// takes attrs, later ones copy the first's.
func (b *builder) giveAttrs(dst pcommon.Map) {
	if b.moved {
		b.first.CopyTo(dst)
		return
	}
	b.attrs.MoveTo(dst)
	b.first, b.moved = dst, true
}

// histogram appends a point to m's exponential histogram with the series'
// attributes; false once the budget is spent.
func (b *builder) histogram(m pmetric.Metric) (pmetric.ExponentialHistogramDataPoint, bool) {
	if !b.bud.Entries(b.pointAttrs().Len()) {
		return pmetric.ExponentialHistogramDataPoint{}, false
	}
	dp := m.ExponentialHistogram().DataPoints().AppendEmpty()
	b.giveAttrs(dp.Attributes())
	return dp, true
}

func seconds(s int64) pcommon.Timestamp { return pcommon.Timestamp(s * 1e9) }

// startSeconds is the start of an interval of iv seconds ending at ts, no
// earlier than 1970 (pdata's times are unsigned).
func startSeconds(ts, iv int64) pcommon.Timestamp { return seconds(max(ts-iv, 0)) }

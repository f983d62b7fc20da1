package metrics

import (
	"fmt"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/budget"
)

// SeriesV2 translates the /api/v2/series MetricPayload protobuf that
// Agents and the contrib datadogexporter send.
func SeriesV2(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.Proto(payloadDescriptor("MetricPayload"), body); err != nil {
		return pmetric.Metrics{}, err
	}
	var mp gogen.MetricPayload
	if err := mp.Unmarshal(body); err != nil {
		return pmetric.Metrics{}, fmt.Errorf("decoding MetricPayload protobuf: %w", err)
	}
	b := newBuilder(bud)
	var s series
	for i, ps := range mp.Series {
		if !b.more() {
			break
		}
		if ps == nil {
			continue
		}
		if ps.Metric == "" {
			return pmetric.Metrics{}, fmt.Errorf("series %d has no metric name", i)
		}
		s = series{name: ps.Metric, unit: ps.Unit, typ: Type(ps.Type), interval: ps.Interval,
			sourceType: ps.SourceTypeName, tags: ps.Tags, resources: s.resources[:0]}
		for _, r := range ps.Resources {
			if r != nil {
				s.resources = append(s.resources, [2]string{r.Type, r.Name})
			}
		}
		if o := ps.Metadata.GetOrigin(); o != nil {
			s.origin = &origin{product: o.OriginProduct, category: o.OriginCategory, service: o.OriginService}
		}
		m := b.metric(&s)
		for _, pt := range ps.Points {
			if pt != nil {
				b.point(m, &s, pt.Timestamp, pt.Value)
			}
		}
	}
	return b.result()
}

// SeriesV2JSON translates the JSON form of /api/v2/series that the
// Datadog API clients send: types are 0 unspecified, 1 count, 2 rate,
// 3 gauge; points are {"timestamp","value"}.
func SeriesV2JSON(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.JSON(body, budget.TreeNode); err != nil {
		return pmetric.Metrics{}, err
	}
	p := parsers.Get()
	defer parsers.Put(p)
	list, err := seriesList(p, body, "v2")
	if err != nil {
		return pmetric.Metrics{}, err
	}
	b := newBuilder(bud)
	for i, sv := range list {
		if !b.more() {
			break
		}
		if sv.Type() != fastjson.TypeObject {
			return pmetric.Metrics{}, fmt.Errorf("series %d is not an object", i)
		}
		s := series{
			name: string(sv.GetStringBytes("metric")), unit: string(sv.GetStringBytes("unit")),
			typ: Type(sv.GetInt("type")), interval: sv.GetInt64("interval"),
			sourceType: string(sv.GetStringBytes("source_type_name")),
		}
		if s.name == "" {
			return pmetric.Metrics{}, fmt.Errorf("series %d has no metric name", i)
		}
		if s.typ < Unspecified || s.typ > Gauge {
			return pmetric.Metrics{}, fmt.Errorf("series %d (%s) has unknown type %d", i, s.name, s.typ)
		}
		for _, t := range sv.GetArray("tags") {
			if tb := t.GetStringBytes(); len(tb) > 0 {
				s.tags = append(s.tags, string(tb))
			}
		}
		for _, r := range sv.GetArray("resources") {
			s.resources = append(s.resources, [2]string{string(r.GetStringBytes("type")), string(r.GetStringBytes("name"))})
		}
		if o := sv.Get("metadata", "origin"); o != nil {
			s.origin = &origin{product: uint32(o.GetUint("origin_product")), category: uint32(o.GetUint("origin_category")),
				service: uint32(o.GetUint("origin_service"))}
		}
		m := b.metric(&s)
		for j, pv := range sv.GetArray("points") {
			ts, val := pv.Get("timestamp"), pv.Get("value")
			if ts == nil || val == nil || ts.Type() != fastjson.TypeNumber || val.Type() != fastjson.TypeNumber {
				return pmetric.Metrics{}, fmt.Errorf("series %d (%s) point %d needs numeric timestamp and value", i, s.name, j)
			}
			b.point(m, &s, ts.GetInt64(), val.GetFloat64())
		}
	}
	return b.result()
}

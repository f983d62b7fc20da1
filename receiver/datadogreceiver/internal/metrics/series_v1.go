package metrics

import (
	"fmt"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

var parsers fastjson.ParserPool

// SeriesV1 translates the /api/v1/series JSON body:
// {"series":[{"metric","points":[[ts,value],…],"type","interval","host","tags","device","source_type_name"}]}.
func SeriesV1(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	return eachV1Series(body, bud, "v1 series", Unspecified, func(s *series, key []byte, f *fastjson.Value) {
		switch string(key) {
		case "type":
			s.typ = v1Type(string(f.GetStringBytes()))
		case "interval":
			s.interval = f.GetInt64()
		}
	}, func(b *builder, m pmetric.Metric, s *series, points []*fastjson.Value) error {
		b.reservePoints(m, len(points))
		for j, pv := range points {
			pair, err := pv.Array()
			if err != nil || len(pair) != 2 {
				return fmt.Errorf("point %d is not [timestamp, value]", j)
			}
			if pair[1].Type() == fastjson.TypeNull {
				continue // the Agent sends null for a missing sample
			}
			ts, err1 := pair[0].Float64()
			val, err2 := pair[1].Float64()
			if err1 != nil || err2 != nil {
				return fmt.Errorf("point %d: timestamp and value must be numbers", j)
			}
			if sec, ok := b.floatSeconds(ts); ok {
				b.point(m, s, sec, val)
			}
		}
		return nil
	})
}

// eachV1Series walks the series of a v1 JSON body ({"series":[…]}, as
// /api/v1/series and /api/v1/distribution_points send it): the fields
// they share are read here, field reads the others, and addPoints turns
// a series' points into data points of its metric. A series is of type typ
// until field says otherwise.
func eachV1Series(body []byte, bud *budget.Budget, what string, typ Type,
	field func(s *series, key []byte, f *fastjson.Value),
	addPoints func(b *builder, m pmetric.Metric, s *series, points []*fastjson.Value) error,
) (pmetric.Metrics, error) {
	if err := bud.JSON(body, budget.TreeNode); err != nil {
		return pmetric.Metrics{}, err
	}
	p := parsers.Get()
	defer parsers.Put(p)
	list, err := seriesList(p, body, what)
	if err != nil {
		return pmetric.Metrics{}, err
	}
	b := newBuilder(bud)
	defer b.release()
	var s series
	for i, sv := range list {
		if !b.more() {
			break
		}
		o, err := sv.Object()
		if err != nil {
			return pmetric.Metrics{}, fmt.Errorf("series %d is not an object", i)
		}
		s = series{tags: s.tags[:0], typ: typ}
		var points []*fastjson.Value
		o.Visit(func(key []byte, f *fastjson.Value) {
			switch string(key) {
			case "points":
				points, _ = f.Array()
			case "metric":
				s.name = b.strs.String(f.GetStringBytes())
			case "host":
				s.host = b.strs.String(f.GetStringBytes())
			case "device":
				s.device = b.strs.String(f.GetStringBytes())
			case "source_type_name":
				s.sourceType = b.strs.String(f.GetStringBytes())
			case "tags":
				for _, t := range f.GetArray() {
					if tb := t.GetStringBytes(); len(tb) > 0 {
						s.tags = append(s.tags, b.strs.String(tb))
					}
				}
			default:
				field(&s, key, f)
			}
		})
		if s.name == "" {
			return pmetric.Metrics{}, fmt.Errorf("series %d has no metric name", i)
		}
		if err := addPoints(b, b.metric(&s), &s, points); err != nil {
			return pmetric.Metrics{}, fmt.Errorf("series %d (%s) %w", i, s.name, err)
		}
	}
	return b.result()
}

// seriesList parses {"series":[…]} and returns the array.
func seriesList(p *fastjson.Parser, body []byte, version string) ([]*fastjson.Value, error) {
	v, err := p.ParseBytes(body)
	if err != nil {
		return nil, fmt.Errorf("decoding %s series JSON: %w", version, err)
	}
	sv := v.Get("series")
	if sv == nil || sv.Type() != fastjson.TypeArray {
		return nil, fmt.Errorf(`%s series body must be an object with a "series" array`, version)
	}
	list, _ := sv.Array()
	return list, nil
}

func v1Type(t string) Type {
	switch t {
	case "count":
		return Count
	case "rate":
		return Rate
	case "gauge":
		return Gauge
	}
	return Unspecified
}

package metrics

import (
	"fmt"
	"math"
	"sync"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/pbwire"
)

// SeriesV2 translates the /api/v2/series MetricPayload protobuf that
// Agents and the contrib datadogexporter send. It reads the wire straight
// into the builder, by the generated decoder's rules (pbwire), instead of
// building gogo's series, point and resource structs first: it accepts and
// refuses what gogen.MetricPayload.Unmarshal does and yields what that
// then translated to (an equivalence test and fuzz target hold it).
//
// It takes its budget as it reads and builds (heldCost, then the
// builder's Take and Entries), with no counting pass over the body first:
// nothing is decoded into anything but the result, bar one series'
// resources, tags and points at a time, so no pass prices gogo's structs
// first (what that cost: docs/performance.md, "Metrics nearer pdata's
// floor").
func SeriesV2(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	d := seriesDecoders.Get().(*seriesDecoder)
	d.b = newBuilder(bud)
	defer d.release()
	n := 0
	err := pbwire.Fields(body, func(num int32, typ, i int) (int, error) {
		if num != metricPayloadSeries {
			return i, pbwire.ErrSkip
		}
		v, end, err := pbwire.Field(body, i, typ, num)
		if err == nil {
			err = d.series(n, v)
			n++
		}
		return end, err
	})
	if err != nil { // before a missing name, as the generated decoder reads first
		return pmetric.Metrics{}, fmt.Errorf("decoding MetricPayload protobuf: %w", err)
	}
	if d.invalid != nil {
		return pmetric.Metrics{}, d.invalid
	}
	return d.b.result()
}

type seriesDecoder struct {
	b      *builder
	s      series
	points []wirePoint
	// origin is the series' metadata origin, kept here rather than in a
	// variable of series() that would escape to the heap once per series
	// (the builder reads it only while creating the series' metric).
	origin origin
	// invalid is why the first invalid series is (no name, a type Datadog
	// does not define): the whole payload is still read, as the generated
	// decoder would, before it is refused.
	invalid error
}

// seriesDecoders keeps decoders between requests, for the room of their
// scratch slices, as builders does for the builder's (whose intern table
// the decoder copies its strings into).
var seriesDecoders = sync.Pool{New: func() any { return &seriesDecoder{} }}

// release clears what the decoder holds of the request and pools it.
func (d *seriesDecoder) release() {
	d.b.release()
	d.b = nil
	d.s = series{resources: d.s.resources[:0], tags: d.s.tags[:0]}
	d.invalid = nil
	seriesDecoders.Put(d)
}

// wirePoint is a MetricPoint as read, kept until its series is built.
type wirePoint struct {
	ts int64
	v  float64
}

// series reads series i and, while the budget lasts and every series so
// far was valid, builds it.
func (d *seriesDecoder) series(i int, b []byte) error {
	s := &d.s
	*s = series{resources: s.resources[:0], tags: s.tags[:0]}
	d.points = d.points[:0]
	d.origin = origin{}
	hasOrigin := false
	err := d.seriesFields(b, &hasOrigin)
	if err != nil || d.invalid != nil || !d.b.more() {
		return err
	}
	if d.invalid = s.check(i); d.invalid != nil {
		return nil
	}
	if hasOrigin {
		s.origin = &d.origin
	}
	m := d.b.metric(s)
	d.b.reservePoints(m, len(d.points))
	for _, p := range d.points {
		d.b.point(m, s, p.ts, p.v)
	}
	return nil
}

// seriesFields reads a series' fields into d.s. It and the readers of
// its resources and points read with a pbwire.Reader, not through
// pbwire.Fields' callback (see Reader).
func (d *seriesDecoder) seriesFields(b []byte, hasOrigin *bool) error {
	s := &d.s
	r := pbwire.NewReader(b)
	for r.Next() {
		switch r.Num {
		case seriesResources, seriesMetric, seriesTags, seriesPoints, seriesUnit, seriesSourceTypeName, seriesMetadata:
			v := r.Bytes()
			if r.Err() != nil {
				return r.Err()
			}
			if c := heldCost(r.Num); c > 0 && !d.b.bud.Take(c) {
				return d.b.bud.Err()
			}
			var err error
			switch r.Num {
			case seriesResources:
				err = d.readResource(v)
			case seriesMetric:
				s.name = d.str(v)
			case seriesTags:
				s.tags = append(s.tags, d.str(v))
			case seriesPoints:
				err = d.readPoint(v)
			case seriesUnit:
				s.unit = d.str(v)
			case seriesSourceTypeName:
				s.sourceType = d.str(v)
			case seriesMetadata:
				err = metadata(v, &d.origin, hasOrigin)
			}
			if err != nil {
				return err
			}
		case seriesType:
			s.typ = Type(int32(r.Varint())) //nolint:gosec // the generated decoder's conversion
		case seriesInterval:
			s.interval = int64(r.Varint()) //nolint:gosec // the generated decoder's conversion
		default:
			r.Skip()
		}
	}
	return r.Err()
}

// heldCost is what a series' field costs while it is held until the
// series is built: a resource, tag or point is a few bytes on the wire
// and more in the decoder's slices, so a body of empty ones must spend
// the budget as it is read, not once the series is complete. A resource
// ([2]string, 32 bytes) is charged as the attribute it becomes (80); a
// tag, its string (16) and its split form in the builder (8), and a point,
// its 16 bytes, each twice over, for the slices' doubling.
func heldCost(num int32) int64 {
	switch num {
	case seriesResources:
		return budget.Value
	case seriesTags:
		return 3 * budget.Slot
	case seriesPoints:
		return 2 * budget.Slot
	}
	return 0
}

// readResource reads a Resource {type, name}.
func (d *seriesDecoder) readResource(b []byte) error {
	var res [2]string
	r := pbwire.NewReader(b)
	for r.Next() {
		if r.Num == resourceType || r.Num == resourceName {
			res[r.Num-resourceType] = d.str(r.Bytes()) // {type, name}
		} else {
			r.Skip()
		}
	}
	d.s.resources = append(d.s.resources, res)
	return r.Err()
}

// readPoint reads a MetricPoint {value, timestamp}.
func (d *seriesDecoder) readPoint(b []byte) error {
	var p wirePoint
	r := pbwire.NewReader(b)
	for r.Next() {
		switch r.Num {
		case pointValue:
			p.v = math.Float64frombits(r.Fixed64())
		case pointTimestamp:
			p.ts = int64(r.Varint()) //nolint:gosec // the generated decoder's conversion
		default:
			r.Skip()
		}
	}
	d.points = append(d.points, p)
	return r.Err()
}

// metadata reads Metadata {origin {product, category, service}}; repeated
// messages merge, as the generated decoder merges them.
func metadata(b []byte, o *origin, has *bool) error {
	return pbwire.Fields(b, func(num int32, typ, at int) (int, error) {
		if num != metadataOrigin {
			return at, pbwire.ErrSkip
		}
		v, end, err := pbwire.Field(b, at, typ, num)
		if err != nil {
			return at, err
		}
		*has = true
		return end, pbwire.Fields(v, func(num int32, typ, at int) (int, error) {
			if num < originProduct || num > originService {
				return at, pbwire.ErrSkip
			}
			x, end, err := pbwire.VarintField(v, at, typ, num)
			switch num {
			case originProduct:
				o.product = uint32(x)
			case originCategory:
				o.category = uint32(x)
			case originService:
				o.service = uint32(x)
			}
			return end, err
		})
	})
}

// str returns v as a string copied once per request.
func (d *seriesDecoder) str(v []byte) string { return d.b.strs.String(v) }

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
	defer b.release()
	for i, sv := range list {
		if !b.more() {
			break
		}
		if sv.Type() != fastjson.TypeObject {
			return pmetric.Metrics{}, fmt.Errorf("series %d is not an object", i)
		}
		s := series{
			name: b.strs.String(sv.GetStringBytes("metric")), unit: b.strs.String(sv.GetStringBytes("unit")),
			typ: Type(sv.GetInt("type")), interval: sv.GetInt64("interval"),
			sourceType: b.strs.String(sv.GetStringBytes("source_type_name")),
		}
		if err := s.check(i); err != nil {
			return pmetric.Metrics{}, err
		}
		for _, t := range sv.GetArray("tags") {
			if tb := t.GetStringBytes(); len(tb) > 0 {
				s.tags = append(s.tags, b.strs.String(tb))
			}
		}
		for _, r := range sv.GetArray("resources") {
			s.resources = append(s.resources, [2]string{b.strs.String(r.GetStringBytes("type")), b.strs.String(r.GetStringBytes("name"))})
		}
		if o := sv.Get("metadata", "origin"); o != nil {
			s.origin = &origin{
				product: uint32(o.GetUint("origin_product")), category: uint32(o.GetUint("origin_category")),
				service: uint32(o.GetUint("origin_service")),
			}
		}
		m := b.metric(&s)
		points := sv.GetArray("points")
		b.reservePoints(m, len(points))
		for j, pv := range points {
			ts, val := pv.Get("timestamp"), pv.Get("value")
			if ts == nil || val == nil || ts.Type() != fastjson.TypeNumber || val.Type() != fastjson.TypeNumber {
				return pmetric.Metrics{}, fmt.Errorf("series %d (%s) point %d needs numeric timestamp and value", i, s.name, j)
			}
			// Read as a float: GetInt64 makes 1e300 a 0, stored in 1970.
			if sec, ok := b.floatSeconds(ts.GetFloat64()); ok {
				b.point(m, &s, sec, val.GetFloat64())
			}
		}
	}
	return b.result()
}

// check refuses series i of a v2 payload without a name, or of a type
// other than v2's unspecified, count, rate and gauge (a protobuf enum
// takes any number).
func (s *series) check(i int) error {
	if s.name == "" {
		return fmt.Errorf("series %d has no metric name", i)
	}
	if s.typ < Unspecified || s.typ > Gauge {
		return fmt.Errorf("series %d (%s) has unknown type %d", i, s.name, s.typ)
	}
	return nil
}

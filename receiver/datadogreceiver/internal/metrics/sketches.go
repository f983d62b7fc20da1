package metrics

import (
	"errors"
	"fmt"

	"github.com/DataDog/agent-payload/v5/gogen"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/budget"
)

// Sketches translates the SketchPayload protobuf of /api/beta/sketches
// (and /api/v1/sketches) into delta exponential histograms: count, sum,
// min, max and every bin of each Agent DDSketch.
func Sketches(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.Proto(payloadDescriptor("SketchPayload"), body); err != nil {
		return pmetric.Metrics{}, err
	}
	var sp gogen.SketchPayload
	if err := sp.Unmarshal(body); err != nil {
		return pmetric.Metrics{}, fmt.Errorf("decoding SketchPayload protobuf: %w", err)
	}
	b := newBuilder(bud)
	defer b.release()
	var bins []bin
	for i := range sp.Sketches {
		if !b.more() {
			break
		}
		sk := &sp.Sketches[i]
		if sk.Metric == "" {
			return pmetric.Metrics{}, fmt.Errorf("sketch %d has no metric name", i)
		}
		if len(sk.Dogsketches) == 0 && len(sk.Distributions) > 0 {
			return pmetric.Metrics{}, errors.New("legacy GK-sketch distributions are not supported; Agents since v6 send DDSketches")
		}
		s := series{name: sk.Metric, host: sk.Host, typ: distribution, interval: DefaultInterval, tags: sk.Tags}
		if o := sk.Metadata.GetOrigin(); o != nil {
			s.origin = &origin{product: o.OriginProduct, category: o.OriginCategory, service: o.OriginService}
		}
		m := b.metric(&s)
		for j := range sk.Dogsketches {
			d := &sk.Dogsketches[j]
			if len(d.K) != len(d.N) {
				return pmetric.Metrics{}, fmt.Errorf("sketch %d (%s) has %d keys but %d counts", i, sk.Metric, len(d.K), len(d.N))
			}
			bins = bins[:0]
			for x, k := range d.K {
				bins = append(bins, keyBin(k, d.N[x]))
			}
			dp, ok := b.histogram(m)
			if !ok {
				return b.result()
			}
			dp.SetStartTimestamp(seconds(d.Ts - DefaultInterval))
			dp.SetTimestamp(seconds(d.Ts))
			dp.SetCount(uint64(d.Cnt))
			dp.SetSum(d.Sum)
			if d.Cnt > 0 {
				dp.SetMin(d.Min)
				dp.SetMax(d.Max)
			}
			b.setBuckets(dp, bins)
		}
	}
	return b.result()
}

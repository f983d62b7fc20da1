package metrics

import (
	"fmt"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// DistributionPoints translates the /api/v1/distribution_points JSON body
// (datadog-api-client's SubmitDistributionPoints, serverless and older
// clients): {"series":[{"metric","points":[[ts,[value,…]],…],"host",
// "tags","type":"distribution"}]}. Each point's values become one delta
// exponential histogram point, as a sketch's do, so the same quantiles
// come out whichever way a distribution arrived.
func DistributionPoints(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	var d values
	// "type" is "distribution" or absent: nothing else to read.
	return eachV1Series(body, bud, "distribution points", distribution, func(*series, []byte, *fastjson.Value) {}, func(b *builder, m pmetric.Metric, _ *series, points []*fastjson.Value) error {
		for j, pv := range points {
			pair, err := pv.Array()
			if err != nil || len(pair) != 2 {
				return fmt.Errorf("point %d is not [timestamp, [values]]", j)
			}
			ts, err := pair[0].Float64()
			if err != nil {
				return fmt.Errorf("point %d: the timestamp must be a number", j)
			}
			vals, err := pair[1].Array()
			if err != nil {
				return fmt.Errorf("point %d: the values must be a list of numbers", j)
			}
			d = values{bins: d.bins[:0]}
			for _, v := range vals {
				f, err := v.Float64()
				if err != nil {
					return fmt.Errorf("point %d: the values must be a list of numbers", j)
				}
				d.add(f, 1)
			}
			if d.count == 0 {
				continue // nothing was measured in that interval
			}
			sec, ok := b.floatSeconds(ts)
			if !ok {
				continue
			}
			if !b.distribution(m, sec, &d) {
				return nil // the budget is spent: result() says so
			}
		}
		return nil
	})
}

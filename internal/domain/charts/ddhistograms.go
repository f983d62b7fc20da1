package charts

import (
	"fmt"
	"strconv"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// Histogram metrics (OTLP histograms, and the Agent's sketches, which the
// Datadog receiver writes as exponential histograms) answer a metric
// query as Datadog answers one on a distribution: p50…p99 is that
// percentile of every value the group's points hold in the bucket, read
// from their merged buckets (a bucket's upper bound, as the chart's
// quantile reads explicit buckets); avg is their sum over their count;
// sum, min and max those of the points. Points count as they are: a
// cumulative series (AggregationTemporality 2) reads as its totals since
// it started, not as its increase in the bucket.

// distribution runs q on a histogram or exponential histogram table;
// bucket, grp, metric, start, end and cond are query's, bound in p.
func (ev *ddEval) distribution(q *ddMetricQuery, src query.Source, scope *query.Scope, p *query.Params, bucket, grp, metric, start, end, cond string) (*ddSeries, error) {
	where := fmt.Sprintf("MetricName = %[1]s AND %[2]s >= fromUnixTimestamp64Milli(%[3]s) AND %[2]s < fromUnixTimestamp64Milli(%[4]s) AND %[5]s", metric, scope.Timestamp, start, end, cond)
	need := func(cols ...string) error {
		for _, c := range cols {
			if _, ok := scope.Column(c); !ok {
				return query.Mistake(fmt.Errorf("%s:%s: %s has no %s column", q.space, q.metric, src.Table, c))
			}
		}
		return nil
	}
	var value string
	if level, ok := ddPercentiles[q.space]; ok {
		// bs, cs: each point's buckets as (upper bound, count), merged
		// across the group's points by bound (sumMap sorts them).
		var bs, cs string
		if src.MetricType == "exponential_histogram" {
			if err := need("Scale", "ZeroCount", "PositiveOffset", "PositiveBucketCounts", "NegativeOffset", "NegativeBucketCounts"); err != nil {
				return nil, err
			}
			// Bucket k (offset + index) of scale s holds (base^k,
			// base^(k+1)], base = 2^(2^-s); a negative one [-base^(k+1),
			// -base^k).
			bs = "arrayConcat([0.], arrayMap(i -> pow(2., pow(2., -Scale) * (PositiveOffset + i)), arrayEnumerate(PositiveBucketCounts))," +
				" arrayMap(i -> -pow(2., pow(2., -Scale) * (NegativeOffset + i - 1)), arrayEnumerate(NegativeBucketCounts)))"
			cs = "arrayConcat([ZeroCount], PositiveBucketCounts, NegativeBucketCounts)"
		} else {
			if err := need("BucketCounts", "ExplicitBounds"); err != nil {
				return nil, err
			}
			// The +Inf bucket reports the last bound.
			bs = "arrayResize(ExplicitBounds, length(BucketCounts), if(empty(ExplicitBounds), 0., ExplicitBounds[-1]))"
			cs = "BucketCounts"
		}
		lv := strconv.FormatFloat(level, 'f', -1, 64)
		// Every part is a checked name, a fixed expression or a bound
		// parameter's placeholder: no user text.
		sqlText := fmt.Sprintf("SELECT bucket, grp, if(arraySum(m.2) = 0, NULL, toFloat64(m.1[arrayFirstIndex(x -> x >= %[1]s * arraySum(m.2), arrayCumSum(m.2))])) FROM"+ //nolint:gosec // see above
			" (SELECT %[2]s AS bucket, %[3]s AS grp, sumMap(%[4]s, arrayMap(c -> toUInt64(c), %[5]s)) AS m FROM %[6]s WHERE %[7]s GROUP BY bucket, grp)"+
			" ORDER BY bucket LIMIT %[8]d", lv, bucket, grp, bs, cs, scope.From, where, MaxPoints+1)
		return ev.collect(q, p, sqlText)
	}
	switch q.space {
	case "avg":
		if err := need("Sum", "Count"); err != nil {
			return nil, err
		}
		value = "if(sum(Count) = 0, NULL, sum(Sum) / sum(Count))"
	case "sum":
		if err := need("Sum"); err != nil {
			return nil, err
		}
		value = "sum(Sum)"
	case "min", "max":
		col := map[string]string{"min": "Min", "max": "Max"}[q.space]
		if err := need(col); err != nil {
			return nil, err
		}
		value = q.space + "(" + col + ")"
	default:
		return nil, query.Mistake(fmt.Errorf("%s is not an aggregator of histogram metrics", q.space))
	}
	sqlText := fmt.Sprintf("SELECT %[1]s AS bucket, %[2]s AS grp, toFloat64(%[3]s) FROM %[4]s WHERE %[5]s GROUP BY bucket, grp ORDER BY bucket LIMIT %[6]d", //nolint:gosec // as above
		bucket, grp, value, scope.From, where, MaxPoints+1)
	return ev.collect(q, p, sqlText)
}

package metrics

import (
	"math"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/budget"
)

// The Agent's DDSketch: relative accuracy 1/128, so bin k > 0 holds values
// around γ^(k-bias) with γ = 1 + 2/128; negative keys mirror positive ones
// and key 0 holds zero (|v| < 1e-9).
var (
	agentGammaLn = math.Log1p(2.0 / 128)
	agentBias    = 1 - int(math.Floor(math.Log(1e-9)/agentGammaLn))
)

// agentValue is the value a Datadog Agent sketch bin key stands for.
func agentValue(k int32) float64 {
	if k < 0 {
		return -agentValue(-k)
	}
	return math.Exp(float64(int(k)-agentBias) * agentGammaLn)
}

// maxScale is the finest exponential scale used: its buckets (2^(2^-6),
// about 1.1% wide) are narrower than the Agent's (1.56%), so every sketch
// bin lands in its own bucket and quantiles stay within the sketch's own
// accuracy. A sketch spread wider than maxBuckets is downscaled.
const (
	maxScale   = 6
	minScale   = -10
	maxBuckets = 2048
)

// bin is one sketch bin: the value it stands for and its count.
type bin struct {
	v float64
	n uint64
}

// values are raw samples on their way to one exponential histogram point.
type values struct {
	count    uint64
	sum      float64
	min, max float64
	bins     []bin
}

// add counts v n times.
func (d *values) add(v float64, n uint64) {
	if d.count == 0 || v < d.min {
		d.min = v
	}
	if d.count == 0 || v > d.max {
		d.max = v
	}
	d.count += n
	d.sum += v * float64(n)
	d.bins = append(d.bins, bin{v: v, n: n})
}

// distribution appends d to m as one delta exponential histogram point
// for the DefaultInterval ending at ts; false once the budget is spent.
func (b *builder) distribution(m pmetric.Metric, ts int64, d *values) bool {
	dp, ok := b.histogram(m)
	if !ok {
		return false
	}
	dp.SetStartTimestamp(seconds(ts - DefaultInterval))
	dp.SetTimestamp(seconds(ts))
	dp.SetCount(d.count)
	dp.SetSum(d.sum)
	dp.SetMin(d.min)
	dp.SetMax(d.max)
	setBuckets(dp, d.bins, b.bud)
	return true
}

// setBuckets fills an exponential histogram point from sketch bins,
// conserving every count: positive and negative bins go to the bucket
// holding their value, zero bins to the zero count.
// The buckets are taken from bud first.
func setBuckets(dp pmetric.ExponentialHistogramDataPoint, bins []bin, bud *budget.Budget) {
	var zero uint64
	loP, hiP, loN, hiN := math.MaxInt32, math.MinInt32, math.MaxInt32, math.MinInt32
	scale := maxScale
	for {
		loP, hiP, loN, hiN = math.MaxInt32, math.MinInt32, math.MaxInt32, math.MinInt32
		for _, b := range bins {
			switch {
			case b.v > 0:
				i := index(b.v, scale)
				loP, hiP = min(loP, i), max(hiP, i)
			case b.v < 0:
				i := index(-b.v, scale)
				loN, hiN = min(loN, i), max(hiN, i)
			}
		}
		if (hiP-loP < maxBuckets && hiN-loN < maxBuckets) || scale == minScale {
			break
		}
		scale--
	}
	if !bud.Take(8 * (int64(max(hiP-loP+1, 0)) + int64(max(hiN-loN+1, 0)))) {
		return
	}
	dp.SetScale(int32(scale))
	pos := dp.Positive()
	neg := dp.Negative()
	if hiP >= loP {
		pos.SetOffset(int32(loP))
		pos.BucketCounts().FromRaw(make([]uint64, hiP-loP+1))
	}
	if hiN >= loN {
		neg.SetOffset(int32(loN))
		neg.BucketCounts().FromRaw(make([]uint64, hiN-loN+1))
	}
	for _, b := range bins {
		switch {
		case b.v > 0:
			i := index(b.v, scale) - loP
			pos.BucketCounts().SetAt(i, pos.BucketCounts().At(i)+b.n)
		case b.v < 0:
			i := index(-b.v, scale) - loN
			neg.BucketCounts().SetAt(i, neg.BucketCounts().At(i)+b.n)
		default:
			zero += b.n
		}
	}
	dp.SetZeroCount(zero)
}

// index is the exponential bucket of v > 0 at scale: base^i < v <= base^(i+1).
func index(v float64, scale int) int {
	return int(math.Ceil(math.Log2(v)*math.Ldexp(1, scale))) - 1
}

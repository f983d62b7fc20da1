package metrics

import (
	"math"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The Agent's DDSketch: relative accuracy 1/128, so bin k > 0 holds values
// around γ^(k-bias) with γ = 1 + 2/128; negative keys mirror positive ones
// and key 0 holds zero (|v| < 1e-9).
var (
	agentGammaLn   = math.Log1p(2.0 / 128)
	agentGammaLog2 = agentGammaLn / math.Ln2
	agentBias      = 1 - int(math.Floor(math.Log(1e-9)/agentGammaLn))
)

// maxScale is the finest exponential scale used: its buckets (2^(2^-6),
// about 1.1% wide) are narrower than the Agent's (1.56%), so every sketch
// bin lands in its own bucket and quantiles stay within the sketch's own
// accuracy. A sketch spread wider than maxBuckets is downscaled.
const (
	maxScale   = 6
	minScale   = -10
	maxBuckets = 2048
)

// bin is one sketch bin: the sign of the value it stands for (0 for zero),
// the base-2 logarithm of its magnitude, from which its bucket at every
// scale follows, and its count. Holding the logarithm rather than the
// value lets a sketch key become a bin with one multiplication, where
// going through the value took an exponential and a logarithm per key
// (two thirds of a sketch's translation).
type bin struct {
	log2 float64
	sign int8
	n    uint64
}

// valueBin is the bin of n samples of v; NaN counts as zero, as it falls
// in no bucket.
func valueBin(v float64, n uint64) bin {
	var sign int8
	switch {
	case v > 0:
		sign = 1
	case v < 0:
		sign, v = -1, -v
	default:
		return bin{n: n}
	}
	// ±Inf is counted in a bucket beyond every finite value's, which keeps
	// its index an int.
	return bin{log2: min(math.Log2(v), 1100), sign: sign, n: n}
}

// keyBin is the bin of an Agent sketch key k holding n samples.
func keyBin(k int32, n uint32) bin {
	switch {
	case k > 0:
		return bin{log2: float64(int(k)-agentBias) * agentGammaLog2, sign: 1, n: uint64(n)}
	case k < 0:
		return bin{log2: float64(-int(k)-agentBias) * agentGammaLog2, sign: -1, n: uint64(n)}
	}
	return bin{n: uint64(n)}
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
	d.bins = append(d.bins, valueBin(v, n))
}

// distribution appends d to m as one delta exponential histogram point
// for the DefaultInterval ending at ts; false once the budget is spent.
// A point at a time the store cannot hold is left out and counted.
func (b *builder) distribution(m pmetric.Metric, ts int64, d *values) bool {
	if !b.storable(ts) {
		return true
	}
	dp, ok := b.histogram(m)
	if !ok {
		return false
	}
	dp.SetStartTimestamp(startSeconds(ts, DefaultInterval))
	dp.SetTimestamp(seconds(ts))
	dp.SetCount(d.count)
	dp.SetSum(d.sum)
	dp.SetMin(d.min)
	dp.SetMax(d.max)
	b.setBuckets(dp, d.bins)
	return true
}

// logRange is the smallest and largest log2 of one sign's bins; lo > hi
// when there are none.
type logRange struct{ lo, hi float64 }

// add widens r to l (never NaN), by comparisons: the builtin min and max,
// which order NaNs and signed zeros, cost a twentieth of a sketch.
func (r *logRange) add(l float64) {
	if l < r.lo {
		r.lo = l
	}
	if l > r.hi {
		r.hi = l
	}
}

// buckets is the first and last bucket index r spans at the scale whose
// multiplier is mult, with last < first when r is empty.
func (r logRange) buckets(mult float64) (first, last int) {
	if r.lo > r.hi {
		return 0, -1
	}
	return index(r.lo, mult), index(r.hi, mult)
}

// setBuckets fills an exponential histogram point from sketch bins,
// conserving every count: positive and negative bins go to the bucket
// holding their value, zero bins to the zero count.
// The buckets are taken from the builder's budget first.
func (b *builder) setBuckets(dp pmetric.ExponentialHistogramDataPoint, bins []bin) {
	pos, neg := logRange{math.Inf(1), math.Inf(-1)}, logRange{math.Inf(1), math.Inf(-1)}
	var zero uint64
	for _, x := range bins {
		switch x.sign {
		case 1:
			pos.add(x.log2)
		case -1:
			neg.add(x.log2)
		default:
			zero += x.n
		}
	}
	// Bucket indexes rise with the logarithm, so the extremes bound the
	// span at every scale.
	scale, mult := maxScale, math.Ldexp(1, maxScale)
	loP, hiP := pos.buckets(mult)
	loN, hiN := neg.buckets(mult)
	for (hiP-loP >= maxBuckets || hiN-loN >= maxBuckets) && scale > minScale {
		scale, mult = scale-1, mult/2
		loP, hiP = pos.buckets(mult)
		loN, hiN = neg.buckets(mult)
	}
	nP, nN := max(hiP-loP+1, 0), max(hiN-loN+1, 0)
	if !b.bud.Take(8 * int64(nP+nN)) {
		return
	}
	// The counts are summed in the builder's scratch and copied into the
	// point once (pdata copies whatever it is given).
	b.counts = append(b.counts[:0], make([]uint64, nP+nN)...)
	counts := b.counts
	for _, x := range bins {
		switch x.sign {
		case 1:
			counts[index(x.log2, mult)-loP] += x.n
		case -1:
			counts[nP+index(x.log2, mult)-loN] += x.n
		}
	}
	dp.SetScale(int32(scale))
	if nP > 0 {
		dp.Positive().SetOffset(int32(loP))
		dp.Positive().BucketCounts().FromRaw(counts[:nP])
	}
	if nN > 0 {
		dp.Negative().SetOffset(int32(loN))
		dp.Negative().BucketCounts().FromRaw(counts[nP:])
	}
	dp.SetZeroCount(zero)
}

// index is the exponential bucket of a value whose log2 is l, at the scale
// whose multiplier is mult (2^scale): base^i < v <= base^(i+1).
func index(l, mult float64) int {
	return int(math.Ceil(l*mult)) - 1
}

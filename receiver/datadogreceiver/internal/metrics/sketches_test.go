package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// agentKey is the Agent's key for v: round(log_γ v) + bias, mirrored for
// negatives, 0 for |v| below 1e-9 (datadog-agent pkg/quantile).
func agentKey(v float64) int32 {
	switch {
	case v < 0:
		return -agentKey(-v)
	case v < 1e-9:
		return 0
	}
	return int32(math.RoundToEven(math.Log(v)/agentGammaLn)) + int32(agentBias)
}

// dogsketch builds what an Agent sends for values.
func dogsketch(ts int64, values []float64) gogen.SketchPayload_Sketch_Dogsketch {
	counts := map[int32]uint32{}
	d := gogen.SketchPayload_Sketch_Dogsketch{Ts: ts, Cnt: int64(len(values)), Min: math.Inf(1), Max: math.Inf(-1)}
	for _, v := range values {
		counts[agentKey(v)]++
		d.Sum += v
		d.Min, d.Max = min(d.Min, v), max(d.Max, v)
	}
	d.Avg = d.Sum / float64(len(values))
	keys := make([]int32, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		d.K = append(d.K, k)
		d.N = append(d.N, counts[k])
	}
	return d
}

// quantile reads quantile q off an exponential histogram point, taking each
// bucket's value as the geometric middle of its bounds.
func quantile(dp pmetric.ExponentialHistogramDataPoint, q float64) float64 {
	base := math.Pow(2, math.Ldexp(1, -int(dp.Scale())))
	rank := q * float64(dp.Count()-1)
	var seen float64
	neg := dp.Negative()
	for i := neg.BucketCounts().Len() - 1; i >= 0; i-- {
		seen += float64(neg.BucketCounts().At(i))
		if seen > rank {
			return -math.Pow(base, float64(int(neg.Offset())+i)+0.5)
		}
	}
	seen += float64(dp.ZeroCount())
	if seen > rank {
		return 0
	}
	pos := dp.Positive()
	for i := 0; i < pos.BucketCounts().Len(); i++ {
		seen += float64(pos.BucketCounts().At(i))
		if seen > rank {
			return math.Pow(base, float64(int(pos.Offset())+i)+0.5)
		}
	}
	return math.NaN()
}

func exact(sorted []float64, q float64) float64 { return sorted[int(q*float64(len(sorted)-1))] }

func TestSketchQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cases := map[string][]float64{}
	var latencies, mixed []float64
	for i := 0; i < 20000; i++ {
		latencies = append(latencies, math.Exp(r.NormFloat64()*1.5+3)) // lognormal, ms-like
		switch i % 10 {
		case 0:
			mixed = append(mixed, 0)
		case 1, 2, 3:
			mixed = append(mixed, -math.Exp(r.NormFloat64()))
		default:
			mixed = append(mixed, math.Exp(r.NormFloat64()*3))
		}
	}
	cases["lognormal"], cases["signed with zeros"] = latencies, mixed
	for name, values := range cases {
		t.Run(name, func(t *testing.T) {
			sp := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
				Metric: "request.latency", Host: "web-1", Tags: []string{"env:prod", "route:/cart"},
				Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{dogsketch(1_700_000_000, values)},
			}}}
			body, err := sp.Marshal()
			require.NoError(t, err)
			md, err := Sketches(body, nil)
			require.NoError(t, err)
			m := byName(md)["request.latency"]
			require.Equal(t, pmetric.MetricTypeExponentialHistogram, m.Type())
			assert.Equal(t, pmetric.AggregationTemporalityDelta, m.ExponentialHistogram().AggregationTemporality())
			dp := m.ExponentialHistogram().DataPoints().At(0)

			sorted := slices.Clone(values)
			slices.Sort(sorted)
			assert.Equal(t, uint64(len(values)), dp.Count())
			inBuckets := dp.ZeroCount()
			for _, bc := range [][]uint64{dp.Positive().BucketCounts().AsRaw(), dp.Negative().BucketCounts().AsRaw()} {
				for _, c := range bc {
					inBuckets += c
				}
			}
			assert.Equal(t, dp.Count(), inBuckets, "every count lands in a bucket")
			assert.Equal(t, uint64(len(values)-len(slices.DeleteFunc(slices.Clone(values), func(v float64) bool { return v == 0 }))),
				dp.ZeroCount(), "key 0, the Agent's zero, is the zero count")
			assert.Equal(t, sorted[0], dp.Min())
			assert.Equal(t, sorted[len(sorted)-1], dp.Max())
			assert.InDelta(t, sumOf(values), dp.Sum(), 1e-6*math.Abs(sumOf(values))+1e-9)
			// The Agent's sketch is accurate to 1/128 relative; the buckets
			// add at most half of their own 1.1% width.
			for _, q := range []float64{0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999} {
				want, got := exact(sorted, q), quantile(dp, q)
				if want == 0 {
					assert.Equal(t, 0.0, got, "q%.3f", q)
					continue
				}
				assert.InEpsilon(t, want, got, 0.015, "q%.3f", q)
			}
			assert.Equal(t, map[string]any{"route": "/cart"}, dp.Attributes().AsRaw())
		})
	}
}

func sumOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

func TestSketchesGolden(t *testing.T) {
	sp := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
		Metric: "request.latency", Host: "web-1", Tags: []string{"env:prod", "route:/cart"},
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{dogsketch(1_700_000_000, []float64{0, 0.5, 1, 1, 2, 40, -3})},
		Metadata:    &gogen.Metadata{Origin: &gogen.Origin{OriginProduct: 1}},
	}}}
	body, err := sp.Marshal()
	require.NoError(t, err)
	md, err := Sketches(body, nil)
	require.NoError(t, err)
	checkGolden(t, "sketches", md)
}

func TestSketchErrors(t *testing.T) {
	bad := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{Metric: "m",
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{{K: []int32{1, 2}, N: []uint32{1}}}}}}
	body, _ := bad.Marshal()
	_, err := Sketches(body, nil)
	assert.ErrorContains(t, err, "keys")
	legacy := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{Metric: "m",
		Distributions: []gogen.SketchPayload_Sketch_Distribution{{Cnt: 1}}}}}
	body, _ = legacy.Marshal()
	_, err = Sketches(body, nil)
	assert.ErrorContains(t, err, "GK")
	_, err = Sketches([]byte{0xff, 0x01}, nil)
	assert.Error(t, err)
}

func TestWideSketchIsDownscaled(t *testing.T) {
	values := []float64{1e-8, 1, 1e8}
	sp := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{Metric: "wide",
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{dogsketch(1, values)}}}}
	body, _ := sp.Marshal()
	md, err := Sketches(body, nil)
	require.NoError(t, err)
	dp := byName(md)["wide"].ExponentialHistogram().DataPoints().At(0)
	assert.Less(t, dp.Scale(), int32(maxScale))
	assert.LessOrEqual(t, dp.Positive().BucketCounts().Len(), maxBuckets)
	assert.Equal(t, uint64(3), dp.Count())
}

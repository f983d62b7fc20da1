package metrics

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/mutate"
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
	bad := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
		Metric:      "m",
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{{K: []int32{1, 2}, N: []uint32{1}}},
	}}}
	body, _ := bad.Marshal()
	_, err := Sketches(body, nil)
	require.ErrorContains(t, err, "keys")
	legacy := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
		Metric:        "m",
		Distributions: []gogen.SketchPayload_Sketch_Distribution{{Cnt: 1}},
	}}}
	body, _ = legacy.Marshal()
	_, err = Sketches(body, nil)
	require.ErrorContains(t, err, "GK")
	_, err = Sketches([]byte{0xff, 0x01}, nil)
	assert.Error(t, err)
}

func TestWideSketchIsDownscaled(t *testing.T) {
	values := []float64{1e-8, 1, 1e8}
	sp := gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
		Metric:      "wide",
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{dogsketch(1, values)},
	}}}
	body, _ := sp.Marshal()
	md, err := Sketches(body, nil)
	require.NoError(t, err)
	dp := byName(md)["wide"].ExponentialHistogram().DataPoints().At(0)
	assert.Less(t, dp.Scale(), int32(maxScale))
	assert.LessOrEqual(t, dp.Positive().BucketCounts().Len(), maxBuckets)
	assert.Equal(t, uint64(3), dp.Count())
}

// sketchesReference is what Sketches is held to: gogo's generated
// decoder, then the same builder with the same budget.
func sketchesReference(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.Proto(payloadDescriptor("SketchPayload"), body); err != nil {
		return pmetric.Metrics{}, err
	}
	var sp gogen.SketchPayload
	if err := sp.Unmarshal(body); err != nil {
		return pmetric.Metrics{}, fmt.Errorf("decoding SketchPayload protobuf: %w", err)
	}
	b := newBuilder(bud)
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
			if !b.storable(d.Ts) {
				continue
			}
			dp, ok := b.histogram(m)
			if !ok {
				return b.result()
			}
			dp.SetStartTimestamp(startSeconds(d.Ts, DefaultInterval))
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

// assertSameSketches holds Sketches to its reference (assertSameAs).
func assertSameSketches(t testing.TB, body []byte, limit int64) {
	t.Helper()
	assertSameAs(t, body, limit, sketchesReference, Sketches)
}

// sketchFixture has two sketches, one with an origin and zero, negative
// and positive keys, and the payload's own metadata.
func sketchFixture(t testing.TB) []byte {
	t.Helper()
	sp := gogen.SketchPayload{
		Sketches: []gogen.SketchPayload_Sketch{{
			Metric: "request.latency", Host: "web-1", Tags: []string{"env:prod", "route:/cart"},
			Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{
				dogsketch(1_700_000_000, []float64{0, 0.5, 1, 1, 2, 40, -3}),
				dogsketch(1_700_000_010, []float64{7, 8}),
			},
			Metadata: &gogen.Metadata{Origin: &gogen.Origin{OriginProduct: 10, OriginService: 3}},
		}, {
			Metric: "queue.wait", Host: "web-2", Tags: []string{"env:prod"},
			Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{dogsketch(1_700_000_000, []float64{0.001, 0.002, 5})},
		}},
		Metadata: gogen.CommonMetadata{AgentVersion: "7.60.0", Timezone: "UTC"},
	}
	body, err := sp.Marshal()
	require.NoError(t, err)
	return body
}

func TestSketchesMatchGeneratedDecoder(t *testing.T) {
	fixture := sketchFixture(t)
	assertSameSketches(t, fixture, 1<<30)
	assertSameSketches(t, sketchPayload(), 1<<30)
	assertSameSketches(t, sketchPayload(), 256<<10) // the budget runs out part-way

	// Keys and counts unpacked and interleaved, a nameless sketch, keys
	// without counts, and a legacy distribution alone.
	dog := protowire.AppendTag(nil, dogsketchTs, protowire.VarintType)
	dog = protowire.AppendVarint(dog, 1_700_000_000)
	for _, k := range []int32{1338, -1400, 0} {
		dog = protowire.AppendTag(dog, dogsketchK, protowire.VarintType)
		dog = protowire.AppendVarint(dog, protowire.EncodeZigZag(int64(k)))
		dog = protowire.AppendTag(dog, dogsketchN, protowire.VarintType)
		dog = protowire.AppendVarint(dog, 2)
	}
	sketch := protowire.AppendBytes(protowire.AppendTag(nil, sketchDogsketches, protowire.BytesType), dog)
	named := protowire.AppendString(protowire.AppendTag(sketch, sketchMetric, protowire.BytesType), "late.name")
	body := protowire.AppendBytes(protowire.AppendTag(nil, sketchPayloadSketches, protowire.BytesType), named)
	assertSameSketches(t, body, 1<<30)
	md, err := Sketches(body, nil)
	require.NoError(t, err)
	dp := byName(md)["late.name"].ExponentialHistogram().DataPoints().At(0)
	assert.Equal(t, uint64(2), dp.ZeroCount())

	nameless := protowire.AppendBytes(protowire.AppendTag(body, sketchPayloadSketches, protowire.BytesType), sketch)
	_, err = Sketches(nameless, nil)
	require.EqualError(t, err, "sketch 1 has no metric name")
	assertSameSketches(t, nameless, 1<<30)

	half := protowire.AppendTag(nil, dogsketchK, protowire.VarintType)
	half = protowire.AppendVarint(half, 4)
	lopsided := protowire.AppendBytes(protowire.AppendTag(nil, sketchDogsketches, protowire.BytesType), half)
	lopsided = protowire.AppendString(protowire.AppendTag(lopsided, sketchMetric, protowire.BytesType), "m")
	assertSameSketches(t, protowire.AppendBytes(protowire.AppendTag(body, sketchPayloadSketches, protowire.BytesType), lopsided), 1<<30)

	// A packed run of keys whose last varint carries on past the run: the
	// generated decoder reads it to its end (key 128 zigzagged, 64) and
	// goes on from there (a count of 1).
	overrun := []byte{dogsketchK<<3 | 2, 1, 0x80, 0x01, dogsketchN << 3, 1}
	overrun = protowire.AppendBytes(protowire.AppendTag(nil, sketchDogsketches, protowire.BytesType), overrun)
	overrun = protowire.AppendString(protowire.AppendTag(overrun, sketchMetric, protowire.BytesType), "overrun")
	overrunBody := protowire.AppendBytes(protowire.AppendTag(nil, sketchPayloadSketches, protowire.BytesType), overrun)
	assertSameSketches(t, overrunBody, 1<<30)
	md, err = Sketches(overrunBody, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, byName(md)["overrun"].ExponentialHistogram().DataPoints().At(0).Positive().BucketCounts().Len())

	legacy := protowire.AppendBytes(protowire.AppendTag(nil, sketchDistributions, protowire.BytesType), nil)
	legacy = protowire.AppendString(protowire.AppendTag(legacy, sketchMetric, protowire.BytesType), "m")
	assertSameSketches(t, protowire.AppendBytes(protowire.AppendTag(nil, sketchPayloadSketches, protowire.BytesType), legacy), 1<<30)
}

// TestSketchesMatchOnMutations holds Sketches to gogo's decoder on
// corrupted, truncated payloads (fixed seed, fixed count).
func TestSketchesMatchOnMutations(t *testing.T) {
	mutate.Each(sketchFixture(t), 7, func(b []byte) { assertSameSketches(t, b, 1<<30) })
}

func FuzzSketches(f *testing.F) {
	f.Add(sketchFixture(f))
	f.Fuzz(func(t *testing.T, body []byte) { assertSameSketches(t, body, 1<<20) })
}

func BenchmarkSketchesReference(b *testing.B) {
	bench(b, 100, sketchPayload(), func(body []byte) error { _, err := sketchesReference(body, nil); return err })
}

package metrics

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/mutate"
)

// seriesV2Reference is what SeriesV2 is held to: gogo's generated
// decoder, then the same builder, with the same budget: each series'
// resources, tags and points (heldCost), then what the builder takes.
func seriesV2Reference(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
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
		if !bud.Take(int64(len(ps.Resources))*heldCost(seriesResources) + int64(len(ps.Tags))*heldCost(seriesTags) +
			int64(len(ps.Points))*heldCost(seriesPoints)) {
			break
		}
		s = series{
			name: ps.Metric, unit: ps.Unit, typ: Type(ps.Type), interval: ps.Interval,
			sourceType: ps.SourceTypeName, tags: ps.Tags, resources: s.resources[:0],
		}
		if err := s.check(i); err != nil {
			return pmetric.Metrics{}, err
		}
		for _, r := range ps.Resources {
			s.resources = append(s.resources, [2]string{r.Type, r.Name})
		}
		if o := ps.Metadata.GetOrigin(); o != nil {
			s.origin = &origin{product: o.OriginProduct, category: o.OriginCategory, service: o.OriginService}
		}
		m := b.metric(&s)
		for _, pt := range ps.Points {
			b.point(m, &s, pt.Timestamp, pt.Value)
		}
	}
	return b.result()
}

// assertSameSeries holds SeriesV2 to its reference (assertSameAs).
func assertSameSeries(t testing.TB, body []byte, limit int64) {
	t.Helper()
	assertSameAs(t, body, limit, seriesV2Reference, SeriesV2)
}

// assertSameAs: decode accepts what reference accepts, and only that,
// refuses it with the same error (perhaps wrapped) unless the wire's,
// whose wording is pbwire's, and builds the same metrics.
func assertSameAs(t testing.TB, body []byte, limit int64, reference, decode func([]byte, *budget.Budget) (pmetric.Metrics, error)) {
	t.Helper()
	want, errWant := reference(body, budget.New(limit))
	got, errGot := decode(body, budget.New(limit))
	var unstorable *UnstorableError
	if errors.As(errWant, &unstorable) {
		// Points left out for their time: the same ones, and the rest.
		require.Equal(t, errWant, errGot)
		require.NoError(t, pmetrictest.CompareMetrics(want, got))
		return
	}
	if errWant != nil {
		require.Error(t, errGot, "the reference refused it: %v", errWant)
		if !strings.HasPrefix(errWant.Error(), "decoding") {
			require.True(t, strings.HasSuffix(errGot.Error(), errWant.Error()), "%v, where the reference says %v", errGot, errWant)
		}
		return
	}
	require.NoError(t, errGot)
	require.NoError(t, pmetrictest.CompareMetrics(want, got))
}

func TestSeriesV2MatchesGeneratedDecoder(t *testing.T) {
	fixture, err := v2Payload().Marshal()
	require.NoError(t, err)
	assertSameSeries(t, fixture, 1<<30)
	assertSameSeries(t, benchV2(), 1<<30)
	assertSameSeries(t, benchV2(), 64<<10) // the budget runs out part-way

	// Fields in reverse order, a series' metadata in two messages (they
	// merge), a nameless series after a named one.
	origin := protowire.AppendTag(nil, 4, protowire.VarintType)
	origin = protowire.AppendVarint(origin, 7)
	meta := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), origin)
	series := protowire.AppendBytes(protowire.AppendTag(nil, 9, protowire.BytesType), meta)
	origin = protowire.AppendTag(nil, 6, protowire.VarintType)
	origin = protowire.AppendVarint(origin, 9)
	meta = protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), origin)
	series = protowire.AppendBytes(protowire.AppendTag(series, 9, protowire.BytesType), meta)
	series = protowire.AppendTag(series, 5, protowire.VarintType)
	series = protowire.AppendVarint(series, uint64(gogen.MetricPayload_RATE))
	series = protowire.AppendTag(series, 2, protowire.BytesType)
	series = protowire.AppendString(series, "late.name")
	body := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), series)
	assertSameSeries(t, body, 1<<30)
	md, err := SeriesV2(body, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"datadog.origin.product": int64(7), "datadog.origin.category": int64(0),
		"datadog.origin.service": int64(9), "datadog.type": "rate",
	}, byName(md)["late.name"].Metadata().AsRaw())

	nameless := protowire.AppendBytes(protowire.AppendTag(body, 1, protowire.BytesType), nil)
	_, err = SeriesV2(nameless, nil)
	require.EqualError(t, err, "series 1 has no metric name")
	assertSameSeries(t, nameless, 1<<30)
}

func TestSeriesV2Rejects(t *testing.T) {
	// Type 100 is this package's own sketch type: it made a histogram
	// metric that a point then read as a gauge, a nil dereference.
	unknownType, err := (&gogen.MetricPayload{Series: []*gogen.MetricPayload_MetricSeries{{
		Metric: "m", Type: 100,
		Points: []*gogen.MetricPayload_MetricPoint{{Timestamp: 1, Value: 1}},
	}}}).Marshal()
	require.NoError(t, err)
	_, err = SeriesV2(unknownType, nil)
	require.EqualError(t, err, "series 0 (m) has unknown type 100")

	for name, body := range map[string][]byte{
		"truncated":       {0x0a, 0x05, 0x12},
		"wrong wire type": {0x0d, 0, 0, 0, 0},                   // series as fixed32
		"point value":     {0x0a, 0x04, 0x22, 0x02, 0x08, 0x01}, // value as varint
		"end group":       {0x0c},
	} {
		_, errWant := seriesV2Reference(body, nil)
		_, err := SeriesV2(body, nil)
		require.Error(t, errWant, "reference: %s", name)
		assert.Error(t, err, name)
	}
}

// TestSeriesV2MatchesOnMutations holds SeriesV2 to gogo's decoder on
// corrupted, truncated payloads (fixed seed, fixed count).
func TestSeriesV2MatchesOnMutations(t *testing.T) {
	body, err := v2Payload().Marshal()
	require.NoError(t, err)
	mutate.Each(body, 5, func(b []byte) { assertSameSeries(t, b, 1<<30) })
}

func FuzzSeriesV2(f *testing.F) {
	body, _ := v2Payload().Marshal()
	f.Add(body)
	f.Fuzz(func(t *testing.T, body []byte) { assertSameSeries(t, body, 1<<20) })
}

func BenchmarkSeriesV2Reference(b *testing.B) {
	bench(b, 1000, benchV2(), func(body []byte) error { _, err := seriesV2Reference(body, nil); return err })
}

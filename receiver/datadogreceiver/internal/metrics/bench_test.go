package metrics

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/perfcorpus"
)

// 500 series × 2 points, tags like an Agent's system and container checks.
func benchTags(i int) []string {
	return []string{
		"env:prod", "service:web-store", "version:1.42.0", "kube_namespace:shop",
		fmt.Sprintf("pod_name:web-store-%05d", i%40), "kube_deployment:web-store", "availability-zone:us-east-1a",
		fmt.Sprintf("device:sd%c", 'a'+i%4),
	}
}

func benchV2() []byte {
	p := &gogen.MetricPayload{}
	for i := 0; i < 500; i++ {
		p.Series = append(p.Series, &gogen.MetricPayload_MetricSeries{
			Metric: fmt.Sprintf("system.metric.%d", i%60), Type: gogen.MetricPayload_MetricType(i % 4), Interval: 10,
			Resources: []*gogen.MetricPayload_Resource{{Type: "host", Name: fmt.Sprintf("ip-10-0-0-%d", i%10)}},
			Tags:      benchTags(i),
			Points:    []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: float64(i)}, {Timestamp: 1_700_000_010, Value: float64(i + 1)}},
		})
	}
	b, _ := p.Marshal()
	return b
}

func benchV1() []byte {
	var sb strings.Builder
	sb.WriteString(`{"series":[`)
	for i := 0; i < 500; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"metric":"system.metric.%d","points":[[1700000000,%d.5],[1700000010,%d.5]],"type":%q,"interval":10,"host":"ip-10-0-0-%d","tags":["%s"]}`,
			i%60, i, i+1, []string{"gauge", "count", "rate", "gauge"}[i%4], i%10, strings.Join(benchTags(i), `","`))
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

func bench(b *testing.B, points int, body []byte, f func([]byte) error) {
	b.Helper()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := f(body); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*points), "ns/point")
}

func BenchmarkSeriesV2(b *testing.B) {
	bench(b, 1000, benchV2(), func(body []byte) error { _, err := SeriesV2(body, nil); return err })
}

// BenchmarkSeriesV2Corpus translates the load tool's corpus's v2
// payloads in turn (PERF_CORPUS=/tmp/otelhouse-load/corpus, once the load
// tool has generated it; else benchV2): more hosts, services and zones
// than benchV2, so many more resources per payload, as the load tool
// sends them.
func BenchmarkSeriesV2Corpus(b *testing.B) {
	bodies := corpusV2(b)
	i := 0
	bench(b, 1000, bodies[0], func([]byte) error {
		_, err := SeriesV2(bodies[i%len(bodies)], nil)
		i++
		return err
	})
}

// corpusV2 is the perf corpus's series_v2_zstd payloads, decompressed.
func corpusV2(tb testing.TB) [][]byte {
	tb.Helper()
	zs := perfcorpus.Payloads(tb, "series_v2_zstd")
	if zs == nil {
		return [][]byte{benchV2()}
	}
	dec, err := zstd.NewReader(nil)
	require.NoError(tb, err)
	defer dec.Close()
	bodies := make([][]byte, 0, len(zs))
	for _, z := range zs {
		body, err := dec.DecodeAll(z, nil)
		require.NoError(tb, err)
		bodies = append(bodies, body)
	}
	return bodies
}

// BenchmarkSeriesV2JSON is benchV2's payload as the Datadog API clients
// send it, in JSON.
func BenchmarkSeriesV2JSON(b *testing.B) {
	var p gogen.MetricPayload
	require.NoError(b, p.Unmarshal(benchV2()))
	for _, s := range p.Series {
		for _, pt := range s.Points {
			pt.Value += 0.5 // a zero value would be left out (omitempty), which the clients never do
		}
	}
	body, err := json.Marshal(&p)
	require.NoError(b, err)
	bench(b, 1000, body, func(body []byte) error { _, err := SeriesV2JSON(body, nil); return err })
}

func BenchmarkSeriesV1(b *testing.B) {
	bench(b, 1000, benchV1(), func(body []byte) error { _, err := SeriesV1(body, nil); return err })
}

// sketchPayload is 100 sketches of 200 latencies each, as an Agent sends
// a distribution's interval.
func sketchPayload() []byte {
	r := rand.New(rand.NewPCG(1, 1))
	sp := gogen.SketchPayload{}
	for i := 0; i < 100; i++ {
		vals := make([]float64, 200)
		for j := range vals {
			vals[j] = r.ExpFloat64() * 100
		}
		sp.Sketches = append(sp.Sketches, gogen.SketchPayload_Sketch{
			Metric: "latency", Host: "h", Tags: benchTags(i),
			Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{dogsketch(1_700_000_000, vals)},
		})
	}
	body, _ := sp.Marshal()
	return body
}

func BenchmarkSketches(b *testing.B) {
	bench(b, 100, sketchPayload(), func(body []byte) error { _, err := Sketches(body, nil); return err })
}

func BenchmarkClientStats(b *testing.B) {
	t := &testing.T{}
	p := clientPayload(t)
	for i := 0; i < 48; i++ {
		src := p.Stats[0].Stats[i%2]
		p.Stats[0].Stats = append(p.Stats[0].Stats, &pb.ClientGroupedStats{
			Service: src.Service, Name: src.Name,
			Resource: fmt.Sprintf("GET /r/%d", i), Type: src.Type, SpanKind: src.SpanKind, Hits: src.Hits,
			Errors: src.Errors, Duration: src.Duration, OkSummary: src.OkSummary, ErrorSummary: src.ErrorSummary,
		})
	}
	body, _ := p.MarshalMsg(nil)
	bench(b, 50, body, func(body []byte) error { _, err := ClientStats(body, nil); return err })
}

// BenchmarkPdataCopy copies the translation of the v2 series payload with
// pdata's own deep copy: the allocations the translation cannot avoid
// (pdata allocates each metric, data point and attribute apart, and the
// OpenTelemetry model puts a series' tags on each of its points), with no
// decoding and no lookups. It is the floor under BenchmarkSeriesV2Corpus.
func BenchmarkPdataCopy(b *testing.B) {
	md, err := SeriesV2(corpusV2(b)[0], nil)
	if err != nil {
		b.Fatal(err)
	}
	pdataCopy(b, md)
}

// BenchmarkSketchesPdataCopy is the same floor under BenchmarkSketches:
// each point an exponential histogram of about a thousand buckets.
func BenchmarkSketchesPdataCopy(b *testing.B) {
	md, err := Sketches(sketchPayload(), nil)
	if err != nil {
		b.Fatal(err)
	}
	pdataCopy(b, md)
}

func pdataCopy(b *testing.B, md pmetric.Metrics) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		md.CopyTo(pmetric.NewMetrics())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*md.DataPointCount()), "ns/point")
}

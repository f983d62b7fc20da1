package datadogreceiver

import (
	"fmt"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"google.golang.org/protobuf/encoding/protowire"
)

// hostile is a small body that stands for a great deal of memory once
// decoded: tiny items, or tags that are copied to every point.
type hostile struct {
	name, path, contentType string
	body                    []byte
}

// emptyMaps is a msgpack array of n empty maps: the smallest spans.
func emptyMaps(b []byte, n int) []byte {
	b = msgp.AppendArrayHeader(b, uint32(n))
	for range n {
		b = msgp.AppendMapHeader(b, 0)
	}
	return b
}

// encoded is what an encoder wrote, failing the test if it failed.
func encoded(t *testing.T) func([]byte, error) []byte {
	t.Helper()
	return func(b []byte, err error) []byte {
		require.NoError(t, err)
		return b
	}
}

func hostileBodies(t *testing.T) []hostile {
	t.Helper()
	const n = 400_000
	var out []hostile

	v04 := emptyMaps(msgp.AppendArrayHeader(nil, 1), n)
	out = append(out, hostile{"v0.4 empty spans", "/v0.4/traces", "application/msgpack", v04})

	v07 := msgp.AppendMapHeader(nil, 1)
	v07 = msgp.AppendString(v07, "chunks")
	v07 = msgp.AppendArrayHeader(v07, 1)
	v07 = msgp.AppendMapHeader(v07, 1)
	v07 = msgp.AppendString(v07, "spans")
	v07 = emptyMaps(v07, n)
	out = append(out, hostile{"v0.7 empty spans", "/v0.7/traces", "application/msgpack", v07})

	spans := make([]*pb.Span, n)
	for i := range spans {
		spans[i] = &pb.Span{}
	}
	out = append(out, hostile{
		"AgentPayload empty spans", "/api/v0.2/traces", "application/x-protobuf",
		encoded(t)((&pb.AgentPayload{TracerPayloads: []*pb.TracerPayload{{Chunks: []*pb.TraceChunk{{Spans: spans}}}}}).MarshalVT()),
	})

	// One span of empty meta entries, two bytes each on the wire: counted
	// as they are read, before the span is built.
	meta := make(map[string]string, n/2)
	for i := range n / 2 {
		meta[strconv.Itoa(i)] = ""
	}
	out = append(out, hostile{
		"AgentPayload meta entries", "/api/v0.2/traces", "application/x-protobuf",
		encoded(t)((&pb.AgentPayload{TracerPayloads: []*pb.TracerPayload{{Chunks: []*pb.TraceChunk{{Spans: []*pb.Span{{Meta: meta}}}}}}}).MarshalVT()),
	})

	out = append(out, hostile{
		"v0.4 JSON empty spans", "/v0.4/traces", "application/json",
		[]byte("[[" + strings.Repeat("{},", n) + "{}]]"),
	})

	var tags []string
	for i := range 2000 {
		tags = append(tags, fmt.Sprintf("t%d:v", i))
	}
	points := make([]*gogen.MetricPayload_MetricPoint, 20_000)
	for i := range points {
		points[i] = &gogen.MetricPayload_MetricPoint{Timestamp: int64(i), Value: 1}
	}
	out = append(out, hostile{
		"v2 series tags × points", "/api/v2/series", "application/x-protobuf",
		encoded(t)((&gogen.MetricPayload{Series: []*gogen.MetricPayload_MetricSeries{{Metric: "m", Tags: tags, Points: points}}}).Marshal()),
	})

	// One series of empty resources, tags or points, two bytes each on the
	// wire and 16 to 32 held until the series is built: counted as read.
	for _, f := range []struct {
		name string
		num  protowire.Number
	}{{"resources", 1}, {"tags", 3}, {"points", 4}} {
		series := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), []byte("m"))
		for range 3 * n {
			series = protowire.AppendBytes(protowire.AppendTag(series, f.num, protowire.BytesType), nil)
		}
		out = append(out, hostile{
			"v2 series empty " + f.name, "/api/v2/series", "application/x-protobuf",
			protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), series),
		})
	}

	v1 := `{"series":[{"metric":"m","tags":["` + strings.Join(tags, `","`) + `"],"points":[` +
		strings.Repeat("[1,1],", 20_000) + `[1,1]]}]}`
	out = append(out, hostile{"v1 series tags × points", "/api/v1/series", "application/json", []byte(v1)})

	sketches := make([]gogen.SketchPayload_Sketch, 5000)
	for i := range sketches {
		// Bins far apart (1e-9 to 1e11, either sign): every bucket between
		// them is allocated, about a thousand on each side.
		sketches[i] = gogen.SketchPayload_Sketch{Metric: "d", Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{
			{Ts: 1, Cnt: 4, K: []int32{-3000, -1, 1, 3000}, N: []uint32{1, 1, 1, 1}},
		}}
	}
	out = append(out, hostile{
		"wide sketches", "/api/beta/sketches", "application/x-protobuf",
		encoded(t)((&gogen.SketchPayload{Sketches: sketches}).Marshal()),
	})

	out = append(out, hostile{
		"empty log objects", "/api/v2/logs", "application/json",
		[]byte("[" + strings.Repeat("{},", n) + "{}]"),
	})

	var records []string
	for i := range 1000 {
		records = append(records, fmt.Sprintf(`{"hostname":"h%d"}`, i))
	}
	out = append(out, hostile{
		"query tags × records", "/api/v2/logs?ddtags=" + url.QueryEscape(strings.Join(tags[:1000], ",")),
		"application/json", []byte("[" + strings.Join(records, ",") + "]"),
	})

	groups := make([]*pb.ClientGroupedStats, 2000)
	for i := range groups {
		groups[i] = &pb.ClientGroupedStats{Service: "s", Name: "op", Hits: 1}
	}
	out = append(out, hostile{
		"stats tags × groups", "/v0.6/stats", "application/msgpack",
		encoded(t)((&pb.ClientStatsPayload{Tags: tags, Stats: []*pb.ClientStatsBucket{{Start: 1, Duration: 1e10, Stats: groups}}}).MarshalMsg(nil)),
	})

	out = append(out, hostile{
		"empty events", "/intake/", "application/json",
		[]byte(`{"events":{"s":[` + strings.Repeat("{},", n) + `{}]}}`),
	})
	return out
}

// TestHostileBodiesStayWithinTheBudget sends bodies of at most a few MB
// that, decoded, would take hundreds of MB to GBs: each is refused with 413
// after allocating about what max_decoded_size allows, and nothing reaches
// the pipeline.
func TestHostileBodiesStayWithinTheBudget(t *testing.T) {
	const limit = 8 << 20
	h := startAll(t, func(c *Config) { c.MaxDecodedSize = limit },
		new(consumertest.TracesSink), new(consumertest.LogsSink), new(consumertest.MetricsSink))
	for _, c := range hostileBodies(t) {
		t.Run(c.name, func(t *testing.T) {
			require.Less(t, len(c.body), 4<<20, "a small body")
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			status, body, _ := h.do(t, "POST", c.path, c.body, "Content-Type", c.contentType)
			runtime.ReadMemStats(&after)
			assert.Equal(t, 413, status, body)
			assert.Contains(t, body, "max_decoded_size")
			allocated := after.TotalAlloc - before.TotalAlloc
			// The body, read and copied; what the budget allows, live, and
			// the garbage of building it (a few times as much); slack.
			assert.Less(t, allocated, uint64(4*len(c.body)+4*limit+(8<<20)), "bytes allocated")
		})
	}
	assert.Zero(t, h.traces.SpanCount())
	assert.Zero(t, h.logs.LogRecordCount())
	assert.Zero(t, h.metrics.DataPointCount())
}

// TestBudgetOff is the same hostile body with max_decoded_size 0: no bound.
func TestBudgetOff(t *testing.T) {
	h := startAll(t, func(c *Config) { c.MaxDecodedSize = 0 }, nil, new(consumertest.LogsSink), nil)
	status, body, _ := h.do(t, "POST", "/api/v2/logs", []byte("["+strings.Repeat("{},", 9999)+"{}]"),
		"Content-Type", "application/json")
	assert.Equal(t, 202, status, body)
	assert.Equal(t, 10_000, h.logs.LogRecordCount())
}

package metrics

import (
	"testing"
	"time"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// small is a budget the fuzzer's inputs can spend, so its paths are
// fuzzed too.
func small() *budget.Budget { return budget.New(1 << 20) }

// decoders are every metrics intake's translation, by the fuzzer's first
// byte.
var decoders = []func([]byte) error{
	func(b []byte) error { _, err := SeriesV1(b, small()); return err },
	func(b []byte) error { _, err := SeriesV2(b, small()); return err },
	func(b []byte) error { _, err := SeriesV2JSON(b, small()); return err },
	func(b []byte) error { _, err := Sketches(b, small()); return err },
	func(b []byte) error { _, err := CheckRuns(b, small()); return err },
	func(b []byte) error { _, err := ClientStats(b, small()); return err },
	func(b []byte) error { _, err := AgentStats(b, small()); return err },
	func(b []byte) error { _, _, err := DogStatsD(b, time.Unix(1_700_000_000, 0), small()); return err },
	func(b []byte) error { _, err := DistributionPoints(b, small()); return err },
}

// FuzzMetricsDecoders: no body, however malformed, panics or hangs a
// metrics decoder; an error is the only way out.
func FuzzMetricsDecoders(f *testing.F) {
	v2, _ := (&gogen.MetricPayload{Series: []*gogen.MetricPayload_MetricSeries{{
		Metric: "m", Type: gogen.MetricPayload_COUNT, Interval: 10, Tags: []string{"env:prod", "pod_name:p"},
		Resources: []*gogen.MetricPayload_Resource{{Type: "host", Name: "h"}},
		Points:    []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: 2}},
	}}}).Marshal()
	sk, _ := (&gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
		Metric: "lat", Host: "h", Tags: []string{"env:prod"},
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{{
			Ts: 1_700_000_000, Cnt: 3, Min: 1, Max: 9, Avg: 4, Sum: 12,
			K: []int32{1338, 1400, 1500}, N: []uint32{1, 1, 1},
		}},
	}}}).Marshal()
	cs := &pb.ClientStatsPayload{Hostname: "h", Env: "prod", Stats: []*pb.ClientStatsBucket{{
		Start: 1, Duration: 10,
		Stats: []*pb.ClientGroupedStats{{Service: "s", Name: "n", Resource: "r", Hits: 3, Errors: 1, Duration: 30}},
	}}}
	csBody, _ := cs.MarshalMsg(nil)
	asBody, _ := (&pb.StatsPayload{AgentHostname: "h", Stats: []*pb.ClientStatsPayload{cs}}).MarshalMsg(nil)
	for i, seed := range [][]byte{
		[]byte(`{"series":[{"metric":"m","points":[[1700000000,1.5]],"type":"rate","interval":10,"host":"h","tags":["env:prod"]}]}`),
		v2,
		[]byte(`{"series":[{"metric":"m","type":1,"points":[{"timestamp":1700000000,"value":2}],"resources":[{"type":"host","name":"h"}]}]}`),
		sk,
		[]byte(`[{"check":"app.ok","host_name":"h","status":2,"timestamp":1700000000,"message":"down","tags":["env:prod"]}]`),
		csBody,
		asBody,
		[]byte("page.views:1|c|#env:prod\nlatency:12.5|h|@0.5|#route:/a\n_e{5,4}:title|text\nset:u1|s"),
		[]byte(`{"series":[{"metric":"d","type":"distribution","host":"h","tags":["env:prod"],"points":[[1700000000,[1,2.5,-3,0]]]}]}`),
	} {
		f.Add(byte(i), seed)
	}
	f.Fuzz(func(_ *testing.T, kind byte, body []byte) {
		_ = decoders[int(kind)%len(decoders)](body)
	})
}

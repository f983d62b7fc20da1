package metrics

import (
	"testing"
	"time"

	"github.com/DataDog/agent-payload/v5/gogen"
	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// Points at a time the metric tables cannot hold (DateTime: seconds 0 to
// 2^32-1) are left out and counted, whichever path carried them. Before,
// 1e300 became 1970 (GetInt64) or an undefined int64 conversion, a
// negative time or one past 2106 wrapped when stored.
func TestUnstorableTimesAreLeftOutAndCounted(t *testing.T) {
	marshal := func(m interface{ Marshal() ([]byte, error) }) []byte {
		b, err := m.Marshal()
		require.NoError(t, err)
		return b
	}
	v2 := marshal(&gogen.MetricPayload{Series: []*gogen.MetricPayload_MetricSeries{{
		Metric: "m", Type: gogen.MetricPayload_GAUGE,
		Points: []*gogen.MetricPayload_MetricPoint{{Timestamp: -1, Value: 1}, {Timestamp: 1_700_000_000, Value: 2}, {Timestamp: 1 << 32, Value: 3}},
	}}})
	sk := marshal(&gogen.SketchPayload{Sketches: []gogen.SketchPayload_Sketch{{
		Metric:      "lat",
		Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{dogsketch(1<<40, []float64{1}), dogsketch(1_700_000_000, []float64{2})},
	}}})
	stats, err := (&pb.ClientStatsPayload{Service: "s", Stats: []*pb.ClientStatsBucket{
		{Start: 1 << 63, Duration: 10e9, Stats: []*pb.ClientGroupedStats{{Service: "s", Resource: "r", Hits: 3}}},
		{Start: 1_700_000_000e9, Duration: 10e9, Stats: []*pb.ClientGroupedStats{{Service: "s", Resource: "r", Hits: 3}}},
	}}).MarshalMsg(nil)
	require.NoError(t, err)
	dogstatsd := func(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
		md, _, err := DogStatsD(body, time.Unix(1_700_000_000, 0), bud)
		return md, err
	}

	for _, tc := range []struct {
		name      string
		translate func([]byte, *budget.Budget) (pmetric.Metrics, error)
		body      string
		kept      int
		left      int
		first     string
	}{
		{"v1 series", SeriesV1, `{"series":[{"metric":"g","points":[[1e300,1],[1700000000,2],[-5,3],[4294967296,4],[4294967295,5]]},
			{"metric":"c","type":"count","points":[[1e300,1]]}]}`, 2, 4, "1e+300"},
		{"v2 series JSON", SeriesV2JSON, `{"series":[{"metric":"g","type":3,"points":[{"timestamp":1e300,"value":1},{"timestamp":1700000000,"value":2}]}]}`, 1, 1, "1e+300"},
		{"v2 series protobuf", SeriesV2, string(v2), 1, 2, "-1"},
		{"distribution points", DistributionPoints, `{"series":[{"metric":"d","points":[[1e300,[1,2]],[1700000000,[3]],[-1,[4]]]}]}`, 1, 2, "1e+300"},
		{"sketches", Sketches, string(sk), 1, 1, "1099511627776"},
		{"check runs", CheckRuns, `[{"check":"c","status":0,"timestamp":1e300},{"check":"c","status":1,"timestamp":1700000000}]`, 1, 1, "1e+300"},
		{"client stats", ClientStats, string(stats), 4 + 0, 4, "-1"},
		// A service check's d: that is no integer is ignored (the receive
		// time), as before; one that is an integer outside the range is not.
		{"dogstatsd", dogstatsd, "a:1|g|T99999999999\nb:1|g|T1700000000\nc:1|d|T-3\n_sc|chk|0|d:1e300\n_sc|chk2|0|d:-7", 2, 3, "99999999999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, err := tc.translate([]byte(tc.body), nil)
			var ue *UnstorableError
			require.ErrorAs(t, err, &ue, "%v", err)
			assert.Equal(t, tc.left, ue.Points)
			assert.Equal(t, tc.first, ue.First)
			assert.Equal(t, tc.kept, md.DataPointCount())
			rms := md.ResourceMetrics()
			for i := 0; i < rms.Len(); i++ {
				ms := rms.At(i).ScopeMetrics().At(0).Metrics()
				for j := 0; j < ms.Len(); j++ {
					assert.NotZero(t, pointCount(ms.At(j)), "a metric whose every point was left out is removed: %s", ms.At(j).Name())
					forEachTime(ms.At(j), func(start, ts uint64) {
						assert.LessOrEqual(t, ts, uint64(MaxSeconds)*1e9, ms.At(j).Name())
						assert.LessOrEqual(t, start, ts, ms.At(j).Name())
					})
				}
			}
		})
	}
}

// forEachTime calls f with each point's start and time.
func forEachTime(m pmetric.Metric, f func(start, ts uint64)) {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		for i := 0; i < m.Gauge().DataPoints().Len(); i++ {
			dp := m.Gauge().DataPoints().At(i)
			f(uint64(dp.StartTimestamp()), uint64(dp.Timestamp()))
		}
	case pmetric.MetricTypeSum:
		for i := 0; i < m.Sum().DataPoints().Len(); i++ {
			dp := m.Sum().DataPoints().At(i)
			f(uint64(dp.StartTimestamp()), uint64(dp.Timestamp()))
		}
	case pmetric.MetricTypeExponentialHistogram:
		for i := 0; i < m.ExponentialHistogram().DataPoints().Len(); i++ {
			dp := m.ExponentialHistogram().DataPoints().At(i)
			f(uint64(dp.StartTimestamp()), uint64(dp.Timestamp()))
		}
	}
}

// Every point unstorable: nothing is built, and the error says why (the
// receiver answers it 400).
func TestOnlyUnstorablePoints(t *testing.T) {
	md, err := SeriesV1([]byte(`{"series":[{"metric":"g","points":[[1e300,1],[18446744073709551615,2]]}]}`), nil)
	var ue *UnstorableError
	require.ErrorAs(t, err, &ue, "%v", err)
	assert.Equal(t, 2, ue.Points)
	assert.Equal(t, 0, md.DataPointCount())
	assert.Equal(t, 0, md.ResourceMetrics().Len())
	assert.EqualError(t, err, "2 point(s) have a timestamp outside what the store can hold (seconds 0 to 4294967295, 1970-01-01 to 2106-02-07), the first 1e+300; they were left out")
}

// A v1 payload with unstorable points beside good ones, as built.
func TestUnstorableGolden(t *testing.T) {
	md, err := SeriesV1([]byte(`{"series":[{"metric":"g","host":"h","points":[[1e300,1],[1700000000,2],[-5,3],[4294967296,4]]},
		{"metric":"c","type":"count","interval":10,"points":[[1e300,1],[5,6]]},{"metric":"gone","points":[[-1,1]]}]}`), nil)
	var ue *UnstorableError
	require.ErrorAs(t, err, &ue, "%v", err)
	assert.Equal(t, 5, ue.Points)
	checkGolden(t, "unstorable_v1", md)
}

package metrics

import (
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/proto"
)

func summary(t *testing.T, durationsNs ...float64) []byte {
	t.Helper()
	sk, err := ddsketch.NewDefaultDDSketch(0.01)
	require.NoError(t, err)
	for _, d := range durationsNs {
		require.NoError(t, sk.Add(d))
	}
	b, err := proto.Marshal(sk.ToProto())
	require.NoError(t, err)
	return b
}

const bucketStart = uint64(1_700_000_000_000_000_000)

func clientPayload(t *testing.T) *pb.ClientStatsPayload {
	t.Helper()
	return &pb.ClientStatsPayload{
		Hostname: "web-1", Env: "prod", Version: "1.2.3", Lang: "go", Service: "checkout", ContainerID: "c0ffee",
		Stats: []*pb.ClientStatsBucket{{
			Start: bucketStart, Duration: 10_000_000_000,
			Stats: []*pb.ClientGroupedStats{
				{
					Service: "checkout", Name: "http.request", Resource: "GET /cart", HTTPStatusCode: 200, Type: "web",
					SpanKind: "server", Hits: 5, Errors: 1, TopLevelHits: 5, Duration: 50_000_000,
					OkSummary: summary(t, 8e6, 9e6, 10e6, 11e6), ErrorSummary: summary(t, 12e6), IsTraceRoot: pb.Trilean_TRUE,
					PeerTags: []string{"peer.service:db"},
				},
				{
					Service: "checkout", Name: "postgres.query", Resource: "SELECT 1", Type: "sql", SpanKind: "client",
					Hits: 7, TopLevelHits: 0, Duration: 7_000_000, OkSummary: summary(t, 1e6, 1e6, 1e6, 1e6, 1e6, 1e6, 1e6),
				},
			},
		}},
	}
}

// points collects the data points of a sum metric by resource.name.
func sumPoints(md pmetric.Metrics, name string) map[string]pmetric.NumberDataPoint {
	out := map[string]pmetric.NumberDataPoint{}
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		ms := md.ResourceMetrics().At(i).ScopeMetrics().At(0).Metrics()
		for j := 0; j < ms.Len(); j++ {
			if ms.At(j).Name() != name {
				continue
			}
			dps := ms.At(j).Sum().DataPoints()
			for k := 0; k < dps.Len(); k++ {
				r, _ := dps.At(k).Attributes().Get("resource.name")
				out[r.Str()] = dps.At(k)
			}
		}
	}
	return out
}

func TestClientStats(t *testing.T) {
	body, err := clientPayload(t).MarshalMsg(nil)
	require.NoError(t, err)
	md, err := ClientStats(body, nil)
	require.NoError(t, err)

	hits := sumPoints(md, HitsMetric)
	assert.Equal(t, 5.0, hits["GET /cart"].DoubleValue(), "the tracer's hit count, as the user sees it")
	assert.Equal(t, 7.0, hits["SELECT 1"].DoubleValue())
	assert.Equal(t, 1.0, sumPoints(md, ErrorsMetric)["GET /cart"].DoubleValue())
	assert.Equal(t, 5.0, sumPoints(md, TopLevelHitsMetric)["GET /cart"].DoubleValue())
	assert.InDelta(t, 0.05, sumPoints(md, DurationMetric)["GET /cart"].DoubleValue(), 1e-12)

	cart := hits["GET /cart"]
	assert.Equal(t, pcommon.Timestamp(bucketStart), cart.StartTimestamp())
	assert.Equal(t, pcommon.Timestamp(bucketStart+10_000_000_000), cart.Timestamp())
	assert.Equal(t, map[string]any{
		"resource.name": "GET /cart", "span.name": "http.request", "span.kind": "server",
		"span.type": "web", "http.response.status_code": int64(200), "is_trace_root": true, "peer.service": "db",
	},
		cart.Attributes().AsRaw())
	assert.Equal(t, map[string]any{
		"host.name": "web-1", "service.name": "checkout", "deployment.environment.name": "prod",
		"service.version": "1.2.3", "container.id": "c0ffee",
	}, resourceOf(md, HitsMetric))

	lat := byName(md)[LatencyMetric]
	require.Equal(t, pmetric.MetricTypeExponentialHistogram, lat.Type())
	assert.Equal(t, "s", lat.Unit())
	counts := map[string]uint64{}
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		ms := md.ResourceMetrics().At(i).ScopeMetrics().At(0).Metrics()
		for j := 0; j < ms.Len(); j++ {
			if ms.At(j).Name() != LatencyMetric {
				continue
			}
			dps := ms.At(j).ExponentialHistogram().DataPoints()
			for k := 0; k < dps.Len(); k++ {
				r, _ := dps.At(k).Attributes().Get("resource.name")
				st, _ := dps.At(k).Attributes().Get("status")
				counts[r.Str()+"/"+st.Str()] = dps.At(k).Count()
			}
		}
	}
	assert.Equal(t, map[string]uint64{"GET /cart/ok": 4, "GET /cart/error": 1, "SELECT 1/ok": 7}, counts)
}

func TestStatsGolden(t *testing.T) {
	body, err := clientPayload(t).MarshalMsg(nil)
	require.NoError(t, err)
	md, err := ClientStats(body, nil)
	require.NoError(t, err)
	checkGolden(t, "client_stats", md)
}

func TestAgentStats(t *testing.T) {
	c := clientPayload(t)
	c.Hostname, c.Env = "", ""
	body, err := (&pb.StatsPayload{AgentHostname: "agent-host", AgentEnv: "agent-env", Stats: []*pb.ClientStatsPayload{c}}).MarshalMsg(nil)
	require.NoError(t, err)
	md, err := AgentStats(body, nil)
	require.NoError(t, err)
	res := resourceOf(md, HitsMetric)
	assert.Equal(t, "agent-host", res["host.name"])
	assert.Equal(t, "agent-env", res["deployment.environment.name"])
	assert.Equal(t, 12.0, sumPoints(md, HitsMetric)["GET /cart"].DoubleValue()+sumPoints(md, HitsMetric)["SELECT 1"].DoubleValue())

	_, err = AgentStats([]byte{0x91}, nil)
	require.Error(t, err)
	bad := clientPayload(t)
	bad.Stats[0].Stats[0].OkSummary = []byte{0xff, 0xff}
	body, _ = bad.MarshalMsg(nil)
	_, err = ClientStats(body, nil)
	assert.ErrorContains(t, err, "ok summary")
}

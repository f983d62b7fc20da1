package metrics

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

func checkGolden(t *testing.T, name string, md pmetric.Metrics) {
	t.Helper()
	path := filepath.Join("testdata", name+".yaml")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		require.NoError(t, golden.WriteMetricsToFile(path, md, golden.SkipMetricTimestampNormalization()))
	}
	want, err := golden.ReadMetrics(path)
	require.NoError(t, err)
	require.NoError(t, pmetrictest.CompareMetrics(want, md, pmetrictest.IgnoreResourceMetricsOrder(),
		pmetrictest.IgnoreMetricsOrder(), pmetrictest.IgnoreMetricDataPointsOrder()))
}

// byName indexes the metrics of md; a name seen in several resources keeps
// the last.
func byName(md pmetric.Metrics) map[string]pmetric.Metric {
	out := map[string]pmetric.Metric{}
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		ms := md.ResourceMetrics().At(i).ScopeMetrics().At(0).Metrics()
		for j := 0; j < ms.Len(); j++ {
			out[ms.At(j).Name()] = ms.At(j)
		}
	}
	return out
}

func resourceOf(md pmetric.Metrics, name string) map[string]any {
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		rm := md.ResourceMetrics().At(i)
		ms := rm.ScopeMetrics().At(0).Metrics()
		for j := 0; j < ms.Len(); j++ {
			if ms.At(j).Name() == name {
				return rm.Resource().Attributes().AsRaw()
			}
		}
	}
	return nil
}

func TestSeriesV1(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "series_v1.json"))
	require.NoError(t, err)
	md, err := SeriesV1(body, nil)
	require.NoError(t, err)
	checkGolden(t, "series_v1", md)
	m := byName(md)

	load := m["system.load.1"]
	require.Equal(t, pmetric.MetricTypeGauge, load.Type())
	require.Equal(t, 2, load.Gauge().DataPoints().Len())
	dp := load.Gauge().DataPoints().At(0)
	assert.Equal(t, pcommon.Timestamp(1_700_000_000*1e9), dp.Timestamp())
	assert.Equal(t, 0.5, dp.DoubleValue())
	assert.Equal(t, map[string]any{"role": []any{"web", "frontend"}, "bare": ""}, dp.Attributes().AsRaw(),
		"multi-valued tags keep all values; a bare tag is a key with an empty value")
	assert.Equal(t, map[string]any{
		"host.name": "web-1", "deployment.environment.name": "prod",
		"k8s.namespace.name": "shop", "datadog.source_type_name": "System",
	}, resourceOf(md, "system.load.1"))

	count := m["http.requests"].Sum()
	assert.True(t, count.IsMonotonic())
	assert.Equal(t, pmetric.AggregationTemporalityDelta, count.AggregationTemporality())
	c := count.DataPoints().At(0)
	assert.Equal(t, 42.0, c.DoubleValue())
	assert.Equal(t, pcommon.Timestamp(1_699_999_990*1e9), c.StartTimestamp(), "start = timestamp - interval")

	rate := m["http.rps"].Sum()
	assert.False(t, rate.IsMonotonic())
	require.Equal(t, 1, rate.DataPoints().Len(), "null points are skipped")
	assert.Equal(t, 50.0, rate.DataPoints().At(0).DoubleValue(), "rate × interval")
	assert.Equal(t, pcommon.Timestamp(1_699_999_980*1e9), rate.DataPoints().At(0).StartTimestamp())

	disk := m["disk.used"]
	assert.Equal(t, pmetric.MetricTypeGauge, disk.Type(), "unset type is a gauge, not dropped")
	assert.Equal(t, "/dev/sda1", resourceOf(md, "disk.used")["datadog.device"])
}

func TestSeriesV1Errors(t *testing.T) {
	for _, body := range []string{
		`nope`, `{"series":[1]}`, `{"series":[{"points":[[1,2]]}]}`,
		`{"series":[{"metric":"m","points":[[1]]}]}`, `{"series":[{"metric":"m","points":[["a","b"]]}]}`, `[]`,
	} {
		_, err := SeriesV1([]byte(body), nil)
		require.Error(t, err, body)
	}
	md, err := SeriesV1([]byte(`{"series":[]}`), nil)
	require.NoError(t, err)
	assert.Equal(t, 0, md.DataPointCount())
}

func v2Payload() *gogen.MetricPayload {
	return &gogen.MetricPayload{Series: []*gogen.MetricPayload_MetricSeries{
		{
			Metric: "kafka.lag", Type: gogen.MetricPayload_GAUGE, Unit: "message", Interval: 0,
			Resources: []*gogen.MetricPayload_Resource{{Type: "host", Name: "broker-1"}, {Type: "kafka_cluster", Name: "main"}},
			Tags:      []string{"env:prod", "topic:orders", "topic:payments"},
			Points:    []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: 17}},
			Metadata:  &gogen.Metadata{Origin: &gogen.Origin{OriginProduct: 10, OriginCategory: 11, OriginService: 12}},
		},
		{
			Metric: "requests", Type: gogen.MetricPayload_COUNT, Interval: 10,
			Resources: []*gogen.MetricPayload_Resource{{Type: "host", Name: "broker-1"}, {Type: "kafka_cluster", Name: "main"}},
			Tags:      []string{"env:prod"},
			Points:    []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: 5}, {Timestamp: 1_700_000_010, Value: 6}},
		},
		{
			Metric: "bytes.rate", Type: gogen.MetricPayload_RATE, Interval: 15,
			Resources: []*gogen.MetricPayload_Resource{{Type: "host", Name: "broker-2"}},
			Points:    []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: 2}},
		},
		{
			Metric: "legacy.unset", Type: gogen.MetricPayload_UNSPECIFIED,
			Points: []*gogen.MetricPayload_MetricPoint{{Timestamp: 1_700_000_000, Value: 1}},
		},
	}}
}

func TestSeriesV2Protobuf(t *testing.T) {
	body, err := v2Payload().Marshal()
	require.NoError(t, err)
	md, err := SeriesV2(body, nil)
	require.NoError(t, err)
	checkGolden(t, "series_v2", md)
	m := byName(md)
	lag := m["kafka.lag"]
	assert.Equal(t, "message", lag.Unit())
	assert.Equal(t, map[string]any{
		"datadog.origin.product": int64(10), "datadog.origin.category": int64(11),
		"datadog.origin.service": int64(12),
	}, lag.Metadata().AsRaw())
	assert.Equal(t, map[string]any{"topic": []any{"orders", "payments"}}, lag.Gauge().DataPoints().At(0).Attributes().AsRaw())
	assert.Equal(t, map[string]any{
		"host.name": "broker-1", "datadog.resource.kafka_cluster": "main",
		"deployment.environment.name": "prod",
	}, resourceOf(md, "kafka.lag"))
	assert.Equal(t, 2, m["requests"].Sum().DataPoints().Len())
	assert.Equal(t, 30.0, m["bytes.rate"].Sum().DataPoints().At(0).DoubleValue())
	assert.Equal(t, pmetric.MetricTypeGauge, m["legacy.unset"].Type())

	_, err = SeriesV2([]byte{0xff, 0xff, 0xff}, nil)
	assert.Error(t, err)
}

func TestSeriesV2JSONMatchesProtobuf(t *testing.T) {
	body := `{"series":[{"metric":"kafka.lag","type":3,"unit":"message","points":[{"timestamp":1700000000,"value":17}],
	  "resources":[{"type":"host","name":"broker-1"},{"type":"kafka_cluster","name":"main"}],"tags":["env:prod","topic:orders","topic:payments"],
	  "metadata":{"origin":{"origin_product":10,"origin_category":11,"origin_service":12}}}]}`
	got, err := SeriesV2JSON([]byte(body), nil)
	require.NoError(t, err)
	p := v2Payload()
	p.Series = p.Series[:1]
	raw, err := p.Marshal()
	require.NoError(t, err)
	want, err := SeriesV2(raw, nil)
	require.NoError(t, err)
	require.NoError(t, pmetrictest.CompareMetrics(want, got))

	for _, bad := range []string{`{"series":[{"metric":"m","type":9,"points":[]}]}`, `{"series":[{"metric":"m","points":[{"timestamp":"x","value":1}]}]}`, `{}`} {
		_, err := SeriesV2JSON([]byte(bad), nil)
		assert.Error(t, err, bad)
	}
}

func TestCheckRuns(t *testing.T) {
	body := `[{"check":"datadog.agent.up","host_name":"web-1","timestamp":1700000000,"status":0,"tags":["env:prod"]},
	          {"check":"http.can_connect","host_name":"web-1","timestamp":1700000000,"status":2,"message":"timeout","tags":["url:http://x"]}]`
	md, err := CheckRuns([]byte(body), nil)
	require.NoError(t, err)
	checkGolden(t, "check_runs", md)
	m := byName(md)
	up := m["datadog.agent.up"].Gauge().DataPoints().At(0)
	assert.Equal(t, 0.0, up.DoubleValue())
	conn := m["http.can_connect"].Gauge().DataPoints().At(0)
	assert.Equal(t, 2.0, conn.DoubleValue())
	assert.Equal(t, map[string]any{"url": "http://x", "message": "timeout"}, conn.Attributes().AsRaw())
	assert.Equal(t, "web-1", resourceOf(md, "http.can_connect")["host.name"])
	for _, bad := range []string{`{}`, `[{"status":0}]`, `[{"check":"c","status":7}]`} {
		_, err := CheckRuns([]byte(bad), nil)
		assert.Error(t, err, bad)
	}
}

// TestWideSeriesAreLinear: a series with 100,000 distinct tags and as many
// resources keeps them all (pdata's own puts are quadratic: minutes).
func TestWideSeriesAreLinear(t *testing.T) {
	var tagList, resources strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&tagList, `"t%d:v",`, i)
		fmt.Fprintf(&resources, `{"type":"r%d","name":"n"},`, i)
	}
	body := `{"series":[{"metric":"m","type":3,"points":[{"timestamp":1700000000,"value":1}],` +
		`"tags":[` + tagList.String() + `"t0:again"],"resources":[` + resources.String() + `{"type":"host","name":"h"}]}]}`
	md, err := SeriesV2JSON([]byte(body), nil)
	require.NoError(t, err)
	rm := md.ResourceMetrics().At(0)
	assert.Equal(t, 100000+1, rm.Resource().Attributes().Len()) // and host.name
	attrs := rm.ScopeMetrics().At(0).Metrics().At(0).Gauge().DataPoints().At(0).Attributes()
	assert.Equal(t, 100000, attrs.Len())
	v, _ := attrs.Get("t0")
	assert.Equal(t, []any{"v", "again"}, v.AsRaw(), "tags stay multi-valued")
}

package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

func TestDistributionPoints(t *testing.T) {
	// datadog-api-client's examples/v1/metrics/SubmitDistributionPoints.go,
	// with a second point, a host and tags.
	body := `{"series":[{"metric":"system.load.1.dist","type":"distribution","host":"lambda-1","tags":["env:prod","fn:checkout"],
	  "points":[[1700000000,[1.0,2.0]],[1700000010,[]],[1700000020,[-3.5,0,100,100]]]}]}`
	md, err := DistributionPoints([]byte(body), nil)
	require.NoError(t, err)
	rm := md.ResourceMetrics().At(0)
	assert.Equal(t, "lambda-1", rm.Resource().Attributes().AsRaw()["host.name"])
	assert.Equal(t, "prod", rm.Resource().Attributes().AsRaw()["deployment.environment.name"])
	m := rm.ScopeMetrics().At(0).Metrics().At(0)
	assert.Equal(t, "system.load.1.dist", m.Name())
	require.Equal(t, pmetric.MetricTypeExponentialHistogram, m.Type())
	assert.Equal(t, pmetric.AggregationTemporalityDelta, m.ExponentialHistogram().AggregationTemporality())
	dps := m.ExponentialHistogram().DataPoints()
	require.Equal(t, 2, dps.Len(), "a point with no values measured nothing")

	first := dps.At(0)
	assert.Equal(t, uint64(2), first.Count())
	assert.Equal(t, 3.0, first.Sum())
	assert.Equal(t, 1.0, first.Min())
	assert.Equal(t, 2.0, first.Max())
	assert.Equal(t, int64(1700000000), first.Timestamp().AsTime().Unix())
	assert.Equal(t, int64(1700000000-DefaultInterval), first.StartTimestamp().AsTime().Unix())
	assert.Equal(t, "checkout", first.Attributes().AsRaw()["fn"])

	second := dps.At(1)
	assert.Equal(t, uint64(4), second.Count())
	assert.Equal(t, uint64(1), second.ZeroCount())
	assert.Equal(t, -3.5, second.Min())
	assert.Equal(t, 100.0, second.Max())
	var pos, neg uint64
	for _, n := range second.Positive().BucketCounts().AsRaw() {
		pos += n
	}
	for _, n := range second.Negative().BucketCounts().AsRaw() {
		neg += n
	}
	assert.Equal(t, [2]uint64{2, 1}, [2]uint64{pos, neg}, "every value is in a bucket")
	assert.InDelta(t, 100, quantile(second, 1), 100.0/128, "quantiles as accurate as a sketch's")
}

func TestDistributionPointsRefused(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":        `series`,
		"no series":       `{"metric":"x"}`,
		"series not obj":  `{"series":[1]}`,
		"no metric":       `{"series":[{"points":[[1,[1]]]}]}`,
		"point not pair":  `{"series":[{"metric":"x","points":[[1]]}]}`,
		"bad timestamp":   `{"series":[{"metric":"x","points":[["now",[1]]]}]}`,
		"values not list": `{"series":[{"metric":"x","points":[[1,1]]}]}`,
		"value not num":   `{"series":[{"metric":"x","points":[[1,["a"]]]}]}`,
	} {
		_, err := DistributionPoints([]byte(body), nil)
		require.Error(t, err, name)
	}
	md, err := DistributionPoints([]byte(`{"series":[{"metric":"no.type","type":"gauge","points":[[1,[5]]]}]}`), nil)
	require.NoError(t, err)
	assert.Equal(t, pmetric.MetricTypeExponentialHistogram, md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Type(),
		"a distribution whatever type it claims")
	_, err = DistributionPoints([]byte(`{"series":[{"metric":"x","points":[[1,[1,2,3,4,5,6,7,8,9]]]}]}`), budget.New(100))
	var over *budget.ExceededError
	assert.ErrorAs(t, err, &over)
}

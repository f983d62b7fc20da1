package datadogreceiver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Metric points at a time the store cannot hold are left out and counted
// by path; a payload with no other point is refused 400 with the reason.
func TestUnstorablePointsAreCountedAndRefused(t *testing.T) {
	h := startAll(t, nil, nil, nil, new(consumertest.MetricsSink))
	status, resp, _ := h.do(t, http.MethodPost, "/api/v1/series", []byte(`{"series":[{"metric":"g","points":[[1e300,1],[1700000000,2],[-5,3]]}]}`),
		"Content-Type", "application/json")
	assert.Equal(t, http.StatusAccepted, status, resp)
	status, resp, _ = h.do(t, http.MethodPost, "/api/v2/series", []byte(`{"series":[{"metric":"g","type":3,"points":[{"timestamp":1e300,"value":1}]}]}`),
		"Content-Type", "application/json")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, resp, "outside what the store can hold")
	status, resp, _ = h.do(t, http.MethodPost, "/dogstatsd/v2/proxy", []byte("a:1|g|T99999999999\nb:1|g"), "Content-Type", "text/plain")
	assert.Equal(t, http.StatusOK, status, resp)

	assert.Equal(t, 2, h.metrics.DataPointCount(), "the storable points are kept")
	m, err := h.tel.GetMetric("otelcol_receiver_datadog_unstorable_points")
	require.NoError(t, err)
	byPath := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		v, _ := dp.Attributes.Value(attribute.Key("path"))
		byPath[v.AsString()] += dp.Value
	}
	assert.Equal(t, map[string]int64{"/api/v1/series": 2, "/api/v2/series": 1, "/dogstatsd/v2/proxy": 1}, byPath)
}

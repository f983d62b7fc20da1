package charts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// TestMetricItem: which metric, column and table a metric select item
// reads, beside a source over the gauge table.
func TestMetricItem(t *testing.T) {
	own := query.Source{Database: "otel", Table: "otel_metrics_gauge", MetricType: "gauge"}
	for _, tc := range []struct {
		name, metric, typ, field string
		wantMetric, wantField    string
		wantTable, wantType      string
		err                      string
	}{
		{name: "metric of the source's own type", metric: "cpu", typ: "gauge", wantMetric: "cpu", wantField: "Value", wantTable: "otel_metrics_gauge", wantType: "gauge"},
		{name: "type spelled as HyperDX's enum", metric: "cpu", typ: "Gauge", wantMetric: "cpu", wantField: "Value", wantTable: "otel_metrics_gauge", wantType: "gauge"},
		{name: "metric and a column", metric: "cpu", field: "Value * 100", wantMetric: "cpu", wantField: "Value * 100", wantTable: "otel_metrics_gauge", wantType: "gauge"},
		{name: "field names the metric", field: "cpu", wantMetric: "cpu", wantField: "Value", wantTable: "otel_metrics_gauge", wantType: "gauge"},
		{name: "the table beside of another type", metric: "req", typ: "sum", wantMetric: "req", wantField: "Value", wantTable: "otel_metrics_sum", wantType: "sum"},
		{name: "a type spelled with a space", metric: "lat", typ: "exponential histogram", wantMetric: "lat", wantField: "Value", wantTable: "otel_metrics_exponential_histogram", wantType: "exponential_histogram"},
		{name: "no metric", typ: "sum", err: "names its metric"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := MetricItem(Series{Source: own, AggFn: "avg"}, tc.metric, tc.typ, tc.field)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantMetric, s.MetricName)
			assert.Equal(t, tc.wantField, s.Field)
			assert.Equal(t, tc.wantTable, s.Source.Table)
			assert.Equal(t, tc.wantType, s.Source.MetricType)
			assert.Equal(t, "avg", s.AggFn)
		})
	}
	// A table not named as the exporter names them has no known sibling.
	_, err := MetricItem(Series{Source: query.Source{Table: "my_gauges", MetricType: "gauge"}}, "x", "sum", "")
	require.ErrorContains(t, err, "its sum table is not known")
}

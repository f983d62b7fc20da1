package alerting

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// TestMeasured: a tile and an inline chart measure the same way: the
// items queried, how their values combine, and which table a metric item
// reads once its source is known.
func TestMeasured(t *testing.T) {
	metrics := sources.Source{
		Kind: "metric", Name: "m", From: sources.From{DatabaseName: "otel"},
		MetricTables: map[string]string{"gauge": "otel_metrics_gauge", "sum": "otel_metrics_sum"},
	}
	logs := sources.Source{Kind: "log", Name: "l", From: sources.From{DatabaseName: "otel", TableName: "otel_logs"}}
	ratioDisplay := map[string]json.RawMessage{"asRatio": json.RawMessage("true")}
	tile := func(c dashboards.Config) func() (measured, error) {
		return func() (measured, error) { return tileMeasured(&c) }
	}
	inline := func(c string) func() (measured, error) {
		return func() (measured, error) { return inlineMeasured(json.RawMessage(c)) }
	}
	type want struct {
		metric, table string // per item
		delta         bool
	}
	for _, tc := range []struct {
		name  string
		m     func() (measured, error)
		src   sources.Source
		items []want
		ratio bool
		err   string
	}{
		{
			"tile: first item only", tile(dashboards.Config{DisplayType: "line", SourceID: "s", Select: []dashboards.Select{{AggFn: "count"}, {AggFn: "count"}}}),
			logs,
			[]want{{"", "otel_logs", false}},
			false, "",
		},
		{
			"tile: ratio of two", tile(dashboards.Config{DisplayType: "line", SourceID: "s", Select: []dashboards.Select{{AggFn: "count", Where: "a"}, {AggFn: "count"}}, Display: ratioDisplay}),
			logs,
			[]want{{"", "otel_logs", false}, {"", "otel_logs", false}},
			true, "",
		},
		{
			"tile: metric item of another type", tile(dashboards.Config{DisplayType: "number", SourceID: "s", Select: []dashboards.Select{{AggFn: "max", ValueExpression: "Value", MetricName: "jobs", MetricType: "sum"}}}),
			metrics,
			[]want{{"jobs", "otel_metrics_sum", false}},
			false, "",
		},
		{
			"tile: metric fields on a log source mean nothing, as on the chart", tile(dashboards.Config{DisplayType: "number", SourceID: "s", Select: []dashboards.Select{{AggFn: "count", MetricName: "jobs", MetricType: "sum"}}}),
			logs,
			[]want{{"", "otel_logs", false}},
			false, "",
		},
		{"tile: no longer a chart", tile(dashboards.Config{DisplayType: "markdown"}), logs, nil, false, "no longer a chart"},
		{
			"inline: metric ratio", inline(`{"displayType":"line","source":"s","seriesReturnType":"ratio","select":[
			{"aggFn":"sum","valueExpression":"Value","aggCondition":"","metricType":"gauge","metricName":"used"},
			{"aggFn":"sum","valueExpression":"Value","aggCondition":"","metricType":"gauge","metricName":"total"}]}`),
			metrics,
			[]want{{"used", "otel_metrics_gauge", false}, {"total", "otel_metrics_gauge", false}},
			true, "",
		},
		{
			"inline: a delta is judged as the chart draws it", inline(`{"displayType":"line","source":"s","select":[
			{"aggFn":"sum","valueExpression":"Value","aggCondition":"","metricType":"gauge","metricName":"used","isDelta":true}]}`),
			metrics,
			[]want{{"used", "otel_metrics_gauge", true}},
			false, "",
		},
		{
			"tile: a delta too", tile(dashboards.Config{DisplayType: "line", SourceID: "s", Select: []dashboards.Select{{AggFn: "sum", MetricName: "used", MetricType: "gauge", PeriodAggFn: "delta"}}}),
			metrics,
			[]want{{"used", "otel_metrics_gauge", true}},
			false, "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.m()
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "s", m.sourceID)
			assert.Equal(t, tc.ratio, m.combine != nil)
			series, err := m.series(tc.src)
			require.NoError(t, err)
			require.Len(t, series, len(tc.items))
			for i, w := range tc.items {
				assert.Equal(t, w.metric, series[i].MetricName, "item %d", i)
				assert.Equal(t, w.table, series[i].Source.Table, "item %d", i)
				assert.Equal(t, w.delta, series[i].Delta, "item %d", i)
			}
			if tc.ratio {
				assert.Equal(t, 0.25, *m.combine([]*float64{f(1), f(4)}))
			}
		})
	}
}

// TestRatio: the first value over the second, nothing without both or
// over zero.
func TestRatio(t *testing.T) {
	assert.Equal(t, 0.5, *ratio([]*float64{f(1), f(2)}))
	assert.Nil(t, ratio([]*float64{f(1), f(0)}))
	assert.Nil(t, ratio([]*float64{nil, f(2)}))
	assert.Nil(t, ratio([]*float64{f(1), nil}))
	assert.Nil(t, ratio([]*float64{f(1)}))
}

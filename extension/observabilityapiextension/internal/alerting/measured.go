package alerting

import (
	"errors"
	"fmt"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// measured is what an alert measures, whatever watches it (a tile, a
// saved search, an inline chart): the source its items read, the items
// (chart series whose source is still to resolve), and how a bucket's
// values become the one judged (nil: the first item's). A ratio (a tile's
// asRatio, an inline chart's seriesReturnType ratio) is the first item
// over the second; a formula, the first formula's value.
type measured struct {
	sourceID string
	items    []item
	combine  func([]*float64) *float64
}

// item is one measured select item: its chart series and, for HyperDX's
// metric select item, the metric it names and the type of the table
// holding it.
type item struct {
	series     charts.Series
	metricName string
	metricType string
}

// series resolves the items against their source, as the chart endpoint
// does for a tile: on a metric source an item naming a metric reads it in
// the table of its type; elsewhere the metric fields mean nothing, as on
// the chart.
func (m measured) series(src sources.Source) ([]charts.Series, error) {
	out := make([]charts.Series, len(m.items))
	for i, it := range m.items {
		s := it.series
		s.Source = src.Chart()
		if src.Kind == "metric" && s.Query == "" && it.metricName != "" {
			var err error
			if s, err = charts.MetricItem(s, it.metricName, it.metricType, s.Field); err != nil {
				return nil, fmt.Errorf("select item %d: source %q: %w", i, src.Name, err)
			}
		}
		out[i] = s
	}
	return out, nil
}

// tileMeasured is what an alert on a chart tile measures
// (dashboards.Config.Watched): the tile's first item grouped as the tile,
// its first two as a ratio, or its first formula over its items.
func tileMeasured(c *dashboards.Config) (measured, error) {
	sels, groupBy, ok := c.Watched()
	if !ok {
		return measured{}, errors.New("no longer a chart an alert can watch")
	}
	if c.Having != "" {
		// Refused at create (the having filters groups by their range
		// totals, which a window has not); a tile given one since is not
		// judged rather than judged for groups the table leaves out.
		return measured{}, errors.New("the tile has a having, which an alert does not apply; remove it or alert on a copy of the tile without it")
	}
	m := measured{sourceID: c.SourceID}
	for _, sel := range sels {
		it := item{
			series: charts.Series{
				AggFn: sel.AggFn, Field: sel.ValueExpression, Level: sel.Level,
				Where: sel.Where, WhereLanguage: sel.WhereLanguage, GroupBy: groupBy,
				Delta: sel.PeriodAggFn == "delta",
			},
			metricName: sel.MetricName, metricType: sel.MetricType,
		}
		if sel.Query != "" {
			// A Datadog metric query groups itself (its by {…}).
			it = item{series: charts.Series{Query: sel.Query}}
		}
		m.items = append(m.items, it)
	}
	switch {
	case len(c.Formulas) > 0:
		f, err := charts.ParseFormula(c.Formulas[0].Expression, len(m.items))
		if err != nil {
			return measured{}, fmt.Errorf("formula: %w", err)
		}
		m.combine = f.Eval
	case len(m.items) == 2:
		m.combine = ratio
	}
	return m, nil
}

// ratio is the first value over the second: nil when either is, or when
// the second is 0.
func ratio(v []*float64) *float64 {
	if len(v) < 2 || v[0] == nil || v[1] == nil || *v[1] == 0 {
		return nil
	}
	r := *v[0] / *v[1]
	return &r
}

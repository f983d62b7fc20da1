package charts

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
)

// MetricItem makes s, on a metric source, HyperDX's metric select item:
// the points of metric name in the source database's table of type typ
// (the source's own when typ is empty), their Value aggregated unless
// field also names a column. Without a name, field names the metric (the
// older series form). A chart drawing the item and an alert judging it
// read it through here, so both measure the same points.
func MetricItem(s Series, name, typ, field string) (Series, error) {
	s.MetricName, s.Field = cmp.Or(name, field), "Value"
	if name != "" && field != "" {
		s.Field = field
	}
	if s.MetricName == "" {
		return s, errors.New("a metric series names its metric: metricName, or field")
	}
	if t := strings.ToLower(typ); t != "" && t != s.Source.MetricType {
		table, ok := metricTable(s.Source.Table, s.Source.MetricType, t)
		if !ok {
			return s, fmt.Errorf("the source reads the %s table %s; its %s table is not known (name the tables otel_metrics_<type>)", s.Source.MetricType, s.Source.Table, t)
		}
		s.Source.Table, s.Source.MetricType = table, strings.ReplaceAll(t, " ", "_")
	}
	return s, nil
}

// metricTable is the table of metric type t beside a metric source's
// table of type own, named as the exporter names them
// (otel_metrics_gauge, otel_metrics_sum, otel_metrics_histogram).
func metricTable(table, own, t string) (string, bool) {
	base, ok := strings.CutSuffix(table, "_"+own)
	if !ok {
		return "", false
	}
	return base + "_" + strings.ReplaceAll(t, " ", "_"), true
}

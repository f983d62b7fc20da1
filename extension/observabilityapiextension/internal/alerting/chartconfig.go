package alerting

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// ChartConfig is an inline alert's own chart (source "inline"), as
// stored: HyperDX's internal AlertChartConfig, the dialect its
// check-alerts task evaluates (source, per-select aggCondition,
// seriesReturnType "ratio" for asRatio, connection for a raw SQL
// config). The API takes and answers the external dialect (sourceId,
// per-select where, asRatio, connectionId) and converts.
type ChartConfig struct {
	Name        string `json:"name,omitempty"`
	ConfigType  string `json:"configType,omitempty"` // "sql": raw SQL; empty: a builder chart
	DisplayType string `json:"displayType"`
	Source      string `json:"source,omitempty"`
	// A raw SQL config's connection and template.
	Connection  string `json:"connection,omitempty"`
	SQLTemplate string `json:"sqlTemplate,omitempty"`
	// A builder chart's select items, grouping and chart-level where
	// (ANDed with each item's aggCondition).
	Select           []ChartSelect  `json:"select,omitempty"`
	Where            *string        `json:"where,omitempty"`
	WhereLanguage    string         `json:"whereLanguage,omitempty"`
	GroupBy          string         `json:"groupBy,omitempty"`
	SeriesReturnType string         `json:"seriesReturnType,omitempty"` // "ratio": the first item over the second
	Formulas         []ChartFormula `json:"formulas,omitempty"`
	// Display holds the presentation options (numberFormat, fillNulls,
	// seriesLimit, …) as they came, written beside the fields above; they
	// change how the chart is drawn, not what the alert measures.
	Display map[string]json.RawMessage `json:"-"`
}

// ChartSelect is one select item of an inline alert's chart.
type ChartSelect struct {
	AggFn                string   `json:"aggFn"`
	AggCondition         string   `json:"aggCondition"`
	AggConditionLanguage string   `json:"aggConditionLanguage,omitempty"`
	ValueExpression      string   `json:"valueExpression"`
	Alias                string   `json:"alias,omitempty"`
	Level                *float64 `json:"level,omitempty"`
	MetricType           string   `json:"metricType,omitempty"`
	MetricName           string   `json:"metricName,omitempty"`
	// IsDelta (the external periodAggFn "delta") judges a gauge's
	// change over each window rather than its last value
	// (charts.Series.Delta).
	IsDelta      bool            `json:"isDelta,omitempty"`
	NumberFormat json.RawMessage `json:"numberFormat,omitempty"`
}

// ChartFormula is a derived series over the select items (charts.Formula).
type ChartFormula struct {
	Expression string `json:"expression"`
	Alias      string `json:"alias,omitempty"`
}

// ChartDisplayOptions are the presentation options an inline alert's chart
// keeps, by display type (HyperDX's external schemas).
var ChartDisplayOptions = map[string][]string{
	"line":        {"numberFormat", "fillNulls", "alignDateRangeToGranularity", "compareToPreviousPeriod", "fitYAxisToData", "seriesLimit", "showOperandSeries"},
	"stacked_bar": {"numberFormat", "fillNulls", "alignDateRangeToGranularity", "seriesLimit", "showOperandSeries"},
	"number":      {"numberFormat", "color", "colorRules", "backgroundChart"},
}

// MarshalJSON writes the display options beside the fields.
func (c ChartConfig) MarshalJSON() ([]byte, error) {
	type plain ChartConfig
	b, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	return WithDisplay(b, c.Display)
}

// WithDisplay adds a chart's display options to its fields' JSON object,
// b; a field of that name keeps its own value.
func WithDisplay(b []byte, display map[string]json.RawMessage) ([]byte, error) {
	if len(display) == 0 {
		return b, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range display {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the fields and the display options of the config's
// display type.
func (c *ChartConfig) UnmarshalJSON(b []byte) error {
	type plain ChartConfig
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = ChartConfig(p)
	for _, k := range ChartDisplayOptions[c.DisplayType] {
		if v, ok := m[k]; ok {
			if c.Display == nil {
				c.Display = map[string]json.RawMessage{}
			}
			c.Display[k] = v
		}
	}
	return nil
}

// evaluatedKeys are the stored fields an evaluation reads or may ignore;
// any other field with a value (HyperDX's filters, having, granularity,
// …, which an internally authored config may hold) would change what the
// chart measures, so an alert holding one is not evaluated rather than
// evaluated as a broader query.
var evaluatedKeys = []string{
	"name", "configType", "displayType", "source", "connection", "sqlTemplate", "select", "where", "whereLanguage",
	"groupBy", "seriesReturnType", "formulas",
	// Presentation, whatever the display type.
	"numberFormat", "fillNulls", "alignDateRangeToGranularity", "compareToPreviousPeriod", "fitYAxisToData", "seriesLimit",
	"showOperandSeries", "color", "colorRules", "backgroundChart", "markdown", "filtersLogicalOperator", "groupByColumnsOnLeft",
	"onClick", "alternateRowBackground",
}

// UnevaluatedKeys lists the fields of a stored config (raw JSON) that
// hold a value and that neither the evaluation nor the external dialect
// knows.
func UnevaluatedKeys(raw json.RawMessage) []string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	for k, v := range m {
		if slices.Contains(evaluatedKeys, k) || EmptyJSON(v) {
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// EmptyJSON says whether a decoded JSON value is as good as absent: null,
// "", false or [].
func EmptyJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case []any:
		return len(v) == 0
	}
	return false
}

// inlineMeasured is what an inline alert measures: one item per select
// item (a metric item reading its metric), combined by the first formula
// or, with seriesReturnType ratio, as the first item over the second.
func inlineMeasured(raw json.RawMessage) (measured, error) {
	var c ChartConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return measured{}, fmt.Errorf("chartConfig: %w", err)
	}
	if c.ConfigType != "" {
		// Raw SQL charts are stored here, not run; the API refuses such
		// alerts, so only a document written behind its back holds one.
		return measured{}, errors.New("chartConfig is raw SQL, which this server does not run for alerts")
	}
	if bad := UnevaluatedKeys(raw); len(bad) > 0 {
		return measured{}, fmt.Errorf("chartConfig holds fields this server does not evaluate: %v", bad)
	}
	if len(c.Select) == 0 {
		return measured{}, errors.New("chartConfig has no select item")
	}
	groupBy := query.SplitList(c.GroupBy)
	if c.DisplayType == "number" {
		groupBy = nil
	}
	var where, whereLanguage string
	if c.Where != nil {
		where, whereLanguage = *c.Where, c.WhereLanguage
	}
	m := measured{sourceID: c.Source, items: make([]item, len(c.Select))}
	for i, sel := range c.Select {
		s := charts.Series{
			AggFn: sel.AggFn, Field: sel.ValueExpression, Where: sel.AggCondition, WhereLanguage: sel.AggConditionLanguage,
			GroupBy: groupBy, Filter: where, FilterLanguage: whereLanguage, Delta: sel.IsDelta,
		}
		if sel.Level != nil {
			s.Level = *sel.Level
		}
		m.items[i] = item{series: s, metricName: sel.MetricName, metricType: sel.MetricType}
	}
	switch {
	case len(c.Formulas) > 0:
		f, err := charts.ParseFormula(c.Formulas[0].Expression, len(c.Select))
		if err != nil {
			return measured{}, fmt.Errorf("chartConfig.formulas[0]: %w", err)
		}
		m.combine = f.Eval
		return m, nil
	case c.SeriesReturnType == "ratio":
		if len(m.items) != 2 {
			return measured{}, errors.New("chartConfig: a ratio needs exactly two select items")
		}
		m.combine = ratio
		return m, nil
	}
	// The first item is the one watched, as on a tile: the others are
	// drawn, not judged, so they are not queried.
	m.items = m.items[:1]
	return m, nil
}

// title is the alert's name in a notification: an inline alert without
// one takes its chart's (HyperDX's fallback).
func (a *Alert) title() string {
	if a.Name != "" || a.Source != "inline" {
		return a.Name
	}
	var c struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(a.ChartConfig, &c)
	return c.Name
}

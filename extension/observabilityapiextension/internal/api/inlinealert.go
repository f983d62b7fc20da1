package api

// Inline alerts (source "inline"): an alert on its own chart, HyperDX's
// chartConfig. The API takes and answers HyperDX's external chart dialect
// (that of a dashboard tile's config: sourceId, per-select where,
// asRatio, connectionId, plus the config's name and a chart-level where)
// and stores HyperDX's internal one (alerting.ChartConfig), which the
// scheduler evaluates with the same chart series as a tile alert.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// The bounds of HyperDX's external chart schema.
const (
	maxChartSelect   = 20
	maxChartFormulas = 10
	maxChartText     = 10000 // a where, a groupBy, an expression
	maxSQLTemplate   = 100000
)

// inlineDisplayTypes are the charts an alert can judge as a time series.
var inlineDisplayTypes = []string{"line", "stacked_bar", "number"}

// quantileLevels are the levels HyperDX's external select items take.
var quantileLevels = []float64{0.5, 0.9, 0.95, 0.99}

// externalSelect is a select item in the external dialect.
type externalSelect struct {
	AggFn           string          `json:"aggFn"`
	ValueExpression string          `json:"valueExpression,omitempty"`
	Alias           string          `json:"alias,omitempty"`
	Level           *float64        `json:"level,omitempty"`
	Where           string          `json:"where"`
	WhereLanguage   string          `json:"whereLanguage,omitempty"`
	NumberFormat    json.RawMessage `json:"numberFormat,omitempty"`
	MetricType      string          `json:"metricType,omitempty"`
	MetricName      string          `json:"metricName,omitempty"`
	PeriodAggFn     string          `json:"periodAggFn,omitempty"`
}

// externalChart is an inline alert's chartConfig in the external dialect.
type externalChart struct {
	Name          string                  `json:"name,omitempty"`
	ConfigType    string                  `json:"configType,omitempty"`
	DisplayType   string                  `json:"displayType"`
	SourceID      string                  `json:"sourceId,omitempty"`
	ConnectionID  string                  `json:"connectionId,omitempty"`
	SQLTemplate   string                  `json:"sqlTemplate,omitempty"`
	Select        []externalSelect        `json:"select,omitempty"`
	GroupBy       string                  `json:"groupBy,omitempty"`
	AsRatio       *bool                   `json:"asRatio,omitempty"`
	Formulas      []alerting.ChartFormula `json:"formulas,omitempty"`
	Where         *string                 `json:"where,omitempty"`
	WhereLanguage string                  `json:"whereLanguage,omitempty"`
	// Display: the presentation options of the display type, as they
	// came (alerting.ChartDisplayOptions), written beside the fields.
	Display map[string]json.RawMessage `json:"-"`
}

// MarshalJSON writes the display options beside the fields.
func (c externalChart) MarshalJSON() ([]byte, error) {
	type plain externalChart
	b, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	return alerting.WithDisplay(b, c.Display)
}

// rawSQLDisplayOptions are the presentation options of a raw SQL chart,
// by display type.
var rawSQLDisplayOptions = map[string][]string{
	"line":        {"numberFormat", "fillNulls", "alignDateRangeToGranularity", "compareToPreviousPeriod", "fitYAxisToData", "seriesLimit"},
	"stacked_bar": {"numberFormat", "fillNulls", "alignDateRangeToGranularity", "seriesLimit"},
	"number":      {"numberFormat", "color", "colorRules"},
}

// booleanOptions are the display options that are flags.
var booleanOptions = []string{"fillNulls", "alignDateRangeToGranularity", "compareToPreviousPeriod", "fitYAxisToData", "showOperandSeries"}

// validateInlineAlert checks an inline alert and its chartConfig (sent in
// the external dialect, in a.ChartConfig), and replaces the config by its
// internal form. Fields the dialect does not have are dropped, as
// HyperDX strips them.
func validateInlineAlert(ctx context.Context, a *Alert, lookup lookups, p *problems.List) error {
	if a.DashboardID != "" || a.TileID != "" || a.SavedSearchID != "" || a.GroupBy != "" {
		p.Add("dashboardId, tileId, savedSearchId and groupBy are for sources tile and saved_search; an inline alert groups as its chartConfig")
	}
	raw := a.ChartConfig
	a.ChartConfig = nil
	if len(raw) == 0 || string(raw) == "null" {
		p.Add("chartConfig is required with source inline")
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		p.Add("chartConfig must be an object")
		return nil
	}
	if ct, ok := fields["configType"]; ok && string(ct) != `"sql"` {
		p.Add(`chartConfig.configType must be "sql" or omitted (builder configs carry no configType)`)
		return nil
	}
	var ext externalChart
	if err := json.Unmarshal(raw, &ext); err != nil {
		p.Add("chartConfig: %v", jsonProblem(err))
		return nil
	}
	if !slices.Contains(inlineDisplayTypes, ext.DisplayType) {
		p.Add("chartConfig.displayType must be one of %s (the charts an alert judges as a time series), got %q", strings.Join(inlineDisplayTypes, ", "), ext.DisplayType)
		return nil
	}
	options := alerting.ChartDisplayOptions[ext.DisplayType]
	if ext.ConfigType == "sql" {
		options = rawSQLDisplayOptions[ext.DisplayType]
	}
	display := map[string]json.RawMessage{}
	for _, k := range options {
		if v, ok := fields[k]; ok && string(v) != "null" {
			display[k] = v
		}
	}
	checkDisplay(display, p)
	if ext.ConfigType == "sql" {
		return validateRawSQLChart(ctx, ext, fields, lookup, p)
	}
	return validateBuilderChart(ctx, a, ext, display, lookup, p)
}

// checkDisplay checks the display options kept verbatim that clients read
// as typed: flags are booleans, seriesLimit a count.
func checkDisplay(display map[string]json.RawMessage, p *problems.List) {
	for _, k := range booleanOptions {
		var b bool
		if v, ok := display[k]; ok && json.Unmarshal(v, &b) != nil {
			p.Add("chartConfig.%s must be a boolean", k)
		}
	}
	if v, ok := display["seriesLimit"]; ok {
		var n int
		if json.Unmarshal(v, &n) != nil || n < 0 {
			p.Add("chartConfig.seriesLimit must be a whole number, 0 or more")
		}
	}
}

// validateBuilderChart checks a builder chart (HyperDX's external tile
// rules plus the alert's name and chart-level where) and stores its
// internal form on a.
func validateBuilderChart(ctx context.Context, a *Alert, ext externalChart, display map[string]json.RawMessage, lookup lookups, p *problems.List) error {
	src, found, err := lookup.source(ctx, ext.SourceID)
	switch {
	case err != nil:
		return err
	case ext.SourceID == "":
		p.Add("chartConfig.sourceId is required")
	case !found:
		p.Add("chartConfig.sourceId: Source not found (%q)", ext.SourceID)
	}
	n := len(ext.Select)
	if n < 1 || n > maxChartSelect {
		p.Add("chartConfig.select takes 1 to %d items, got %d", maxChartSelect, n)
	}
	internal := alerting.ChartConfig{
		Name: ext.Name, DisplayType: ext.DisplayType, Source: ext.SourceID, Formulas: ext.Formulas,
		Where: new(""), WhereLanguage: "lucene",
	}
	if len(display) > 0 {
		internal.Display = display
	}
	for i, sel := range ext.Select {
		kind := ""
		if found {
			kind = src.Kind
		}
		internal.Select = append(internal.Select, checkSelect(i, sel, kind, p))
	}
	if ext.AsRatio != nil && *ext.AsRatio && n != 2 {
		p.Add("asRatio can only be used with exactly two select items")
	}
	if ext.Where != nil && *ext.Where != "" {
		checkText("chartConfig.where", *ext.Where, p)
		internal.Where, internal.WhereLanguage = ext.Where, cmp.Or(ext.WhereLanguage, "lucene")
	}
	checkLanguage("chartConfig.whereLanguage", ext.WhereLanguage, p)
	// A number chart has no grouping and no ratio (HyperDX's number
	// schema has neither field: they are dropped).
	if ext.DisplayType != "number" {
		internal.GroupBy = ext.GroupBy
		checkText("chartConfig.groupBy", ext.GroupBy, p)
		fields := query.SplitList(ext.GroupBy)
		if len(fields) > 5 {
			p.Add("chartConfig.groupBy takes at most 5 fields")
		}
		for _, f := range fields {
			if err := query.CheckField(f); err != nil {
				p.Add("chartConfig.groupBy: %v", err)
			}
		}
		internal.SeriesReturnType = "column"
		if ext.AsRatio != nil && *ext.AsRatio {
			internal.SeriesReturnType = "ratio"
		}
	}
	checkFormulas(ext, p)
	if len(ext.Formulas) > 0 && found && !formulaCapable(src.Kind) {
		p.Add("chartConfig.formulas require a log, trace or metric source; source %q is a %s source", ext.SourceID, src.Kind)
	}
	if ext.DisplayType == "number" && len(ext.Formulas) == 0 && n != 1 {
		p.Add("chartConfig.select: Number charts support a single select item unless formulas are used (extra items are formula operands)")
	}
	b, err := json.Marshal(internal)
	if err != nil {
		return err
	}
	a.ChartConfig = b
	return nil
}

// formulaCapable says whether a chart of a source of kind may have
// formulas: not a session replay's (HyperDX's editor offers none there).
func formulaCapable(kind string) bool { return kind == "log" || kind == "trace" || kind == "metric" }

// checkSelect checks a select item (HyperDX's external rules) and gives
// its internal form.
// kind is the chart's source's kind ("" when the source is not found).
func checkSelect(i int, sel externalSelect, kind string, p *problems.List) alerting.ChartSelect {
	at := fmt.Sprintf("chartConfig.select[%d]", i)
	if !slices.Contains(aggFns, sel.AggFn) {
		p.Add("%s.aggFn must be one of %s, got %q", at, strings.Join(aggFns, ", "), sel.AggFn)
	}
	switch {
	case sel.Level != nil && sel.AggFn != "quantile":
		p.Add("%s: Level can only be used with quantile aggregation function", at)
	case sel.AggFn == "quantile" && (sel.Level == nil || !slices.Contains(quantileLevels, *sel.Level)):
		p.Add("%s.level must be one of 0.5, 0.9, 0.95, 0.99 with quantile", at)
	}
	switch {
	case sel.ValueExpression != "" && sel.AggFn == "count":
		p.Add("%s: Value expression cannot be used with count aggregation function", at)
	case sel.ValueExpression == "" && sel.AggFn != "count" && sel.AggFn != "":
		p.Add("%s: Value expression is required for non-count aggregation functions", at)
	}
	checkMetricItem(at, sel, kind, p)
	checkText(at+".where", sel.Where, p)
	checkText(at+".valueExpression", sel.ValueExpression, p)
	checkLanguage(at+".whereLanguage", sel.WhereLanguage, p)
	return alerting.ChartSelect{
		AggFn: sel.AggFn, AggCondition: sel.Where, AggConditionLanguage: cmp.Or(sel.WhereLanguage, "lucene"),
		ValueExpression: sel.ValueExpression, Alias: sel.Alias, Level: sel.Level, NumberFormat: sel.NumberFormat,
		MetricType: sel.MetricType, MetricName: sel.MetricName, IsDelta: sel.PeriodAggFn == "delta",
	}
}

// checkMetricItem checks HyperDX's metric select item: metricName and
// metricType name a metric and the table of its type on a metric source,
// read as a tile's metric item is (charts.MetricItem).
func checkMetricItem(at string, sel externalSelect, kind string, p *problems.List) {
	if sel.PeriodAggFn != "" {
		p.OneOf(at+".periodAggFn", sel.PeriodAggFn, dashboards.PeriodAggFns)
	}
	if sel.MetricType == "" && sel.MetricName == "" {
		return
	}
	switch {
	case sel.MetricName == "" || sel.MetricType == "":
		p.Add("%s: a metric select item names both metricName and metricType", at)
	case !slices.Contains(sources.MetricTypes, sel.MetricType):
		p.Add("%s.metricType must be one of %s, got %q", at, strings.Join(sources.MetricTypes, ", "), sel.MetricType)
	}
	if kind != "" && kind != "metric" {
		p.Add("%s: metricName and metricType are for a metric source; the chart's source is a %s source", at, kind)
	}
	if len(sel.MetricName) > maxChartText {
		p.Add("%s.metricName is longer than %d characters", at, maxChartText)
	}
}

func checkText(at, text string, p *problems.List) {
	if len(text) > maxChartText {
		p.Add("%s is longer than %d characters", at, maxChartText)
	} else if err := query.CheckWhere(text); err != nil {
		p.Add("%s: %v", at, err)
	}
}

func checkLanguage(at, lang string, p *problems.List) {
	if lang != "" && lang != "lucene" && lang != "sql" {
		p.Add(`%s must be "lucene" or "sql", got %q`, at, lang)
	}
}

// checkFormulas applies HyperDX's formula rules: each parses and names
// only existing select items, none beside asRatio, one on a number chart.
func checkFormulas(ext externalChart, p *problems.List) {
	if len(ext.Formulas) == 0 {
		return
	}
	if len(ext.Formulas) > maxChartFormulas {
		p.Add("chartConfig.formulas takes at most %d entries", maxChartFormulas)
	}
	for i, f := range ext.Formulas {
		if _, err := charts.ParseFormula(f.Expression, len(ext.Select)); err != nil {
			p.Add("chartConfig.formulas[%d].expression: %v", i, err)
		}
	}
	if ext.AsRatio != nil && *ext.AsRatio {
		p.Add(`chartConfig.formulas cannot be combined with asRatio; express the ratio as a formula instead (e.g. "A / B")`)
	}
	if ext.DisplayType == "number" && len(ext.Formulas) > 1 {
		p.Add("chartConfig.formulas: Number charts support a single formula")
	}
}

// validateRawSQLChart checks a raw SQL chart as HyperDX does (its
// connection the team's, its source on that connection, no chart-level
// where) and then refuses it: raw SQL charts are stored here, not run,
// so the scheduler could never evaluate the alert (as for an alert on a
// raw SQL tile).
func validateRawSQLChart(ctx context.Context, ext externalChart, fields map[string]json.RawMessage, lookup lookups, p *problems.List) error {
	_, where := fields["where"]
	_, whereLanguage := fields["whereLanguage"]
	if where || whereLanguage {
		p.Add("chartConfig: Raw SQL alert configs have no chart-level where; filter inside the sqlTemplate instead")
	}
	switch {
	case strings.TrimSpace(ext.SQLTemplate) == "":
		p.Add("chartConfig.sqlTemplate is required with configType sql")
	case len(ext.SQLTemplate) > maxSQLTemplate:
		p.Add("chartConfig.sqlTemplate is longer than %d characters", maxSQLTemplate)
	}
	if ext.ConnectionID == "" {
		p.Add("chartConfig.connectionId is required with configType sql")
	} else if err := lookup.s.checkConnection(ctx, lookup.team, ext.ConnectionID); err != nil {
		var ae *apiError
		if !errors.As(err, &ae) {
			return err
		}
		p.Add("chartConfig.connectionId: %s", ae.msg)
	}
	if ext.SourceID != "" {
		src, found, err := lookup.source(ctx, ext.SourceID)
		switch {
		case err != nil:
			return err
		case !found:
			p.Add("chartConfig.sourceId: Source not found (%q)", ext.SourceID)
		case ext.ConnectionID != "" && cmp.Or(src.Connection, sources.DefaultConnectionID(lookup.team)) != ext.ConnectionID:
			p.Add("chartConfig.sourceId: source %q is on connection %q, not the chart's %q", ext.SourceID, src.Connection, ext.ConnectionID)
		}
	}
	p.Add("chartConfig: raw SQL charts are stored by this server, not run, so an alert on one could never be evaluated; build the chart from select items instead")
	return nil
}

// externalChartConfig is a stored inline config in the external dialect,
// or false when the dialect cannot say it faithfully (HyperDX's rule: a
// field that changes what the alert measures and has no external
// spelling, such as filters). A GET then leaves chartConfig out, so that
// echoing the answer back fails on the missing config rather than
// broadening the alert's query.
func externalChartConfig(raw json.RawMessage) (*externalChart, bool) {
	var c alerting.ChartConfig
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil || !slices.Contains(inlineDisplayTypes, c.DisplayType) {
		return nil, false
	}
	if len(alerting.UnevaluatedKeys(raw)) > 0 || !representable(raw, c) {
		return nil, false
	}
	ext := &externalChart{Name: c.Name, DisplayType: c.DisplayType, SourceID: c.Source}
	if c.ConfigType == "sql" {
		ext.ConfigType, ext.ConnectionID, ext.SQLTemplate = c.ConfigType, c.Connection, c.SQLTemplate
		ext.Display = pick(c.Display, rawSQLDisplayOptions[c.DisplayType])
		return ext, true
	}
	if c.ConfigType != "" {
		return nil, false
	}
	for _, s := range c.Select {
		e := externalSelect{
			AggFn: s.AggFn, Alias: s.Alias, Where: s.AggCondition, WhereLanguage: cmp.Or(s.AggConditionLanguage, "lucene"),
			NumberFormat: s.NumberFormat, MetricType: s.MetricType, MetricName: s.MetricName,
		}
		if s.IsDelta {
			e.PeriodAggFn = "delta"
		}
		// The leftovers the renderer ignores: a level off a quantile, a
		// value expression on a count.
		if s.AggFn == "quantile" {
			e.Level = s.Level
		}
		if s.AggFn != "count" {
			e.ValueExpression = s.ValueExpression
		}
		ext.Select = append(ext.Select, e)
	}
	ext.Formulas = c.Formulas
	if c.DisplayType != "number" {
		ext.GroupBy = c.GroupBy
		ext.AsRatio = new(c.SeriesReturnType == "ratio")
	}
	if c.Where != nil && *c.Where != "" {
		ext.Where, ext.WhereLanguage = c.Where, cmp.Or(c.WhereLanguage, "lucene")
	}
	ext.Display = pick(c.Display, alerting.ChartDisplayOptions[c.DisplayType])
	return ext, true
}

// selectItemKeys are the stored select item fields the external dialect
// says, or that do not change what a line, stacked_bar or number chart
// measures (a heatmap's or a table cell's).
var selectItemKeys = []string{
	"aggFn", "aggCondition", "aggConditionLanguage", "valueExpression", "alias", "level", "metricType", "metricName",
	"numberFormat", "isDelta", "color", "colorRules", "countExpression", "heatmapScaleType",
}

// representable applies HyperDX's checks of a stored builder config
// against what the external schema can hold.
func representable(raw json.RawMessage, c alerting.ChartConfig) bool {
	if c.ConfigType == "sql" {
		return true
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	if c.DisplayType == "number" {
		// Neither grouping nor a ratio has a spelling on a number chart.
		if g, _ := m["groupBy"].(string); g != "" {
			return false
		}
		if c.SeriesReturnType == "ratio" {
			return false
		}
	}
	if c.Where != nil && len(*c.Where) > maxChartText {
		return false
	}
	if sel, ok := m["select"].([]any); !ok || len(sel) == 0 || len(sel) > maxChartSelect {
		return false
	}
	if c.DisplayType == "number" && len(c.Select) > 1 && len(c.Formulas) == 0 {
		return false
	}
	for _, it := range m["select"].([]any) {
		item, ok := it.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range item {
			if !slices.Contains(selectItemKeys, k) && !alerting.EmptyJSON(v) {
				return false
			}
		}
	}
	return true
}

func pick(m map[string]json.RawMessage, keys []string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[k] = v
		}
	}
	return out
}

// jsonProblem words a decoding error of the chartConfig.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s has the wrong type (a %s)", cmp.Or(te.Field, "the value"), te.Value)
	}
	return err.Error()
}

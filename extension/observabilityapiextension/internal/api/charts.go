package api

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// chartRequest is POST /api/v2/charts/series, HyperDX's body.
type chartRequest struct {
	StartTime   int64         `json:"startTime"`
	EndTime     int64         `json:"endTime"`
	Granularity string        `json:"granularity"`
	Series      []chartSeries `json:"series"`
	// SeriesReturnType is HyperDX's: "column" answers the engine's rows
	// ({"__hdx_time_bucket", "series_N", <groupBy>…}), "ratio" the first
	// series over the second; absent, a row per bucket and group.
	SeriesReturnType string `json:"seriesReturnType"`
	// Fill answers every bucket of the range, empty ones 0 for count,
	// count_distinct and sum and null otherwise (the web UI's charts);
	// HyperDX's answer, without it, holds the buckets with data only.
	Fill bool `json:"fill"`
	// Formulas are further series computed per bucket and group from the
	// series' values, named A (the first), B, ... (a dashboard tile's
	// formulas, charts.ParseFormula): answered after them, series_N with
	// N counting on from the last series.
	Formulas []chartFormula `json:"formulas"`
	// Totals answers one row per group over the whole range (ts_bucket
	// startTime) instead of one per bucket: each series' aggregate of
	// the range, as a table tile shows it. An otelhouse extension.
	Totals bool `json:"totals"`
	// Having is HyperDX's having of a table tile: a sql condition on a
	// group (aggregates over the source's columns, the series' aliases)
	// keeping the groups that satisfy it. It implies totals. An
	// otelhouse extension.
	Having string `json:"having"`
}

// chartFormula is one computed series of a chart request.
type chartFormula struct {
	Expression string `json:"expression"`
}

// maxFormulas bounds a request's formulas, as a tile's are.
const maxFormulas = 10

type chartSeries struct {
	SourceID      string   `json:"sourceId"`
	DataSource    string   `json:"dataSource"`
	AggFn         string   `json:"aggFn"`
	Field         string   `json:"field"`
	Level         float64  `json:"level"`
	Where         string   `json:"where"`
	WhereLanguage string   `json:"whereLanguage"`
	GroupBy       []string `json:"groupBy"`
	// MetricName and MetricDataType pick a metric of a metric source's
	// table of that type (HyperDX's metric series); without MetricName,
	// Field names the metric.
	MetricName     string `json:"metricName"`
	MetricDataType string `json:"metricDataType"`
	// PeriodAggFn "delta" draws a gauge metric's change over each bucket
	// (a tile select item's periodAggFn, which this request carries
	// beyond HyperDX's so a tile is drawn as its alert judges it).
	PeriodAggFn string `json:"periodAggFn"`
	// Query is a Datadog metric query or formula on a metric source; it
	// takes the place of aggFn, field, where and groupBy.
	Query string `json:"query"`
	// Alias names the series' value in a having.
	Alias string `json:"alias"`
}

// maxSeries bounds one request, as HyperDX's does.
const maxSeries = 5

// maxFormulaSeries bounds a request with formulas: a formula is computed
// over the series of one request, so a tile's formulas over all its
// select items (dashboards allow 20) are asked for in one.
const maxFormulaSeries = 20

// bucketedRange reads a chart's range (epoch milliseconds) and its
// buckets of granularity, adding what is wrong with them to p: at most
// 10,000 buckets. oneSecond takes "1s" as a bucket of a second.
func bucketedRange(p *problems.List, startMs, endMs int64, granularity string, oneSecond bool) (start, end time.Time, step time.Duration) {
	start, end = time.UnixMilli(startMs).UTC(), time.UnixMilli(endMs).UTC()
	if startMs <= 0 || endMs <= startMs {
		p.Add("startTime and endTime are epoch milliseconds with startTime < endTime")
	}
	step, err := charts.Bucket(granularity, start, end)
	if oneSecond && granularity == "1s" {
		step, err = time.Second, nil
	}
	if err != nil {
		p.Add("%v", err)
	} else if endMs > startMs && end.Sub(start)/step > 10000 {
		p.Add("the range holds more than 10000 buckets of %s", step)
	}
	return start, end, step
}

// chartSeriesHandler answers HyperDX's rows: one per bucket and group
// holding data, {"ts_bucket": ms, "group": [...], "series_N.data": v},
// a count as the engine's JSON writes a 64-bit integer (a string).
func (s *Server) chartSeriesHandler(r *http.Request) result {
	body, err := readJSON(r, MaxBody)
	if err != nil {
		return failed("", err)
	}
	var req chartRequest
	if err := decodeStrict(body, &req); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	var p problems.List
	// "1s" is HyperDX's bucket for its own tests (its API takes it in a
	// test build only); the range is still held to 10,000 buckets.
	start, end, step := bucketedRange(&p, req.StartTime, req.EndTime, req.Granularity, true)
	switch {
	case len(req.Formulas) > 0 && (len(req.Series) == 0 || len(req.Series) > maxFormulaSeries):
		p.Add("series must hold 1 to %d entries with formulas", maxFormulaSeries)
	case len(req.Formulas) == 0 && (len(req.Series) == 0 || len(req.Series) > maxSeries):
		p.Add("series must hold 1 to %d entries (%d with formulas)", maxSeries, maxFormulaSeries)
	}
	if req.SeriesReturnType != "" {
		p.OneOf("seriesReturnType", req.SeriesReturnType, []string{"column", "ratio"})
		if req.SeriesReturnType == "ratio" && len(req.Series) != 2 {
			p.Add("seriesReturnType ratio divides the first series by the second: send two series")
		}
	}
	formulas := make([]charts.Formula, len(req.Formulas))
	switch {
	case len(req.Formulas) > maxFormulas:
		p.Add("formulas: at most %d", maxFormulas)
	case len(req.Formulas) > 0 && req.SeriesReturnType == "ratio":
		p.Add(`formulas cannot be combined with seriesReturnType ratio; send the ratio as the formula "A / B"`)
	default:
		for j, f := range req.Formulas {
			var err error
			if formulas[j], err = charts.ParseFormula(f.Expression, len(req.Series)); err != nil {
				p.Add("formulas[%d].expression: %v", j, err)
			}
		}
	}
	totals := req.Totals || strings.TrimSpace(req.Having) != ""
	if len(req.Having) > query.MaxSQLWhere {
		p.Add("having may be at most %d bytes", query.MaxSQLWhere)
	}
	if totals && req.SeriesReturnType == "ratio" {
		p.Add(`totals and having cannot be combined with seriesReturnType ratio; send the ratio as the formula "A / B"`)
	}
	var groupBy []string
	grouped := false
	for i, sr := range req.Series {
		if sr.SourceID == "" {
			p.Add("series[%d].sourceId is required", i)
		}
		if sr.DataSource != "" {
			p.OneOf(fmt.Sprintf("series[%d].dataSource", i), sr.DataSource, []string{"events", "metrics"})
		}
		if sr.MetricDataType != "" {
			p.OneOf(fmt.Sprintf("series[%d].metricDataType", i), strings.ToLower(sr.MetricDataType), sources.MetricTypes)
		}
		if sr.PeriodAggFn != "" {
			p.OneOf(fmt.Sprintf("series[%d].periodAggFn", i), sr.PeriodAggFn, dashboards.PeriodAggFns)
		}
		if sr.Query != "" {
			if totals {
				p.Add("series[%d]: totals and having are computed for aggFn series, not a query", i)
			}
			if sr.AggFn != "" || sr.Field != "" || sr.Where != "" || len(sr.GroupBy) > 0 || sr.PeriodAggFn != "" {
				p.Add("series[%d]: query replaces aggFn, field, where, groupBy and periodAggFn; send one or the other", i)
			}
			if _, err := charts.ParseDatadogMetric(sr.Query); err != nil {
				p.Add("series[%d].query: %v", i, err)
			}
			continue
		}
		p.OneOf(fmt.Sprintf("series[%d].aggFn", i), sr.AggFn, aggFns)
		if err := query.CheckWhere(sr.Where); err != nil {
			p.Add("series[%d]: %v", i, err)
		}
		for _, g := range sr.GroupBy {
			if err := query.CheckField(g); err != nil {
				p.Add("series[%d].groupBy: %v", i, err)
			}
		}
		if !grouped {
			groupBy, grouped = sr.GroupBy, true
		} else if !slices.Equal(groupBy, sr.GroupBy) {
			p.Add("All series must have the same groupBy fields")
		}
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid chart query: "+err.Error())
	}
	series := make([]charts.Series, len(req.Series))
	for i, sr := range req.Series {
		cs, err := s.seriesFor(r.Context(), teamOf(r.Context()), sr)
		if errors.Is(err, store.ErrNotFound) {
			return fail(http.StatusNotFound, "source "+strconv.Quote(sr.SourceID)+" not found")
		}
		if ve := (validationError{}); errors.As(err, &ve) {
			return fail(http.StatusBadRequest, "invalid chart query: "+err.Error())
		}
		if err != nil {
			return failed("", err)
		}
		series[i] = cs
	}
	run := charts.Sparse
	if req.Fill {
		run = charts.Run
	}
	if totals {
		// One bucket, the range: what the answer's granularity says.
		step = end.Sub(start)
		run = func(ctx context.Context, db *sql.DB, series []charts.Series, start, end time.Time, _ time.Duration, timeout time.Duration) ([]charts.Point, error) {
			return charts.Totals(ctx, db, series, req.Having, start, end, timeout)
		}
	}
	points, err := run(r.Context(), s.opts.DB, series, start, end, step, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "chart query", err)
	}
	value := func(i int, v *float64) any {
		if v == nil {
			return nil
		}
		if i >= len(req.Series) {
			// A formula's value: a quotient or a sum of any of the
			// series, never a count, so a number.
			return *v
		}
		if sr := req.Series[i]; sr.Query == "" && (sr.AggFn == "count" || sr.AggFn == "count_distinct") {
			return strconv.FormatFloat(*v, 'f', -1, 64)
		}
		return *v
	}
	rows := make([]map[string]any, 0, len(points))
	for _, pt := range points {
		vals := pt.Values
		if req.SeriesReturnType == "ratio" {
			var q *float64
			if vals[0] != nil && vals[1] != nil && *vals[1] != 0 {
				x := *vals[0] / *vals[1]
				q = &x
			}
			vals = []*float64{q}
		}
		for _, f := range formulas {
			vals = append(vals, f.Eval(pt.Values))
		}
		row := map[string]any{}
		if req.SeriesReturnType == "column" {
			row["__hdx_time_bucket"] = time.UnixMilli(pt.Bucket).UTC().Format(time.RFC3339)
			for j, g := range groupBy {
				if j < len(pt.Group) {
					row[g] = pt.Group[j]
				}
			}
		} else {
			row["ts_bucket"], row["group"] = pt.Bucket, pt.Group
		}
		for i, v := range vals {
			if v == nil {
				// HyperDX's row has only the series with a value; with
				// fill the bucket's row is there, its empty series absent.
				continue
			}
			switch req.SeriesReturnType {
			case "column":
				row["series_"+strconv.Itoa(i)] = value(i, v)
			case "ratio":
				row["series_"+strconv.Itoa(i)+".data"] = v // a quotient, never a count
			default:
				row["series_"+strconv.Itoa(i)+".data"] = value(i, v)
			}
		}
		rows = append(rows, row)
	}
	return ok(http.StatusOK, rows, map[string]any{"granularity": step.String()})
}

// seriesFor makes a chart series of a team's source. On a metric source,
// metricName or metricDataType make it HyperDX's metric series: the
// metric's points in the source database's table of that type, their
// Value aggregated (field, when metricName is also given).
func (s *Server) seriesFor(ctx context.Context, team string, sr chartSeries) (charts.Series, error) {
	src, err := s.sources.Get(ctx, team, sr.SourceID)
	if errors.Is(err, sources.ErrUnreadable) {
		return charts.Series{}, validationError{err}
	}
	if err != nil {
		return charts.Series{}, err
	}
	cs := charts.Series{
		Source: src.Chart(),
		AggFn:  sr.AggFn, Field: sr.Field, Level: sr.Level, Where: sr.Where, WhereLanguage: sr.WhereLanguage, GroupBy: sr.GroupBy,
		Query: sr.Query, Delta: sr.PeriodAggFn == "delta", Alias: sr.Alias,
	}
	if src.Kind != "metric" || sr.Query != "" || (sr.MetricName == "" && sr.MetricDataType == "") {
		return cs, nil
	}
	cs, err = charts.MetricItem(cs, sr.MetricName, sr.MetricDataType, sr.Field)
	if err != nil {
		return cs, validationError{fmt.Errorf("source %q: %w", src.Name, err)}
	}
	return cs, nil
}

// heatmapRequest is POST /api/v2/charts/heatmap: a heatmap tile's select
// item over a range, as the web UI draws one.
type heatmapRequest struct {
	StartTime        int64  `json:"startTime"`
	EndTime          int64  `json:"endTime"`
	Granularity      string `json:"granularity"`
	SourceID         string `json:"sourceId"`
	ValueExpression  string `json:"valueExpression"`
	CountExpression  string `json:"countExpression"`
	HeatmapScaleType string `json:"heatmapScaleType"`
	Where            string `json:"where"`
	WhereLanguage    string `json:"whereLanguage"`
	Rows             int    `json:"rows"`
}

// heatmapHandler counts a source's events per time bucket and bucket of
// valueExpression (charts.RunHeatmap).
func (s *Server) heatmapHandler(r *http.Request) result {
	body, err := readJSON(r, MaxBody)
	if err != nil {
		return failed("", err)
	}
	var req heatmapRequest
	if err := decodeStrict(body, &req); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	var p problems.List
	start, end, step := bucketedRange(&p, req.StartTime, req.EndTime, req.Granularity, false)
	if req.SourceID == "" {
		p.Add("sourceId is required")
	}
	if strings.TrimSpace(req.ValueExpression) == "" {
		p.Add("valueExpression is required")
	} else if err := query.CheckField(req.ValueExpression); err != nil {
		p.Add("valueExpression: %v", err)
	}
	// Each cell counts events; another aggregate per cell is not run here.
	if c := strings.ReplaceAll(req.CountExpression, " ", ""); c != "" && c != "count()" {
		p.Add("countExpression %q is not computed here: cells count events (count())", req.CountExpression)
	}
	if req.HeatmapScaleType != "" {
		p.OneOf("heatmapScaleType", req.HeatmapScaleType, dashboards.HeatmapScales)
	}
	if req.Rows == 0 {
		req.Rows = 30
	}
	if req.Rows < 1 || req.Rows > charts.MaxHeatmapRows {
		p.Add("rows must be 1 to %d", charts.MaxHeatmapRows)
	}
	if err := query.CheckWhere(req.Where); err != nil {
		p.Add("%v", err)
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid heatmap query: "+err.Error())
	}
	src, err := s.sources.Get(r.Context(), teamOf(r.Context()), req.SourceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fail(http.StatusNotFound, "source "+strconv.Quote(req.SourceID)+" not found")
	case errors.Is(err, sources.ErrUnreadable):
		return fail(http.StatusBadRequest, "invalid heatmap query: "+err.Error())
	case err != nil:
		return failed("", err)
	}
	hm, err := charts.RunHeatmap(r.Context(), s.opts.DB, charts.HeatmapQuery{
		Source: src.Chart(), Value: req.ValueExpression, Where: req.Where, WhereLanguage: req.WhereLanguage,
		Log: req.HeatmapScaleType != "linear", Rows: req.Rows,
	}, start, end, step, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "heatmap query", err)
	}
	return ok(http.StatusOK, hm, map[string]any{"granularity": step.String()})
}

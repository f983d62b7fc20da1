package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// chartRequest is POST /api/v2/charts/series.
type chartRequest struct {
	StartTime   int64         `json:"startTime"`
	EndTime     int64         `json:"endTime"`
	Granularity string        `json:"granularity"`
	Series      []chartSeries `json:"series"`
}

type chartSeries struct {
	SourceID      string   `json:"sourceId"`
	AggFn         string   `json:"aggFn"`
	Field         string   `json:"field"`
	Level         float64  `json:"level"`
	Where         string   `json:"where"`
	WhereLanguage string   `json:"whereLanguage"`
	GroupBy       []string `json:"groupBy"`
	// Query is a Datadog metric query or formula on a metric source; it
	// takes the place of aggFn, field, where and groupBy.
	Query string `json:"query"`
}

// maxSeries bounds one request; queries are not otherwise throttled.
const maxSeries = 20

// chartSeriesHandler answers one row per bucket and group, every bucket of
// the range present, as {"ts_bucket": ms, "group": [...], "series_N.data": v}.
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
	start, end := time.UnixMilli(req.StartTime).UTC(), time.UnixMilli(req.EndTime).UTC()
	if req.StartTime <= 0 || req.EndTime <= req.StartTime {
		p.Add("startTime and endTime are epoch milliseconds with startTime < endTime")
	}
	step, err := charts.Bucket(req.Granularity, start, end)
	if err != nil {
		p.Add("%v", err)
	} else if req.EndTime > req.StartTime && end.Sub(start)/step > 10000 {
		p.Add("the range holds more than 10000 buckets of %s", step)
	}
	if len(req.Series) == 0 || len(req.Series) > maxSeries {
		p.Add("series must hold 1 to %d entries", maxSeries)
	}
	for i, sr := range req.Series {
		if sr.SourceID == "" {
			p.Add("series[%d].sourceId is required", i)
		}
		if sr.Query != "" {
			if sr.AggFn != "" || sr.Field != "" || sr.Where != "" || len(sr.GroupBy) > 0 {
				p.Add("series[%d]: query replaces aggFn, field, where and groupBy; send one or the other", i)
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
	points, err := charts.Run(r.Context(), s.opts.DB, series, start, end, step, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "chart query", err)
	}
	rows := make([]map[string]any, 0, len(points))
	for _, pt := range points {
		row := map[string]any{"ts_bucket": pt.Bucket, "group": pt.Group}
		for i, v := range pt.Values {
			row["series_"+strconv.Itoa(i)+".data"] = v
		}
		rows = append(rows, row)
	}
	return ok(http.StatusOK, rows, map[string]any{"granularity": step.String()})
}

// seriesFor makes a chart series of a team's source.
func (s *Server) seriesFor(ctx context.Context, team string, sr chartSeries) (charts.Series, error) {
	src, err := s.sources.Get(ctx, team, sr.SourceID)
	if errors.Is(err, sources.ErrUnreadable) {
		return charts.Series{}, validationError{err}
	}
	if err != nil {
		return charts.Series{}, err
	}
	return charts.Series{
		Source: src.Chart(),
		AggFn:  sr.AggFn, Field: sr.Field, Level: sr.Level, Where: sr.Where, WhereLanguage: sr.WhereLanguage, GroupBy: sr.GroupBy,
		Query: sr.Query,
	}, nil
}

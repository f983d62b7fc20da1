package api

import (
	"net/http"
	"strings"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// The metrics explorer's reads: the metrics of a metric source's
// database and a metric's tags. A picked metric charts through POST
// /api/v2/charts/series with a Datadog metric query, as any tile does.

// maxMetricText bounds the metric name, search, key and prefix.
const maxMetricText = 1024

// metricsHandler is GET /api/v2/metrics?sourceId=…&startTime=…&endTime=…&search=…:
// the metric names seen in the range (the last hour by default) in every
// metric table of the source's database, with type, unit, description,
// monotonic and series count.
func (s *Server) metricsHandler(r *http.Request) result {
	q := r.URL.Query()
	var p problems.List
	start, end := queryRange(q, &p)
	if len(q.Get("search")) > maxMetricText {
		p.Add("search is longer than %d bytes", maxMetricText)
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid metrics: "+err.Error())
	}
	src, res := s.metricSource(r, q.Get("sourceId"), "metrics")
	if res != nil {
		return *res
	}
	list, truncated, err := charts.Metrics(r.Context(), s.opts.DB, src, start, end, q.Get("search"), s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "metrics", err)
	}
	return ok(http.StatusOK, list, map[string]any{"truncated": truncated})
}

// metricTagsHandler is GET /api/v2/metrics/tags?sourceId=…&metric=…&key=…&prefix=…:
// a metric's attribute and resource attribute keys in the range, most
// common first (resource keys with a Datadog tag named by it, host for
// host.name), or with key the frequent values of that tag.
func (s *Server) metricTagsHandler(r *http.Request) result {
	q := r.URL.Query()
	var p problems.List
	start, end := queryRange(q, &p)
	limit, err := queryInt(q.Get("limit"), 0, 500)
	if err != nil {
		p.Add("limit %v", err)
	}
	metric := q.Get("metric")
	if metric == "" {
		p.Add("metric is required")
	}
	for _, n := range []string{"metric", "prefix"} {
		if len(q.Get(n)) > maxMetricText {
			p.Add("%s is longer than %d bytes", n, maxMetricText)
		}
	}
	if k := q.Get("key"); k != "" {
		if err := query.CheckField(strings.TrimPrefix(k, "@")); err != nil {
			p.Add("key: %v", err)
		}
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid metric tags: "+err.Error())
	}
	src, res := s.metricSource(r, q.Get("sourceId"), "metric tags")
	if res != nil {
		return *res
	}
	tags, err := charts.MetricTags(r.Context(), s.opts.DB, src, charts.TagsRequest{
		Metric: metric, Start: start, End: end,
		Key: q.Get("key"), Prefix: q.Get("prefix"), Limit: limit,
	}, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "metric tags", err)
	}
	return ok(http.StatusOK, tags, nil)
}

// metricSource reads one of the team's metric sources ("metrics" when
// none is named) as the chart code reads it.
func (s *Server) metricSource(r *http.Request, id, what string) (query.Source, *result) {
	if id == "" {
		id = "metrics"
	}
	src, res := s.teamSource(r, id, what)
	if res != nil {
		return query.Source{}, res
	}
	if src.Kind != "metric" {
		bad := fail(http.StatusBadRequest, "invalid "+what+": source "+src.ID+" is not a metric source")
		return query.Source{}, &bad
	}
	return src.Chart(), nil
}

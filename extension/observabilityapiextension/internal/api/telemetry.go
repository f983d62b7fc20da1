package api

import (
	"errors"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/search"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// The telemetry reads beside search: a trace with its logs, the services
// of a trace source, the columns of a source. The web UI's trace,
// services and search pages call these; so may any script.

// scopeOfKind reads one of the team's sources of a kind, by id or, when
// none is given, by the default id, and resolves its table.
func (s *Server) scopeOfKind(r *http.Request, id, def, kind string) (sources.Source, *query.Scope, *result) {
	if id == "" {
		id = def
	}
	src, sc, res := s.searchScope(r, id)
	if res == nil && src.Kind != kind {
		bad := fail(http.StatusBadRequest, "source "+src.ID+" is not a "+kind+" source")
		return src, nil, &bad
	}
	return src, sc, res
}

// traceHandler is GET /api/v2/traces/{id}?sourceId=…&logSourceId=…: every
// span of a trace (trace source "traces" by default) and the logs that
// carry its id (log source "logs" by default; none when it is missing).
func (s *Server) traceHandler(r *http.Request) result {
	q := r.URL.Query()
	src, sc, res := s.scopeOfKind(r, q.Get("sourceId"), "traces", "trace")
	if res != nil {
		return *res
	}
	req := search.TraceRequest{TraceID: r.PathValue("id"), TraceColumn: src.TraceIDColumn()}
	// Without a log source (or its table, not created yet): the trace
	// alone, unless the caller named one.
	logs, lsc, res := s.scopeOfKind(r, q.Get("logSourceId"), "logs", "log")
	switch {
	case res == nil:
		req.Logs, req.LogTraceColumn = lsc, logs.TraceIDColumn()
	case q.Get("logSourceId") != "":
		return *res
	}
	t, err := search.GetTrace(r.Context(), s.opts.DB, sc, req, s.queryTimeout())
	switch {
	case errors.Is(err, search.ErrNoTrace):
		return fail(http.StatusNotFound, err.Error())
	case err != nil:
		return s.queryFailed(r, "trace", err)
	}
	return ok(http.StatusOK, map[string]any{"source": src.Public(), "spans": t.Spans, "logs": t.Logs, "truncated": t.Truncated}, nil)
}

// traceListHandler is POST /api/v2/search/traces: the traces with a span
// matching the where in the range, one row each (root span, start,
// duration, spans, errors, services), newest first and paged, for the
// same body as POST /api/v2/search.
func (s *Server) traceListHandler(r *http.Request) result {
	body, err := readJSON(r, MaxBody)
	if err != nil {
		return failed("", err)
	}
	var req struct {
		searchWindow
		MaxResults int    `json:"maxResults"`
		Cursor     string `json:"cursor"`
	}
	if err := decodeStrict(body, &req); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	var p problems.List
	start, end := req.check(&p)
	if req.MaxResults == 0 {
		req.MaxResults = 50
	}
	if req.MaxResults < 1 || req.MaxResults > search.MaxTraces {
		p.Add("maxResults must be from 1 to %d", search.MaxTraces)
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid trace list: "+err.Error())
	}
	src, sc, res := s.scopeOfKind(r, req.SourceID, "traces", "trace")
	if res != nil {
		return *res
	}
	page, err := search.TraceList(r.Context(), s.opts.DB, sc, search.TraceColumns{
		Trace:  src.TraceIDColumn(),
		Parent: src.ParentSpanIDColumn(), Name: src.SpanNameColumn(),
		Service: sources.Column(src.ServiceNameExpression, "ServiceName"), Duration: src.DurationExpression, Status: src.StatusCodeColumn(),
	},
		search.Request{Start: start, End: end, Where: req.Where, WhereLanguage: req.WhereLanguage, Limit: req.MaxResults, Cursor: req.Cursor}, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "trace list", err)
	}
	extra := map[string]any{}
	if page.NextCursor != "" {
		extra["nextCursor"] = page.NextCursor
	}
	return ok(http.StatusOK, page.Traces, extra)
}

// servicesHandler is GET /api/v2/services?sourceId=…&startTime=…&endTime=…:
// each service of a trace source over the range (the last hour by
// default) with its requests (entry spans), errors and latency quantiles,
// per service and per operation.
func (s *Server) servicesHandler(r *http.Request) result {
	q := r.URL.Query()
	var p problems.List
	start, end := queryRange(q, &p)
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid services: "+err.Error())
	}
	src, sc, res := s.scopeOfKind(r, q.Get("sourceId"), "traces", "trace")
	if res != nil {
		return *res
	}
	rows, err := search.Services(r.Context(), s.opts.DB, sc, search.ServiceColumns{
		Service: src.ServiceNameExpression, Duration: src.DurationExpression,
		Status: src.StatusCodeColumn(), Name: src.SpanNameColumn(), Kind: sources.Column(src.SpanKindExpression, "SpanKind"),
		Parent: src.ParentSpanIDColumn(),
	}, start, end, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "services", err)
	}
	return ok(http.StatusOK, rows, nil)
}

// columnsHandler is GET /api/v2/sources/{id}/columns: what a column picker
// offers, the table's columns with their types and the attribute and
// resource keys seen in its recent rows.
func (s *Server) columnsHandler(r *http.Request) result {
	_, sc, res := s.searchScope(r, r.PathValue("id"))
	if res != nil {
		return *res
	}
	fl, err := search.Fields(r.Context(), s.opts.DB, sc, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "columns", err)
	}
	return ok(http.StatusOK, fl, nil)
}

package webuiextension

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/search"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// scope resolves a source's table (its columns are cached by charts).
func scope(ctx context.Context, st *apistate.State, src sources.Source) (*query.Scope, error) {
	sc, err := query.OpenScope(ctx, st.DB, src.Chart())
	if err != nil && ctx.Err() == nil {
		return nil, query.Mistake(err)
	}
	return sc, err
}

// source reads one of the caller's team's sources.
func (u *webUI) source(ctx context.Context, c *call, id string) (sources.Source, error) {
	if id == "" {
		return sources.Source{}, badRequest("sourceId is required")
	}
	src, err := c.st.Sources.Get(ctx, c.account.TeamID, id)
	if errors.Is(err, store.ErrNotFound) {
		return src, httpError{http.StatusNotFound, "source " + id + " not found"}
	}
	if errors.Is(err, sources.ErrUnreadable) {
		return src, badRequest("%v", err)
	}
	return src, err
}

// sourceOfKind reads one of the team's sources of a kind (by id, or the
// default's id when none is given) and resolves its table.
func (u *webUI) sourceOfKind(ctx context.Context, c *call, id, def, kind string) (sources.Source, *query.Scope, error) {
	if id == "" {
		id = def
	}
	src, err := u.source(ctx, c, id)
	if err != nil {
		return src, nil, err
	}
	if src.Kind != kind {
		return src, nil, badRequest("source %s is not a %s source", src.ID, kind)
	}
	sc, err := scope(ctx, c.st, src)
	return src, sc, err
}

func (u *webUI) sources(r *http.Request, c *call) (any, error) {
	return c.st.Sources.List(r.Context(), c.account.TeamID)
}

// fields lists what a column picker offers: the table's columns and the
// attribute keys seen in its recent rows.
func (u *webUI) fields(r *http.Request, c *call) (any, error) {
	src, err := u.source(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	sc, err := scope(ctx, c.st, src)
	if err != nil {
		return nil, err
	}
	return search.Fields(ctx, c.st.DB, sc, c.st.QueryTimeout)
}

// window is a time range and a where, as the search page sends them.
type window struct {
	SourceID      string `json:"sourceId"`
	StartTime     int64  `json:"startTime"` // epoch ms
	EndTime       int64  `json:"endTime"`
	Where         string `json:"where"`
	WhereLanguage string `json:"whereLanguage"`
}

func (w *window) win() *window { return w }

// readWindow decodes a request that names a source, a range and a where
// (a struct embedding window), checks the range and reads the source.
func (u *webUI) readWindow(r *http.Request, c *call, in interface{ win() *window }) (sources.Source, error) {
	if err := decode(r, in); err != nil {
		return sources.Source{}, err
	}
	if err := in.win().check(); err != nil {
		return sources.Source{}, err
	}
	return u.source(r.Context(), c, in.win().SourceID)
}

func (w window) check() error {
	if w.StartTime <= 0 || w.EndTime <= w.StartTime {
		return badRequest("startTime and endTime are epoch milliseconds with startTime < endTime")
	}
	return nil
}

func (u *webUI) search(r *http.Request, c *call) (any, error) {
	var in struct {
		window
		Limit  int    `json:"limit"`
		Cursor string `json:"cursor"`
	}
	src, err := u.readWindow(r, c, &in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	sc, err := scope(ctx, c.st, src)
	if err != nil {
		return nil, err
	}
	return search.Search(ctx, c.st.DB, sc, search.Request{Start: time.UnixMilli(in.StartTime), End: time.UnixMilli(in.EndTime),
		Where: in.Where, WhereLanguage: in.WhereLanguage, Limit: in.Limit, Cursor: in.Cursor}, c.st.QueryTimeout)
}

// histogram counts the matching events per bucket (at most 120 buckets),
// through the chart engine: the same query an alert or a tile would run.
func (u *webUI) histogram(r *http.Request, c *call) (any, error) {
	var in window
	src, err := u.readWindow(r, c, &in)
	if err != nil {
		return nil, err
	}
	start, end := time.UnixMilli(in.StartTime).UTC(), time.UnixMilli(in.EndTime).UTC()
	step, err := charts.Bucket("auto", start, end)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	points, err := charts.Run(ctx, c.st.DB, []charts.Series{{Source: src.Chart(), AggFn: "count", Where: in.Where, WhereLanguage: in.WhereLanguage}},
		start, end, step, c.st.QueryTimeout)
	if err != nil {
		return nil, err
	}
	buckets := make([][2]float64, 0, len(points))
	for _, p := range points {
		v := 0.0
		if p.Values[0] != nil {
			v = *p.Values[0]
		}
		buckets = append(buckets, [2]float64{float64(p.Bucket), v})
	}
	return map[string]any{"stepMs": step.Milliseconds(), "buckets": buckets}, nil
}

// trace answers every span of a trace in a trace source and the logs of a
// log source carrying its id (?source=…&logs=…; the defaults' ids when
// omitted).
func (u *webUI) trace(r *http.Request, c *call) (any, error) {
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	q := r.URL.Query()
	src, sc, err := u.sourceOfKind(ctx, c, q.Get("source"), "traces", "trace")
	if err != nil {
		return nil, err
	}
	req := search.TraceRequest{TraceID: r.PathValue("id"), TraceColumn: sources.Column(src.TraceIDColumn, "TraceId")}
	// Without a log source (or its table, not created yet): the trace alone.
	if logs, lsc, err := u.sourceOfKind(ctx, c, q.Get("logs"), "logs", "log"); err == nil {
		req.Logs, req.LogTraceColumn = lsc, sources.Column(logs.TraceIDColumn, "TraceId")
	}
	t, err := search.GetTrace(ctx, c.st.DB, sc, req, c.st.QueryTimeout)
	if err != nil {
		return nil, err
	}
	return map[string]any{"source": src, "spans": t.Spans, "logs": t.Logs, "truncated": t.Truncated}, nil
}

// services summarises each service of a trace source over a range:
// requests (entry spans), errors and latency quantiles, per service and
// per operation.
func (u *webUI) services(r *http.Request, c *call) (any, error) {
	q := r.URL.Query()
	var w window
	var err error
	if w.StartTime, err = parseMs(q.Get("startTime")); err != nil {
		return nil, err
	}
	if w.EndTime, err = parseMs(q.Get("endTime")); err != nil {
		return nil, err
	}
	if err := w.check(); err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	src, sc, err := u.sourceOfKind(ctx, c, q.Get("source"), "traces", "trace")
	if err != nil {
		return nil, err
	}
	// SpanKind is the exporter's column; a source has no setting for it.
	return search.Services(ctx, c.st.DB, sc, search.ServiceColumns{Service: src.ServiceColumn, Duration: src.DurationColumn,
		Status: sources.Column(src.StatusCodeColumn, "StatusCode"), Name: sources.Column(src.BodyColumn, "SpanName"), Kind: "SpanKind",
		Parent: sources.Column(src.ParentSpanIDColumn, "ParentSpanId")}, time.UnixMilli(w.StartTime), time.UnixMilli(w.EndTime), c.st.QueryTimeout)
}

// facets answers the fields of a search's result with their top values
// (the sidebar), as POST /api/v2/search/facets does: one engine statement.
func (u *webUI) facets(r *http.Request, c *call) (any, error) {
	var in struct {
		window
		Fields int `json:"fields"`
		Values int `json:"values"`
	}
	src, err := u.readWindow(r, c, &in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	sc, err := scope(ctx, c.st, src)
	if err != nil {
		return nil, err
	}
	return search.GetFacets(ctx, c.st.DB, sc, search.FacetRequest{Start: time.UnixMilli(in.StartTime), End: time.UnixMilli(in.EndTime),
		Where: in.Where, WhereLanguage: in.WhereLanguage, Fields: in.Fields, Values: in.Values,
		Columns: search.FacetColumns(src.Kind, src.ServiceColumn, src.SeverityColumn, sources.Column(src.StatusCodeColumn, "StatusCode"),
			sources.Column(src.BodyColumn, "SpanName"))}, c.st.QueryTimeout)
}

// fieldNames answers the field names the where box offers for ?prefix=
// (autocomplete), as GET /api/v2/search/fields does.
func (u *webUI) fieldNames(r *http.Request, c *call) (any, error) {
	src, err := u.source(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	sc, err := scope(ctx, c.st, src)
	if err != nil {
		return nil, err
	}
	return search.FieldNames(ctx, c.st.DB, sc, r.URL.Query().Get("prefix"), 0, c.st.QueryTimeout)
}

// fieldValues answers a field's frequent values for ?field=&prefix= in
// the search's range and where (autocomplete after field:), as GET
// /api/v2/search/values does.
func (u *webUI) fieldValues(r *http.Request, c *call) (any, error) {
	q := r.URL.Query()
	w := window{Where: q.Get("where"), WhereLanguage: q.Get("whereLanguage")}
	var err error
	if w.StartTime, err = parseMs(q.Get("startTime")); err != nil {
		return nil, err
	}
	if w.EndTime, err = parseMs(q.Get("endTime")); err != nil {
		return nil, err
	}
	if err := w.check(); err != nil {
		return nil, err
	}
	src, err := u.source(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	sc, err := scope(ctx, c.st, src)
	if err != nil {
		return nil, err
	}
	return search.FieldValues(ctx, c.st.DB, sc, search.ValuesRequest{Start: time.UnixMilli(w.StartTime), End: time.UnixMilli(w.EndTime),
		Where: w.Where, WhereLanguage: w.WhereLanguage, Field: q.Get("field"), Prefix: q.Get("prefix")}, c.st.QueryTimeout)
}

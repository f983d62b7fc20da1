package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/search"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// facetsRequest is POST /api/v2/search/facets: the fields of a search's
// result with their top values, for the same source, range and where as
// POST /api/v2/search.
type facetsRequest struct {
	searchWindow
	Fields int `json:"fields"`
	Values int `json:"values"`
}

// searchWindow is what search and facets requests share: a source, a
// range (ISO 8601 or epoch milliseconds) and a where.
type searchWindow struct {
	SourceID      string          `json:"sourceId"`
	StartTime     json.RawMessage `json:"startTime"`
	EndTime       json.RawMessage `json:"endTime"`
	Where         string          `json:"where"`
	WhereLanguage string          `json:"whereLanguage"`
}

// check adds the window's problems to p and returns its range.
func (w *searchWindow) check(p *problems.List) (start, end time.Time) {
	start, err := instant(w.StartTime, "startTime")
	if err != nil {
		p.Add("%v", err)
	}
	end, err = instant(w.EndTime, "endTime")
	if err != nil {
		p.Add("%v", err)
	}
	if w.SourceID == "" {
		p.Add("sourceId is required")
	}
	checkWhere(p, &w.WhereLanguage, w.Where)
	return start, end
}

// searchScope reads one of the team's sources and resolves its table; a
// missing or unreadable source is the caller's mistake.
func (s *Server) searchScope(r *http.Request, id string) (sources.Source, *query.Scope, *result) {
	src, res := s.teamSource(r, id, "search")
	if res != nil {
		return src, nil, res
	}
	sc, err := query.OpenScope(r.Context(), s.opts.DB, src.Chart())
	if err != nil {
		res := s.queryFailed(r, "search", err)
		return src, nil, &res
	}
	return src, sc, nil
}

// teamSource reads one of the team's sources through the catalog, which
// checks the team may read its database; what is the request's name in
// the message of a source the team may not read.
func (s *Server) teamSource(r *http.Request, id, what string) (sources.Source, *result) {
	src, err := s.sources.Get(r.Context(), teamOf(r.Context()), id)
	var orphaned *sources.Orphaned
	switch {
	case errors.As(err, &orphaned):
		res := fail(http.StatusNotFound, orphaned.Error())
		return src, &res
	case errors.Is(err, store.ErrNotFound):
		res := fail(http.StatusNotFound, "source "+strconv.Quote(id)+" not found")
		return src, &res
	case errors.Is(err, sources.ErrUnreadable):
		res := fail(http.StatusBadRequest, "invalid "+what+": "+err.Error())
		return src, &res
	case err != nil:
		res := failed("", err)
		return src, &res
	}
	return src, nil
}

// checkWhere adds a where's problems (its language and size) to p.
func checkWhere(p *problems.List, lang *string, where string) {
	if *lang == "" {
		*lang = "lucene"
	}
	p.OneOf("whereLanguage", *lang, query.WhereLanguages)
	if err := query.CheckWhere(where); err != nil {
		p.Add("%v", err)
	}
}

func (s *Server) facetsHandler(r *http.Request) result {
	body, err := readJSON(r, MaxBody)
	if err != nil {
		return failed("", err)
	}
	var req facetsRequest
	if err := decodeStrict(body, &req); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	var p problems.List
	start, end := req.check(&p)
	if req.Fields < 0 || req.Fields > 100 {
		p.Add("fields must be from 1 to 100")
	}
	if req.Values < 0 || req.Values > 100 {
		p.Add("values must be from 1 to 100")
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid facets: "+err.Error())
	}
	src, sc, res := s.searchScope(r, req.SourceID)
	if res != nil {
		return *res
	}
	fs, err := search.GetFacets(r.Context(), s.opts.DB, sc, search.FacetRequest{
		Start: start, End: end, Where: req.Where, WhereLanguage: req.WhereLanguage,
		Columns: facetColumns(src), Fields: req.Fields, Values: req.Values,
	}, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "facets", err)
	}
	return ok(http.StatusOK, fs, nil)
}

// facetColumns are the columns a source's facets start with.
func facetColumns(src sources.Source) []string {
	c := src.Chart()
	return search.FacetColumns(src.Kind, c.ServiceColumn, c.SeverityColumn, src.StatusCodeColumn(), sources.Column(c.BodyColumn, "SpanName"))
}

// fieldsHandler is GET /api/v2/search/fields?sourceId=…&prefix=…: the field
// names a where box offers (columns, attribute keys, Resource.<key>).
func (s *Server) fieldsHandler(r *http.Request) result {
	q := r.URL.Query()
	limit, err := queryInt(q.Get("limit"), 0, 500)
	if err != nil {
		return fail(http.StatusBadRequest, "invalid fields: limit "+err.Error())
	}
	if q.Get("sourceId") == "" {
		return fail(http.StatusBadRequest, "invalid fields: sourceId is required")
	}
	if len(q.Get("prefix")) > 1024 {
		return fail(http.StatusBadRequest, "invalid fields: prefix is longer than 1024 bytes")
	}
	_, sc, res := s.searchScope(r, q.Get("sourceId"))
	if res != nil {
		return *res
	}
	names, err := search.FieldNames(r.Context(), s.opts.DB, sc, q.Get("prefix"), limit, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "fields", err)
	}
	return ok(http.StatusOK, names, nil)
}

// valuesHandler is GET /api/v2/search/values?sourceId=…&field=…&prefix=…:
// a field's frequent values in a range (startTime and endTime, default
// the last hour) under an optional where.
func (s *Server) valuesHandler(r *http.Request) result {
	q := r.URL.Query()
	var p problems.List
	limit, err := queryInt(q.Get("limit"), 0, 100)
	if err != nil {
		p.Add("limit %v", err)
	}
	start, end := queryRange(q, &p)
	if q.Get("sourceId") == "" {
		p.Add("sourceId is required")
	}
	if err := query.CheckField(q.Get("field")); err != nil {
		p.Add("field: %v", err)
	}
	lang := q.Get("whereLanguage")
	checkWhere(&p, &lang, q.Get("where"))
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid values: "+err.Error())
	}
	_, sc, res := s.searchScope(r, q.Get("sourceId"))
	if res != nil {
		return *res
	}
	vals, err := search.FieldValues(r.Context(), s.opts.DB, sc, search.ValuesRequest{
		Start: start, End: end, Where: q.Get("where"), WhereLanguage: lang,
		Field: q.Get("field"), Prefix: q.Get("prefix"), Limit: limit,
	}, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "values", err)
	}
	return ok(http.StatusOK, vals, nil)
}

// queryRange reads startTime and endTime query parameters (ISO 8601 or
// epoch milliseconds; the last hour when absent) and adds their problems
// to p.
func queryRange(q url.Values, p *problems.List) (start, end time.Time) {
	end, start = time.Now(), time.Now().Add(-time.Hour)
	for _, t := range []struct {
		name string
		into *time.Time
	}{{"startTime", &start}, {"endTime", &end}} {
		if v := q.Get(t.name); v != "" {
			raw := json.RawMessage(v)
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				raw, _ = json.Marshal(v)
			}
			var err error
			if *t.into, err = instant(raw, t.name); err != nil {
				p.Add("%v", err)
			}
		}
	}
	if !start.Before(end) {
		p.Add("startTime must be before endTime")
	}
	return start, end
}

// queryInt reads an optional integer query parameter from lo to hi.
func queryInt(v string, lo, hi int) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errors.New("must be a number from " + strconv.Itoa(max(lo, 1)) + " to " + strconv.Itoa(hi))
	}
	return n, nil
}

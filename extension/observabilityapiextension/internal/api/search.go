package api

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/search"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// searchRequest is POST /api/v2/search: raw events of a source, newest
// first, as HyperDX's search API reads them; the web UI's search runs the
// same code.
type searchRequest struct {
	searchWindow
	// Select is HyperDX's comma-separated list of columns and column
	// expressions ("Timestamp, Body, LogAttributes['k']"); a JSON array
	// of them is read the same.
	Select     json.RawMessage `json:"select"`
	OrderBy    string          `json:"orderBy"`
	MaxResults int             `json:"maxResults"`
	Offset     int             `json:"offset"`
	Cursor     string          `json:"cursor"`
}

// HyperDX's bounds on a search request.
const (
	maxSearchWhere  = 8 << 10
	maxSearchSelect = 4 << 10
	maxSearchOffset = 10_000
	// searchDefaultRange is how far before endTime a search without a
	// startTime looks.
	searchDefaultRange = 15 * time.Minute
)

// selectNames reads select as a list of items, with the problems of what
// was sent. An item is a field name (a column, an attribute key) or, as
// HyperDX takes, a column expression, decided on the engine's parse when
// the search runs; a semicolon or a subquery is refused here, with
// HyperDX's message.
func selectNames(raw json.RawMessage, p *problems.List) []string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var names []string
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		if len(text) > maxSearchSelect {
			p.Add("select is longer than %d characters", maxSearchSelect)
			return nil
		}
		if strings.Contains(text, ";") || hasSelectWord(text) {
			p.Add("select must not contain semicolons or SELECT subqueries; use column references or attribute names only")
			return nil
		}
		return query.SplitList(text)
	}
	if err := json.Unmarshal(raw, &names); err != nil {
		p.Add("select is a comma-separated string of columns (or an array of names)")
		return nil
	}
	return names
}

// hasSelectWord reports whether text holds SELECT as a word of its own
// followed by a blank, as a subquery would.
func hasSelectWord(text string) bool {
	up := strings.ToUpper(text)
	for i := strings.Index(up, "SELECT"); i >= 0; {
		before := i == 0 || !isWordByte(up[i-1])
		after := i+6 < len(up) && (up[i+6] == ' ' || up[i+6] == '\t' || up[i+6] == '\n' || up[i+6] == '\r')
		if before && after {
			return true
		}
		next := strings.Index(up[i+1:], "SELECT")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// instant reads a time given as ISO 8601 text or epoch milliseconds.
func instant(raw json.RawMessage, field string) (time.Time, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return t, fmt.Errorf("%s must be an ISO 8601 time such as 2026-11-25T09:00:00Z or epoch milliseconds", field)
		}
		return t, nil
	}
	var ms int64
	if json.Unmarshal(raw, &ms) == nil && ms > 0 {
		return time.UnixMilli(ms), nil
	}
	return time.Time{}, fmt.Errorf("%s is required: an ISO 8601 time or epoch milliseconds", field)
}

func (s *Server) searchHandler(r *http.Request) result {
	body, err := readJSON(r, MaxBody)
	if err != nil {
		return failed("", err)
	}
	var req searchRequest
	if err := decodeStrict(body, &req); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	var p problems.List
	// HyperDX's defaults: the range ends now and starts 15 minutes
	// before its end.
	if len(req.EndTime) == 0 {
		req.EndTime = json.RawMessage(strconv.FormatInt(time.Now().UnixMilli(), 10))
	}
	if len(req.StartTime) == 0 {
		if end, err := instant(req.EndTime, "endTime"); err == nil {
			req.StartTime = json.RawMessage(strconv.FormatInt(end.Add(-searchDefaultRange).UnixMilli(), 10))
		}
	}
	start, end := req.check(&p)
	if !start.IsZero() && !end.IsZero() && !start.Before(end) {
		p.Add("startTime must be before endTime")
	}
	if req.SourceID != "" && !s.validSourceID(r, req.SourceID) {
		p.Add("sourceId must be a valid ObjectId (24 hexadecimal digits) or a built-in source's id")
	}
	if len(req.Where) > maxSearchWhere {
		p.Add("where is longer than %d characters", maxSearchWhere)
	}
	names := selectNames(req.Select, &p)
	if req.MaxResults == 0 {
		req.MaxResults = 100
	}
	if req.MaxResults < 1 || req.MaxResults > search.MaxRows {
		p.Add("maxResults must be from 1 to %d", search.MaxRows)
	}
	if req.Offset < 0 || req.Offset > maxSearchOffset {
		p.Add("offset must be from 0 to %d", maxSearchOffset)
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid search: "+err.Error())
	}
	src, scope, res := s.searchScope(r, req.SourceID)
	if res != nil {
		return *res
	}
	// Keyset paging reads newest first only; an ascending order would
	// need another cursor.
	ts := src.TimestampValueExpression
	if o := strings.Fields(req.OrderBy); len(o) > 0 && !(o[0] == ts && (len(o) == 1 || len(o) == 2 && strings.EqualFold(o[1], "DESC"))) {
		return fail(http.StatusBadRequest, "invalid search: orderBy may only be "+strconv.Quote(ts+" DESC")+" (newest first, paged with nextCursor)")
	}
	// "start" is HyperDX's first page of a cursor walk.
	cursor := req.Cursor
	if cursor == "start" {
		cursor = ""
	}
	offset := req.Offset
	if req.Cursor != "" {
		offset = 0 // a cursor walk ignores offset, as HyperDX's does
	}
	var computed []string
	for _, n := range names {
		if !search.IsFieldName(n) {
			computed = append(computed, n)
		}
	}
	page, err := search.Search(r.Context(), s.opts.DB, scope, search.Request{
		Start: start, End: end, Where: req.Where,
		WhereLanguage: req.WhereLanguage, Limit: req.MaxResults, Cursor: cursor, Offset: offset, Computed: computed,
	}, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "search", err)
	}
	rows := search.Project(page.Rows, names, search.Maps{Attributes: src.Chart().AttributesMap, Resource: src.Chart().ResourceMap})
	// rows counts this answer's rows (HyperDX's), not every match.
	extra := map[string]any{"rows": len(rows)}
	if page.NextCursor != "" {
		extra["nextCursor"] = page.NextCursor
	}
	return ok(http.StatusOK, rows, extra)
}

// validSourceID reports whether id can name a source: a HyperDX ObjectId
// (24 hexadecimal digits), which is what this API makes, or the id of a
// source the team has (the install's own: logs, traces, metrics). Any
// other is HyperDX's 400, not a 404.
func (s *Server) validSourceID(r *http.Request, id string) bool {
	if len(id) == 24 {
		if _, err := hex.DecodeString(id); err == nil {
			return true
		}
	}
	_, err := s.sources.Get(r.Context(), teamOf(r.Context()), id)
	return !errors.Is(err, store.ErrNotFound)
}

// queryFailed answers a chart or search query the engine did not run, as
// query.Refuse classifies it (the web UI answers the same), with what
// was asked in the message; anything else is the engine's fault (502).
func (s *Server) queryFailed(r *http.Request, what string, err error) result {
	ref, refused := query.Refuse(err)
	switch {
	case refused && ref.Status == http.StatusBadRequest:
		return fail(ref.Status, "invalid "+what+": "+ref.Message)
	case r.Context().Err() != nil:
		return failed("", errGone) // its query was cancelled
	case !refused:
		return fail(http.StatusBadGateway, what+" failed: "+err.Error())
	case ref.Status == http.StatusGatewayTimeout:
		return fail(ref.Status, what+" exceeded query_timeout ("+s.queryTimeout().String()+"); narrow the time range or the filter")
	}
	return result{err: &apiError{status: ref.Status, msg: what + ": " + ref.Message, retryAfter: ref.RetryAfter}}
}

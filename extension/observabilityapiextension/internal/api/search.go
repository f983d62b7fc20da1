package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/search"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// searchRequest is POST /api/v2/search: raw events of a source, newest
// first, as HyperDX's search API reads them; the web UI's search runs the
// same code.
type searchRequest struct {
	searchWindow
	Select     []string `json:"select"`
	OrderBy    string   `json:"orderBy"`
	MaxResults int      `json:"maxResults"`
	Cursor     string   `json:"cursor"`
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
	start, end := req.check(&p)
	if req.MaxResults == 0 {
		req.MaxResults = 100
	}
	if req.MaxResults < 1 || req.MaxResults > search.MaxRows {
		p.Add("maxResults must be from 1 to %d", search.MaxRows)
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
	page, err := search.Search(r.Context(), s.opts.DB, scope, search.Request{
		Start: start, End: end, Where: req.Where,
		WhereLanguage: req.WhereLanguage, Limit: req.MaxResults, Cursor: req.Cursor,
	}, s.queryTimeout())
	if err != nil {
		return s.queryFailed(r, "search", err)
	}
	rows := search.Project(page.Rows, req.Select, search.Maps{Attributes: src.Chart().AttributesMap, Resource: src.Chart().ResourceMap})
	extra := map[string]any{}
	if page.NextCursor != "" {
		extra["nextCursor"] = page.NextCursor
	}
	return ok(http.StatusOK, rows, extra)
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

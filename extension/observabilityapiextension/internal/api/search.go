package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/charts"
	"github.com/otelhouse/otelhouse/internal/problems"
	"github.com/otelhouse/otelhouse/internal/search"
	"github.com/otelhouse/otelhouse/internal/sources"
	"github.com/otelhouse/otelhouse/internal/store"
)

// searchRequest is POST /api/v2/search: raw events of a source, newest
// first, as HyperDX's search API reads them; the web UI's search runs the
// same code.
type searchRequest struct {
	SourceID      string          `json:"sourceId"`
	StartTime     json.RawMessage `json:"startTime"` // ISO 8601 or epoch milliseconds
	EndTime       json.RawMessage `json:"endTime"`
	Where         string          `json:"where"`
	WhereLanguage string          `json:"whereLanguage"`
	Select        []string        `json:"select"`
	OrderBy       string          `json:"orderBy"`
	MaxResults    int             `json:"maxResults"`
	Cursor        string          `json:"cursor"`
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
	start, err := instant(req.StartTime, "startTime")
	if err != nil {
		p.Add("%v", err)
	}
	end, err := instant(req.EndTime, "endTime")
	if err != nil {
		p.Add("%v", err)
	}
	if req.SourceID == "" {
		p.Add("sourceId is required")
	}
	if req.MaxResults == 0 {
		req.MaxResults = 100
	}
	if req.MaxResults < 1 || req.MaxResults > search.MaxRows {
		p.Add("maxResults must be from 1 to %d", search.MaxRows)
	}
	if req.WhereLanguage == "" {
		req.WhereLanguage = "lucene"
	}
	p.OneOf("whereLanguage", req.WhereLanguage, charts.WhereLanguages)
	if err := charts.CheckWhere(req.Where); err != nil {
		p.Add("%v", err)
	}
	if err := p.Err(); err != nil {
		return fail(http.StatusBadRequest, "invalid search: "+err.Error())
	}
	src, err := s.sources.Get(r.Context(), teamOf(r.Context()), req.SourceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fail(http.StatusNotFound, "source "+strconv.Quote(req.SourceID)+" not found")
	case errors.Is(err, sources.ErrUnreadable):
		return fail(http.StatusBadRequest, "invalid search: "+err.Error())
	case err != nil:
		return failed("", err)
	}
	// Keyset paging reads newest first only; an ascending order would
	// need another cursor.
	if o := strings.Fields(req.OrderBy); len(o) > 0 && !(o[0] == src.TimestampColumn && (len(o) == 1 || len(o) == 2 && strings.EqualFold(o[1], "DESC"))) {
		return fail(http.StatusBadRequest, "invalid search: orderBy may only be "+strconv.Quote(src.TimestampColumn+" DESC")+" (newest first, paged with nextCursor)")
	}
	scope, err := charts.OpenScope(r.Context(), s.opts.DB, src.Chart())
	if err == nil {
		var page search.Page
		page, err = search.Search(r.Context(), s.opts.DB, scope, search.Request{Start: start, End: end, Where: req.Where,
			WhereLanguage: req.WhereLanguage, Limit: req.MaxResults, Cursor: req.Cursor}, s.queryTimeout())
		if err == nil {
			rows := search.Project(page.Rows, req.Select, search.Maps{Attributes: src.AttributesMap, Resource: src.ResourceMap})
			extra := map[string]any{}
			if page.NextCursor != "" {
				extra["nextCursor"] = page.NextCursor
			}
			return ok(http.StatusOK, rows, extra)
		}
	}
	return s.queryFailed(r, "search", err)
}

// queryFailed answers a chart or search query the engine did not run, as
// charts.Refuse classifies it (the web UI answers the same), with what
// was asked in the message; anything else is the engine's fault (502).
func (s *Server) queryFailed(r *http.Request, what string, err error) result {
	ref, refused := charts.Refuse(err)
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

package search

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// MaxTraces bounds one page of the trace list.
const MaxTraces = 500

// TraceColumns name a trace source's columns the trace list reads: the
// trace id, parent span id (optional: without it a trace's first span is
// its root), span name, service, duration (optional) and status.
type TraceColumns struct{ Trace, Parent, Name, Service, Duration, Status string }

// TraceSummary is one row of the trace list.
type TraceSummary struct {
	TraceID     string `json:"traceId"`
	Start       string `json:"start"`
	StartNs     string `json:"startNs"`
	Duration    int64  `json:"duration"`
	RootName    string `json:"rootName"`
	RootService string `json:"rootService"`
	Spans       uint64 `json:"spans"`
	Errors      uint64 `json:"errors"`
	// Services are the services of the trace's spans, by name.
	Services []string `json:"services"`
}

// TracePage is a page of the trace list, newest first.
type TracePage struct {
	Traces     []TraceSummary `json:"traces"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// traceCursor is where a trace list page starts: before the trace whose
// newest matching span is at ns with id tid (ties broken by id).
type traceCursor struct {
	ns  int64
	tid string
}

func (c traceCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.ns, 10) + ":" + c.tid))
}

func parseTraceCursor(s string) (traceCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		ns, tid, ok := strings.Cut(string(b), ":")
		n, err := strconv.ParseInt(ns, 10, 64)
		if ok && err == nil {
			return traceCursor{n, tid}, nil
		}
	}
	return traceCursor{}, query.Mistake(errors.New("cursor is not one a trace list answered"))
}

// TraceList answers the traces that have a span matching the request's
// where in its range, one row each, newest first (a page holds the
// traces with the newest matching spans, its rows sorted by start). The
// where is compiled as Search compiles it. The page's trace ids come from a GROUP BY over the matching spans of the
// newest slice of the range, widened until the page is full (a busy
// day's page reads its last minutes, not the day); then those traces are
// summarised over all their spans, read only from the days the
// exporter's lookup table says they ran (or the range widened by an
// hour, without it).
func TraceList(ctx context.Context, db *sql.DB, scope *query.Scope, cols TraceColumns, req Request, timeout time.Duration) (TracePage, error) {
	if !req.Start.Before(req.End) {
		return TracePage{}, query.Mistake(errors.New("the start of the range must be before its end"))
	}
	if req.Limit == 0 {
		req.Limit = 50
	}
	if req.Limit < 1 || req.Limit > MaxTraces {
		return TracePage{}, query.Mistake(fmt.Errorf("maxResults must be from 1 to %d for a trace list", MaxTraces))
	}
	col := func(role, name string, required bool) (string, error) {
		c, ok := scope.Role(name)
		if !ok && required {
			return "", query.Mistake(errNoColumn(role, name))
		}
		return c, nil
	}
	data := map[string]any{"From": scope.From, "TS": scope.Timestamp}
	for _, c := range []struct {
		key, role, name string
		required        bool
	}{
		{"TraceCol", "trace id", cols.Trace, true},
		{"Name", "span name", cols.Name, true},
		{"Service", "service", cols.Service, true},
		{"Status", "status", cols.Status, true},
		{"Parent", "parent span id", cols.Parent, false},
		{"Duration", "duration", cols.Duration, false},
	} {
		v, err := col(c.role, c.name, c.required)
		if err != nil {
			return TracePage{}, err
		}
		if c.key == "Duration" {
			v = scope.Source().Nanoseconds(v)
		}
		if v != "" {
			data[c.key] = v
		}
	}

	var p query.Params
	cond, err := scope.Where(ctx, db, req.WhereLanguage, req.Where, &p)
	if err != nil {
		return TracePage{}, err
	}
	ids := map[string]any{
		"From": scope.From, "TS": scope.Timestamp, "TraceCol": data["TraceCol"], "Where": cond, "Limit": req.Limit + 1,
		"End": p.Add(strconv.FormatInt(req.End.UnixNano(), 10), "Int64"),
	}
	top := req.End
	if req.Cursor != "" {
		cur, err := parseTraceCursor(req.Cursor)
		if err != nil {
			return TracePage{}, err
		}
		ids["Before"] = p.Add(strconv.FormatInt(cur.ns, 10), "Int64")
		ids["BeforeID"] = p.Add(cur.tid, "String")
		if t := time.Unix(0, cur.ns+1); t.Before(top) {
			top = t
		}
	}
	// The newest 1/64 of what is left of the range, then 1/8, then all
	// of it, until the page is full.
	var found []map[string]any
	for _, part := range []int64{64, 8, 1} {
		from := top.Add(-top.Sub(req.Start) / time.Duration(part))
		if part == 1 || !from.After(req.Start) {
			from = req.Start
		}
		slice := maps.Clone(ids)
		sp := query.Params{Values: maps.Clone(p.Values)}
		slice["Start"] = sp.Add(strconv.FormatInt(from.UnixNano(), 10), "Int64")
		if found, err = readRows(ctx, db, render("trace_ids", slice), sp, timeout); err != nil {
			return TracePage{}, err
		}
		if len(found) > req.Limit || from.Equal(req.Start) {
			break
		}
	}
	page := TracePage{Traces: []TraceSummary{}}
	if len(found) > req.Limit {
		found = found[:req.Limit]
		last := found[len(found)-1]
		ns, _ := strconv.ParseInt(fmt.Sprint(last["last_ns"]), 10, 64)
		page.NextCursor = traceCursor{ns, fmt.Sprint(last["tid"])}.String()
	}
	if len(found) == 0 {
		return page, nil
	}

	var sp query.Params
	tids := make([]string, len(found))
	list := make([]string, len(found))
	for i, r := range found {
		tids[i] = fmt.Sprint(r["tid"])
		list[i] = sp.Add(tids[i], "String")
	}
	data["IDs"] = "(" + strings.Join(list, ", ") + ")"
	from, to, ok, err := traceBounds(ctx, db, scope, tids)
	if err != nil {
		return TracePage{}, err
	}
	if !ok {
		// A trace's other spans may lie outside the range searched.
		from, to = req.Start.Add(-time.Hour), req.End.Add(time.Hour)
	}
	data["From0"] = sp.Add(strconv.FormatInt(from.UnixNano(), 10), "Int64")
	data["To0"] = sp.Add(strconv.FormatInt(to.UnixNano(), 10), "Int64")
	rows, err := readRows(ctx, db, render("trace_summaries", data), sp, timeout)
	if err != nil {
		return TracePage{}, err
	}
	by := make(map[string]map[string]any, len(rows))
	for _, r := range rows {
		by[fmt.Sprint(r["traceId"])] = r
	}
	for _, f := range found {
		r, ok := by[fmt.Sprint(f["tid"])]
		if !ok {
			continue
		}
		page.Traces = append(page.Traces, summary(r))
	}
	// The page is chosen by each trace's newest matching span (the key
	// the range is sliced and paged on), but a reader scans it by the
	// start it shows: a long trace's newest span can be newer than a
	// shorter, later-started trace's. So the page's rows are sorted by
	// start, newest first; only a trace that overlaps a page boundary
	// can still start after one on the page before.
	slices.SortStableFunc(page.Traces, func(a, b TraceSummary) int {
		an, _ := strconv.ParseInt(a.StartNs, 10, 64)
		bn, _ := strconv.ParseInt(b.StartNs, 10, 64)
		if c := cmp.Compare(bn, an); c != 0 {
			return c
		}
		return strings.Compare(b.TraceID, a.TraceID)
	})
	return page, nil
}

// summary reads a row of trace_summaries.
func summary(r map[string]any) TraceSummary {
	ns, _ := strconv.ParseInt(fmt.Sprint(r["start_ns"]), 10, 64)
	s := TraceSummary{
		TraceID: fmt.Sprint(r["traceId"]), StartNs: strconv.FormatInt(ns, 10),
		Start:    time.Unix(0, ns).UTC().Format(time.RFC3339Nano),
		RootName: fmt.Sprint(r["rootName"]), RootService: fmt.Sprint(r["rootService"]),
	}
	s.Duration, _ = r["duration"].(int64)
	s.Spans, _ = r["spans"].(uint64)
	s.Errors, _ = r["errors"].(uint64)
	s.Services, _ = r["services"].([]string)
	if s.Services == nil {
		s.Services = []string{}
	}
	slices.Sort(s.Services)
	return s
}

// Package search reads raw events of a source: a page of rows for a where
// and a time range (newest first, keyset-paged), and every span of a
// trace with the logs that carry its id. It filters through the query
// package's scope, as charts do, so a where means here exactly what it
// means in a chart or an alert; the web UI and the REST API both call it.
package search

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/sqlfile"
)

//go:embed queries.sql
var queriesSQL string

var statements = sqlfile.ParseTemplates("search/queries.sql", queriesSQL)

func render(name string, data any) string { return statements.Render(name, data) }

// MaxRows bounds one page (HyperDX's search API allows 2000).
const MaxRows = 2000

// Request is one page of a search.
type Request struct {
	Start, End    time.Time
	Where         string
	WhereLanguage string
	// Limit is the page size (1 to MaxRows; 0 means 100).
	Limit int
	// Cursor continues a search where its previous page ended (the
	// NextCursor it answered); empty starts at End.
	Cursor string
	// Offset skips that many rows of the newest-first result (HyperDX's
	// offset paging); a page continued by Cursor ignores it.
	Offset int
	// Computed are select items that are expressions, read beside every
	// column under their text (query.Scope.Selected).
	Computed []string
}

// Page is a page of rows, newest first. A row is every column of the
// event by name, plus __ts_ns (the timestamp in nanoseconds, as text).
type Page struct {
	Rows []map[string]any `json:"rows"`
	// NextCursor fetches the next (older) page; empty when none is left.
	NextCursor string `json:"nextCursor,omitempty"`
}

// cursor is where a page starts: at or before ns, skipping the first skip
// rows of timestamp ns (those a previous page sent).
type cursor struct {
	ns   int64
	skip int
}

func (c cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.ns, 10) + ":" + strconv.Itoa(c.skip)))
}

func parseCursor(s string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		ns, skip, ok := strings.Cut(string(b), ":")
		c := cursor{}
		var e1, e2 error
		c.ns, e1 = strconv.ParseInt(ns, 10, 64)
		c.skip, e2 = strconv.Atoi(skip)
		if ok && e1 == nil && e2 == nil && c.skip >= 0 && c.skip <= math.MaxInt32 {
			return c, nil
		}
	}
	return cursor{}, query.Mistake(errors.New("cursor is not one a search answered"))
}

// Search answers a page of the source's events matching the request.
func Search(ctx context.Context, db *sql.DB, scope *query.Scope, req Request, timeout time.Duration) (Page, error) {
	q, p, cur, err := build(ctx, db, scope, req)
	if err != nil {
		return Page{}, err
	}
	if req.Limit == 0 {
		req.Limit = 100
	}
	rows, err := readRows(ctx, db, q, p, timeout)
	if err != nil {
		return Page{}, err
	}
	page := Page{Rows: rows}
	if len(rows) == req.Limit && (req.Offset == 0 || req.Cursor != "") {
		last := rows[len(rows)-1]["__ts_ns"].(string)
		ns, _ := strconv.ParseInt(last, 10, 64)
		next := cursor{ns: ns}
		if req.Cursor != "" && cur.ns == ns {
			next.skip = cur.skip
		}
		for _, r := range rows {
			if r["__ts_ns"] == last {
				next.skip++
			}
		}
		page.NextCursor = next.String()
	}
	return page, nil
}

// Build writes the SQL of a search page and its bound values (what Search
// runs, and what a benchmark sends straight to the engine to compare).
func Build(ctx context.Context, db *sql.DB, scope *query.Scope, req Request) (string, query.Params, error) {
	q, p, _, err := build(ctx, db, scope, req)
	return q, p, err
}

// build is Build, also answering the cursor the page starts at.
func build(ctx context.Context, db *sql.DB, scope *query.Scope, req Request) (string, query.Params, cursor, error) {
	var p query.Params
	var cur cursor
	if !req.Start.Before(req.End) {
		return "", p, cur, query.Mistake(errors.New("the start of the range must be before its end"))
	}
	if req.Limit == 0 {
		req.Limit = 100
	}
	if req.Limit < 1 || req.Limit > MaxRows {
		return "", p, cur, query.Mistake(fmt.Errorf("limit must be from 1 to %d", MaxRows))
	}
	cond, err := scope.Where(ctx, db, req.WhereLanguage, req.Where, &p)
	if err != nil {
		return "", p, cur, err
	}
	selected, err := scope.Selected(ctx, db, req.Computed)
	if err != nil {
		return "", p, cur, err
	}
	data := map[string]any{
		"From": scope.From, "TS": scope.Timestamp, "Computed": scope.Computed() + selected, "Where": cond, "Limit": req.Limit,
		"Start": p.Add(strconv.FormatInt(req.Start.UnixNano(), 10), "Int64"), "End": p.Add(strconv.FormatInt(req.End.UnixNano(), 10), "Int64"),
	}
	if req.Cursor != "" {
		if cur, err = parseCursor(req.Cursor); err != nil {
			return "", p, cur, err
		}
		data["Before"] = p.Add(strconv.FormatInt(cur.ns, 10), "Int64")
		data["Skip"] = cur.skip
	} else if req.Offset > 0 {
		data["Skip"] = req.Offset
	}
	return render("rows", data), p, cur, nil
}

// readRows runs a statement and reads every row as a map of its columns.
func readRows(ctx context.Context, db *sql.DB, q string, p query.Params, timeout time.Duration) ([]map[string]any, error) {
	params := clickhouse.Parameters{}
	for k, v := range p.Values {
		params[k] = v
	}
	qctx := clickhouse.Context(ctx, clickhouse.WithParameters(params), clickhouse.WithSettings(query.UserQuerySettings(timeout)))
	rows, err := db.QueryContext(qctx, q)
	if err != nil {
		return nil, query.EngineError(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	dest := make([]any, len(types))
	for rows.Next() {
		for i, t := range types {
			dest[i] = reflect.New(t.ScanType()).Interface()
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		row := make(map[string]any, len(types))
		for i, t := range types {
			row[t.Name()] = jsonValue(reflect.ValueOf(dest[i]).Elem().Interface())
		}
		if v, ok := row["__ts_ns"]; ok {
			row["__ts_ns"] = fmt.Sprint(v) // int64 nanoseconds do not survive a JSON number
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, query.EngineError(err)
	}
	return out, nil
}

// jsonValue makes a scanned value JSON-friendly: times in RFC 3339 with
// nanoseconds, 64-bit integers as numbers (they fit what the UI shows),
// NaN and infinities as null.
func jsonValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case *time.Time:
		if x == nil {
			return nil
		}
		return x.UTC().Format(time.RFC3339Nano)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	case []time.Time:
		out := make([]string, len(x))
		for i, t := range x {
			out[i] = t.UTC().Format(time.RFC3339Nano)
		}
		return out
	}
	return v
}

package search

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// MaxSpans bounds the spans a trace view reads.
const MaxSpans = 10_000

// traceIDRE is a trace id as the exporter stores it (hex); longer or
// other input is refused before it reaches a query.
var traceIDRE = regexp.MustCompile(`^[0-9a-fA-F]{1,32}$`)

// TraceRequest names a trace in a trace source, and the source of the
// logs to correlate with it (nil: none).
type TraceRequest struct {
	TraceID string
	// TraceColumn is the source's trace id column (spans and logs alike).
	TraceColumn, LogTraceColumn string
	Logs                        *query.Scope
}

// Trace is every span of a trace, oldest first, and the logs that carry
// its id.
type Trace struct {
	Spans     []map[string]any `json:"spans"`
	Logs      []map[string]any `json:"logs"`
	Truncated bool             `json:"truncated"`
}

// ErrNoTrace says the trace has no spans in the source.
var ErrNoTrace = errors.New("trace not found")

// GetTrace reads a trace. With the exporter's <table>_trace_id_ts lookup
// table beside the spans, it first reads when the trace ran, so only
// those days' parts are read.
func GetTrace(ctx context.Context, db *sql.DB, spans *query.Scope, req TraceRequest, timeout time.Duration) (Trace, error) {
	id := strings.ToLower(req.TraceID)
	if !traceIDRE.MatchString(id) {
		return Trace{}, query.Mistake(errors.New("a trace id is up to 32 hexadecimal digits"))
	}
	col, ok := spans.Role(req.TraceColumn)
	if !ok {
		return Trace{}, query.Mistake(errors.New("the source has no trace id column " + strconv.Quote(req.TraceColumn)))
	}
	var p query.Params
	data := map[string]any{"From": spans.From, "TS": spans.Timestamp, "Computed": spans.Computed(), "TraceCol": col, "TraceID": p.Add(id, "String"), "Limit": MaxSpans + 1}
	start, end, found, err := traceBounds(ctx, db, spans, []string{id})
	if err != nil {
		return Trace{}, err
	}
	if found {
		data["Start"] = p.Add(strconv.FormatInt(start.UnixNano(), 10), "Int64")
		data["End"] = p.Add(strconv.FormatInt(end.UnixNano(), 10), "Int64")
	}
	rows, err := readRows(ctx, db, render("trace_spans", data), p, timeout)
	if err != nil {
		return Trace{}, err
	}
	if len(rows) == 0 {
		return Trace{}, ErrNoTrace
	}
	t := Trace{Spans: rows, Logs: []map[string]any{}}
	if len(rows) > MaxSpans {
		t.Spans, t.Truncated = rows[:MaxSpans], true
	}
	if req.Logs != nil {
		if lcol, ok := req.Logs.Role(req.LogTraceColumn); ok {
			first, _ := strconv.ParseInt(t.Spans[0]["__ts_ns"].(string), 10, 64)
			last, _ := strconv.ParseInt(t.Spans[len(t.Spans)-1]["__ts_ns"].(string), 10, 64)
			var lp query.Params
			// Logs of a trace are written while it runs; an hour either
			// side covers clocks that disagree and long spans.
			cond := lcol + " = " + lp.Add(id, "String")
			logs, err := readRows(ctx, db, render("rows", map[string]any{
				"From": req.Logs.From, "TS": req.Logs.Timestamp, "Computed": req.Logs.Computed(), "Where": cond, "Limit": 1000,
				"Start": lp.Add(strconv.FormatInt(first-int64(time.Hour), 10), "Int64"),
				"End":   lp.Add(strconv.FormatInt(last+int64(time.Hour), 10), "Int64"),
			}), lp, timeout)
			if err != nil {
				return Trace{}, err
			}
			t.Logs = logs
		}
	}
	return t, nil
}

// traceBounds reads when the traces of ids ran from the exporter's lookup
// table (its primary key is the trace id), so their spans are read from
// those days only. ok is false when the source's table has no lookup
// table or it does not hold every id yet (its view writes with the spans,
// but a table made by hand may have none).
func traceBounds(ctx context.Context, db *sql.DB, spans *query.Scope, ids []string) (start, end time.Time, ok bool, err error) {
	src := spans.Source()
	lookup := src.Table + "_trace_id_ts"
	var n uint64
	qctx := clickhouse.Context(ctx, clickhouse.WithParameters(clickhouse.Parameters{"db": src.Database, "t": lookup}))
	if err := db.QueryRowContext(qctx, render("lookup_exists", nil)).Scan(&n); err != nil || n == 0 {
		return time.Time{}, time.Time{}, false, err
	}
	var p query.Params
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = p.Add(id, "String")
	}
	q := render("traces_bounds", map[string]any{"Lookup": src.TableRef(lookup), "IDs": "(" + strings.Join(list, ", ") + ")"})
	var count uint64
	if err := db.QueryRowContext(clickhouse.Context(ctx, clickhouse.WithParameters(p.Values)), q).Scan(&start, &end, &count); err != nil {
		return time.Time{}, time.Time{}, false, query.EngineError(err)
	}
	if count < uint64(len(ids)) {
		return time.Time{}, time.Time{}, false, nil
	}
	// The lookup table keeps seconds; a span ends by its own end.
	return start, end.Add(time.Second), true, nil
}

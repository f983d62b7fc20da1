package search

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/otelhouse/otelhouse/internal/charts"
)

// ServiceColumns name a trace source's service, duration and status
// columns.
type ServiceColumns struct{ Service, Duration, Status string }

// Services summarises each service of a trace source over a range.
func Services(ctx context.Context, db *sql.DB, scope *charts.Scope, cols ServiceColumns, start, end time.Time, timeout time.Duration) ([]map[string]any, error) {
	svc, ok := scope.Column(cols.Service)
	if !ok {
		return nil, charts.Mistake(errNoColumn("service", cols.Service))
	}
	status, ok := scope.Column(cols.Status)
	if !ok {
		return nil, charts.Mistake(errNoColumn("status", cols.Status))
	}
	dur, _ := scope.Column(cols.Duration)
	var p charts.Params
	q := render("services", map[string]any{"Service": svc, "Status": status, "Duration": dur, "From": scope.From, "TS": scope.Timestamp,
		"Start": p.Add(strconv.FormatInt(start.UnixNano(), 10), "Int64"), "End": p.Add(strconv.FormatInt(end.UnixNano(), 10), "Int64")})
	return query(ctx, db, q, p, timeout)
}

type missingColumn struct{ role, name string }

func (e missingColumn) Error() string {
	return "the source has no " + e.role + " column " + strconv.Quote(e.name)
}

func errNoColumn(role, name string) error { return missingColumn{role, name} }

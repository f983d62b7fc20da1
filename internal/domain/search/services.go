package search

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// ServiceColumns name a trace source's service, duration and status
// columns, and those that tell an entry span: its name (Name, for the
// per-operation rows), kind (Kind) and parent (Parent). Kind and Parent
// are optional; without both, every span counts.
type ServiceColumns struct{ Service, Duration, Status, Name, Kind, Parent string }

// Services summarises each service of a trace source over a range, from
// its entry spans (a request it served: server or consumer kind, or a
// trace's root), with one row per operation (entry span name) under
// "operations". A span the service made while serving (a database or
// client call) is part of that request, not another one.
func Services(ctx context.Context, db *sql.DB, scope *query.Scope, cols ServiceColumns, start, end time.Time, timeout time.Duration) ([]map[string]any, error) {
	svc, ok := scope.Role(cols.Service)
	if !ok {
		return nil, query.Mistake(errNoColumn("service", cols.Service))
	}
	status, ok := scope.Role(cols.Status)
	if !ok {
		return nil, query.Mistake(errNoColumn("status", cols.Status))
	}
	dur, _ := scope.Role(cols.Duration)
	dur = scope.Source().Nanoseconds(dur)
	name, hasName := scope.Role(cols.Name)
	var p query.Params
	data := map[string]any{
		"Service": svc, "Status": status, "Duration": dur, "Name": name, "From": scope.From, "TS": scope.Timestamp,
		"Entry": entry(scope, cols),
		"Start": p.Add(strconv.FormatInt(start.UnixNano(), 10), "Int64"), "End": p.Add(strconv.FormatInt(end.UnixNano(), 10), "Int64"),
	}
	services, err := readRows(ctx, db, render("services", data), p, timeout)
	if err != nil || !hasName {
		return services, err
	}
	ops, err := readRows(ctx, db, render("operations", data), p, timeout)
	if err != nil {
		return nil, err
	}
	by := map[string][]map[string]any{}
	for _, o := range ops {
		s, _ := o["service"].(string)
		delete(o, "service")
		by[s] = append(by[s], o)
	}
	for _, s := range services {
		name, _ := s["service"].(string)
		s["operations"] = by[name]
		if s["operations"] == nil {
			s["operations"] = []map[string]any{}
		}
	}
	return services, nil
}

// entry is the condition of an entry span: of server or consumer kind
// (the exporter writes "Server"; older ones "SPAN_KIND_SERVER"), or a
// root (no parent).
func entry(scope *query.Scope, cols ServiceColumns) string {
	var conds []string
	if kind, ok := scope.Role(cols.Kind); ok {
		conds = append(conds, "lower(toString("+kind+")) IN ('server', 'consumer', 'span_kind_server', 'span_kind_consumer')")
	}
	if parent, ok := scope.Role(cols.Parent); ok {
		conds = append(conds, "empty("+parent+")")
	}
	switch len(conds) {
	case 0:
		return "1"
	case 1:
		return conds[0]
	}
	return "(" + conds[0] + " OR " + conds[1] + ")"
}

type missingColumn struct{ role, name string }

func (e missingColumn) Error() string {
	return "the source has no " + e.role + " column " + strconv.Quote(e.name)
}

func errNoColumn(role, name string) error { return missingColumn{role, name} }

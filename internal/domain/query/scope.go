package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/otelhouse/otelhouse/internal/runtime/sqlname"
)

// Scope is a source's table resolved against its real columns. Charts,
// search and the trace view filter and select through it, so a where
// means the same in a chart, a search and an alert, and no second
// translator exists.
type Scope struct {
	f fields
	// Timestamp is the quoted timestamp column.
	Timestamp string
	// From is the quoted database.table, or cluster(…) on a cluster.
	From string
}

// OpenScope reads the source table's columns and checks its names.
func OpenScope(ctx context.Context, db *sql.DB, src Source) (*Scope, error) {
	for _, id := range []string{src.Database, src.Table, src.TimestampColumn} {
		if !sqlname.Plain(id) {
			return nil, fmt.Errorf("source names %q, not a plain identifier", id)
		}
	}
	if src.Cluster != "" && !sqlname.Cluster(src.Cluster) {
		return nil, fmt.Errorf("cluster %q is not a plain name", src.Cluster)
	}
	cols, err := columns(ctx, db, src)
	if err != nil {
		return nil, err
	}
	f := fields{s: src, cols: cols}
	if f.roles, err = checkRoles(ctx, db, f); err != nil {
		return nil, err
	}
	ts, _, ok := f.column(src.TimestampColumn)
	if !ok {
		return nil, fmt.Errorf("timestamp column %s is not in %s.%s", src.TimestampColumn, src.Database, src.Table)
	}
	return &Scope{f: f, Timestamp: ts, From: src.TableRef(src.Table)}, nil
}

// Where compiles a where (lucene or sql) into a condition with bound
// values in p; a mistake in it is an Error.
func (s *Scope) Where(ctx context.Context, db *sql.DB, language, text string, p *Params) (string, error) {
	c, err := condition(ctx, db, language, text, s.f, p)
	if err != nil {
		var qe Error
		if !errors.As(err, &qe) && ctx.Err() == nil {
			err = Error{err}
		}
	}
	return c, err
}

// Column is a real column of the table, quoted, if it has one by that name.
func (s *Scope) Column(name string) (string, bool) {
	e, _, ok := s.f.column(name)
	return e, ok
}

// Role is a role expression of the source (its ServiceColumn, TraceID
// and the like) as SQL: the quoted column, or the checked expression it
// stands for; false when it is neither a column nor an expression the
// check accepted.
func (s *Scope) Role(text string) (string, bool) {
	r, ok := s.f.role(text)
	return r.expr, ok
}

// Alias is the field name a where reads a role by (service, level, body,
// duration), or "" for a role that has none.
func (s *Scope) Alias(text string) string {
	if text == "" {
		return ""
	}
	switch src := s.f.s; text {
	case src.ServiceColumn:
		return "service"
	case src.SeverityColumn:
		return "level"
	case src.BodyColumn:
		return "body"
	case src.Duration:
		return "duration"
	}
	return ""
}

// Computed is what a statement that reads every column (SELECT *) adds
// to read the roles that are expressions: ", expr AS `text`" for each,
// named by its text, so a row carries every role under the name the
// source gives it, as a column role's value is. Empty when every role is
// a column.
func (s *Scope) Computed() string {
	if len(s.f.roles) == 0 {
		return ""
	}
	texts := make([]string, 0, len(s.f.roles))
	for t := range s.f.roles {
		texts = append(texts, t)
	}
	sort.Strings(texts)
	var b strings.Builder
	for _, t := range texts {
		b.WriteString(", ")
		b.WriteString(s.f.roles[t].expr)
		b.WriteString(" AS ")
		writeName(&b, t)
	}
	return b.String()
}

// Columns lists the table's columns in name order, with their types.
func (s *Scope) Columns() [][2]string {
	out := make([][2]string, 0, len(s.f.cols))
	for n, t := range s.f.cols {
		out = append(out, [2]string{n, t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Source is the source the scope was opened on.
func (s *Scope) Source() Source { return s.f.s }

// Field is a field name (a column, an alias such as service, a map key in
// any of the where's forms) as the SQL expression the where compares, so
// what a search offers to filter on reads the same value a filter matches.
func (s *Scope) Field(name string, p *Params) (string, error) {
	expr, _, err := s.f.Resolve(name, p)
	if err != nil {
		return "", Error{err}
	}
	return expr, nil
}

// Resolve is Field with what the expression holds (numeric: a number
// column, compared and aggregated as one), the error left as it is.
func (s *Scope) Resolve(name string, p *Params) (expr string, numeric bool, err error) {
	return s.f.Resolve(name, p)
}

// condition compiles a where in its language against the source's fields.
func condition(ctx context.Context, db *sql.DB, language, text string, f fields, p *Params) (string, error) {
	switch language {
	case "", "lucene":
		return Lucene(text, f, p)
	case "sql":
		if strings.TrimSpace(text) == "" {
			return "1", nil
		}
		fns, err := catalogOf(ctx, db)
		if err != nil {
			return "", err
		}
		checked, err := CheckSQLWhere(ctx, db, text, f.cols, fns)
		if err != nil {
			return "", fmt.Errorf("sql where: %w", err)
		}
		return checked, nil
	case "datadog":
		return datadogWhere(text, f, p)
	}
	return "", fmt.Errorf("whereLanguage must be lucene, sql or datadog, got %q", language)
}

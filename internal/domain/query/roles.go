package query

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/runtime/sqlfile"
	"github.com/otelhouse/otelhouse/internal/runtime/sqlname"
)

//go:embed roles.sql
var rolesSQL string

var roleStatements = sqlfile.ParseTemplates("query/roles.sql", rolesSQL)

// A source's role expressions (serviceNameExpression, bodyExpression,
// durationExpression, …) are usually columns, and then cost nothing but
// a lookup in the table's columns. One that is an expression
// (ResourceAttributes['service.name'], JSONExtractString(Body, 'msg'),
// Body.message) is decided as a sql where is: on the engine's parse, its
// names the table's columns, its functions the pure ones, and what runs
// is written from that tree. Its type, which says how a where compares
// it, is the engine's (DESCRIBE of a query that selects it, which reads
// no rows).

// checkRoles checks the role expressions of f's source that are not
// columns. One the check refuses is left out, as a role naming a missing
// column is: what reads it answers that the source has no such role.
// The API refuses, when the source is saved, what no table could run (a
// sub-query, a function that is not pure); a column the table lacks
// shows only here, as the table may not exist when the source is saved.
func checkRoles(ctx context.Context, db *sql.DB, f fields) (map[string]resolved, error) {
	var out map[string]resolved
	var fns *Catalog
	for _, text := range f.s.roles() {
		if text == "" {
			continue
		}
		if _, ok := f.cols[text]; ok || sqlname.Plain(text) {
			// A column, or a name that is none of the table's (the check
			// would refuse it): nothing for the engine to parse.
			continue
		}
		if _, done := out[text]; done {
			continue
		}
		if fns == nil {
			var err error
			if fns, err = catalogOf(ctx, db); err != nil {
				return nil, err
			}
		}
		expr, err := CheckSQLWhere(ctx, db, text, f.cols, fns)
		if err != nil {
			if qe := (Error{}); errors.As(err, &qe) {
				continue
			}
			return nil, err
		}
		typ, err := exprType(ctx, db, f.s, expr)
		if err != nil {
			if qe := (Error{}); errors.As(err, &qe) {
				continue
			}
			return nil, err
		}
		r := resolved{expr: expr}
		base := strings.TrimPrefix(strings.TrimPrefix(typ, "LowCardinality("), "Nullable(")
		r.numeric = strings.HasPrefix(base, "Int") || strings.HasPrefix(base, "UInt") || strings.HasPrefix(base, "Float") || strings.HasPrefix(base, "Decimal")
		r.text = typ == "String" || typ == "LowCardinality(String)"
		if text != f.s.Duration && !r.text && !r.numeric {
			// A text role (a service, a level, a body, an id) of another
			// type, such as a JSON path's Dynamic, is compared as the
			// text it prints as, as the columns it stands in for are.
			r.expr, r.text = "toString("+expr+")", true
		}
		if out == nil {
			out = map[string]resolved{}
		}
		out[text] = r
	}
	return out, nil
}

// exprType is the engine's type of a checked expression over the source
// table, from a short-lived cache as the table's columns are.
func exprType(ctx context.Context, db *sql.DB, s Source, expr string) (string, error) {
	key := exprTypeKey{db, s.Database, s.Table, expr}
	now := time.Now()
	exprTypes.Lock()
	c, ok := exprTypes.m[key]
	exprTypes.Unlock()
	if ok && now.Sub(c.at) < columnsCacheFor {
		return c.typ, nil
	}
	var name, typ string
	var rest []any
	ro := clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"readonly": 2}))
	rows, err := db.QueryContext(ro, roleStatements.Render("role_type", map[string]any{"Expr": expr, "From": s.TableRef(s.Table)}))
	if err != nil {
		return "", engineError(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", engineError(err)
		}
		return "", Error{errors.New("the engine gave the expression no type")}
	}
	dest := []any{&name, &typ}
	for range cols[min(2, len(cols)):] {
		var skip any
		rest = append(rest, &skip)
	}
	if err := rows.Scan(append(dest, rest...)...); err != nil {
		return "", err
	}
	exprTypes.Lock()
	if len(exprTypes.m) > 1000 {
		clear(exprTypes.m)
	}
	exprTypes.m[key] = cachedType{typ: typ, at: now}
	exprTypes.Unlock()
	return typ, nil
}

type exprTypeKey struct {
	db                    *sql.DB
	database, table, expr string
}

type cachedType struct {
	typ string
	at  time.Time
}

var exprTypes = struct {
	sync.Mutex
	m map[exprTypeKey]cachedType
}{m: map[exprTypeKey]cachedType{}}

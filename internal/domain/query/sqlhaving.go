package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// A having (HyperDX's config.having on a builder table tile) filters the
// groups of a grouped query: `count() > 10`, `p95 > 250` with p95 a
// select item's alias. It is pasted into a query as a where is, so it is
// decided and rewritten the same way (sqlwhere.go), with two differences:
// the aggregate functions below may be called on the source's columns,
// and outside their arguments a name is a select item's alias or a
// grouped field, never another column (a group has no one value of one).

// aggregates are the aggregate functions a having may call: they compute
// on the group's rows only. Each may also be called with the If
// combinator (countIf(cond), sumIf(x, cond)).
var aggregates = map[string]bool{
	"count": true, "countDistinct": true, "sum": true, "avg": true, "min": true, "max": true,
	"any": true, "anyLast": true, "argMin": true, "argMax": true,
	"uniq": true, "uniqExact": true, "uniqCombined": true, "uniqCombined64": true, "uniqHLL12": true,
	"median": true, "medianExact": true, "quantile": true, "quantileExact": true, "quantileTDigest": true,
	"quantileTiming": true, "stddevPop": true, "stddevSamp": true, "varPop": true, "varSamp": true, "avgWeighted": true,
}

// foldedAggregates are the aggregates the engine also knows in any case
// (COUNT(), Sum()), as SQL's standard ones.
var foldedAggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true}

// aggregate reports whether name is an aggregate a having may call.
func aggregate(name string) bool {
	if aggregates[name] || foldedAggregates[strings.ToLower(name)] {
		return true
	}
	base, ok := strings.CutSuffix(name, "If")
	return ok && aggregates[base]
}

// renderAggregate writes an aggregate call of a having: its parameters
// (quantile's level) constants, its arguments expressions over the
// source's columns, with no aggregate inside and no window.
func (sc whereScope) renderAggregate(b *strings.Builder, n *astNode) error {
	name := n.detail
	if sc.inAgg {
		return fmt.Errorf("aggregate %s inside another aggregate's arguments is not allowed", name)
	}
	if len(n.children) == 0 || len(n.children) > 2 {
		return fmt.Errorf("aggregate %s: window functions (OVER) are not allowed in a having", name)
	}
	for _, c := range n.children {
		if c.kind != "ExpressionList" {
			return fmt.Errorf("aggregate %s: window functions (OVER) are not allowed in a having", name)
		}
	}
	var params strings.Builder
	if len(n.children) == 2 {
		for i, c := range n.children[1].children {
			if c.kind != "Literal" {
				return fmt.Errorf("aggregate %s: its parameters must be constants", name)
			}
			if i > 0 {
				params.WriteString(", ")
			}
			if err := sc.render(&params, c); err != nil {
				return err
			}
		}
	}
	inner := sc
	inner.inAgg = true
	var args strings.Builder
	list := n.children[0].children
	if len(list) == 1 && list[0].kind == "Asterisk" && len(list[0].children) == 0 && strings.EqualFold(name, "count") {
		args.WriteByte('*')
	} else {
		for i, a := range list {
			if i > 0 {
				args.WriteString(", ")
			}
			if err := inner.render(&args, a); err != nil {
				return err
			}
		}
	}
	writeName(b, name)
	if len(n.children) == 2 {
		b.WriteByte('(')
		b.WriteString(params.String())
		b.WriteByte(')')
	}
	b.WriteByte('(')
	b.WriteString(args.String())
	b.WriteByte(')')
	return nil
}

// CheckSQLHaving decides on the engine's parse of cond whether it is one
// condition on a group: aggregates over the columns cols, the select
// items' aliases and grouped fields (keys of aliases), constants and the
// functions fns allows. It returns the SQL to run for it, written from the
// checked tree, each alias written as the name aliases maps it to.
func CheckSQLHaving(ctx context.Context, db *sql.DB, cond string, cols map[string]string, fns *Catalog, aliases map[string]string) (string, error) {
	text, _, err := checkSQLHaving(ctx, db, cond, cols, fns, aliases)
	return text, err
}

// checkSQLHaving is CheckSQLHaving also telling which aliases cond names.
func checkSQLHaving(ctx context.Context, db *sql.DB, cond string, cols map[string]string, fns *Catalog, aliases map[string]string) (string, map[string]bool, error) {
	if len(cond) > MaxSQLWhere {
		return "", nil, Error{fmt.Errorf("a having may be at most %d bytes, got %d", MaxSQLWhere, len(cond))}
	}
	same := make(map[string]string, len(aliases))
	for a := range aliases {
		same[a] = a
	}
	// The user's own names are rendered for the engine's second reading,
	// which must give the tree back; the query's names for the run.
	sc := whereScope{cols: cols, fns: fns, having: true, aliases: same}
	run := sc
	run.aliases = aliases
	run.used = map[string]bool{}
	text, err := checkSQL(ctx, db, cond, sc, run)
	return text, run.used, err
}

// Having compiles a having over the scope's columns: aliases maps the
// select items' aliases (and the grouped fields' names) to the names the
// query gives their values; used tells which the having names. A mistake
// in it is an Error.
func (s *Scope) Having(ctx context.Context, db *sql.DB, text string, aliases map[string]string) (cond string, used map[string]bool, err error) {
	if strings.TrimSpace(text) == "" {
		return "1", nil, nil
	}
	fns, err := catalogOf(ctx, db)
	if err != nil {
		return "", nil, err
	}
	c, used, err := checkSQLHaving(ctx, db, text, s.f.cols, fns, aliases)
	if err != nil {
		var qe Error
		if !errors.As(err, &qe) && ctx.Err() == nil {
			err = Error{err}
		}
		return "", nil, fmt.Errorf("having: %w", err)
	}
	return c, used, nil
}

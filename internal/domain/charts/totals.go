package charts

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/sqlfile"
)

// A table tile shows one row per group with each select item's value
// over the whole range. Bucket values do not add up to it (an average of
// averages, a sum of distinct counts), and HyperDX's having filters those
// groups by their range values, so the totals are one grouped query: a
// value per series, each aggregating the rows of its own where (the If
// combinator, HyperDX's aggCondition), the having in its HAVING clause.

//go:embed totals.sql
var totalsSQL string

var totalsStatements = sqlfile.ParseTemplates("charts/totals.sql", totalsSQL)

// BuildTotals writes the SQL of the series' totals over [start, end) per
// group, the groups kept by having (a sql condition on the group:
// aggregates over the source's columns and the series' aliases,
// query.CheckSQLHaving). The series are of one source and one groupBy.
func BuildTotals(ctx context.Context, db *sql.DB, series []Series, having string, start, end time.Time) (string, clickhouse.Parameters, error) {
	q, params, _, err := buildTotals(ctx, db, series, having, start, end)
	return q, params, err
}

// buildTotals is BuildTotals also telling how many grouped fields' values
// each row holds after the series' (those the having names).
func buildTotals(ctx context.Context, db *sql.DB, series []Series, having string, start, end time.Time) (string, clickhouse.Parameters, int, error) {
	if len(series) == 0 {
		return "", nil, 0, errors.New("no series")
	}
	src := series[0].Source
	for i, s := range series {
		switch {
		case s.Query != "":
			return "", nil, 0, fmt.Errorf("series %d: a Datadog metric query has no range totals; send aggFn series", i)
		case s.Source != src:
			return "", nil, 0, fmt.Errorf("series %d: range totals and having need every series on one source", i)
		case s.Source.MetricType == "histogram" && s.AggFn == "quantile",
			s.Source.MetricType == "sum" && s.AggFn == "sum",
			s.Source.MetricType == "gauge" && s.MetricName != "" && s.AggFn != "count":
			return "", nil, 0, fmt.Errorf("series %d: range totals and having are not computed for a %s metric's %s yet", i, s.Source.MetricType, s.AggFn)
		}
	}
	scope, err := query.OpenScope(ctx, db, src)
	if err != nil {
		return "", nil, 0, err
	}
	var p query.Params
	values := make([]string, len(series))
	aliases := map[string]string{}
	for i, s := range series {
		cond, err := scope.Where(ctx, db, s.WhereLanguage, s.Where, &p)
		if err != nil {
			return "", nil, 0, fmt.Errorf("series %d: %w", i, err)
		}
		if s.Filter != "" {
			f, err := scope.Where(ctx, db, s.FilterLanguage, s.Filter, &p)
			if err != nil {
				return "", nil, 0, fmt.Errorf("series %d: %w", i, err)
			}
			cond = "(" + cond + ") AND (" + f + ")"
		}
		if s.MetricName != "" {
			cond = "(" + cond + ") AND `MetricName` = " + p.Add(s.MetricName, "String")
		}
		if values[i], err = aggregate(s, scope, &p, scope.Timestamp, cond); err != nil {
			return "", nil, 0, fmt.Errorf("series %d: %w", i, err)
		}
		if s.Alias != "" {
			if _, dup := aliases[s.Alias]; dup {
				return "", nil, 0, fmt.Errorf("series %d: alias %q names another series too", i, s.Alias)
			}
			aliases[s.Alias] = "__s" + strconv.Itoa(i)
		}
	}
	groups := []string{}
	exprs := map[string]string{}
	for j, g := range series[0].GroupBy {
		e, _, err := scope.Resolve(g, &p)
		if err != nil {
			return "", nil, 0, err
		}
		groups = append(groups, "toString("+e+")")
		// A grouped field is named in a having as the groupBy spells it
		// (a series' alias of the same name wins, as the select's).
		if _, taken := aliases[g]; !taken {
			aliases[g] = "__g" + strconv.Itoa(j)
			exprs[g] = e
		}
	}
	grp := "CAST([] AS Array(String))"
	if len(groups) > 0 {
		grp = "[" + strings.Join(groups, ", ") + "]"
	}
	h, used, err := scope.Having(ctx, db, having, aliases)
	if err != nil {
		return "", nil, 0, err
	}
	type grouped struct{ Name, Expr string }
	var extra []grouped
	for _, g := range series[0].GroupBy {
		if e, ok := exprs[g]; ok && used[g] {
			extra = append(extra, grouped{aliases[g], e})
			delete(exprs, g) // a field grouped by twice is selected once
		}
	}
	q := totalsStatements.Render("totals", map[string]any{
		"Group": grp, "Values": values, "Grouped": extra, "From": scope.From, "TS": scope.Timestamp,
		"Start":  p.Add(strconv.FormatInt(start.UnixMilli(), 10), "Int64"),
		"End":    p.Add(strconv.FormatInt(end.UnixMilli(), 10), "Int64"),
		"Having": h,
		// One row past what an answer may hold, so too many is known.
		"Limit": MaxPoints + 1,
	})
	params := clickhouse.Parameters{}
	for k, v := range p.Values {
		params[k] = v
	}
	return q, params, len(extra), nil
}

// Totals runs BuildTotals: one point per group kept, at start, with each
// series' value over the range (nil: no rows of its where).
func Totals(ctx context.Context, db *sql.DB, series []Series, having string, start, end time.Time, timeout time.Duration) ([]Point, error) {
	q, params, extra, err := buildTotals(ctx, db, series, having, start, end)
	if err != nil {
		return nil, query.Mistake(err) // as Run's series: the request's fault
	}
	qctx := clickhouse.Context(ctx, clickhouse.WithParameters(params), clickhouse.WithSettings(query.UserQuerySettings(timeout)))
	rows, err := db.QueryContext(qctx, q)
	if err != nil {
		return nil, query.EngineError(err)
	}
	defer func() { _ = rows.Close() }()
	var out []Point
	for rows.Next() {
		var g []string
		vals := make([]*float64, len(series))
		dest := []any{&g}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		for range extra {
			dest = append(dest, new(any)) // a grouped field's own value, for the having only
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if len(out) >= MaxPoints {
			return nil, query.Mistake(fmt.Errorf("the answer would hold more than %d groups; group by fewer values, filter, or add a having", MaxPoints))
		}
		out = append(out, Point{Bucket: start.UnixMilli(), Group: g, Values: vals})
	}
	if err := rows.Err(); err != nil {
		return nil, query.EngineError(err)
	}
	return out, nil
}

// Package charts turns chart series requests (an aggregate of a field, or
// a Datadog metric query, over time buckets) into ClickHouse SQL over a
// source's table and runs them; fields and wheres resolve through
// internal/domain/query, as search's do.
package charts

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// Series is one line of a chart.
type Series struct {
	Source        query.Source
	AggFn, Field  string
	Level         float64
	Where         string
	WhereLanguage string
	// Filter, in FilterLanguage, is a further condition ANDed with Where:
	// an inline alert's chart-level where beside each item's own.
	Filter, FilterLanguage string
	GroupBy                []string
	// Query, on a metric source, is a Datadog metric query or formula
	// (ddmetrics.go); it replaces AggFn, Field, Where and GroupBy.
	Query string
	// MetricName, on a metric table, keeps that metric's points (HyperDX's
	// metricName). A gauge named so is read as HyperDX reads one: each
	// series' last value in a bucket, then AggFn across the series.
	MetricName string
	// Delta, on a gauge named by MetricName, replaces each series' last
	// value in a bucket by its change over the bucket (HyperDX's isDelta,
	// the external periodAggFn "delta"). Other items ignore it, as
	// HyperDX's renderer does.
	Delta bool
	// Alias names the series' value in a having (Totals).
	Alias string
}

// Granularities are the documented bucket sizes; "auto" picks the
// smallest giving at most 120 buckets.
var Granularities = map[string]time.Duration{
	"30s": 30 * time.Second, "1m": time.Minute, "5m": 5 * time.Minute, "10m": 10 * time.Minute,
	"15m": 15 * time.Minute, "30m": 30 * time.Minute, "1h": time.Hour, "2h": 2 * time.Hour,
	"6h": 6 * time.Hour, "12h": 12 * time.Hour, "1d": 24 * time.Hour, "2d": 48 * time.Hour,
	"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour,
}

// Bucket resolves a granularity for the range.
func Bucket(g string, start, end time.Time) (time.Duration, error) {
	if g == "auto" || g == "" {
		var all []time.Duration
		for _, d := range Granularities {
			all = append(all, d)
		}
		slices.Sort(all)
		for _, d := range all {
			if end.Sub(start)/d <= 120 {
				return d, nil
			}
		}
		return all[len(all)-1], nil
	}
	d, ok := Granularities[g]
	if !ok {
		return 0, fmt.Errorf("granularity must be auto or one of 30s 1m 5m 10m 15m 30m 1h 2h 6h 12h 1d 2d 7d 30d, got %q", g)
	}
	return d, nil
}

func aggregate(s Series, scope *query.Scope, p *query.Params, ts string, cond ...string) (string, error) {
	if s.AggFn == "count" {
		return aggOf("count", 0, "", "", ts, cond...)
	}
	if s.Field == "" {
		return "", fmt.Errorf("aggFn %s needs a field", s.AggFn)
	}
	e, numeric, err := scope.Resolve(s.Field, p)
	if err != nil {
		return "", err
	}
	num := e
	if !numeric {
		num = "toFloat64OrNull(toString(" + e + "))"
	}
	return aggOf(s.AggFn, s.Level, e, num, ts, cond...)
}

// aggOf is aggFn over the values e (num: the same as numbers). With a
// cond, only the rows it keeps are aggregated (the If combinator), and a
// group without such rows has null (OrNull: avg would give nan, min 0)
// but for the counts, which are 0.
func aggOf(fn string, level float64, e, num, ts string, cond ...string) (string, error) {
	call := func(name, params string, args ...string) string {
		if len(cond) > 0 {
			if name != "count" && name != "uniqExact" {
				name += "IfOrNull"
			} else {
				name += "If"
			}
			args = append(args, cond[0])
		}
		return "toFloat64(" + name + params + "(" + strings.Join(args, ", ") + "))"
	}
	switch fn {
	case "count":
		return call("count", ""), nil
	case "count_distinct":
		return call("uniqExact", "", e), nil
	case "sum", "avg", "min", "max":
		return call(fn, "", num), nil
	case "quantile":
		if !(level > 0 && level < 1) {
			return "", fmt.Errorf("quantile needs a level between 0 and 1")
		}
		return call("quantile", "("+strconv.FormatFloat(level, 'f', -1, 64)+")", num), nil
	case "last_value":
		return call("argMax", "", num, ts), nil
	}
	return "", fmt.Errorf("aggFn must be one of count, count_distinct, sum, avg, min, max, quantile, last_value, got %q", fn)
}

// Build writes the SQL of one series over [start, end) in buckets of step.
func Build(ctx context.Context, db *sql.DB, s Series, start, end time.Time, step time.Duration) (string, clickhouse.Parameters, error) {
	src := s.Source
	scope, err := query.OpenScope(ctx, db, src)
	if err != nil {
		return "", nil, err
	}
	ts := scope.Timestamp
	var p query.Params
	agg := ""
	if !(src.MetricType == "histogram" && s.AggFn == "quantile") && !(src.MetricType == "sum" && s.AggFn == "sum") {
		if agg, err = aggregate(s, scope, &p, ts); err != nil {
			return "", nil, err
		}
	} else if s.AggFn == "quantile" && !(s.Level > 0 && s.Level < 1) {
		return "", nil, fmt.Errorf("quantile needs a level between 0 and 1")
	}
	cond, err := scope.Where(ctx, db, s.WhereLanguage, s.Where, &p)
	if err != nil {
		return "", nil, err
	}
	if s.Filter != "" {
		f, err := scope.Where(ctx, db, s.FilterLanguage, s.Filter, &p)
		if err != nil {
			return "", nil, err
		}
		cond = "(" + cond + ") AND (" + f + ")"
	}
	if s.MetricName != "" {
		cond = "(" + cond + ") AND `MetricName` = " + p.Add(s.MetricName, "String")
	}
	groups := []string{}
	for _, g := range s.GroupBy {
		e, _, err := scope.Resolve(g, &p)
		if err != nil {
			return "", nil, err
		}
		groups = append(groups, "toString("+e+")")
	}
	grp := "CAST([] AS Array(String))"
	if len(groups) > 0 {
		grp = "[" + strings.Join(groups, ", ") + "]"
	}
	startP, endP := p.Add(strconv.FormatInt(start.UnixMilli(), 10), "Int64"), p.Add(strconv.FormatInt(end.UnixMilli(), 10), "Int64")
	bucket := fmt.Sprintf("toUInt64(toUnixTimestamp(toStartOfInterval(toDateTime(%s), INTERVAL %d SECOND))) * 1000", ts, int64(step/time.Second))
	from := scope.From
	inRange := fmt.Sprintf("%[1]s >= fromUnixTimestamp64Milli(%[2]s) AND %[1]s < fromUnixTimestamp64Milli(%[3]s)", ts, startP, endP)
	var q string
	switch {
	case src.MetricType == "histogram" && s.AggFn == "quantile":
		// Merge the buckets of every point in the bucket and group, then
		// take the bound of the bucket holding the quantile (the +Inf
		// bucket reports the last bound).
		level := strconv.FormatFloat(s.Level, 'f', -1, 64)
		q = fmt.Sprintf("SELECT bucket, grp, if(arraySum(c) = 0, NULL, toFloat64(arrayElement(arrayPushBack(b, b[-1]),"+
			" arrayFirstIndex(x -> x >= %[1]s * arraySum(c), arrayCumSum(c))))) AS value FROM"+
			" (SELECT %[2]s AS bucket, %[3]s AS grp, sumForEach(BucketCounts) AS c, any(ExplicitBounds) AS b FROM %[4]s WHERE %[5]s AND %[6]s GROUP BY bucket, grp)"+
			" ORDER BY bucket", level, bucket, grp, from, inRange, cond)
	case src.MetricType == "sum" && s.AggFn == "sum":
		// A cumulative point adds its increase over the previous point of
		// its series (a drop is a reset: the new value is the increase);
		// the point before the range is read so the first one counts.
		prevStart := p.Add(strconv.FormatInt(start.Add(-step).UnixMilli(), 10), "Int64")
		q = fmt.Sprintf("SELECT %[1]s AS bucket, %[2]s AS grp, toFloat64(sum(__increase)) AS value FROM"+
			" (SELECT *, if(AggregationTemporality = 2, if(Value >= __prev, Value - __prev, Value), Value) AS __increase FROM"+
			" (SELECT *, lagInFrame(Value, 1, Value) OVER (PARTITION BY MetricName, ServiceName, toString(Attributes), toString(ResourceAttributes)"+
			" ORDER BY %[3]s ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS __prev FROM %[4]s"+
			" WHERE %[3]s >= fromUnixTimestamp64Milli(%[5]s) AND %[3]s < fromUnixTimestamp64Milli(%[6]s)))"+
			" WHERE %[7]s AND %[8]s GROUP BY bucket, grp ORDER BY bucket", bucket, grp, ts, from, prevStart, endP, inRange, cond)
	case src.MetricType == "gauge" && s.MetricName != "" && (s.AggFn != "count" || s.Delta):
		// Each series' (tag set's) last value in the bucket, or its
		// change over the bucket, then the aggregate across the series.
		e, numeric, err := scope.Resolve(cmp.Or(s.Field, "Value"), &p)
		if err != nil {
			return "", nil, err
		}
		if !numeric {
			e = "toFloat64OrNull(toString(" + e + "))"
		}
		value := "argMax(" + e + ", " + ts + ")"
		if s.Delta {
			value = gaugeDelta(e, ts, step)
		}
		outer, err := aggOf(s.AggFn, s.Level, "__last", "__last", "__at")
		if err != nil {
			return "", nil, err
		}
		var tags []string
		for _, m := range []string{src.AttributesMap, src.ResourceMap} {
			if m != "" {
				tags = append(tags, "toString(`"+m+"`)")
			}
		}
		series := "1"
		if len(tags) > 0 {
			series = "cityHash64(" + strings.Join(tags, ", ") + ")"
		}
		q = fmt.Sprintf("SELECT bucket, grp, %[1]s AS value FROM"+
			" (SELECT %[2]s AS bucket, %[3]s AS grp, %[4]s AS __last, max(%[5]s) AS __at FROM %[6]s WHERE %[7]s AND %[8]s GROUP BY bucket, grp, %[9]s)"+
			" GROUP BY bucket, grp ORDER BY bucket", outer, bucket, grp, value, ts, from, inRange, cond, series)
	default:
		q = fmt.Sprintf("SELECT %s AS bucket, %s AS grp, %s AS value FROM %s WHERE %s AND %s GROUP BY bucket, grp ORDER BY bucket",
			bucket, grp, agg, from, inRange, cond)
	}
	// The engine stops one row past what an answer may hold (MaxPoints)
	// rather than stream every row.
	q += " LIMIT " + strconv.Itoa(MaxPoints+1)
	params := clickhouse.Parameters{}
	for k, v := range p.Values {
		params[k] = v
	}
	return q, params, nil
}

// gaugeDelta is a gauge series' change over a bucket of step, as
// HyperDX's delta measures it (Prometheus' delta()): its last value less
// its first, scaled from the seconds between them to the whole bucket;
// 0 when they are the same second (one point: no change is seen).
func gaugeDelta(e, ts string, step time.Duration) string {
	span := "dateDiff('second', min(toDateTime(" + ts + ")), max(toDateTime(" + ts + ")))"
	return fmt.Sprintf("if(%[1]s > 0, (argMax(%[2]s, %[3]s) - argMin(%[2]s, %[3]s)) * %[4]d / %[1]s, 0)", span, e, ts, int64(step/time.Second))
}

// Point is one bucket of one group, with every series' value (nil: no
// data, for the functions where 0 would lie).
type Point struct {
	Bucket int64
	Group  []string
	Values []*float64
}

// MaxPoints bounds an answer, buckets × groups: grouped by a value with
// millions of distinct values (a trace or user id), the filled answer
// would otherwise hold every one of them in every bucket.
const MaxPoints = 200_000

func tooManyPoints(buckets, groups int) error {
	return query.Mistake(fmt.Errorf("the answer would hold more than %d points (%d buckets × %d or more groups); group by fewer values, filter, or pick a coarser granularity",
		MaxPoints, buckets, groups))
}

// Run executes the series and lines their results up on shared buckets,
// every bucket of the range present: count, count_distinct and sum fill
// gaps with 0, the others with null.
func Run(ctx context.Context, db *sql.DB, series []Series, start, end time.Time, step time.Duration, timeout time.Duration) ([]Point, error) {
	return run(ctx, db, series, start, end, step, timeout, true)
}

// Sparse is Run answering only the buckets and groups some series has a
// value in, a series' value nil where it has none (HyperDX's answer).
func Sparse(ctx context.Context, db *sql.DB, series []Series, start, end time.Time, step time.Duration, timeout time.Duration) ([]Point, error) {
	return run(ctx, db, series, start, end, step, timeout, false)
}

func run(ctx context.Context, db *sql.DB, series []Series, start, end time.Time, step time.Duration, timeout time.Duration, fill bool) ([]Point, error) {
	type key struct {
		bucket int64
		group  string
	}
	stepMs := step.Milliseconds()
	first := start.UnixMilli() / stepMs * stepMs
	buckets := int((end.UnixMilli() - first + stepMs - 1) / stepMs)
	values := map[key][]*float64{}
	groups := map[string][]string{}
	for i, s := range series {
		if s.Query != "" {
			dd, err := runDatadogMetric(ctx, db, s, start, end, step, timeout)
			if err != nil {
				return nil, fmt.Errorf("series %d: %w", i, err)
			}
			for gk, vals := range dd.values {
				if _, ok := groups[gk]; !ok && (len(groups)+1)*buckets > MaxPoints {
					return nil, tooManyPoints(buckets, len(groups)+1)
				}
				groups[gk] = dd.groups[gk]
				for b, v := range vals {
					k := key{b, gk}
					if values[k] == nil {
						values[k] = make([]*float64, len(series))
					}
					values[k][i] = v
				}
			}
			continue
		}
		q, params, err := Build(ctx, db, s, start, end, step)
		if err != nil {
			return nil, query.Mistake(fmt.Errorf("series %d: %w", i, err))
		}
		qctx := clickhouse.Context(ctx, clickhouse.WithParameters(params), clickhouse.WithSettings(query.UserQuerySettings(timeout)))
		rows, err := db.QueryContext(qctx, q)
		if err != nil {
			return nil, fmt.Errorf("series %d: %w", i, query.EngineError(err))
		}
		for rows.Next() {
			var b uint64
			var g []string
			var v *float64
			if err := rows.Scan(&b, &g, &v); err != nil {
				_ = rows.Close()
				return nil, err
			}
			gk := strings.Join(g, "\x00")
			if _, ok := groups[gk]; !ok && (len(groups)+1)*buckets > MaxPoints {
				_ = rows.Close()
				return nil, tooManyPoints(buckets, len(groups)+1)
			}
			groups[gk] = g
			k := key{int64(b), gk}
			if values[k] == nil {
				values[k] = make([]*float64, len(series))
			}
			values[k][i] = v
		}
		err = rows.Err()
		_ = rows.Close() // rows.Err() above says what went wrong
		if err != nil {
			return nil, fmt.Errorf("series %d: %w", i, query.EngineError(err))
		}
	}
	if !fill {
		keys := make([]key, 0, len(values))
		for k := range values {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.bucket, b.bucket), strings.Compare(a.group, b.group)) })
		out := make([]Point, 0, len(keys))
		for _, k := range keys {
			out = append(out, Point{Bucket: k.bucket, Group: groups[k.group], Values: values[k]})
		}
		return out, nil
	}
	if len(groups) == 0 {
		groups[""] = []string{}
	}
	gkeys := make([]string, 0, len(groups))
	for k := range groups {
		gkeys = append(gkeys, k)
	}
	slices.Sort(gkeys)
	out := make([]Point, 0, buckets*len(gkeys))
	for b := first; b < end.UnixMilli(); b += stepMs {
		for _, gk := range gkeys {
			vs := values[key{b, gk}]
			if vs == nil {
				vs = make([]*float64, len(series))
			}
			for i, s := range series {
				if vs[i] == nil && s.Query == "" && (s.AggFn == "count" || s.AggFn == "count_distinct" || s.AggFn == "sum") {
					zero := 0.0
					vs[i] = &zero
				}
			}
			out = append(out, Point{Bucket: b, Group: groups[gk], Values: vs})
		}
	}
	return out, nil
}

package charts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Source is the table a series reads and the columns that give it meaning.
type Source struct {
	Database, Table, TimestampColumn                    string
	BodyColumn, ServiceColumn, SeverityColumn, Duration string
	AttributesMap, ResourceMap                          string
	// MetricType tells how a metric table's values combine: gauge (as
	// is), sum (cumulative series become increases, counter resets
	// included) or histogram (quantiles from the bucket counts).
	MetricType string
	// Cluster, when set, is the ClickHouse cluster whose shards hold the
	// table: queries read it through cluster(), one replica of every
	// shard, rather than the one server they reach.
	Cluster string
}

// TableRef is how a query names a table of the source's database: itself
// on one server, through cluster() on a cluster. Names are checked plain
// identifiers (OpenScope, the store's cluster check) before they get here.
func (s Source) TableRef(table string) string {
	if s.Cluster != "" {
		return fmt.Sprintf("cluster('%s', `%s`, `%s`)", s.Cluster, s.Database, table)
	}
	return fmt.Sprintf("`%s`.`%s`", s.Database, table)
}

// Series is one line of a chart.
type Series struct {
	Source        Source
	AggFn, Field  string
	Level         float64
	Where         string
	WhereLanguage string
	GroupBy       []string
	// Query, on a metric source, is a Datadog metric query or formula
	// (ddmetrics.go); it replaces AggFn, Field, Where and GroupBy.
	Query string
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

// columns reads the source table's columns and types, from a short-lived
// cache: every chart, search histogram and alert evaluation resolves its
// source's columns, and the lookup was a query of its own on each (a
// third of a search page's time). A column added to a table is seen
// within columnsCacheFor; a table not there yet is never cached.
func columns(ctx context.Context, db *sql.DB, s Source) (map[string]string, error) {
	key := columnsKey{db, s.Database, s.Table}
	now := time.Now()
	columnsCache.Lock()
	c, ok := columnsCache.m[key]
	columnsCache.Unlock()
	if ok && now.Sub(c.at) < columnsCacheFor {
		return c.cols, nil
	}
	rows, err := db.QueryContext(clickhouse.Context(ctx, clickhouse.WithParameters(clickhouse.Parameters{"db": s.Database, "t": s.Table})),
		"SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, err
		}
		out[n] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("table %s.%s does not exist (yet)", s.Database, s.Table)
	}
	columnsCache.Lock()
	if len(columnsCache.m) > 1000 {
		clear(columnsCache.m)
	}
	columnsCache.m[key] = cachedColumns{cols: out, at: now}
	columnsCache.Unlock()
	return out, nil
}

const columnsCacheFor = 10 * time.Second

type columnsKey struct {
	db              *sql.DB
	database, table string
}

type cachedColumns struct {
	cols map[string]string
	at   time.Time
}

var columnsCache = struct {
	sync.Mutex
	m map[columnsKey]cachedColumns
}{m: map[columnsKey]cachedColumns{}}

// fields resolves names against the real columns of a source: a column by
// its name, the source's role aliases (level, service, body, duration),
// Resource.<key> in the resource map and any other name as an attribute
// (Attr.<key> explicitly); map keys are bound, never pasted.
type fields struct {
	s    Source
	cols map[string]string
}

func (f fields) column(name string) (string, bool, bool) {
	t, ok := f.cols[name]
	if !ok {
		return "", false, false
	}
	base := strings.TrimPrefix(strings.TrimPrefix(t, "LowCardinality("), "Nullable(")
	numeric := strings.HasPrefix(base, "Int") || strings.HasPrefix(base, "UInt") || strings.HasPrefix(base, "Float") || strings.HasPrefix(base, "Decimal")
	return "`" + name + "`", numeric, true
}

func (f fields) Resolve(name string, p *Params) (string, bool, error) {
	r, err := f.resolve(name, p)
	return r.expr, r.numeric, err
}

// IsText reports whether name resolves to a plain String: a String or
// LowCardinality(String) column, or a lookup in a map of Strings.
func (f fields) IsText(name string) bool {
	r, err := f.resolve(name, &Params{})
	return err == nil && r.text
}

// resolved is a field name as SQL, with what it holds.
type resolved struct {
	expr          string
	numeric, text bool
}

func (f fields) named(col string) (resolved, bool) {
	e, num, ok := f.column(col)
	t := f.cols[col]
	return resolved{expr: e, numeric: num, text: t == "String" || t == "LowCardinality(String)"}, ok
}

// lookup is col[key], a String when col is a map of Strings.
func (f fields) lookup(col, key string, p *Params) (resolved, bool) {
	e, _, ok := f.column(col)
	return resolved{expr: e + "[" + p.Add(key, "String") + "]", text: strings.HasSuffix(f.cols[col], ", String)")}, ok
}

func (f fields) resolve(name string, p *Params) (resolved, error) {
	if r, ok := f.named(name); ok {
		return r, nil
	}
	alias := map[string]string{"level": f.s.SeverityColumn, "severity": f.s.SeverityColumn, "service": f.s.ServiceColumn,
		"body": f.s.BodyColumn, "message": f.s.BodyColumn, "duration": f.s.Duration}
	if c := alias[strings.ToLower(name)]; c != "" {
		if r, ok := f.named(c); ok {
			return r, nil
		}
	}
	// <map column>.<key>, as HyperDX writes them (LogAttributes.http.method,
	// ResourceAttributes.host.name), for every map column of the table.
	if col, k, ok := strings.Cut(name, "."); ok && k != "" && strings.HasPrefix(f.cols[col], "Map(") {
		r, _ := f.lookup(col, k, p)
		return r, nil
	}
	if k, ok := strings.CutPrefix(name, "Resource."); ok && f.s.ResourceMap != "" {
		if r, ok := f.lookup(f.s.ResourceMap, k, p); ok {
			return r, nil
		}
	}
	if primary, present, secondary, ok := f.Fallback(name, p); ok {
		return resolved{expr: "if(" + present + ", " + primary + ", " + secondary + ")", text: true}, nil
	}
	k := strings.TrimPrefix(name, "Attr.")
	if k != "" && f.s.AttributesMap != "" {
		if r, ok := f.lookup(f.s.AttributesMap, k, p); ok {
			return r, nil
		}
	}
	return resolved{}, fmt.Errorf("unknown field %q", name)
}

// Fallback resolves a bare key (no column, alias, map prefix, Attr. or
// Resource.) of a source with both maps: the record attributes' value
// when they have the key, else the resource attributes', so host.name
// finds what the exporter keeps in ResourceAttributes.
func (f fields) Fallback(name string, p *Params) (primary, present, secondary string, ok bool) {
	if _, _, isCol := f.column(name); isCol || f.s.AttributesMap == "" || f.s.ResourceMap == "" ||
		strings.HasPrefix(name, "Attr.") || strings.HasPrefix(name, "Resource.") {
		return "", "", "", false
	}
	switch strings.ToLower(name) {
	case "level", "severity", "service", "body", "message", "duration":
		return "", "", "", false
	}
	if col, k, cut := strings.Cut(name, "."); cut && k != "" && strings.HasPrefix(f.cols[col], "Map(") {
		return "", "", "", false
	}
	a, _, okA := f.column(f.s.AttributesMap)
	r, _, okR := f.column(f.s.ResourceMap)
	if !okA || !okR {
		return "", "", "", false
	}
	key := p.Add(name, "String")
	return a + "[" + key + "]", "mapContains(" + a + ", " + key + ")", r + "[" + key + "]", true
}

// Folds makes the severity field match without regard to case.
func (f fields) Folds(name string) bool {
	if f.s.SeverityColumn == "" {
		return false
	}
	n := strings.ToLower(name)
	return n == "level" || n == "severity" || name == f.s.SeverityColumn
}

func (f fields) Body() string {
	if e, _, ok := f.column(f.s.BodyColumn); ok {
		return e
	}
	return "''"
}

func where(ctx context.Context, db *sql.DB, s Series, f fields, p *Params) (string, error) {
	return condition(ctx, db, s.WhereLanguage, s.Where, f, p)
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

func aggregate(s Series, f fields, p *Params, ts string) (string, error) {
	if s.AggFn == "count" {
		return "toFloat64(count())", nil
	}
	if s.Field == "" {
		return "", fmt.Errorf("aggFn %s needs a field", s.AggFn)
	}
	e, numeric, err := f.Resolve(s.Field, p)
	if err != nil {
		return "", err
	}
	num := e
	if !numeric {
		num = "toFloat64OrNull(toString(" + e + "))"
	}
	switch s.AggFn {
	case "count_distinct":
		return "toFloat64(uniqExact(" + e + "))", nil
	case "sum", "avg", "min", "max":
		return "toFloat64(" + s.AggFn + "(" + num + "))", nil
	case "quantile":
		if !(s.Level > 0 && s.Level < 1) {
			return "", fmt.Errorf("quantile needs a level between 0 and 1")
		}
		return "toFloat64(quantile(" + strconv.FormatFloat(s.Level, 'f', -1, 64) + ")(" + num + "))", nil
	case "last_value":
		return "toFloat64(argMax(" + num + ", " + ts + "))", nil
	}
	return "", fmt.Errorf("aggFn must be one of count, count_distinct, sum, avg, min, max, quantile, last_value, got %q", s.AggFn)
}

// QueryError is a request the chart engine cannot express (unknown field,
// bad where, wrong function): the caller's mistake, not the database's.
type QueryError struct{ error }

// Build writes the SQL of one series over [start, end) in buckets of step.
func Build(ctx context.Context, db *sql.DB, s Series, start, end time.Time, step time.Duration) (string, clickhouse.Parameters, error) {
	src := s.Source
	scope, err := OpenScope(ctx, db, src)
	if err != nil {
		return "", nil, err
	}
	f, ts := scope.f, scope.Timestamp
	var p Params
	agg := ""
	if !(src.MetricType == "histogram" && s.AggFn == "quantile") && !(src.MetricType == "sum" && s.AggFn == "sum") {
		if agg, err = aggregate(s, f, &p, ts); err != nil {
			return "", nil, err
		}
	} else if s.AggFn == "quantile" && !(s.Level > 0 && s.Level < 1) {
		return "", nil, fmt.Errorf("quantile needs a level between 0 and 1")
	}
	cond, err := where(ctx, db, s, f, &p)
	if err != nil {
		return "", nil, err
	}
	groups := []string{}
	for _, g := range s.GroupBy {
		e, _, err := f.Resolve(g, &p)
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

// Point is one bucket of one group, with every series' value (nil: no
// data, for the functions where 0 would lie).
type Point struct {
	Bucket int64
	Group  []string
	Values []*float64
}

// ErrTimeout is a query the engine stopped at max_execution_time.
var ErrTimeout = errors.New("query exceeded query_timeout")

// ErrQueryMemory is a query that needed more memory than one query may
// take (the engine's max_memory_usage, a share of the memory budget):
// the query must ask for less, retrying it will not help.
var ErrQueryMemory = errors.New("the query needs more memory than one query may take; narrow the time range or the filter, or group by fewer values")

// ErrEngineMemory is a query refused because the engine as a whole was at
// its memory limit (max_server_memory_usage): it may pass once the load
// does.
var ErrEngineMemory = errors.New("the engine is at its memory limit; retry shortly")

// engineError recognises the engine's timeout and memory refusals, which
// clickhouse-go over HTTP reports only as text.
func engineError(err error) error {
	// The engine's failure is kept as text (%v), not wrapped: callers
	// classify by the sentinel alone, and a wrapped context error would
	// read as the client having left.
	msg := err.Error()
	if strings.Contains(msg, "(TIMEOUT_EXCEEDED)") {
		return fmt.Errorf("%w: %v", ErrTimeout, err) //nolint:errorlint // see above
	}
	if strings.Contains(msg, "(MEMORY_LIMIT_EXCEEDED)") {
		// "Memory limit (for query) exceeded" or "(total)"; the text
		// names the limit, which the caller's message need not.
		if strings.Contains(msg, "(total)") {
			return fmt.Errorf("%w: %v", ErrEngineMemory, err) //nolint:errorlint // see above
		}
		return fmt.Errorf("%w: %v", ErrQueryMemory, err) //nolint:errorlint // see above
	}
	for _, name := range queryFaults {
		if strings.Contains(msg, "("+name+")") {
			return QueryError{err}
		}
	}
	return err
}

// queryFaults are the engine's errors that the query's text causes (a
// sql where that does not parse or mixes types, a field of the wrong
// type): the caller's to fix, not the server's.
var queryFaults = []string{
	"SYNTAX_ERROR", "UNKNOWN_IDENTIFIER", "UNKNOWN_FUNCTION", "ILLEGAL_TYPE_OF_ARGUMENT", "NUMBER_OF_ARGUMENTS_DOESNT_MATCH",
	"TYPE_MISMATCH", "NO_COMMON_TYPE", "CANNOT_CONVERT_TYPE", "CANNOT_PARSE_TEXT", "CANNOT_PARSE_NUMBER",
	"CANNOT_PARSE_DATE", "CANNOT_PARSE_DATETIME", "BAD_ARGUMENTS", "ARGUMENT_OUT_OF_BOUND", "ILLEGAL_COLUMN",
	"ILLEGAL_AGGREGATION", "NOT_AN_AGGREGATE", "TOO_DEEP_AST", "TOO_BIG_AST", "TOO_DEEP_RECURSION",
}

// MaxPoints bounds an answer, buckets × groups: grouped by a value with
// millions of distinct values (a trace or user id), the filled answer
// would otherwise hold every one of them in every bucket.
const MaxPoints = 200_000

func tooManyPoints(buckets, groups int) error {
	return QueryError{fmt.Errorf("the answer would hold more than %d points (%d buckets × %d or more groups); group by fewer values, filter, or pick a coarser granularity",
		MaxPoints, buckets, groups)}
}

// UserQuerySettings are the settings of every query that carries a
// user's text (a where, a field name). readonly=2 is the engine's own
// guarantee behind the where check: such a query writes nothing, creates
// nothing and changes no server state, whatever got past the check.
// (readonly=1 would also refuse the request's own settings below.)
func UserQuerySettings(timeout time.Duration) clickhouse.Settings {
	return clickhouse.Settings{
		"readonly":           2,
		"max_execution_time": int(math.Ceil(timeout.Seconds())),
		// A ClickHouse server keeps running an HTTP query whose client
		// hung up unless told otherwise.
		"cancel_http_readonly_queries_on_client_close": 1,
	}
}

// Run executes the series and lines their results up on shared buckets,
// every bucket of the range present: count, count_distinct and sum fill
// gaps with 0, the others with null.
func Run(ctx context.Context, db *sql.DB, series []Series, start, end time.Time, step time.Duration, timeout time.Duration) ([]Point, error) {
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
			return nil, QueryError{fmt.Errorf("series %d: %w", i, err)}
		}
		qctx := clickhouse.Context(ctx, clickhouse.WithParameters(params), clickhouse.WithSettings(UserQuerySettings(timeout)))
		rows, err := db.QueryContext(qctx, q)
		if err != nil {
			return nil, fmt.Errorf("series %d: %w", i, engineError(err))
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
			return nil, fmt.Errorf("series %d: %w", i, engineError(err))
		}
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

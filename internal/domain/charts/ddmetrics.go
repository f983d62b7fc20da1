package charts

// Datadog metric queries on metric sources (a series' Query):
//
//	avg:system.cpu.user{host:web-1,env:prod} by {host}.rollup(avg, 60).fill(zero)
//	sum:trace.http.request.hits{service:web}.as_rate() / sum:trace.http.request.hits{*}.as_rate() * 100
//	top(avg:system.load.1{*} by {host}, 5, 'mean', 'desc')
//
// A metric query is read as Datadog does: each timeseries (a tag set)
// is first rolled up in time, per bucket (avg for gauges, sum for counts
// and rates, or .rollup's method), then aggregated in space across the
// series of each by {…} group (the leading avg/sum/min/max). Tags
// resolve as in the Datadog where language: host, env, version, service
// and the Agent's known tags where the receiver puts them, others as
// data point attributes, then resource attributes. Formulas (+ - * /,
// numbers, parentheses) and top() combine the queries' answers in Go.
// Histogram metrics take Datadog's distribution aggregators too
// (p50:http.server.duration{*}; ddhistograms.go).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// ddExpr is a parsed formula: a metric query, a number, an operation on
// two formulas or top() of one.
type ddExpr struct {
	op          byte    // 0 metric, 'n' number, '+', '-', '*', '/', 't' top, 's' timeshift, 'a' anomalies/forecast, 'f' arithmetic function
	num         float64 // a number, or a timeshift's seconds (ddtimeshift.go)
	left, right *ddExpr
	q           *ddMetricQuery
	// top(…, N, by, dir)
	topN    int
	topBy   string
	topDesc bool
	alg     *ddAlgorithm // op 'a': anomalies(…) or forecast(…) of left (ddanomalies.go)
}

// ddMetricQuery is one agg:metric{filter} by {tags}.functions().
type ddMetricQuery struct {
	space, metric string
	filter        *query.TagFilter // nil: {*}
	by            []string
	asRate        bool
	asCount       bool
	rollup        string // avg sum min max count, "" the type's default
	rollupSeconds int
	fill          string // "", null, zero, last
}

var ddSpaceAggs = []string{"avg", "sum", "min", "max", "p50", "p75", "p90", "p95", "p99"}

// ddPercentiles are the space aggregators Datadog gives distributions:
// a percentile of every value the group's points hold in the bucket,
// read from their histogram buckets.
var (
	ddPercentiles = map[string]float64{"p50": 0.5, "p75": 0.75, "p90": 0.9, "p95": 0.95, "p99": 0.99}
	ddRollups     = []string{"avg", "sum", "min", "max", "count"}
	ddTopBy       = []string{"mean", "min", "max", "last", "sum", "area", "l2norm", "norm"}
)

// ParseDatadogMetric parses a metric query or formula; its errors say
// where and why.
func ParseDatadogMetric(q string) (*ddExpr, error) { //nolint:revive // the expression is only rendered by this package
	if err := query.CheckWhere(q); err != nil {
		return nil, err
	}
	mp := &mparser{s: q}
	e, err := mp.expr()
	if err != nil {
		return nil, err
	}
	mp.blank()
	if mp.i < len(mp.s) {
		return nil, fmt.Errorf("unexpected %q at position %d", mp.s[mp.i:mp.i+1], mp.i)
	}
	return e, nil
}

type mparser struct {
	s      string
	i      int
	depth  int
	leaves int
}

func (mp *mparser) blank() {
	for mp.i < len(mp.s) && (mp.s[mp.i] == ' ' || mp.s[mp.i] == '\t' || mp.s[mp.i] == '\n' || mp.s[mp.i] == '\r') {
		mp.i++
	}
}

func (mp *mparser) peek() byte {
	mp.blank()
	if mp.i < len(mp.s) {
		return mp.s[mp.i]
	}
	return 0
}

func (mp *mparser) expect(c byte) error {
	if mp.peek() != c {
		return fmt.Errorf("expected %q at position %d", c, mp.i)
	}
	mp.i++
	return nil
}

const maxMetricLeaves = 20

func (mp *mparser) expr() (*ddExpr, error) {
	if mp.depth++; mp.depth > query.MaxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", query.MaxDepth)
	}
	defer func() { mp.depth-- }()
	l, err := mp.product()
	if err != nil {
		return nil, err
	}
	for c := mp.peek(); c == '+' || c == '-'; c = mp.peek() {
		mp.i++
		r, err := mp.product()
		if err != nil {
			return nil, err
		}
		l = &ddExpr{op: c, left: l, right: r}
	}
	return l, nil
}

func (mp *mparser) product() (*ddExpr, error) {
	l, err := mp.factor()
	if err != nil {
		return nil, err
	}
	for c := mp.peek(); c == '*' || c == '/'; c = mp.peek() {
		mp.i++
		r, err := mp.factor()
		if err != nil {
			return nil, err
		}
		l = &ddExpr{op: c, left: l, right: r}
	}
	return l, nil
}

// word reads a name: letters, digits, _ and . (a metric name, a
// function, an aggregator).
func (mp *mparser) word() string {
	mp.blank()
	start := mp.i
	for mp.i < len(mp.s) {
		c := mp.s[mp.i]
		if c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			mp.i++
			continue
		}
		break
	}
	return mp.s[start:mp.i]
}

func (mp *mparser) factor() (*ddExpr, error) {
	if mp.depth++; mp.depth > query.MaxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", query.MaxDepth)
	}
	defer func() { mp.depth-- }()
	switch c := mp.peek(); {
	case c == 0:
		return nil, fmt.Errorf("incomplete query at the end")
	case c == '(':
		mp.i++
		e, err := mp.expr()
		if err != nil {
			return nil, err
		}
		return e, mp.expect(')')
	case c == '-':
		mp.i++
		e, err := mp.factor()
		return &ddExpr{op: '-', left: &ddExpr{op: 'n'}, right: e}, err
	case c >= '0' && c <= '9':
		start := mp.i
		w := mp.word()
		n, err := strconv.ParseFloat(w, 64)
		if err != nil {
			if mp.peek() == ':' || mp.peek() == '{' {
				mp.i = start
				return mp.metric()
			}
			return nil, fmt.Errorf("%q at position %d is not a number", w, start)
		}
		return &ddExpr{op: 'n', num: n}, nil
	}
	start := mp.i
	w := mp.word()
	if w == "top" && mp.peek() == '(' {
		return mp.top()
	}
	if isTimeshift(w) && mp.peek() == '(' {
		return mp.timeshift(w)
	}
	if (w == "anomalies" || w == "forecast") && mp.peek() == '(' {
		return mp.algorithm(w)
	}
	if isArith(w) && mp.peek() == '(' {
		return mp.arith(w)
	}
	mp.i = start
	return mp.metric()
}

// top(query, N, 'mean', 'desc').
func (mp *mparser) top() (*ddExpr, error) {
	mp.i++ // (
	e, err := mp.expr()
	if err != nil {
		return nil, err
	}
	t := &ddExpr{op: 't', left: e, topN: 10, topBy: "mean", topDesc: true}
	args := []string{}
	for mp.peek() == ',' {
		mp.i++
		mp.blank()
		if mp.peek() == '\'' || mp.peek() == '"' {
			q := mp.s[mp.i]
			end := strings.IndexByte(mp.s[mp.i+1:], q)
			if end < 0 {
				return nil, fmt.Errorf("quote at position %d is not closed", mp.i)
			}
			args = append(args, mp.s[mp.i+1:mp.i+1+end])
			mp.i += end + 2
			continue
		}
		args = append(args, mp.word())
	}
	if err := mp.expect(')'); err != nil {
		return nil, err
	}
	if len(args) > 3 {
		return nil, fmt.Errorf("top takes a query, a count, a ranking and an order")
	}
	if len(args) > 0 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 || n > 100 {
			return nil, fmt.Errorf("top's count must be 1 to 100, got %q", args[0])
		}
		t.topN = n
	}
	if len(args) > 1 {
		if !slices.Contains(ddTopBy, args[1]) {
			return nil, fmt.Errorf("top ranks by one of %s, got %q", strings.Join(ddTopBy, ", "), args[1])
		}
		t.topBy = args[1]
	}
	if len(args) > 2 {
		if args[2] != "asc" && args[2] != "desc" {
			return nil, fmt.Errorf("top's order is asc or desc, got %q", args[2])
		}
		t.topDesc = args[2] == "desc"
	}
	return t, nil
}

// metric reads agg:name{filter} by {tags} and its .functions().
func (mp *mparser) metric() (*ddExpr, error) {
	if mp.leaves++; mp.leaves > maxMetricLeaves {
		return nil, fmt.Errorf("a formula holds at most %d metric queries", maxMetricLeaves)
	}
	at := mp.i
	q := &ddMetricQuery{space: "avg"}
	w := mp.word()
	if mp.peek() == ':' {
		if !slices.Contains(ddSpaceAggs, w) {
			return nil, fmt.Errorf("space aggregator at position %d must be one of %s, got %q", at, strings.Join(ddSpaceAggs, ", "), w)
		}
		q.space = w
		mp.i++
		w = mp.word()
	}
	if w == "" {
		return nil, fmt.Errorf("expected a metric name at position %d", mp.i)
	}
	q.metric = w
	if err := mp.expect('{'); err != nil {
		return nil, fmt.Errorf("%s: a metric needs a tag filter, {*} for all: %w", w, err)
	}
	if mp.peek() == '*' {
		mp.i++
	} else {
		f, err := mp.filterOr()
		if err != nil {
			return nil, err
		}
		q.filter = f
	}
	if err := mp.expect('}'); err != nil {
		return nil, err
	}
	for {
		save := mp.i
		switch w := mp.word(); {
		case w == "by" && mp.peek() == '{':
			mp.i++
			for {
				t := mp.tagWord()
				if t == "" {
					return nil, fmt.Errorf("by {…} needs tag names, at position %d", mp.i)
				}
				q.by = append(q.by, t)
				if mp.peek() != ',' {
					break
				}
				mp.i++
			}
			if err := mp.expect('}'); err != nil {
				return nil, err
			}
		case w == "" && mp.peek() == '.':
			mp.i++
			if err := mp.function(q); err != nil {
				return nil, err
			}
		case strings.HasPrefix(w, ".") && len(w) > 1:
			// The word reader takes the dot with the name.
			mp.i = save
			mp.blank()
			mp.i++
			if err := mp.function(q); err != nil {
				return nil, err
			}
		default:
			mp.i = save
			return &ddExpr{q: q}, nil
		}
	}
}

func (mp *mparser) function(q *ddMetricQuery) error {
	at := mp.i
	name := strings.TrimLeft(mp.word(), ".")
	if err := mp.expect('('); err != nil {
		return fmt.Errorf(".%s: %w", name, err)
	}
	var args []string
	for mp.peek() != ')' && mp.peek() != 0 {
		a := strings.Trim(mp.word(), ".")
		if a == "" {
			return fmt.Errorf(".%s: unexpected %q at position %d", name, mp.s[mp.i:mp.i+1], mp.i)
		}
		args = append(args, a)
		if mp.peek() == ',' {
			mp.i++
		}
	}
	if err := mp.expect(')'); err != nil {
		return err
	}
	switch name {
	case "as_count", "as_rate":
		if len(args) > 0 {
			return fmt.Errorf(".%s() takes no arguments", name)
		}
		q.asCount, q.asRate = name == "as_count", name == "as_rate"
	case "rollup":
		for _, a := range args {
			if n, err := strconv.Atoi(a); err == nil {
				if n < 1 || n > 31*24*3600 {
					return fmt.Errorf(".rollup's interval must be 1 s to 31 days, got %d", n)
				}
				q.rollupSeconds = n
			} else if slices.Contains(ddRollups, a) {
				q.rollup = a
			} else {
				return fmt.Errorf(".rollup takes one of %s and an interval in seconds, got %q", strings.Join(ddRollups, ", "), a)
			}
		}
		if len(args) == 0 || len(args) > 2 {
			return fmt.Errorf(".rollup takes a method, an interval or both")
		}
	case "fill":
		if len(args) == 0 || len(args) > 2 || !slices.Contains([]string{"null", "zero", "last", "linear"}, args[0]) {
			return fmt.Errorf(".fill takes null, zero, last or linear (and a limit in seconds)")
		}
		q.fill = args[0]
		if q.fill == "linear" {
			q.fill = "last" // the nearest we draw: the gap holds the last value
		}
	default:
		return fmt.Errorf("unknown function .%s at position %d (known: as_count, as_rate, rollup, fill)", name, at)
	}
	return nil
}

// tagWord reads a tag key or value: anything but blanks, commas, braces,
// parentheses and (for keys) the colon, which the caller handles.
func (mp *mparser) tagWord() string {
	mp.blank()
	start := mp.i
	for mp.i < len(mp.s) && !strings.ContainsRune(" \t\r\n,{}()!:", rune(mp.s[mp.i])) {
		mp.i++
	}
	return mp.s[start:mp.i]
}

// filterOr reads a tag filter: comma (or AND) joined terms, OR, NOT or
// !, parentheses, key:value, key IN (a, b), key NOT IN (a, b).
func (mp *mparser) filterOr() (*query.TagFilter, error) {
	if mp.depth++; mp.depth > query.MaxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", query.MaxDepth)
	}
	defer func() { mp.depth-- }()
	first, err := mp.filterAnd()
	if err != nil {
		return nil, err
	}
	parts := []*query.TagFilter{first}
	for mp.keywordAhead("OR") {
		mp.i += 2
		f, err := mp.filterAnd()
		if err != nil {
			return nil, err
		}
		parts = append(parts, f)
	}
	if len(parts) == 1 {
		return first, nil
	}
	return &query.TagFilter{Op: "or", Parts: parts}, nil
}

func (mp *mparser) keywordAhead(w string) bool {
	mp.blank()
	if !strings.HasPrefix(mp.s[mp.i:], w) {
		return false
	}
	n := mp.i + len(w)
	return n < len(mp.s) && strings.ContainsRune(" \t\r\n(", rune(mp.s[n]))
}

func (mp *mparser) filterAnd() (*query.TagFilter, error) {
	first, err := mp.filterNot()
	if err != nil {
		return nil, err
	}
	parts := []*query.TagFilter{first}
	for mp.peek() == ',' || mp.keywordAhead("AND") {
		if mp.peek() == ',' {
			mp.i++
		} else {
			mp.i += 3
		}
		f, err := mp.filterNot()
		if err != nil {
			return nil, err
		}
		parts = append(parts, f)
	}
	if len(parts) == 1 {
		return first, nil
	}
	return &query.TagFilter{Op: "and", Parts: parts}, nil
}

func (mp *mparser) filterNot() (*query.TagFilter, error) {
	if mp.depth++; mp.depth > query.MaxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", query.MaxDepth)
	}
	defer func() { mp.depth-- }()
	if mp.peek() == '!' || mp.peek() == '-' {
		mp.i++
		f, err := mp.filterNot()
		return &query.TagFilter{Op: "not", Parts: []*query.TagFilter{f}}, err
	}
	if mp.keywordAhead("NOT") {
		mp.i += 3
		f, err := mp.filterNot()
		return &query.TagFilter{Op: "not", Parts: []*query.TagFilter{f}}, err
	}
	if mp.peek() == '(' {
		mp.i++
		f, err := mp.filterOr()
		if err != nil {
			return nil, err
		}
		return f, mp.expect(')')
	}
	at := mp.i
	key := mp.tagWord()
	if key == "" {
		return nil, fmt.Errorf("expected a tag at position %d", at)
	}
	if mp.peek() == ':' {
		mp.i++
		v := mp.tagWord()
		if v == "" {
			return nil, fmt.Errorf("tag %s: has no value at position %d", key, mp.i)
		}
		return &query.TagFilter{Op: "leaf", Key: key, Value: v}, nil
	}
	not := false
	if mp.keywordAhead("NOT") {
		save := mp.i
		mp.i += 3
		if !mp.keywordAhead("IN") {
			mp.i = save
			return &query.TagFilter{Op: "leaf", Key: key}, nil
		}
		not = true
	}
	if mp.keywordAhead("IN") {
		mp.i += 2
		if err := mp.expect('('); err != nil {
			return nil, err
		}
		f := &query.TagFilter{Op: "leaf", Key: key, IsList: true}
		for {
			v := mp.tagWord()
			if v == "" {
				return nil, fmt.Errorf("%s IN (…) needs values, at position %d", key, mp.i)
			}
			f.Values = append(f.Values, v)
			if mp.peek() != ',' {
				break
			}
			mp.i++
		}
		if err := mp.expect(')'); err != nil {
			return nil, err
		}
		if not {
			return &query.TagFilter{Op: "not", Parts: []*query.TagFilter{f}}, nil
		}
		return f, nil
	}
	// A bare tag: the Agent sends it as a key with an empty value.
	return &query.TagFilter{Op: "leaf", Key: key}, nil
}

// ddSeries is one answer of a formula: per group, per bucket, a value.
type ddSeries struct {
	by     []string
	groups map[string][]string           // key → labels
	values map[string]map[int64]*float64 // key → bucket → value
}

// metricTables are where the exporter keeps each metric type: a query
// looks in the series' table first, then in these of its database
// (gauges, counts and sketches are in different tables; a Datadog user
// names the metric, not its table). The metrics explorer lists them.
var metricTables = []struct{ table, typ string }{
	{"otel_metrics_gauge", "gauge"},
	{"otel_metrics_sum", "sum"},
	{"otel_metrics_histogram", "histogram"},
	{"otel_metrics_exponential_histogram", "exponential_histogram"},
	{"otel_metrics_summary", "summary"},
}

// RunDatadogMetric evaluates a series' Query over [start, end) in
// buckets of step.
func runDatadogMetric(ctx context.Context, db *sql.DB, s Series, start, end time.Time, step, timeout time.Duration) (*ddSeries, error) {
	if s.Source.MetricType == "" {
		return nil, query.Mistake(fmt.Errorf("a Datadog metric query needs a metric source"))
	}
	e, err := ParseDatadogMetric(s.Query)
	if err != nil {
		return nil, query.Mistake(fmt.Errorf("query: %w", err))
	}
	ev := &ddEval{ctx: ctx, db: db, src: s.Source, start: start, end: end, step: step, timeout: timeout}
	return ev.eval(e)
}

type ddEval struct {
	ctx        context.Context
	db         *sql.DB
	src        query.Source
	start, end time.Time
	step       time.Duration
	timeout    time.Duration
}

func (ev *ddEval) buckets() []int64 {
	stepMs := ev.step.Milliseconds()
	var out []int64
	for b := ev.start.UnixMilli() / stepMs * stepMs; b < ev.end.UnixMilli(); b += stepMs {
		out = append(out, b)
	}
	return out
}

func (ev *ddEval) eval(e *ddExpr) (*ddSeries, error) {
	switch e.op {
	case 0:
		return ev.query(e.q)
	case 'n':
		v := e.num
		out := &ddSeries{groups: map[string][]string{"": {}}, values: map[string]map[int64]*float64{"": {}}}
		for _, b := range ev.buckets() {
			out.values[""][b] = &v
		}
		return out, nil
	case 't':
		in, err := ev.eval(e.left)
		if err != nil {
			return nil, err
		}
		return topOf(in, e.topN, e.topBy, e.topDesc), nil
	case 's':
		return ev.shifted(e)
	case 'a':
		return ev.algorithm(e)
	case 'f':
		return ev.arith(e)
	}
	l, err := ev.eval(e.left)
	if err != nil {
		return nil, err
	}
	r, err := ev.eval(e.right)
	if err != nil {
		return nil, err
	}
	return combine(l, r, e.op)
}

// combine applies an operator bucket by bucket, group by group: a side
// with no by {…} applies to every group of the other; two grouped sides
// must group by the same tags and meet on equal groups.
func combine(l, r *ddSeries, op byte) (*ddSeries, error) {
	if len(l.by) > 0 && len(r.by) > 0 && !slices.Equal(l.by, r.by) {
		return nil, query.Mistake(fmt.Errorf("a formula's queries group by different tags (%s and %s)", strings.Join(l.by, ","), strings.Join(r.by, ",")))
	}
	out := &ddSeries{by: l.by, groups: map[string][]string{}, values: map[string]map[int64]*float64{}}
	keys := l.groups
	if len(l.by) == 0 {
		out.by, keys = r.by, r.groups
	}
	side := func(s *ddSeries, k string) map[int64]*float64 {
		if len(s.by) == 0 {
			return s.values[""]
		}
		return s.values[k]
	}
	for k, labels := range keys {
		lv, rv := side(l, k), side(r, k)
		if lv == nil || rv == nil {
			continue
		}
		vals := map[int64]*float64{}
		for b, a := range lv {
			c := rv[b]
			if a == nil || c == nil {
				continue
			}
			var v float64
			switch op {
			case '+':
				v = *a + *c
			case '-':
				v = *a - *c
			case '*':
				v = *a * *c
			case '/':
				if *c == 0 {
					continue
				}
				v = *a / *c
			}
			vals[b] = &v
		}
		out.groups[k], out.values[k] = labels, vals
	}
	return out, nil
}

// topOf keeps the n groups ranked first by the summary of their values.
func topOf(in *ddSeries, n int, by string, desc bool) *ddSeries {
	type ranked struct {
		key   string
		score float64
	}
	var rs []ranked
	for k, vals := range in.values {
		var sum, sq, minV, maxV, last float64
		var lastB int64 = math.MinInt64
		cnt := 0
		minV, maxV = math.Inf(1), math.Inf(-1)
		for b, v := range vals {
			if v == nil {
				continue
			}
			cnt++
			sum += *v
			sq += *v * *v
			minV, maxV = math.Min(minV, *v), math.Max(maxV, *v)
			if b > lastB {
				lastB, last = b, *v
			}
		}
		if cnt == 0 {
			continue
		}
		score := sum / float64(cnt)
		switch by {
		case "min":
			score = minV
		case "max":
			score = maxV
		case "last":
			score = last
		case "sum", "area":
			score = sum
		case "l2norm", "norm":
			score = math.Sqrt(sq)
		}
		rs = append(rs, ranked{k, score})
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].score != rs[j].score {
			return (rs[i].score > rs[j].score) == desc
		}
		return rs[i].key < rs[j].key
	})
	out := &ddSeries{by: in.by, groups: map[string][]string{}, values: map[string]map[int64]*float64{}}
	for i, r := range rs {
		if i == n {
			break
		}
		out.groups[r.key], out.values[r.key] = in.groups[r.key], in.values[r.key]
	}
	return out
}

// table finds the table holding the metric: the series' own, else the
// exporter's metric table of its database that has it (found false:
// none has, the series' own is answered).
func (ev *ddEval) table(metric string) (src query.Source, found bool, err error) {
	cands := []query.Source{ev.src}
	for _, t := range metricTables {
		if t.table != ev.src.Table {
			s := ev.src
			s.Table, s.MetricType = t.table, t.typ
			cands = append(cands, s)
		}
	}
	for _, s := range cands {
		scope, err := query.OpenScope(ev.ctx, ev.db, s)
		if err != nil {
			continue
		}
		mc, ok := scope.Column("MetricName")
		if !ok {
			continue
		}
		var p query.Params
		m := p.Add(metric, "String")
		var one int
		err = ev.db.QueryRowContext(clickhouse.Context(ev.ctx, clickhouse.WithParameters(p.Values),
			clickhouse.WithSettings(query.UserQuerySettings(ev.timeout))),
			"SELECT 1 FROM "+scope.From+" WHERE "+mc+" = "+m+" LIMIT 1").Scan(&one)
		if err == nil {
			return s, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return query.Source{}, false, query.EngineError(err)
		}
	}
	return ev.src, false, nil
}

// query runs one metric query: rolled up per series and bucket, then
// aggregated per group.
func (ev *ddEval) query(q *ddMetricQuery) (*ddSeries, error) {
	src, found, err := ev.table(q.metric)
	if err != nil {
		return nil, err
	}
	scope, err := query.OpenScope(ev.ctx, ev.db, src)
	if err != nil {
		return nil, err
	}
	distribution := src.MetricType == "histogram" || src.MetricType == "exponential_histogram"
	if _, ok := scope.Column("Value"); !ok && !distribution {
		return nil, query.Mistake(fmt.Errorf("%s has no Value column: Datadog metric queries read gauges, sums and histograms", src.Table))
	}
	if _, pct := ddPercentiles[q.space]; pct && !distribution {
		if found {
			return nil, query.Mistake(fmt.Errorf("%s:%s: percentiles read histogram metrics (distributions); %s is a %s", q.space, q.metric, q.metric, src.MetricType))
		}
		// No table has the metric: no data, as for any other aggregator.
		out := &ddSeries{by: q.by, groups: map[string][]string{}, values: map[string]map[int64]*float64{}}
		if len(q.by) == 0 {
			out.groups[""], out.values[""] = []string{}, map[int64]*float64{}
		}
		ev.fill(out, q.fill)
		return out, nil
	}
	var p query.Params
	cond := "1"
	if q.filter != nil {
		if cond, err = scope.TagFilter(q.filter, &p); err != nil {
			return nil, err
		}
	}
	var groups []string
	for _, t := range q.by {
		g, err := scope.TagValue(t, &p)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	grp := "CAST([] AS Array(String))"
	if len(groups) > 0 {
		grp = "[" + strings.Join(groups, ", ") + "]"
	}
	step := ev.step
	if r := time.Duration(q.rollupSeconds) * time.Second; r > step {
		// A coarser rollup than the chart's buckets: its buckets, on the
		// chart's grid. (A finer one is the chart's, as Datadog too
		// overrides a rollup that would give too many points.)
		step = (r + ev.step - 1) / ev.step * ev.step
	}
	secs := int64(step / time.Second)
	ts := scope.Timestamp
	bucket := fmt.Sprintf("toUInt64(toUnixTimestamp(toStartOfInterval(toDateTime(%s), INTERVAL %d SECOND))) * 1000", ts, secs)
	startP, endP := p.Add(strconv.FormatInt(ev.start.UnixMilli(), 10), "Int64"), p.Add(strconv.FormatInt(ev.end.UnixMilli(), 10), "Int64")
	metric := p.Add(q.metric, "String")
	if distribution {
		return ev.distribution(q, src, scope, &p, bucket, grp, metric, startP, endP, cond)
	}
	counter := src.MetricType == "sum"
	rollup := q.rollup
	if rollup == "" {
		rollup = "avg"
		if counter {
			rollup = "sum"
		}
	}
	value := "Value"
	from := scope.From
	where := fmt.Sprintf("MetricName = %[1]s AND %[2]s >= fromUnixTimestamp64Milli(%[3]s) AND %[2]s < fromUnixTimestamp64Milli(%[4]s) AND %[5]s", metric, ts, startP, endP, cond)
	if _, ok := scope.Column("AggregationTemporality"); ok && counter {
		// Cumulative points count their increase over the point before
		// (a drop is a reset), as the chart's sum does; Datadog's counts
		// and rates arrive as deltas and count as they are.
		prev := p.Add(strconv.FormatInt(ev.start.Add(-step).UnixMilli(), 10), "Int64")
		from = fmt.Sprintf("(SELECT *, if(AggregationTemporality = 2, if(Value >= __prev, Value - __prev, Value), Value) AS __increase FROM"+
			" (SELECT *, lagInFrame(Value, 1, Value) OVER (PARTITION BY MetricName, ServiceName, toString(Attributes), toString(ResourceAttributes)"+
			" ORDER BY %[1]s ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS __prev FROM %[2]s"+
			" WHERE MetricName = %[3]s AND %[1]s >= fromUnixTimestamp64Milli(%[4]s) AND %[1]s < fromUnixTimestamp64Milli(%[5]s)))", ts, scope.From, metric, prev, endP)
		value = "__increase"
	}
	timeAgg := map[string]string{"avg": "avg", "sum": "sum", "min": "min", "max": "max", "count": "count"}[rollup]
	inner := timeAgg + "(" + value + ")"
	if rollup == "count" {
		inner = "count()"
	}
	if counter && q.asRate {
		inner = "(" + inner + ") / " + strconv.FormatInt(secs, 10)
	}
	// Every part is a parsed metric query's checked name, a function from
	// a fixed table, or a bound parameter's placeholder: no user text.
	sqlText := fmt.Sprintf("SELECT bucket, grp, toFloat64(%[1]s(v)) FROM (SELECT %[2]s AS bucket, %[3]s AS grp, toFloat64(%[4]s) AS v FROM %[5]s WHERE %[6]s"+ //nolint:gosec // see above
		" GROUP BY bucket, grp, ServiceName, toString(Attributes), toString(ResourceAttributes)) GROUP BY bucket, grp ORDER BY bucket LIMIT %[7]d",
		q.space, bucket, grp, inner, from, where, MaxPoints+1)
	return ev.collect(q, &p, sqlText)
}

// collect runs a metric query's SQL, whose rows are (bucket, group,
// value), into its series.
func (ev *ddEval) collect(q *ddMetricQuery, p *query.Params, sqlText string) (*ddSeries, error) {
	params := clickhouse.Parameters{}
	for k, v := range p.Values {
		params[k] = v
	}
	rows, err := ev.db.QueryContext(clickhouse.Context(ev.ctx, clickhouse.WithParameters(params), clickhouse.WithSettings(query.UserQuerySettings(ev.timeout))), sqlText)
	if err != nil {
		return nil, query.EngineError(err)
	}
	defer rows.Close()
	out := &ddSeries{by: q.by, groups: map[string][]string{}, values: map[string]map[int64]*float64{}}
	for rows.Next() {
		var b uint64
		var g []string
		var v *float64
		if err := rows.Scan(&b, &g, &v); err != nil {
			return nil, err
		}
		k := strings.Join(g, "\x00")
		if out.values[k] == nil {
			if len(out.values) >= MaxPoints {
				return nil, tooManyPoints(0, len(out.values))
			}
			out.groups[k], out.values[k] = g, map[int64]*float64{}
		}
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			v = nil
		}
		out.values[k][int64(b)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, query.EngineError(err)
	}
	ev.fill(out, q.fill)
	if len(q.by) == 0 && len(out.values) == 0 {
		out.groups[""], out.values[""] = []string{}, map[int64]*float64{}
		ev.fill(out, q.fill)
	}
	return out, nil
}

// fill gives buckets without a value zero or the last value before them
// (null leaves them empty).
func (ev *ddEval) fill(s *ddSeries, how string) {
	if how != "zero" && how != "last" {
		return
	}
	for _, vals := range s.values {
		var last *float64
		for _, b := range ev.buckets() {
			v, ok := vals[b]
			switch {
			case ok && v != nil:
				last = v
			case how == "zero":
				z := 0.0
				vals[b] = &z
			case last != nil:
				vals[b] = last
			}
		}
	}
}

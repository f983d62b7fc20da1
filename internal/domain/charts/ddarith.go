package charts

// Datadog's outer arithmetic functions apply to a formula's answer, group
// by group, along its points in time order:
//
//	abs(q)  log2(q)  log10(q)             each point on its own
//	cumsum(q)  integral(q)                a running total over the range
//	diff(q)  monotonic_diff(q)  derivative(q)
//	rate(q) = per_second(q)  per_minute(q)  per_hour(q)
//
// The last two lines compare each point with the one before it, so their
// inner formula is read from one bucket before the range: the first
// bucket drawn has a point to compare with. Datadog applies them before
// its space aggregation; here they apply to the aggregated answer, which
// is the same for a query without by {…} groups of one series and an
// approximation otherwise (the difference of a sum is the sum of the
// differences, except across a series' reset or gap).

import (
	"fmt"
	"math"
	"slices"
)

// ddArithFns are the functions; an arithmetic node's num is the index of
// its function here.
var ddArithFns = []string{
	"abs", "log2", "log10", "cumsum", "integral",
	"diff", "monotonic_diff", "derivative", "rate", "per_second", "per_minute", "per_hour",
}

// ddPerUnit are the rate functions' units in seconds.
var ddPerUnit = map[string]float64{"rate": 1, "per_second": 1, "per_minute": 60, "per_hour": 3600}

func isArith(name string) bool { return slices.Contains(ddArithFns, name) }

// arith reads name(query), the name read and its parenthesis next.
func (mp *mparser) arith(name string) (*ddExpr, error) {
	mp.i++ // (
	e, err := mp.expr()
	if err != nil {
		return nil, err
	}
	if mp.peek() == ',' {
		return nil, fmt.Errorf("%s takes only a query, at position %d", name, mp.i)
	}
	if err := mp.expect(')'); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &ddExpr{op: 'f', left: e, num: float64(slices.Index(ddArithFns, name))}, nil
}

// arithName is the function of an arithmetic node.
func arithName(e *ddExpr) string { return ddArithFns[int(e.num)] }

// arith evaluates an arithmetic function node.
func (ev *ddEval) arith(e *ddExpr) (*ddSeries, error) {
	name := arithName(e)
	if unit, ok := ddPerUnit[name]; ok && e.left.op == 0 {
		// A count's points are increments already: its rate is each
		// point over its bucket's seconds, the query's own .as_rate().
		src, _, err := ev.table(e.left.q.metric)
		if err != nil {
			return nil, err
		}
		if src.MetricType == "sum" {
			q := *e.left.q
			q.asRate, q.asCount = true, false
			in, err := ev.query(&q)
			if err != nil {
				return nil, err
			}
			return mapPoints(in, func(v float64) (float64, bool) { return v * unit, true }), nil
		}
	}
	inner := *ev
	compares := slices.Index(ddArithFns, name) >= slices.Index(ddArithFns, "diff")
	if compares {
		inner.start = ev.start.Add(-ev.step)
	}
	in, err := inner.eval(e.left)
	if err != nil {
		return nil, err
	}
	switch name {
	case "abs":
		return mapPoints(in, func(v float64) (float64, bool) { return math.Abs(v), true }), nil
	case "log2", "log10":
		f := math.Log2
		if name == "log10" {
			f = math.Log10
		}
		// The logarithm of zero or less is not a number: no point.
		return mapPoints(in, func(v float64) (float64, bool) { return f(v), v > 0 }), nil
	}
	first := ev.start.UnixMilli() / ev.step.Milliseconds() * ev.step.Milliseconds()
	stepSec := ev.step.Seconds()
	out := &ddSeries{by: in.by, groups: in.groups, values: make(map[string]map[int64]*float64, len(in.values))}
	for k, vals := range in.values {
		buckets := make([]int64, 0, len(vals))
		for b, v := range vals {
			if v != nil {
				buckets = append(buckets, b)
			}
		}
		slices.Sort(buckets)
		res := make(map[int64]*float64, len(buckets))
		total := 0.0
		for i, b := range buckets {
			v := *vals[b]
			var prev float64
			var dt float64 // seconds since the point before
			if i > 0 {
				prev, dt = *vals[buckets[i-1]], float64(b-buckets[i-1])/1000
			}
			var r float64
			switch name {
			case "cumsum":
				total += v
				r = total
			case "integral":
				// Each point stands for the time since the one before
				// (its bucket, for the first).
				if i == 0 {
					dt = stepSec
				}
				total += v * dt
				r = total
			default:
				if i == 0 {
					continue
				}
				d := v - prev
				switch name {
				case "diff":
					r = d
				case "monotonic_diff":
					// A decrease is a reset: no point, as Datadog shows
					// only the positive deltas.
					if d < 0 {
						continue
					}
					r = d
				case "derivative":
					r = d / dt
				default: // the rates: the increase per unit, resets skipped
					if d < 0 {
						continue
					}
					r = d / dt * ddPerUnit[name]
				}
			}
			if b < first {
				continue
			}
			if math.IsNaN(r) || math.IsInf(r, 0) {
				continue
			}
			res[b] = &r
		}
		out.values[k] = res
	}
	return out, nil
}

// mapPoints applies f to every point of a series; f's false leaves the
// point out.
func mapPoints(in *ddSeries, f func(float64) (float64, bool)) *ddSeries {
	out := &ddSeries{by: in.by, groups: in.groups, values: make(map[string]map[int64]*float64, len(in.values))}
	for k, vals := range in.values {
		res := make(map[int64]*float64, len(vals))
		for b, v := range vals {
			if v == nil {
				continue
			}
			if r, ok := f(*v); ok && !math.IsNaN(r) && !math.IsInf(r, 0) {
				res[b] = &r
			}
		}
		out.values[k] = res
	}
	return out
}

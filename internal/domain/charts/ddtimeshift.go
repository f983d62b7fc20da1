package charts

// Datadog's timeshift functions draw a query as it was some time before:
//
//	hour_before(q)  day_before(q)  week_before(q)  month_before(q)
//	timeshift(q, -seconds)
//
// The inner query (any formula) runs over the range moved back by the
// shift, and its buckets are moved forward by it onto the chart's grid,
// so q - day_before(q) is the change from the day before, bucket by
// bucket.

import (
	"fmt"
	"strconv"
	"time"
)

// ddShifts are the named shifts. Datadog's month_before is four weeks
// (the same weekdays, unlike a calendar month).
var ddShifts = map[string]time.Duration{
	"hour_before":  time.Hour,
	"day_before":   24 * time.Hour,
	"week_before":  7 * 24 * time.Hour,
	"month_before": 28 * 24 * time.Hour,
}

// maxShift bounds timeshift's seconds: a year back is the furthest any
// retention here keeps.
const maxShift = 366 * 24 * time.Hour

func isTimeshift(name string) bool {
	_, ok := ddShifts[name]
	return ok || name == "timeshift"
}

// timeshift reads name(query) or timeshift(query, -seconds), the name
// read and its parenthesis next. The shift is kept in num, in seconds.
func (mp *mparser) timeshift(name string) (*ddExpr, error) {
	mp.i++ // (
	e, err := mp.expr()
	if err != nil {
		return nil, err
	}
	shift, named := ddShifts[name]
	if !named {
		if mp.peek() != ',' {
			return nil, fmt.Errorf("timeshift takes a query and a shift in seconds (-3600: an hour before), at position %d", mp.i)
		}
		mp.i++
		mp.blank()
		start := mp.i
		if mp.i < len(mp.s) && (mp.s[mp.i] == '-' || mp.s[mp.i] == '+') {
			mp.i++
		}
		mp.word()
		n, err := strconv.ParseInt(mp.s[start:mp.i], 10, 64)
		if err != nil || n >= 0 || n < -int64(maxShift/time.Second) {
			return nil, fmt.Errorf("timeshift's shift is a negative number of seconds up to a year (-86400: a day before), got %q", mp.s[start:mp.i])
		}
		shift = time.Duration(-n) * time.Second
	} else if mp.peek() == ',' {
		return nil, fmt.Errorf("%s takes only a query, at position %d", name, mp.i)
	}
	if err := mp.expect(')'); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &ddExpr{op: 's', left: e, num: shift.Seconds()}, nil
}

// shifted evaluates a timeshift: the inner formula over the range moved
// back, its buckets moved forward onto the chart's grid (a shift that is
// not a whole number of buckets lands each in the bucket it falls in).
func (ev *ddEval) shifted(e *ddExpr) (*ddSeries, error) {
	shift := time.Duration(e.num) * time.Second
	inner := *ev
	inner.start, inner.end = ev.start.Add(-shift), ev.end.Add(-shift)
	in, err := inner.eval(e.left)
	if err != nil {
		return nil, err
	}
	stepMs, shiftMs := ev.step.Milliseconds(), shift.Milliseconds()
	first, end := ev.start.UnixMilli()/stepMs*stepMs, ev.end.UnixMilli()
	out := &ddSeries{by: in.by, groups: in.groups, values: make(map[string]map[int64]*float64, len(in.values))}
	for k, vals := range in.values {
		moved := make(map[int64]*float64, len(vals))
		for b, v := range vals {
			nb := b + shiftMs
			nb -= ((nb % stepMs) + stepMs) % stepMs
			if nb < first || nb >= end {
				continue
			}
			moved[nb] = v
		}
		out.values[k] = moved
	}
	return out, nil
}

package charts

// Datadog's algorithm functions in metric queries, as monitors use them:
//
//	anomalies(avg:system.cpu.user{*}, 'basic', 2, direction='above', interval=60)
//	forecast(avg:system.disk.in_use{*} by {host}, 'linear', 1, history='1w', horizon='1w', bound='upper')
//
// Both read their query at a finer step than the chart's (or alert's)
// buckets, and further back than the range, and answer one value per
// bucket, so that a chart draws them and an alert compares them with its
// threshold.
//
// anomalies(q, algorithm, bounds) is, per bucket, the fraction (0 to 1)
// of q's points in it that lie outside the band expected of them: for
// each point, the median of q's points in the 60 steps before it, ±
// bounds × their robust standard deviation (1.4826 × the median absolute
// deviation). A point with fewer than 5 points before it is not judged;
// a bucket with none judged has no value. direction='above' or 'below'
// counts only one side. This is a rolling-quantile band like Datadog's
// basic algorithm, not Datadog's own computation (whose window and spread
// are not published): 'agile', 'robust' and the deprecated 'adaptive'
// learn seasonality in Datadog and are computed as basic here.
//
// forecast(q, algorithm, deviations) is, per bucket, the least-squares
// line through q's points in the history before the bucket's end
// (history, default 1w), extended horizon past it (default 0): with
// bound='upper' the highest the line reaches over the horizon plus
// deviations × the residuals' standard deviation, with 'lower' the
// lowest minus it, with 'trend' (the default) the line at the horizon's
// end. Datadog's 'linear' forecast also widens its band with the
// distance ahead and weighs recent points by its model (default, simple,
// reactive); 'seasonal' follows a season: both are this plain line here.
// horizon and bound are otelhouse's (Datadog's monitor names them in its
// time aggregation, max(next_1w), and comparator).
//
// interval (seconds, or a duration such as '60m') is the step q is read
// at: by default the bucket's sixtieth, at least a minute (anomalies), or
// a 168th of the history (forecast). Datadog's other arguments
// (alert_window, count_default_zero, seasonality, timezone, model) are
// read and left to the monitor's importer.

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// ddAlgorithm is what anomalies(…) or forecast(…) asked for.
type ddAlgorithm struct {
	fn        string // anomalies, forecast
	algorithm string // as written: basic, agile, robust, adaptive; linear, seasonal
	bounds    float64
	direction string        // anomalies: both, above, below
	interval  time.Duration // the step the query is read at; 0: derived
	history   time.Duration // forecast: how far back the line is fitted
	horizon   time.Duration // forecast: how far ahead it is read
	bound     string        // forecast: trend, upper, lower
}

const (
	// anomalyLag is how many steps before a point its band is read from;
	// anomalyMinHistory how many of them must have a value.
	anomalyLag        = 60
	anomalyMinHistory = 5
	// maxAlgorithmSteps bounds the steps the inner query is read at, per
	// group: a finer interval over a long range is made coarser.
	maxAlgorithmSteps = 20_000
	// madScale makes a median absolute deviation a standard deviation's
	// estimate (for normally distributed values).
	madScale = 1.4826
)

var (
	ddAnomalyAlgorithms  = []string{"basic", "agile", "robust", "adaptive"}
	ddForecastAlgorithms = []string{"linear", "seasonal"}
	ddAlgorithmArgs      = map[string][]string{
		"anomalies": {"direction", "alert_window", "interval", "count_default_zero", "seasonality", "timezone"},
		"forecast":  {"interval", "history", "model", "seasonality", "timezone", "horizon", "bound"},
	}
)

// algorithm reads anomalies(query, 'algorithm', bounds, key=value, …) or
// forecast(…), the name already read.
func (mp *mparser) algorithm(fn string) (*ddExpr, error) {
	mp.i++ // (
	if mp.peek() == '+' {
		mp.i++ // Datadog's editor writes "anomalies(+ avg:…)"
	}
	inner, err := mp.expr()
	if err != nil {
		return nil, err
	}
	a := &ddAlgorithm{fn: fn, bounds: 2, direction: "both", bound: "trend", history: 7 * 24 * time.Hour}
	if fn == "forecast" {
		a.bounds = 1
	}
	var pos []string
	for mp.peek() == ',' {
		mp.i++
		at := mp.i
		v, quoted, err := mp.argValue()
		if err != nil {
			return nil, err
		}
		if quoted || mp.peek() != '=' {
			if len(pos) == 2 {
				return nil, fmt.Errorf("%s takes a query, an algorithm and bounds, then key=value arguments, got %q at position %d", fn, v, at)
			}
			pos = append(pos, v)
			continue
		}
		mp.i++ // =
		val, _, err := mp.argValue()
		if err != nil {
			return nil, err
		}
		if err := a.set(v, val); err != nil {
			return nil, err
		}
	}
	if err := mp.expect(')'); err != nil {
		return nil, fmt.Errorf("%s(…): %w", fn, err)
	}
	known := ddAnomalyAlgorithms
	if fn == "forecast" {
		known = ddForecastAlgorithms
	}
	if len(pos) == 0 {
		return nil, fmt.Errorf("%s needs an algorithm (one of %s)", fn, strings.Join(known, ", "))
	}
	if a.algorithm = pos[0]; !slices.Contains(known, a.algorithm) {
		return nil, fmt.Errorf("%s's algorithm is one of %s, got %q", fn, strings.Join(known, ", "), a.algorithm)
	}
	if len(pos) > 1 {
		b, err := strconv.ParseFloat(pos[1], 64)
		if err != nil || b < 0 || b > 1000 || math.IsNaN(b) {
			return nil, fmt.Errorf("%s's bounds must be a number from 0 to 1000, got %q", fn, pos[1])
		}
		a.bounds = b
	}
	return &ddExpr{op: 'a', left: inner, alg: a}, nil
}

// argValue reads a quoted string or a bare word (a number, a name).
func (mp *mparser) argValue() (string, bool, error) {
	mp.blank()
	if c := mp.peek(); c == '\'' || c == '"' {
		end := strings.IndexByte(mp.s[mp.i+1:], c)
		if end < 0 {
			return "", false, fmt.Errorf("quote at position %d is not closed", mp.i)
		}
		v := mp.s[mp.i+1 : mp.i+1+end]
		mp.i += end + 2
		return v, true, nil
	}
	at := mp.i
	if mp.peek() == '-' {
		mp.i++
	}
	w := mp.s[at:mp.i] + mp.word()
	if w == "" || w == "-" {
		return "", false, fmt.Errorf("expected an argument at position %d", at)
	}
	return w, false, nil
}

// set applies a key=value argument.
func (a *ddAlgorithm) set(k, v string) error {
	if !slices.Contains(ddAlgorithmArgs[a.fn], k) {
		return fmt.Errorf("%s takes %s as key=value arguments, got %q", a.fn, strings.Join(ddAlgorithmArgs[a.fn], ", "), k)
	}
	dur := func() (time.Duration, error) {
		d, ok := ddDuration(v)
		if !ok || d <= 0 || d > 366*24*time.Hour {
			return 0, fmt.Errorf("%s's %s must be a duration up to a year (300, '60m', '1w'), got %q", a.fn, k, v)
		}
		return d, nil
	}
	var err error
	switch k {
	case "direction":
		if !slices.Contains([]string{"both", "above", "below"}, v) {
			return fmt.Errorf("anomalies' direction is both, above or below, got %q", v)
		}
		a.direction = v
	case "bound":
		if !slices.Contains([]string{"trend", "upper", "lower"}, v) {
			return fmt.Errorf("forecast's bound is trend, upper or lower, got %q", v)
		}
		a.bound = v
	case "interval":
		a.interval, err = dur()
		if err == nil && a.interval < time.Second {
			err = fmt.Errorf("%s's interval must be at least a second, got %q", a.fn, v)
		}
	case "history":
		a.history, err = dur()
	case "horizon":
		a.horizon, err = dur()
	}
	return err
}

// ddDuration reads a Datadog duration: seconds as a number, or a count
// of s, m, h, d or w (last_15m reads as 15m).
func ddDuration(s string) (time.Duration, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "last_"), "next_")
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, true
	}
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil {
		return 0, false
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// plan is the step the inner query is read at and how far before the
// range it starts.
func (a *ddAlgorithm) plan(step, span time.Duration) (fine, lead time.Duration) {
	fine = a.interval
	if a.fn == "anomalies" {
		if fine == 0 {
			fine = max(time.Minute, step/60)
		}
		fine = min(fine, step)
	} else if fine == 0 {
		fine = max(time.Minute, a.history/168)
	}
	fine = max(fine.Truncate(time.Second), time.Second)
	leadOf := func(f time.Duration) time.Duration {
		if a.fn == "anomalies" {
			return anomalyLag * f
		}
		return a.history
	}
	if n := (span + leadOf(fine)) / fine; n > maxAlgorithmSteps {
		fine = ((span+leadOf(fine))/maxAlgorithmSteps + time.Second).Truncate(time.Second)
	}
	return fine, leadOf(fine)
}

// algorithmPoint is one of the inner query's values.
type algorithmPoint struct {
	t int64 // its step's start, ms
	v float64
}

// algorithm evaluates anomalies(…) or forecast(…) over the chart's
// buckets.
func (ev *ddEval) algorithm(e *ddExpr) (*ddSeries, error) {
	a := e.alg
	fine, lead := a.plan(ev.step, ev.end.Sub(ev.start))
	sub := *ev
	sub.step = fine
	sub.start = time.UnixMilli((ev.start.Add(-lead).UnixMilli() / fine.Milliseconds()) * fine.Milliseconds())
	in, err := sub.eval(e.left)
	if err != nil {
		return nil, err
	}
	// The engine stops one row past MaxPoints: an answer that long may
	// lack its latest steps, which the band or the line would misread.
	n := 0
	for _, vals := range in.values {
		n += len(vals)
	}
	if n > MaxPoints {
		return nil, query.Mistake(fmt.Errorf("%s(…) reads more than %d points (%d groups at a %s step): group by fewer tags, filter, or give a coarser interval", a.fn, MaxPoints, len(in.values), shortDuration(fine)))
	}
	out := &ddSeries{by: in.by, groups: map[string][]string{}, values: map[string]map[int64]*float64{}}
	for k, vals := range in.values {
		var pts []algorithmPoint
		for b, v := range vals {
			if v != nil {
				pts = append(pts, algorithmPoint{b, *v})
			}
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].t < pts[j].t })
		var got map[int64]*float64
		if a.fn == "anomalies" {
			got = a.anomalies(pts, ev.buckets(), ev.step, fine)
		} else {
			got = a.forecast(pts, ev.buckets(), ev.step, fine, ev.end)
		}
		out.groups[k], out.values[k] = in.groups[k], got
	}
	if len(in.by) == 0 && len(out.values) == 0 {
		out.groups[""], out.values[""] = []string{}, map[int64]*float64{}
	}
	return out, nil
}

// anomalies is the fraction of each bucket's points outside their band.
func (a *ddAlgorithm) anomalies(pts []algorithmPoint, buckets []int64, step, fine time.Duration) map[int64]*float64 {
	out := map[int64]*float64{}
	if len(buckets) == 0 {
		return out
	}
	stepMs, lagMs := step.Milliseconds(), (anomalyLag * fine).Milliseconds()
	first, end := buckets[0], buckets[len(buckets)-1]+stepMs
	judged, outside := map[int64]int{}, map[int64]int{}
	lo := 0
	hist := make([]float64, 0, anomalyLag)
	for i, p := range pts {
		if p.t < first || p.t >= end {
			continue
		}
		for lo < i && pts[lo].t < p.t-lagMs {
			lo++
		}
		if i-lo < anomalyMinHistory {
			continue
		}
		hist = hist[:0]
		for _, h := range pts[lo:i] {
			hist = append(hist, h.v)
		}
		lower, upper := band(hist, a.bounds)
		b := first + (p.t-first)/stepMs*stepMs
		judged[b]++
		if (p.v > upper && a.direction != "below") || (p.v < lower && a.direction != "above") {
			outside[b]++
		}
	}
	for b, n := range judged {
		f := float64(outside[b]) / float64(n)
		out[b] = &f
	}
	return out
}

// band is median ± bounds × the robust standard deviation of vs (which
// it reorders). A flat history gets a band of rounding's width, so that
// only a real change is outside it.
func band(vs []float64, bounds float64) (lower, upper float64) {
	med := median(vs)
	for i, v := range vs {
		vs[i] = math.Abs(v - med)
	}
	spread := bounds * madScale * median(vs)
	spread = max(spread, 1e-9*max(1, math.Abs(med)))
	return med - spread, med + spread
}

func median(vs []float64) float64 {
	sort.Float64s(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// forecast fits, per bucket, a line through the history before its end
// and reads it over the horizon.
func (a *ddAlgorithm) forecast(pts []algorithmPoint, buckets []int64, step, fine time.Duration, rangeEnd time.Time) map[int64]*float64 {
	out := map[int64]*float64{}
	stepMs, fineMs := step.Milliseconds(), float64(fine.Milliseconds())
	histMs, endMs := a.history.Milliseconds(), rangeEnd.UnixMilli()
	if len(buckets) == 0 || len(pts) == 0 {
		return out
	}
	// x is in steps of the inner query from the first point, at the
	// middle of each step, so that the sums stay small.
	origin := pts[0].t
	x := func(t float64) float64 { return (t - float64(origin)) / fineMs }
	var n, sx, sy, sxx, sxy, syy float64
	add := func(p algorithmPoint, sign float64) {
		xi := x(float64(p.t) + fineMs/2)
		n += sign
		sx += sign * xi
		sy += sign * p.v
		sxx += sign * xi * xi
		sxy += sign * xi * p.v
		syy += sign * p.v * p.v
	}
	lo, hi := 0, 0
	for _, b := range buckets {
		bEnd := min(b+stepMs, endMs)
		for hi < len(pts) && pts[hi].t < bEnd {
			add(pts[hi], 1)
			hi++
		}
		for lo < hi && pts[lo].t < bEnd-histMs {
			add(pts[lo], -1)
			lo++
		}
		den := n*sxx - sx*sx
		if n < 3 || den <= 0 {
			continue
		}
		slope := (n*sxy - sx*sy) / den
		icept := (sy - slope*sx) / n
		sse := max(0, syy-icept*sy-slope*sxy)
		sigma := math.Sqrt(sse / (n - 2))
		now, ahead := x(float64(bEnd)), x(float64(bEnd)+float64(a.horizon.Milliseconds()))
		at := func(xv float64) float64 { return icept + slope*xv }
		var v float64
		switch a.bound {
		case "upper":
			v = max(at(now), at(ahead)) + a.bounds*sigma
		case "lower":
			v = min(at(now), at(ahead)) - a.bounds*sigma
		default:
			v = at(ahead)
		}
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[b] = &v
		}
	}
	return out
}

// DatadogAlgorithmNote says how an anomalies(…) or forecast(…) of a
// query is computed here, for an importer's report ("" when it has
// neither).
func DatadogAlgorithmNote(q string) (string, error) {
	e, err := ParseDatadogMetric(q)
	if err != nil {
		return "", err
	}
	var notes []string
	var walk func(e *ddExpr)
	walk = func(e *ddExpr) {
		if e == nil {
			return
		}
		if a := e.alg; a != nil {
			notes = append(notes, a.note())
		}
		walk(e.left)
		walk(e.right)
	}
	walk(e)
	return strings.Join(notes, "; "), nil
}

func (a *ddAlgorithm) note() string {
	if a.fn == "anomalies" {
		s := fmt.Sprintf("anomalies(…, '%s', %v) is the fraction of the window's points outside the median ± %v robust standard deviations of the %d steps before each", a.algorithm, a.bounds, a.bounds, anomalyLag)
		if a.algorithm != "basic" {
			s += fmt.Sprintf(" (Datadog's %s algorithm, which learns seasonality, is computed as a basic rolling band)", a.algorithm)
		}
		return s
	}
	s := fmt.Sprintf("forecast(…, '%s', %v) is a least-squares line through the last %s, read %s ahead (%s)", a.algorithm, a.bounds, shortDuration(a.history), shortDuration(a.horizon), a.bound)
	if a.algorithm != "linear" {
		s += fmt.Sprintf(" (Datadog's %s forecast follows a season: a straight line here)", a.algorithm)
	}
	return s
}

// shortDuration writes d as Datadog does: 1w, 2d, 4h, 15m, 30s.
func shortDuration(d time.Duration) string {
	for _, u := range []struct {
		s string
		d time.Duration
	}{{"w", 7 * 24 * time.Hour}, {"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}} {
		if d >= u.d && d%u.d == 0 {
			return fmt.Sprintf("%d%s", d/u.d, u.s)
		}
	}
	return fmt.Sprintf("%ds", int64(d/time.Second))
}

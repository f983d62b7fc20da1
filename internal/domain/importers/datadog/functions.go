package datadog

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Datadog wraps metric queries in functions (per_second(…),
// default_zero(…)); the chart queries otelhouse runs take the nearest of
// them as a metric query's own functions (.as_rate(), .fill(zero)). The
// rest are left as written, for the query's parser to refuse and name.

// metricLeaf is one agg:metric{filter} by {tags}.functions() of a query.
var metricLeaf = regexp.MustCompile(`(?:[A-Za-z0-9_]+:)?[A-Za-z_][A-Za-z0-9_.]*\s*\{[^{}]*\}(?:\s*by\s*\{[^{}]*\})?(?:\.[A-Za-z_]+\([^()]*\))*`)

// perUnitFn are the rate functions and what the per-second rate is scaled by.
var perUnitFn = map[string]string{"per_second": "", "per_minute": " * 60", "per_hour": " * 3600"}

// rewriteFunctions writes the functions of q that have a counterpart as
// it, noting each as approximated.
func rewriteFunctions(q string, n *note) string {
	q = numericFill(q, n)
	var b strings.Builder
	for i := 0; i < len(q); {
		if !identStart(q[i]) || (i > 0 && (identChar(q[i-1]) || q[i-1] == '.' || q[i-1] == ':')) {
			b.WriteByte(q[i])
			i++
			continue
		}
		j := i
		for j < len(q) && identChar(q[j]) {
			j++
		}
		name := q[i:j]
		k := j
		for k < len(q) && q[k] == ' ' {
			k++
		}
		_, rate := perUnitFn[name]
		if name == "timeshift" && k < len(q) && q[k] == '(' {
			if end := closing(q, k); end > 0 {
				b.WriteString(forwardShift(q[k+1:end], n))
				i = end + 1
				continue
			}
		}
		if (rate || name == "default_zero") && k < len(q) && q[k] == '(' {
			if end := closing(q, k); end > 0 {
				inner := strings.TrimSpace(rewriteFunctions(q[k+1:end], n))
				b.WriteString(applyFunction(name, inner, n))
				i = end + 1
				continue
			}
		}
		b.WriteString(name)
		i = j
	}
	return b.String()
}

// applyFunction is name(inner) written with inner's metric queries' own
// functions, or as it was when inner has none.
func applyFunction(name, inner string, n *note) string {
	spans := metricLeaf.FindAllStringIndex(inner, -1)
	if len(spans) == 0 {
		return name + "(" + inner + ")"
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		leaf := inner[s[0]:s[1]]
		b.WriteString(inner[last:s[0]])
		switch {
		case name == "default_zero" && !strings.Contains(leaf, ".fill("):
			leaf += ".fill(zero)"
		case name == "default_zero":
		case strings.Contains(leaf, ".as_rate()"):
		case strings.Contains(leaf, ".as_count()"):
			leaf = strings.Replace(leaf, ".as_count()", ".as_rate()", 1)
		default:
			leaf += ".as_rate()"
		}
		b.WriteString(leaf)
		last = s[1]
	}
	b.WriteString(inner[last:])
	out := b.String()
	if len(spans) > 1 || spans[0][0] != 0 || spans[0][1] != len(inner) {
		out = "(" + out + ")"
	}
	if name == "default_zero" {
		n.approx("default_zero(…) is .fill(zero): buckets without a value read zero")
		return out
	}
	n.approx("%s(…) is the query's .as_rate()%s", name, perUnitFn[name])
	return out + perUnitFn[name]
}

func identStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func identChar(c byte) bool { return identStart(c) || c >= '0' && c <= '9' }

// closing is the index of the parenthesis closing the one at open, -1
// when it is not closed.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitSeries splits a request's q at its top-level commas: older
// widgets list several series in one q ("a{*}, b{*}").
func splitSeries(q string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(q[start:i]))
				start = i + 1
			}
		}
	}
	out = append(out, strings.TrimSpace(q[start:]))
	var kept []string
	for _, s := range out {
		if s != "" {
			kept = append(kept, s)
		}
	}
	return kept
}

// noCounterpartFn finds a monitor query's function that makes it more
// than a value compared with a threshold. (diff(), rate() and the other
// arithmetic functions, anomalies(), forecast() and the timeshifts are
// the metric query's own: an alert compares their value.)
var noCounterpartFn = regexp.MustCompile(`\b(outliers|ewma_?[0-9]*)\s*\(`)

func monitorFunction(expr string) error {
	if m := noCounterpartFn.FindStringSubmatch(expr); m != nil {
		return invalidf("%s monitors have no counterpart: alerts compare a value with a threshold", m[1])
	}
	return nil
}

// withGroups adds by {tags} to a query of one metric that has none:
// monitors may name their groups after the threshold ("> 0.9 by {host}").
func withGroups(expr, by string, n *note) string {
	if by == "" {
		return expr
	}
	loc := metricLeaf.FindStringIndex(expr)
	if loc == nil || loc[0] != 0 || loc[1] != len(expr) || strings.Contains(expr, " by ") {
		n.approx("by {%s} after the threshold is not applied: the query is not a single metric", by)
		return expr
	}
	// The groups go before the functions, as Datadog writes them.
	fn := strings.IndexByte(expr[strings.IndexByte(expr, '}'):], '.')
	if fn < 0 {
		return fmt.Sprintf("%s by {%s}", expr, by)
	}
	at := strings.IndexByte(expr, '}') + fn
	return fmt.Sprintf("%s by {%s}%s", expr[:at], by, expr[at:])
}

// outerFunction finds a function call that is not one of a query's own
// (.as_rate()) nor top(): Datadog's diff(), rate(), cumsum() and the
// like, which the metric parser only reports as a malformed query.
var outerFunction = regexp.MustCompile(`(?:^|[^.\w])([a-z_][a-z0-9_]*)\s*\(`)

// functionError names the function a query failed on, when it has one.
func functionError(q string, err error) error {
	for _, m := range outerFunction.FindAllStringSubmatch(q, -1) {
		if m[1] != "top" {
			return fmt.Errorf("%s() has no counterpart in otelhouse's metric queries", m[1])
		}
	}
	return err
}

// comparingFn are the arithmetic functions that compare each point with
// the one before: Datadog applies them to each series before the space
// aggregation, the metric query to the aggregated series.
var comparingFn = map[string]bool{"diff": true, "monotonic_diff": true, "derivative": true, "rate": true, "per_second": true, "per_minute": true, "per_hour": true}

// arithmeticNotes notes the comparing functions left in q (the metric
// query evaluates them), once each.
func arithmeticNotes(q string, n *note) {
	seen := map[string]bool{}
	for _, m := range outerFunction.FindAllStringSubmatch(q, -1) {
		if fn := m[1]; comparingFn[fn] && !seen[fn] {
			seen[fn] = true
			n.approx("%s(…) compares each point of the aggregated series with the one before (Datadog compares each series' points, then aggregates)", fn)
		}
	}
}

// fillNumber is an older dashboard's .fill(N): .fill(0) fills with zero;
// a larger N, read as a limit in seconds without a method, fills nothing.
var fillNumber = regexp.MustCompile(`\.fill\(\s*([0-9]+)\s*\)`)

func numericFill(q string, n *note) string {
	return fillNumber.ReplaceAllStringFunc(q, func(m string) string {
		if fillNumber.FindStringSubmatch(m)[1] == "0" {
			n.approx(".fill(0) is .fill(zero)")
			return ".fill(zero)"
		}
		n.approx("%s is left out: a number is not a fill method (null, zero, last or linear)", m)
		return ""
	})
}

// forwardShift is timeshift(args) with its inner query's functions
// rewritten; a positive shift (forward in time, which the metric query
// does not draw) is left out, the query drawn unshifted.
func forwardShift(args string, n *note) string {
	parts := splitSeries(args)
	if len(parts) == 2 {
		if s, err := strconv.Atoi(parts[1]); err == nil && s > 0 {
			n.approx("timeshift(…, %d) shifts forward: the query is drawn unshifted", s)
			return rewriteFunctions(parts[0], n)
		}
	}
	return "timeshift(" + rewriteFunctions(args, n) + ")"
}

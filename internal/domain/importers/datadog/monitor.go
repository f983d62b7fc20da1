package datadog

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
)

// Monitor is what a Datadog monitor becomes: an alert, and what it
// watches — a one-tile dashboard (metric monitors) or a saved search (log
// monitors) — for the API to create first.
type Monitor struct {
	Alert Alert `json:"alert"`
	// Exactly one of these is set; the alert's dashboardId/tileId or
	// savedSearchId are filled in once it is created.
	Dashboard   *Dashboard   `json:"dashboard,omitempty"`
	SavedSearch *SavedSearch `json:"savedSearch,omitempty"`
	// Warning is the monitor's warning threshold as an alert of its own
	// on the same tile or search (an alert has one threshold).
	Warning *Alert `json:"warning,omitempty"`
}

// Alert is the body of POST /api/v2/alerts, short of its channel and of
// the ids of what it watches.
type Alert struct {
	Name          string  `json:"name"`
	Message       string  `json:"message"`
	Threshold     float64 `json:"threshold"`
	ThresholdType string  `json:"thresholdType"`
	Interval      string  `json:"interval"`
	Source        string  `json:"source"` // tile or saved_search
	TileID        string  `json:"tileId,omitempty"`
	GroupBy       string  `json:"groupBy,omitempty"`
}

// MonitorTileID is the tile a metric monitor's dashboard holds.
const MonitorTileID = "monitor"

// intervals are the windows an alert is evaluated over.
var intervals = []struct {
	name string
	d    time.Duration
}{
	{"1m", time.Minute},
	{"5m", 5 * time.Minute},
	{"15m", 15 * time.Minute},
	{"30m", 30 * time.Minute},
	{"1h", time.Hour},
	{"6h", 6 * time.Hour},
	{"12h", 12 * time.Hour},
	{"1d", 24 * time.Hour},
}

var (
	// avg(last_5m):<query> > 90
	// (some name the groups after the threshold: "> 0.9 by {host}")
	// (a forecast looks ahead: max(next_1w):forecast(…) >= 90)
	metricMonitor = regexp.MustCompile(`(?s)^\s*(avg|sum|min|max|change|pct_change)\(((?:last|next)_\w+)(?:,\s*last_\w+)?\)\s*:\s*(.+?)\s*(>=|<=|!=|>|<|==)\s*(-?[0-9.eE+-]+)(?:\s+by\s*\{([^{}]*)\})?\s*$`)
	// logs("query").index("*").rollup("count").by("@x").last("5m") > 100
	// (an event monitor's events("…") reads the same way)
	logMonitor = regexp.MustCompile(`(?s)^\s*(?:logs|events)\(\s*("(?:[^"\\]|\\.)*")\s*\)((?:\.\w+\([^)]*\))*)\s*(>=|<=|!=|>|<|==)\s*(-?[0-9.eE+-]+)\s*$`)
	callRe     = regexp.MustCompile(`\.(\w+)\(([^)]*)\)`)
)

// ImportMonitor translates a Datadog monitor (its API's JSON, or an
// integration's asset with the monitor under "definition"). items say
// what was approximated or skipped; a monitor with no counterpart (a
// service check, an anomaly, a composite) is an Invalid error naming why.
func ImportMonitor(body []byte, src Sources) (Monitor, []Item, error) {
	m, err := unwrap(body, "definition")
	if err != nil {
		return Monitor{}, nil, err
	}
	typ, query, name := str(m, "type"), str(m, "query"), strings.TrimSpace(str(m, "name"))
	if query == "" || typ == "" {
		return Monitor{}, nil, invalidf("not a Datadog monitor: it has no type and query")
	}
	if name == "" {
		name = "Imported Datadog monitor"
	}
	var items []Item
	var opts struct {
		Thresholds       map[string]*float64 `json:"thresholds"`
		ThresholdWindows map[string]string   `json:"threshold_windows"`
	}
	_ = json.Unmarshal(m["options"], &opts)
	var qn note
	out := Monitor{Alert: Alert{Name: name}}
	var op, thr string
	// groups are what the alert groups by, in order: a notification's
	// .group holds their values.
	var groups []string
	switch typ {
	case "metric alert", "query alert":
		sub := metricMonitor.FindStringSubmatch(query)
		if sub == nil {
			return Monitor{}, nil, invalidf("query %q is not agg(last_N):query comparator threshold", query)
		}
		timeAgg, window, expr := sub[1], sub[2], sub[3]
		op, thr = sub[4], sub[5]
		if err := monitorFunction(expr); err != nil {
			return Monitor{}, nil, err
		}
		if timeAgg == "change" || timeAgg == "pct_change" {
			return Monitor{}, nil, invalidf("%s monitors have no counterpart: alerts compare the window's value, not its change", timeAgg)
		}
		expr = withGroups(rewriteFunctions(expr, &qn), strings.TrimSpace(sub[6]), &qn)
		groups = queryGroups(expr)
		alg := algorithmOf(expr)
		if strings.HasPrefix(window, "next_") && alg != "forecast" {
			return Monitor{}, nil, invalidf("query %q: a %s window looks ahead, which only a forecast does", query, window)
		}
		switch alg {
		case "anomalies":
			window = anomalyWindow(expr, window, opts.ThresholdWindows, &qn)
		case "forecast":
			expr, window = forecastQuery(expr, timeAgg, window, sub[4], opts.ThresholdWindows, &qn)
		}
		if _, err := charts.ParseDatadogMetric(expr); err != nil {
			return Monitor{}, nil, invalidf("query %q: %v", expr, functionError(expr, err))
		}
		if alg != "" {
			how, _ := charts.DatadogAlgorithmNote(expr)
			qn.approx("%s", how)
		}
		arithmeticNotes(expr, &qn)
		out.Alert.Interval = interval(window, &qn)
		if timeAgg != "avg" && alg != "forecast" {
			qn.approx("the window's %s is the query's own rollup over it (avg for gauges, sum for counts)", timeAgg)
		}
		out.Alert.Source, out.Alert.TileID = "tile", MonitorTileID
		out.Dashboard = &Dashboard{Name: "[monitor] " + name, Tags: []string{"datadog", "monitor"}, Tiles: []Tile{{
			ID: MonitorTileID, Name: name, X: 0, Y: 0, W: 24, H: 6,
			Config: map[string]any{"displayType": "line", "sourceId": src.Metrics, "select": []Select{{Query: expr}}},
		}}}
	case "log alert", "event-v2 alert":
		sub := logMonitor.FindStringSubmatch(query)
		if sub == nil {
			return Monitor{}, nil, invalidf(`query %q is not logs("search").….last("window") comparator threshold`, query)
		}
		if typ == "event-v2 alert" {
			qn.approx("events are logs here (the receiver stores Datadog events as logs): the alert counts the matching logs")
		}
		var search string
		if err := json.Unmarshal([]byte(strings.TrimSpace(sub[1])), &search); err != nil {
			return Monitor{}, nil, invalidf("query %q: the search is not a quoted string", query)
		}
		op, thr = sub[3], sub[4]
		window := "last_5m"
		var groupBy []string
		for _, c := range callRe.FindAllStringSubmatch(sub[2], -1) {
			args := unquoteArgs(c[2])
			switch c[1] {
			case "index":
			case "last":
				if len(args) > 0 {
					window = "last_" + args[0]
				}
			case "rollup":
				if len(args) > 0 && args[0] != "count" {
					return Monitor{}, nil, invalidf("a log monitor's %s rollup has no counterpart: log alerts count events", args[0])
				}
			case "by":
				for _, a := range args {
					for _, f := range strings.Split(a, ",") {
						if f = strings.TrimSpace(f); f != "" {
							groupBy = append(groupBy, attributeName(f))
						}
					}
				}
			default:
				qn.approx(".%s(…) is ignored", c[1])
			}
		}
		out.Alert.Interval = interval(window, &qn)
		out.Alert.Source = "saved_search"
		if len(groupBy) > 5 {
			qn.approx("grouped by the first 5 of %d fields", len(groupBy))
			groupBy = groupBy[:5]
		}
		out.Alert.GroupBy = strings.Join(groupBy, ", ")
		groups = groupBy
		out.SavedSearch = &SavedSearch{
			Name: "[monitor] " + name, Source: src.Logs, Where: search, WhereLanguage: "datadog",
			Tags: []string{"datadog", "monitor"},
		}
	case "service check":
		expr, window, err := serviceCheckQuery(query, &qn)
		if err != nil {
			return Monitor{}, nil, err
		}
		groups = queryGroups(expr)
		// Above 1: the worst status in the window is critical or unknown.
		op, thr = ">", "1"
		out.Alert.Interval = interval(window, &qn)
		out.Alert.Source, out.Alert.TileID = "tile", MonitorTileID
		out.Dashboard = &Dashboard{Name: "[monitor] " + name, Tags: []string{"datadog", "monitor"}, Tiles: []Tile{{
			ID: MonitorTileID, Name: name, X: 0, Y: 0, W: 24, H: 6,
			Config: map[string]any{"displayType": "line", "sourceId": src.Metrics, "select": []Select{{Query: expr}}},
		}}}
	default:
		return Monitor{}, nil, invalidf("%s monitors have no counterpart yet (metric alert, query alert, service check, log alert and event-v2 alert are imported)", typ)
	}
	items = append(items, qn.item("query", typ, query))

	var tn note
	t, err := strconv.ParseFloat(thr, 64)
	if err != nil {
		return Monitor{}, nil, invalidf("threshold %q is not a number", thr)
	}
	switch c := opts.Thresholds["critical"]; {
	case c != nil && typ == "service check":
		tn.approx("critical %v counts failed checks in a row: the alert fires once the worst status in the window is critical or unknown", *c)
	case c != nil && *c != t:
		tn.approx("options.thresholds.critical %v differs from the query's %v: the query's is used", *c, t)
	}
	out.Alert.Threshold = t
	// HyperDX's comparators, which an alert keeps: each of Datadog's has
	// its own.
	switch op {
	case ">":
		out.Alert.ThresholdType = "above_exclusive"
	case ">=":
		out.Alert.ThresholdType = "above"
	case "<":
		out.Alert.ThresholdType = "below"
	case "<=":
		out.Alert.ThresholdType = "below_or_equal"
	case "==":
		out.Alert.ThresholdType = "equal"
	case "!=":
		out.Alert.ThresholdType = "not_equal"
	default:
		return Monitor{}, nil, invalidf("comparator %s has no counterpart", op)
	}
	if w := opts.Thresholds["warning"]; w != nil {
		warn := out.Alert
		warn.Name = name + " (warning)"
		warn.Threshold = *w
		if typ == "service check" {
			// The worst status is a warning (1) or worse.
			warn.Threshold, warn.ThresholdType = 0, "above_exclusive"
			tn.approx("warning %v counts warnings in a row: a second alert, %q, fires once the worst status in the window is a warning or worse", *w, warn.Name)
		} else {
			tn.approx("warning %v is a second alert, %q, on the same query and channel (it fires above the critical threshold too)", *w, warn.Name)
		}
		out.Warning = &warn
	}
	for _, k := range []string{"critical_recovery", "warning_recovery"} {
		if v := opts.Thresholds[k]; v != nil {
			tn.approx("%s %v: an alert recovers once its value no longer breaches its threshold", k, *v)
		}
	}
	for _, k := range []string{"ok", "unknown"} {
		if v := opts.Thresholds[k]; v != nil {
			tn.skip("%s threshold %v: an alert has one threshold", k, *v)
		}
	}
	it := tn.item("options.thresholds", "", "")
	if it.Outcome == Skipped {
		it.Outcome = Approximated // the critical threshold is kept
	}
	items = append(items, it)

	var mn note
	msg := str(m, "message")
	if out.Warning == nil {
		out.Alert.Message = messageFor(msg, groups, &mn, "")
	} else {
		out.Alert.Message = messageFor(msg, groups, &mn, "critical")
		out.Warning.Message = messageFor(msg, groups, &mn, "warning")
	}
	items = append(items, mn.item("message", "", ""))
	return out, items, nil
}

// algorithmOf is the algorithm function a monitor's query is, if any.
func algorithmOf(expr string) string {
	e := strings.TrimSpace(expr)
	for _, fn := range []string{"anomalies", "forecast"} {
		if rest, ok := strings.CutPrefix(e, fn); ok && strings.HasPrefix(strings.TrimSpace(rest), "(") {
			return fn
		}
	}
	return ""
}

var kwarg = regexp.MustCompile(`\b(alert_window|interval|history)\s*=\s*'?([A-Za-z0-9_]+)'?`)

// kwargs are an algorithm call's key='value' arguments.
func kwargs(expr string) map[string]string {
	out := map[string]string{}
	for _, m := range kwarg.FindAllStringSubmatch(expr, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// anomalyWindow is the window an anomaly monitor's alert is evaluated
// over: its alert_window (Datadog's trigger window), the query's own
// (last_4h) being the history Datadog draws the band over.
func anomalyWindow(expr, window string, tw map[string]string, n *note) string {
	aw := cmpOr(kwargs(expr)["alert_window"], tw["trigger_window"])
	if aw == "" {
		n.approx("no alert_window: the fraction is of the query's whole %s window", strings.TrimPrefix(window, "last_"))
		return window
	}
	if !strings.HasPrefix(aw, "last_") {
		aw = "last_" + aw
	}
	n.approx("the alert compares the fraction over the %s alert window with its threshold (the query's %s is the history Datadog draws)", strings.TrimPrefix(aw, "last_"), strings.TrimPrefix(window, "last_"))
	return aw
}

// forecastQuery writes a forecast monitor's look ahead (max(next_1w))
// and side (the comparator) into its forecast(…) as horizon and bound,
// and answers the window its alert is evaluated over: the trigger
// window, else the forecast's interval, else an hour.
func forecastQuery(expr, timeAgg, window, op string, tw map[string]string, n *note) (string, string) {
	open := strings.IndexByte(expr, '(')
	end := closing(expr, open)
	if end < 0 {
		return expr, window
	}
	bound := "trend"
	switch op {
	case ">", ">=":
		bound = "upper"
	case "<", "<=":
		bound = "lower"
	}
	if want := map[string]string{"upper": "max", "lower": "min"}[bound]; want != "" && timeAgg != want {
		n.approx("%s(%s) of a forecast compared with %s reads its %s bound's extreme over the horizon", timeAgg, window, op, bound)
	}
	horizon := strings.TrimPrefix(window, "next_")
	if horizon == window {
		horizon = "0"
	}
	expr = expr[:end] + fmt.Sprintf(", horizon='%s', bound='%s'", horizon, bound) + expr[end:]
	every := tw["trigger_window"]
	if every == "" {
		if iv := kwargs(expr)["interval"]; iv != "" {
			if strings.Trim(iv, "0123456789") == "" {
				iv += "s" // seconds
			}
			every = "last_" + iv
		} else {
			every = "last_1h"
		}
	}
	if !strings.HasPrefix(every, "last_") {
		every = "last_" + every
	}
	n.approx("the alert checks every %s whether the forecast's %s bound over the next %s breaches the threshold", strings.TrimPrefix(every, "last_"), bound, horizon)
	return expr, every
}

func unquoteArgs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if u, err := strconv.Unquote(a); err == nil {
			a = u
		} else {
			a = strings.Trim(a, `'"`)
		}
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

// interval maps a Datadog window (last_5m, last_4h, last_1d) to the
// nearest alert interval at least as long.
func interval(window string, n *note) string {
	w := strings.TrimPrefix(window, "last_")
	d, err := time.ParseDuration(w)
	if strings.HasSuffix(w, "d") {
		var days int
		if _, e := fmt.Sscanf(w, "%dd", &days); e == nil {
			d, err = time.Duration(days)*24*time.Hour, nil
		}
	} else if strings.HasSuffix(w, "w") {
		var weeks int
		if _, e := fmt.Sscanf(w, "%dw", &weeks); e == nil {
			d, err = time.Duration(weeks)*7*24*time.Hour, nil
		}
	}
	if err != nil || d <= 0 {
		n.approx("window %q is not read: evaluated every 5m", window)
		return "5m"
	}
	for _, iv := range intervals {
		if iv.d == d {
			return iv.name
		}
		if iv.d > d {
			n.approx("window %s is evaluated over %s, the nearest longer interval", w, iv.name)
			return iv.name
		}
	}
	n.approx("window %s is evaluated over 1d, the longest interval", w)
	return "1d"
}

var (
	mustacheTag = regexp.MustCompile(`\{\{\s*([#^/]?)\s*([^{}]*?)\s*\}\}`)
	// Datadog's variables with a counterpart in the notification.
	messageVars = map[string]string{
		"value": "{{.value}}", "threshold": "{{.threshold}}", "comparator": "{{.thresholdType}}",
		"last_triggered_at": "{{.windowEnd}}", "alert_id": "{{.alertId}}",
	}
)

// queryGroups are the tags a metric query groups by: its first by {…}.
func queryGroups(expr string) []string {
	m := byClause.FindStringSubmatch(expr)
	if m == nil {
		return nil
	}
	var out []string
	for _, t := range strings.Split(m[1], ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

var byClause = regexp.MustCompile(`\bby\s*\{([^{}]*)\}`)

// Message turns a monitor's message into an alert message template:
// {{#is_alert}}…{{/is_alert}} and {{#is_recovery}} become conditions on
// the state, {{value}} and {{threshold}} the notification's fields; a
// variable with no counterpart ({{host.name}}) is kept as written text.
// States otelhouse has no counterpart for (warning, no data) drop their
// blocks' condition to "never", noted.
func Message(msg string, groups []string, n *note) string {
	return messageFor(msg, groups, n, "")
}

// messageFor is Message for the alert of a monitor's only threshold
// (role ""), or, when it has a warning threshold too, for the alert of
// its critical one ("critical") or of its warning one ("warning", whose
// ALERT is Datadog's warning state).
func messageFor(msg string, groups []string, n *note, role string) string {
	warning := role == "warning"
	kept := map[string]bool{}
	out := mustacheTag.ReplaceAllStringFunc(msg, func(tag string) string {
		sub := mustacheTag.FindStringSubmatch(tag)
		sigil, name := sub[1], sub[2]
		switch sigil {
		case "#", "^":
			cond := ""
			switch {
			case warning && name == "is_warning":
				cond = `eq .state "ALERT"`
			case warning && (name == "is_warning_recovery" || name == "is_recovery"):
				cond = `eq .state "OK"`
			case warning && (name == "is_alert" || name == "is_alert_recovery"):
				cond = "false"
			case name == "is_alert" || name == "is_match":
				cond = `eq .state "ALERT"`
			case name == "is_recovery" || name == "is_alert_recovery":
				cond = `eq .state "OK"`
			case name == "is_no_data":
				cond = `eq .state "NO_DATA"`
			case role == "critical" && (name == "is_warning" || name == "is_warning_recovery"):
				cond = "false" // the warning alert's text
			default:
				if !kept[name] {
					n.approx("{{#%s}} has no counterpart state: its text is never sent", name)
					kept[name] = true
				}
				cond = "false"
			}
			if sigil == "^" {
				cond = "not (" + cond + ")"
			}
			return "{{if " + cond + "}}"
		case "/":
			return "{{end}}"
		}
		if v, ok := messageVars[name]; ok {
			return v
		}
		// {{host.name}}, {{[@http.status_code].name}}: a group's value;
		// {{@Connector}} too when the alert groups by that attribute
		// (elsewhere it is an attribute of a sample log, which the
		// notification does not carry).
		grp, ok := strings.CutSuffix(name, ".name")
		if !ok && strings.HasPrefix(name, "@") && slices.Contains(groups, name[1:]) {
			grp, ok = name, true
		}
		if ok {
			grp = strings.TrimPrefix(strings.Trim(grp, "[]"), "@")
			if i := slices.Index(groups, grp); i >= 0 {
				if !kept[name] {
					n.approx("{{%s}} is the group's value of the series the alert reports (one notification for all groups)", name)
					kept[name] = true
				}
				return fmt.Sprintf("{{if gt (len .group) %d}}{{index .group %d}}{{end}}", i, i)
			}
		}
		if !kept[name] {
			n.approx("{{%s}} has no counterpart: kept as text", name)
			kept[name] = true
		}
		return "{{" + strconv.Quote(tag) + "}}"
	})
	return out
}

// serviceCheck is "check".over("tag:value",…).by("tag",…).last(N).count_by_status().
var serviceCheck = regexp.MustCompile(`(?s)^\s*"([A-Za-z][A-Za-z0-9_.]*)"((?:\.\w+\([^)]*\))*)\s*$`)

// serviceCheckQuery is a service check monitor's query as the check's
// gauge (the receiver stores a check run as a gauge named after the
// check: 0 OK, 1 warning, 2 critical, 3 unknown), the worst per group,
// and the window its last N runs span.
func serviceCheckQuery(query string, n *note) (expr, window string, err error) {
	sub := serviceCheck.FindStringSubmatch(query)
	if sub == nil {
		return "", "", invalidf(`query %q is not "check".over(…).by(…).last(N).count_by_status()`, query)
	}
	var filter, by []string
	runs := 1
	for _, c := range callRe.FindAllStringSubmatch(sub[2], -1) {
		args := unquoteArgs(c[2])
		switch c[1] {
		case "over":
			for _, a := range args {
				if a != "*" {
					filter = append(filter, a)
				}
			}
		case "by":
			for _, a := range args {
				if a != "*" {
					by = append(by, a)
				}
			}
		case "last":
			if len(args) > 0 {
				if k, err := strconv.Atoi(args[0]); err == nil && k > 0 {
					runs = k
				}
			}
		case "count_by_status":
		default:
			n.approx(".%s(…) is ignored", c[1])
		}
	}
	n.approx("a service check is its gauge (0 OK, 1 warning, 2 critical, 3 unknown): the alert watches the worst status of each group")
	n.approx("last(%d) is %d runs at the Agent's 15 s check interval", runs, runs)
	return checkQuery(sub[1], filter, by), fmt.Sprintf("last_%ds", runs*15), nil
}

// checkQuery is the worst status of a check, per group when by is set.
func checkQuery(check string, filter, by []string) string {
	f := strings.Join(filter, ",")
	if f == "" {
		f = "*"
	}
	q := fmt.Sprintf("max:%s{%s}", check, f)
	if len(by) > 0 {
		q += " by {" + strings.Join(by, ",") + "}"
	}
	return q + ".rollup(max)"
}

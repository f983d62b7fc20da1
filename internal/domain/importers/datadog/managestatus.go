package datadog

import (
	"encoding/json"
	"strings"
)

// monitorStates maps a monitor search's status:… to the alert states an
// alert-list tile narrows to (an alert has no warning state: a warning
// monitor is an alerting one here, with one threshold).
var monitorStates = map[string]string{"alert": "ALERT", "warn": "ALERT", "no data": "NO_DATA", "nodata": "NO_DATA", "ok": "OK"}

// manageStatus maps a monitor summary (manage_status, or the older
// monitor_summary) to an alert-list tile: the team's alerts with their
// state. Of the widget's monitor search, words narrow the list by name
// and status:… by state; tags, types, priorities and the like have no
// counterpart on an alert and are dropped (noted).
func (d *dashImport) manageStatus(def map[string]json.RawMessage, n *note) map[string]any {
	words, states, dropped := monitorSearch(str(def, "query"))
	cfg := map[string]any{"displayType": "alerts"}
	if len(words) > 0 {
		cfg["where"] = strings.Join(words, " ")
	}
	if len(states) > 0 {
		cfg["alertStates"] = states
	}
	n.approx("a monitor summary is an alert list: each alert's name, state and last firing (import the monitors with POST /api/v2/alerts/import)")
	if len(dropped) > 0 {
		n.approx("alerts have no %s: the list is not narrowed by them", strings.Join(dropped, ", "))
	}
	return cfg
}

// monitorSearch splits a Datadog monitor search into the words matched
// against names, the states asked for and the keys of the other terms.
func monitorSearch(q string) (words, states, dropped []string) {
	for _, term := range searchTerms(q) {
		key, val, ok := strings.Cut(term, ":")
		switch {
		case term == "*" || term == "AND" || term == "OR" || term == "NOT" || strings.HasPrefix(term, "$"):
		case !ok:
			words = append(words, strings.Trim(term, `"`))
		case key == "status":
			for _, v := range strings.Split(strings.Trim(val, "()"), " OR ") {
				s, known := monitorStates[strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`))]
				if !known {
					dropped = appendOnce(dropped, "status "+v)
					continue
				}
				states = appendOnce(states, s)
			}
		case key == "title" || key == "name":
			words = append(words, strings.Fields(strings.Trim(val, `"()`))...)
		default:
			dropped = appendOnce(dropped, key)
		}
	}
	return words, states, dropped
}

// searchTerms splits a search at its top-level blanks: a quoted phrase
// or a parenthesised value (tag:(a b)) stays one term.
func searchTerms(q string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i <= len(q); i++ {
		if i < len(q) {
			switch c := q[i]; {
			case c == '"':
				quoted = !quoted
				continue
			case quoted:
				continue
			case c == '(':
				depth++
				continue
			case c == ')':
				depth--
				continue
			case c != ' ' && c != '\t' || depth > 0:
				continue
			}
		}
		if t := strings.TrimSpace(q[start:i]); t != "" {
			out = append(out, t)
		}
		start = i + 1
	}
	return out
}

func appendOnce(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

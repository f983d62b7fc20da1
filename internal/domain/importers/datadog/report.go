// Package datadog translates what a team built in Datadog — dashboards,
// monitors and saved log views, in the JSON Datadog's API returns and its
// integrations ship — into the bodies otelhouse's REST API creates:
// dashboards whose tiles keep the Datadog metric queries (a select item's
// query) and log searches (whereLanguage "datadog"), alerts, and saved
// searches. The translators are pure: the API creates what they return
// through its own validation, and answers their report beside it.
//
// Nothing is dropped silently: every widget, and every part of a monitor or
// view that could not be kept as it was, has an Item saying whether it was
// imported as is, approximated (and how), or skipped (and why).
package datadog

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Sources names the otelhouse sources imported items read: Datadog's
// metrics, logs and spans (APM) live in these.
type Sources struct {
	Metrics, Logs, Traces string
}

// DefaultSources are the sources every team starts with.
var DefaultSources = Sources{Metrics: "metrics", Logs: "logs", Traces: "traces"}

// The outcomes of an imported item.
const (
	Imported     = "imported"
	Approximated = "approximated"
	Skipped      = "skipped"
)

// Item is what became of one widget (or of a part of a monitor or saved
// view): its place in the original, its outcome and the reasons.
type Item struct {
	Path    string   `json:"path"` // "widgets[1].widgets[3]", "query", "options.thresholds.warning"
	Type    string   `json:"type,omitempty"`
	Title   string   `json:"title,omitempty"`
	Outcome string   `json:"outcome"`
	Notes   []string `json:"notes,omitempty"`
	TileID  string   `json:"tileId,omitempty"`
}

// Summary counts items by outcome.
func Summary(items []Item) map[string]int {
	m := map[string]int{Imported: 0, Approximated: 0, Skipped: 0}
	for _, it := range items {
		m[it.Outcome]++
	}
	return m
}

// Invalid is a body that is not what the importer takes (not JSON, not a
// dashboard): the caller's mistake, answered 400.
type Invalid struct{ error }

func invalidf(format string, a ...any) error { return Invalid{fmt.Errorf(format, a...)} }

// The bounds of a body: nested groups and widget counts far beyond what
// Datadog itself allows are refused rather than walked.
const (
	maxWidgets = 1000
	maxDepth   = 4
)

// note collects the reasons for one item; the outcome is the worst seen.
type note struct {
	outcome string
	notes   []string
}

func (n *note) approx(format string, a ...any) {
	if n.outcome != Skipped {
		n.outcome = Approximated
	}
	n.add(fmt.Sprintf(format, a...))
}

func (n *note) skip(format string, a ...any) {
	n.outcome = Skipped
	n.add(fmt.Sprintf(format, a...))
}

// add keeps a reason once: a widget's series often share one.
func (n *note) add(s string) {
	if !slices.Contains(n.notes, s) {
		n.notes = append(n.notes, s)
	}
}

func (n *note) item(path, typ, title string) Item {
	return Item{Path: path, Type: typ, Title: title, Outcome: cmpOr(n.outcome, Imported), Notes: n.notes}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// unwrap reads a body that may be the object itself or Datadog's export
// envelope around it (integrations ship monitors as {"definition": …}).
func unwrap(body []byte, key string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, invalidf("invalid JSON body: %v", err)
	}
	if inner, ok := m[key]; ok && len(inner) > 0 && inner[0] == '{' {
		var in map[string]json.RawMessage
		if err := json.Unmarshal(inner, &in); err == nil {
			return in, nil
		}
	}
	return m, nil
}

func str(m map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(m[k], &s)
	return s
}

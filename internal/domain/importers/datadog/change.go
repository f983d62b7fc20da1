package datadog

import (
	"encoding/json"
	"fmt"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
)

// changeRequest is a change widget's request: a series and the period it
// is compared with.
type changeRequest struct {
	request
	CompareTo    string `json:"compare_to"`
	ChangeType   string `json:"change_type"`
	IncreaseGood *bool  `json:"increase_good"`
}

// comparedWith names a change widget's compare_to as a column reads it.
var comparedWith = map[string]string{
	"hour_before":  "the hour before",
	"day_before":   "the day before",
	"week_before":  "the week before",
	"month_before": "4 weeks before",
}

// change maps a change widget to a table: per group, the value now and
// its change from the compared period, absolute or in percent, both
// metric queries (the change through the timeshift functions). A number
// tile takes one series (HyperDX's rule), so the pair is a table's two
// columns; a series of logs or spans has no timeshift and keeps its
// value now only.
func (d *dashImport) change(def map[string]json.RawMessage, n *note) map[string]any {
	var rs []changeRequest
	if err := json.Unmarshal(def["requests"], &rs); err != nil {
		n.skip("requests are not a list of requests: %v", err)
		return nil
	}
	var sel []Select
	var cfg map[string]any
	for _, r := range rs {
		c := d.seriesConfig("table", []request{r.request}, n)
		if c == nil {
			continue
		}
		if cfg == nil {
			cfg = c
		} else if c["sourceId"] != cfg["sourceId"] {
			n.approx("a request reads another source than the first: left out")
			continue
		}
		for _, s := range c["select"].([]Select) {
			if s.Query == "" {
				n.approx("the change of a log or span series has no counterpart: its value now only")
				sel = append(sel, s)
				continue
			}
			shift := r.CompareTo
			if _, ok := comparedWith[shift]; !ok {
				if shift != "" {
					n.approx("compare_to %q is not a period known here: the day before", shift)
				}
				shift = "day_before"
			}
			now, before := "("+s.Query+")", shift+"("+s.Query+")"
			label := "now"
			if s.Alias != "" {
				label = s.Alias + " now"
			}
			delta := Select{Query: now + " - " + before, Alias: "change from " + comparedWith[shift]}
			if r.ChangeType == "relative" {
				delta = Select{Query: "(" + now + " - " + before + ") / " + before + " * 100", Alias: "% change from " + comparedWith[shift]}
			}
			if s.Alias != "" {
				delta.Alias = s.Alias + ": " + delta.Alias
			}
			if _, err := charts.ParseDatadogMetric(delta.Query); err != nil {
				n.approx("the change of %q: %v; its value now only", s.Query, err)
				sel = append(sel, s)
				continue
			}
			sel = append(sel, Select{Query: s.Query, Alias: label}, delta)
		}
	}
	if cfg == nil {
		return nil
	}
	if len(sel) > 20 {
		n.approx("more than 20 columns: the first 20 are kept")
		sel = sel[:20]
	}
	cfg["select"] = sel
	n.approx("a change widget is a table of the value now and its change, per group, each the latest bucket's%s", increaseNote(rs))
	return cfg
}

// increaseNote says a widget's increase_good colouring is not kept.
func increaseNote(rs []changeRequest) string {
	for _, r := range rs {
		if r.IncreaseGood != nil {
			return fmt.Sprintf(" (increase_good %v: the change is not coloured)", *r.IncreaseGood)
		}
	}
	return ""
}

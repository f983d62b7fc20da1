package datadog

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SavedSearch is the body of POST /api/v2/saved-searches (HyperDX's
// shape: sourceId, and the columns shown as one comma-separated select).
type SavedSearch struct {
	Name          string   `json:"name"`
	Source        string   `json:"sourceId"`
	Where         string   `json:"where"`
	WhereLanguage string   `json:"whereLanguage"`
	Select        string   `json:"select"`
	Tags          []string `json:"tags"`
}

// reservedColumns are the columns a saved view's reserved attributes
// show as, on the default logs source.
var reservedColumns = map[string]string{
	"status": "SeverityText", "service": "ServiceName", "message": "Body",
	"host": "ResourceAttributes['host.name']", "source": "ResourceAttributes['datadog.log.source']",
}

// ImportSavedView translates a Datadog saved view of logs (its query
// becomes the search's where, in the Datadog language; its columns the
// columns shown).
func ImportSavedView(body []byte, src Sources) (SavedSearch, []Item, error) {
	var v struct {
		Name    string `json:"name"`
		Type    string `json:"type"`
		Query   string `json:"query"`
		Page    string `json:"page"`
		Options struct {
			Columns  []string `json:"columns"`
			GroupBys []struct {
				Facet string `json:"facet"`
			} `json:"group_bys"`
			Aggregations []struct {
				Metric string `json:"metric"`
				Type   string `json:"type"`
			} `json:"aggregations"`
		} `json:"options"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return SavedSearch{}, nil, invalidf("invalid JSON body: %v", err)
	}
	var n note
	source := src.Logs
	switch v.Type {
	case "logs", "":
	case "trace", "spans":
		source = src.Traces
	default:
		return SavedSearch{}, nil, invalidf("a %s saved view has no counterpart (logs and spans views are imported)", v.Type)
	}
	name := strings.TrimSpace(v.Name)
	if name == "" {
		name = "Imported Datadog view"
	}
	out := SavedSearch{Name: name, Source: source, Where: strings.TrimSpace(v.Query), WhereLanguage: "datadog", Tags: []string{"datadog"}}
	switch v.Page {
	case "analytics":
		// A saved search lists the events; the view's graph of them is a
		// dashboard tile's work.
		var what []string
		for _, a := range v.Options.Aggregations {
			what = append(what, a.Type+"("+cmpOr(strings.TrimPrefix(a.Metric, "count"), "*")+")")
		}
		var by []string
		for _, g := range v.Options.GroupBys {
			by = append(by, g.Facet)
		}
		agg := strings.Join(what, ", ")
		if len(by) > 0 {
			agg += " by " + strings.Join(by, ", ")
		}
		n.approx("the analytics view's %s is not kept: the saved search lists the matching events", cmpOr(agg, "aggregation"))
	case "patterns":
		n.approx("the patterns view is not kept: the saved search lists the matching events ungrouped")
	}
	var cols []string
	for _, c := range v.Options.Columns {
		switch {
		case strings.HasPrefix(c, "@"):
			m := "LogAttributes"
			if source != src.Logs {
				m = "SpanAttributes"
			}
			cols = append(cols, fmt.Sprintf("%s['%s']", m, strings.ReplaceAll(c[1:], "'", "")))
		case reservedColumns[c] != "" && source == src.Logs:
			cols = append(cols, reservedColumns[c])
		default:
			n.approx("column %q is not shown", c)
		}
	}
	if len(cols) > 0 {
		cols = append([]string{"Timestamp"}, cols...)
		if source == src.Logs {
			cols = append(cols, "Body")
		}
		out.Select = strings.Join(cols, ", ")
	}
	return out, []Item{n.item("view", v.Type, name)}, nil
}

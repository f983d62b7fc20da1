package dashboards

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// ColorTokens are the colours a tile names (HyperDX's palette tokens): ten
// hues and three meanings, resolved by the theme.
var ColorTokens = []string{
	"chart-blue", "chart-orange", "chart-red", "chart-cyan", "chart-green",
	"chart-pink", "chart-purple", "chart-light-blue", "chart-brown", "chart-gray",
	"chart-success", "chart-warning", "chart-error",
}

// legacyColors are the numbered tokens of HyperDX's first colour picker,
// by the hue each slot showed. A dashboard stored with one reads back with
// the hue; a body may not send one (HyperDX refuses them too), so they
// leave the stored documents as those are saved again.
var legacyColors = map[string]string{
	"chart-1": "chart-green", "chart-2": "chart-blue", "chart-3": "chart-orange", "chart-4": "chart-red",
	"chart-5": "chart-cyan", "chart-6": "chart-pink", "chart-7": "chart-purple", "chart-8": "chart-light-blue",
	"chart-9": "chart-brown", "chart-10": "chart-gray",
}

// A number tile's colour rules, HyperDX's: what its editor emits.
var (
	ruleOperators    = []string{"gt", "gte", "lt", "lte", "between", "eq", "neq"}
	backgroundCharts = []string{"line", "area"}
)

const (
	maxColorRules = 10
	maxRuleLabel  = 40
)

// checkColors refuses a colour that is no palette token (the tile's
// color, its colorRules' and its backgroundChart's) and a rule or a
// background chart HyperDX's editor could not have made.
func checkColors(c *Config, p *problems.List, at string) {
	token := func(field string, raw json.RawMessage) {
		var v string
		if json.Unmarshal(raw, &v) != nil || !slices.Contains(ColorTokens, v) {
			p.Add("%s.%s must be a palette token (%s), got %s", at, field, strings.Join(ColorTokens, ", "), raw)
		}
	}
	if raw, ok := c.Display["color"]; ok && string(raw) != "null" {
		token("color", raw)
	}
	if raw, ok := c.Display["colorRules"]; ok && string(raw) != "null" {
		checkRules(raw, p, at+".colorRules", token)
	}
	if raw, ok := c.Display["backgroundChart"]; ok && string(raw) != "null" {
		var bg struct {
			Type  *string         `json:"type"`
			Color json.RawMessage `json:"color"`
		}
		switch {
		case strict(raw, &bg) != nil:
			p.Add("%s.backgroundChart must be an object of type and color", at)
		case bg.Type == nil:
			p.Add("%s.backgroundChart.type is required (%s)", at, strings.Join(backgroundCharts, ", "))
		default:
			p.OneOf(at+".backgroundChart.type", *bg.Type, backgroundCharts)
		}
		if len(bg.Color) > 0 && string(bg.Color) != "null" {
			token("backgroundChart.color", bg.Color)
		}
	}
}

// checkRules checks a number tile's colorRules: at most ten, each an
// operator of the editor's with a value of its kind (two numbers for
// between, a number for an order, a number or a text for eq and neq), a
// palette colour and maybe a short label.
func checkRules(raw json.RawMessage, p *problems.List, at string, token func(string, json.RawMessage)) {
	var rules []struct {
		Operator string          `json:"operator"`
		Value    json.RawMessage `json:"value"`
		Color    json.RawMessage `json:"color"`
		Label    *string         `json:"label"`
	}
	if strict(raw, &rules) != nil {
		p.Add("%s must be a list of rules {operator, value, color, label}", at)
		return
	}
	if len(rules) > maxColorRules {
		p.Add("%s: at most %d rules, got %d", at, maxColorRules, len(rules))
	}
	for i, r := range rules {
		rat := fmt.Sprintf("%s.%d", at, i)
		p.OneOf(rat+".operator", r.Operator, ruleOperators)
		var num float64
		var pair []float64
		var text string
		switch r.Operator {
		case "between":
			if json.Unmarshal(r.Value, &pair) != nil || len(pair) != 2 {
				p.Add("%s.value of between is two numbers [low, high]", rat)
			}
		case "gt", "gte", "lt", "lte":
			if json.Unmarshal(r.Value, &num) != nil {
				p.Add("%s.value of %s is a number", rat, r.Operator)
			}
		case "eq", "neq":
			if json.Unmarshal(r.Value, &num) != nil && json.Unmarshal(r.Value, &text) != nil {
				p.Add("%s.value of %s is a number or a text", rat, r.Operator)
			}
		}
		token(fmt.Sprintf("colorRules.%d.color", i), r.Color)
		if r.Label != nil && len([]rune(*r.Label)) > maxRuleLabel {
			p.Add("%s.label is longer than %d characters", rat, maxRuleLabel)
		}
	}
}

// hue is a stored colour as it reads back: a palette token as it is, a
// numbered one as its hue; false for one that is neither.
func hue(v string) (string, bool) {
	if slices.Contains(ColorTokens, v) {
		return v, true
	}
	h, ok := legacyColors[v]
	return h, ok
}

// healColors reads a stored tile's colours back as palette tokens: a
// numbered token becomes its hue, and a colour that is neither is left
// out (a rule with it dropped, colorRules with none left omitted), so
// that the answer can be sent back as it is.
func healColors(c *Config) {
	if raw, ok := c.Display["color"]; ok {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			if h, ok := hue(v); ok {
				c.Display["color"], _ = json.Marshal(h)
			} else {
				delete(c.Display, "color")
			}
		}
	}
	if raw, ok := c.Display["colorRules"]; ok {
		var rules []map[string]any
		if json.Unmarshal(raw, &rules) == nil {
			kept := rules[:0]
			for _, r := range rules {
				v, _ := r["color"].(string)
				if h, ok := hue(v); ok {
					r["color"] = h
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 {
				delete(c.Display, "colorRules")
			} else {
				c.Display["colorRules"], _ = json.Marshal(kept)
			}
		}
	}
	if raw, ok := c.Display["backgroundChart"]; ok {
		var bg map[string]any
		if json.Unmarshal(raw, &bg) == nil && bg != nil {
			if v, isStr := bg["color"].(string); isStr {
				if h, ok := hue(v); ok {
					bg["color"] = h
				} else {
					delete(bg, "color")
				}
				c.Display["backgroundChart"], _ = json.Marshal(bg)
			}
		}
	}
}

package dashboards

// An alert-list tile is otelhouse's addition to HyperDX's tile shape (a
// displayType HyperDX lacks): it lists the team's alerts with their
// state, as Datadog's manage_status widget lists monitors, so a Datadog
// dashboard's monitor summary has a tile to become.
//
//	{"displayType": "alerts", "where": "redis memory", "alertStates": ["ALERT", "NO_DATA"]}
//
// where narrows the list to the alerts whose name holds every word of it
// (any case); alertStates, when given, to the alerts in those states.
// Both are applied where the list is shown; nothing is aggregated.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// AlertList is the display type of an alert-list tile.
const AlertList = "alerts"

// AlertStates are the states an alert-list tile can narrow to: an
// alert's states (the Alert schema's).
var AlertStates = []string{"OK", "ALERT", "NO_DATA"}

const maxAlertWhere = 1024

// fromAlertList reads an alert-list tile's config: displayType, where
// and alertStates, nothing else (it has no source nor series).
func fromAlertList(m map[string]json.RawMessage) (Config, error) {
	c := Config{DisplayType: AlertList}
	for k, raw := range m {
		switch k {
		case "displayType":
		case "where":
			if string(raw) != "null" && json.Unmarshal(raw, &c.Where) != nil {
				return c, errors.New("config.where must be a string")
			}
		case "alertStates":
			var states []string
			if json.Unmarshal(raw, &states) != nil {
				return c, errors.New("config.alertStates must be a list of states")
			}
			if c.Display == nil {
				c.Display = map[string]json.RawMessage{}
			}
			c.Display[k] = raw
		default:
			return c, fmt.Errorf("unknown field config.%s (an alert-list tile takes where and alertStates)", k)
		}
	}
	return c, nil
}

// validateAlertList checks an alert-list tile's filter.
func (c *Config) validateAlertList(p *problems.List, at string) {
	if len(c.Where) > maxAlertWhere {
		p.Add("%s.where is longer than %d characters", at, maxAlertWhere)
	}
	raw, ok := c.Display["alertStates"]
	if !ok {
		return
	}
	var states []string
	if json.Unmarshal(raw, &states) != nil {
		p.Add("%s.alertStates must be a list of states", at)
		return
	}
	for i, s := range states {
		p.OneOf(fmt.Sprintf("%s.alertStates[%d]", at, i), s, AlertStates)
		if slices.Index(states, s) != i {
			p.Add("%s.alertStates names %s twice", at, s)
		}
	}
}

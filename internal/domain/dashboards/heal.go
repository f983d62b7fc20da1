package dashboards

import "slices"

// Heal makes a stored dashboard read back as HyperDX answers one, so that
// the answer can be sent back as it is: a filter's field of a mode it is
// not in is left out (appliesToSourceIds of one that does not broadcast,
// variableName of one that is no variable), colours are palette tokens
// (healColors), and a tile's containerId or tabId that names no container
// or tab of the dashboard is left out.
func (d *Dashboard) Heal() {
	for i := range d.Filters {
		f := &d.Filters[i]
		if f.IsBroadcastEnabled != nil && !*f.IsBroadcastEnabled {
			f.AppliesToSourceIDs = nil
		}
		if f.IsVariableEnabled == nil || !*f.IsVariableEnabled {
			f.VariableName = ""
		}
	}
	for i := range d.Tiles {
		t := &d.Tiles[i]
		healColors(&t.Config)
		c := slices.IndexFunc(d.Containers, func(c Container) bool { return c.ID == t.ContainerID })
		if c < 0 {
			t.ContainerID, t.TabID = "", ""
		} else if !slices.ContainsFunc(d.Containers[c].Tabs, func(x Tab) bool { return x.ID == t.TabID }) {
			t.TabID = ""
		}
	}
}

package dashboards

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// The values a dashboard takes; limits are HyperDX's where it has one.
var (
	AggFns       = []string{"count", "count_distinct", "sum", "avg", "min", "max", "quantile", "last_value"}
	displayTypes = []string{Line, StackedBar, Table, Number, Pie, Bar, Search, Markdown, Heatmap, EventPatterns}
	// MetricTypes are the metric tables a select item's metricType names
	// (HyperDX's that it can chart).
	MetricTypes = []string{"gauge", "sum", "histogram", "exponential histogram"}
	// PeriodAggFns are what a select item's periodAggFn may be:
	// HyperDX's delta of a gauge over each bucket.
	PeriodAggFns = []string{"delta"}
	// HeatmapScales are the y axes a heatmap takes.
	HeatmapScales = []string{"log", "linear"}
	sqlDisplay    = []string{Line, StackedBar, Table, Number, Pie, Bar}
)

const (
	maxTiles     = 500
	maxSelect    = 20
	maxFormulas  = 10
	maxTileID    = 36
	maxTags      = 50
	maxTagLength = 128
	maxMarkdown  = 50000
	maxSQL       = 100000
	maxName      = 1024
	// A dashboard's containers, HyperDX's caps.
	maxContainers     = 50
	maxContainerTabs  = 20
	maxContainerID    = 256
	maxContainerTitle = 256
)

// Validate checks a decoded dashboard as HyperDX checks one and fills its
// defaults: newID names tiles given no id, sourceExists tells whether the
// team has a source. The error is Invalid (listing every problem) or the
// lookup's.
func (d *Dashboard) Validate(newID func() string, sourceExists func(id string) (bool, error)) error {
	var p problems.List
	if strings.TrimSpace(d.Name) == "" {
		p.Add("name is required")
	} else if len(d.Name) > maxName {
		p.Add("name is longer than %d characters", maxName)
	}
	if len(d.Tags) > maxTags {
		p.Add("at most %d tags", maxTags)
	}
	for _, t := range d.Tags {
		if t == "" || len(t) > maxTagLength {
			p.Add("a tag is 1 to %d characters, got %q", maxTagLength, t)
		}
	}
	if len(d.Tiles) > maxTiles {
		p.Add("at most %d tiles", maxTiles)
	}
	known := map[string]bool{}
	var missing []string
	exists := func(id string) (bool, error) {
		if ok, seen := known[id]; seen {
			return ok, nil
		}
		ok, err := sourceExists(id)
		known[id] = ok
		if err == nil && !ok {
			missing = append(missing, id)
		}
		return ok, err
	}
	seen := map[string]bool{}
	for i := range d.Tiles {
		t := &d.Tiles[i]
		at := fmt.Sprintf("tiles.%d", i)
		if t.ID == "" {
			t.ID = newID()
		}
		if len(t.ID) > maxTileID {
			p.Add("%s.id is longer than %d characters", at, maxTileID)
		}
		if seen[t.ID] {
			p.Add("%s.id %q is used twice; omit the id to have one generated", at, t.ID)
		}
		seen[t.ID] = true
		if t.X < 0 || t.X > 23 {
			p.Add("%s.x must be 0 to 23, got %d", at, t.X)
		}
		if t.Y < 0 {
			p.Add("%s.y must not be negative", at)
		}
		if t.W < 1 || t.W > 24 {
			p.Add("%s.w must be 1 to 24, got %d", at, t.W)
		}
		if t.H < 1 {
			p.Add("%s.h must be at least 1", at)
		}
		if err := t.Config.validate(&p, at+".config", exists); err != nil {
			return err
		}
	}
	checkContainers(d, &p)
	if err := checkFilters(d, &p, newID, exists); err != nil {
		return err
	}
	if d.SavedQueryLanguage != nil {
		p.OneOf("savedQueryLanguage", *d.SavedQueryLanguage, query.WhereLanguages)
	}
	for i, v := range d.SavedFilterValues {
		at := fmt.Sprintf("savedFilterValues.%d", i)
		switch {
		case v.Type == "variable":
			if v.Name == "" {
				p.Add("%s.name is required with type variable", at)
			}
			if v.Values == nil {
				p.Add("%s.values is required with type variable (the values chosen, maybe none)", at)
			}
		case v.Type != "":
			p.OneOf(at+".type", v.Type, append(slices.Clone(query.WhereLanguages), "variable"))
		}
	}
	// Unknown sources alone are answered as HyperDX answers them, in one
	// line naming them; beside other problems each is listed where it is.
	if len(missing) > 0 && !slices.ContainsFunc(p, func(m string) bool { return !strings.HasSuffix(m, "does not exist") }) {
		return MissingSources{missing}
	}
	return invalid(p)
}

// MissingSources is a dashboard whose only problem is naming sources the
// team does not have.
type MissingSources struct{ IDs []string }

func (m MissingSources) Error() string {
	return "Could not find the following source IDs: " + strings.Join(m.IDs, ", ")
}

// FilterIDsGiven reports whether a filter came with an id, which a new
// dashboard's filters may not (HyperDX refuses it: ids are made here).
func (d *Dashboard) FilterIDsGiven() bool {
	for _, f := range d.Filters {
		if f.ID != "" {
			return true
		}
	}
	return false
}

func (c *Config) validate(p *problems.List, at string, exists func(string) (bool, error)) error {
	source := func(required bool) error {
		if c.SourceID == "" {
			if required {
				p.Add("%s.sourceId is required", at)
			}
			return nil
		}
		ok, err := exists(c.SourceID)
		if err == nil && !ok {
			p.Add("%s.sourceId: source %q does not exist", at, c.SourceID)
		}
		return err
	}
	language := func(field string, v *string) {
		if *v == "" {
			*v = "lucene"
		}
		p.OneOf(field, *v, query.WhereLanguages)
	}
	checkColors(c, p, at)
	if raw, ok := c.Display["asRatio"]; ok && string(raw) != "false" && string(raw) != "null" {
		switch {
		case string(raw) != "true":
			p.Add("%s.asRatio must be true or false", at)
		case c.ConfigType != "" || !slices.Contains([]string{Line, StackedBar, Table}, c.DisplayType):
			p.Add("%s.asRatio is for line, stacked_bar and table tiles of the builder", at)
		case len(c.Select) != 2:
			p.Add("%s: asRatio can only be used with exactly two select items", at)
		}
	}
	c.checkFormulas(p, at)
	switch {
	case c.ConfigType != "":
		if c.ConfigType != "sql" {
			p.Add(`%s.configType must be "sql" or omitted, got %q`, at, c.ConfigType)
		}
		p.OneOf(at+".displayType", c.DisplayType, sqlDisplay)
		if c.ConnectionID == "" {
			p.Add("%s.connectionId is required with configType sql", at)
		}
		if strings.TrimSpace(c.SQLTemplate) == "" || len(c.SQLTemplate) > maxSQL {
			p.Add("%s.sqlTemplate is required, at most %d characters", at, maxSQL)
		}
		return source(false)
	case c.DisplayType == Markdown:
		if len(c.Markdown) > maxMarkdown {
			p.Add("%s.markdown is longer than %d characters", at, maxMarkdown)
		}
		return nil
	case c.DisplayType == Search || c.DisplayType == EventPatterns:
		language(at+".whereLanguage", &c.WhereLanguage)
		return source(true)
	case c.DisplayType == Heatmap:
		if len(c.HeatmapSelect) != 1 {
			p.Add("%s.select of a heatmap tile takes one item, got %d", at, len(c.HeatmapSelect))
		}
		for j, s := range c.HeatmapSelect {
			sat := fmt.Sprintf("%s.select[%d]", at, j)
			if strings.TrimSpace(s.ValueExpression) == "" {
				p.Add("%s.valueExpression is required for heatmap charts", sat)
			}
			if s.HeatmapScaleType != "" {
				p.OneOf(sat+".heatmapScaleType", s.HeatmapScaleType, HeatmapScales)
			}
		}
		language(at+".whereLanguage", &c.WhereLanguage)
		return source(true)
	case c.DisplayType == AlertList:
		c.validateAlertList(p, at)
		return nil
	case c.IsChart():
	default:
		p.OneOf(at+".displayType", c.DisplayType, displayTypes)
		return nil
	}
	if raw, ok := c.Display["granularity"]; ok {
		var g string
		if err := json.Unmarshal(raw, &g); err != nil {
			p.Add("%s.granularity must be a string", at)
		} else if _, err := charts.Bucket(g, time.Time{}, time.Time{}); err != nil {
			p.Add("%s.%v", at, err)
		}
	}
	switch n := len(c.Select); {
	case n == 0 || n > maxSelect:
		p.Add("%s.select takes 1 to %d items, got %d", at, maxSelect, n)
	case n != 1 && c.DisplayType == Number && len(c.Formulas) == 0:
		// With a formula, a number tile shows it over several items.
		p.Add("%s.select: Number tiles support a single select item without formulas, got %d", at, n)
	case n != 1 && slices.Contains([]string{Pie, Bar}, c.DisplayType):
		p.Add("%s.select of a %s tile takes one item, got %d", at, c.DisplayType, n)
	}
	for j := range c.Select {
		s := &c.Select[j]
		sat := fmt.Sprintf("%s.select.%d", at, j)
		if s.Query != "" {
			// A Datadog metric query carries its own aggregation and
			// filter; mixing in the builder's would be ambiguous.
			if s.AggFn != "" || s.ValueExpression != "" || s.Where != "" || s.Level != 0 || s.PeriodAggFn != "" {
				p.Add("%s: query replaces aggFn, valueExpression, level, where and periodAggFn; give one or the other", sat)
			} else if _, err := charts.ParseDatadogMetric(s.Query); err != nil {
				p.Add("%s.query: %v", sat, err)
			}
			language(sat+".whereLanguage", &s.WhereLanguage)
			continue
		}
		p.OneOf(sat+".aggFn", s.AggFn, AggFns)
		metric := s.MetricName != "" && s.MetricType != ""
		if s.MetricType != "" {
			p.OneOf(sat+".metricType", s.MetricType, MetricTypes)
		}
		if s.PeriodAggFn != "" {
			p.OneOf(sat+".periodAggFn", s.PeriodAggFn, PeriodAggFns)
		}
		switch {
		case s.AggFn == "count" && s.ValueExpression != "":
			p.Add("%s: valueExpression cannot be used with aggFn count", sat)
		case s.AggFn != "count" && s.ValueExpression == "" && !metric && slices.Contains(AggFns, s.AggFn):
			p.Add("%s.valueExpression is required with aggFn %s", sat, s.AggFn)
		}
		switch {
		case s.AggFn == "quantile" && (s.Level <= 0 || s.Level >= 1):
			p.Add("%s.level must be between 0 and 1 with aggFn quantile", sat)
		case s.AggFn != "quantile" && s.Level != 0:
			p.Add("%s.level can only be used with aggFn quantile", sat)
		}
		language(sat+".whereLanguage", &s.WhereLanguage)
	}
	return source(true)
}

// checkFormulas applies HyperDX's rules to a tile's formulas and having:
// formulas on the builder's line, stacked_bar, table and number tiles
// only, at most maxFormulas (one on a number tile), each an expression
// over the tile's select items, never beside asRatio (a ratio is the
// formula "A / B"); having on the builder's table tiles only (checked as
// SQL where it runs, on the source's columns: charts/series).
func (c *Config) checkFormulas(p *problems.List, at string) {
	builder := c.ConfigType == ""
	switch {
	case len(c.Formulas) == 0:
	case !builder || !slices.Contains([]string{Line, StackedBar, Table, Number}, c.DisplayType):
		p.Add("%s.formulas are for line, stacked_bar, table and number tiles of the builder", at)
	default:
		switch {
		case len(c.Formulas) > maxFormulas:
			p.Add("%s.formulas: at most %d", at, maxFormulas)
		case c.DisplayType == Number && len(c.Formulas) > 1:
			p.Add("%s.formulas: Number charts support a single formula", at)
		}
		for i, f := range c.Formulas {
			if _, err := charts.ParseFormula(f.Expression, len(c.Select)); err != nil {
				p.Add("%s.formulas.%d.expression: %v", at, i, err)
			}
		}
		if c.AsRatio() {
			p.Add(`%s.formulas: formulas cannot be combined with asRatio; express the ratio as a formula instead (e.g. "A / B")`, at)
		}
	}
	if c.Having != "" {
		switch {
		case !builder || c.DisplayType != Table:
			p.Add("%s.having is for table tiles of the builder", at)
		case len(c.Having) > query.MaxSQLWhere:
			p.Add("%s.having may be at most %d bytes", at, query.MaxSQLWhere)
		}
	}
}

// checkContainers applies HyperDX's rules to a dashboard's containers and
// to the tiles that name one: ids unique (a tab's within its container),
// titles given, the caps; a tile's containerId names a container, its
// tabId a tab of that container.
func checkContainers(d *Dashboard, p *problems.List) {
	if len(d.Containers) > maxContainers {
		p.Add("containers: at most %d", maxContainers)
	}
	byID := map[string]*Container{}
	for i := range d.Containers {
		c := &d.Containers[i]
		at := fmt.Sprintf("containers.%d", i)
		if c.ID == "" || len(c.ID) > maxContainerID {
			p.Add("%s.id is 1 to %d characters", at, maxContainerID)
		} else if byID[c.ID] != nil {
			p.Add("containers: Container IDs must be unique (%q is used twice)", c.ID)
		}
		byID[c.ID] = c
		if c.Title == "" || len(c.Title) > maxContainerTitle {
			p.Add("%s.title is 1 to %d characters", at, maxContainerTitle)
		}
		if len(c.Tabs) > maxContainerTabs {
			p.Add("%s.tabs: at most %d", at, maxContainerTabs)
		}
		tabs := map[string]bool{}
		for j, t := range c.Tabs {
			if t.ID == "" || len(t.ID) > maxContainerID {
				p.Add("%s.tabs.%d.id is 1 to %d characters", at, j, maxContainerID)
			} else if tabs[t.ID] {
				p.Add("%s.tabs: Duplicate tab id %q in container %q", at, t.ID, c.ID)
			}
			tabs[t.ID] = true
			if t.Title == "" || len(t.Title) > maxContainerTitle {
				p.Add("%s.tabs.%d.title is 1 to %d characters", at, j, maxContainerTitle)
			}
		}
	}
	for i, t := range d.Tiles {
		at := fmt.Sprintf("tiles.%d", i)
		if t.emptyContainer || len(t.ContainerID) > maxContainerID {
			p.Add("%s.containerId is 1 to %d characters", at, maxContainerID)
			continue
		}
		if t.emptyTab || len(t.TabID) > maxContainerID {
			p.Add("%s.tabId is 1 to %d characters", at, maxContainerID)
			continue
		}
		switch c := byID[t.ContainerID]; {
		case t.ContainerID == "" && t.TabID != "":
			p.Add("%s: tabId requires containerId to be set", at)
		case t.ContainerID == "":
		case c == nil:
			p.Add("%s: Tile references unknown containerId %q", at, t.ContainerID)
		case t.TabID != "" && !slices.ContainsFunc(c.Tabs, func(x Tab) bool { return x.ID == t.TabID }):
			p.Add("%s: Tile references unknown tabId %q of container %q", at, t.TabID, t.ContainerID)
		}
	}
}

// HeatmapSources are the sources the heatmap tiles read, each once: a
// heatmap reads a trace source only (HyperDX's rule), which the caller
// checks against the sources' kinds.
func (d *Dashboard) HeatmapSources() []string {
	var ids []string
	for _, t := range d.Tiles {
		if t.Config.DisplayType == Heatmap && t.Config.ConfigType == "" && t.Config.SourceID != "" && !slices.Contains(ids, t.Config.SourceID) {
			ids = append(ids, t.Config.SourceID)
		}
	}
	return ids
}

// OnClick is where a table tile's row click leads (HyperDX's onClick): a
// dashboard or a search, named by id or by a template.
type OnClick struct {
	Type   string `json:"type"`
	Target struct {
		Mode string `json:"mode"`
		ID   string `json:"id"`
	} `json:"target"`
}

// OnClickTargets are the dashboards and the search sources the tiles'
// onClick name by id, each once, in order.
func (d *Dashboard) OnClickTargets() (dashboardIDs, sourceIDs []string) {
	for _, t := range d.Tiles {
		raw, ok := t.Config.Display["onClick"]
		if !ok {
			continue
		}
		var o OnClick
		if json.Unmarshal(raw, &o) != nil || o.Target.Mode != "id" || o.Target.ID == "" {
			continue
		}
		switch o.Type {
		case "dashboard":
			if !slices.Contains(dashboardIDs, o.Target.ID) {
				dashboardIDs = append(dashboardIDs, o.Target.ID)
			}
		case "search":
			if !slices.Contains(sourceIDs, o.Target.ID) {
				sourceIDs = append(sourceIDs, o.Target.ID)
			}
		}
	}
	return dashboardIDs, sourceIDs
}

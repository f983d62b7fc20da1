// Package dashboards is a dashboard as HyperDX's API v2 keeps it: a grid
// of tiles, each a chart config (displayType, sourceId, select items,
// groupBy), a search, a markdown note or a raw-SQL chart. The REST API
// decodes, validates and stores them; the web UI and the alert scheduler
// read them through the same types, so the three agree on what a tile
// runs.
package dashboards

import (
	"encoding/json"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Kind is what a dashboard is filed under.
const Kind = store.KindDashboard

// Dashboard is a named grid of tiles. Filters (the dashboard's filter
// dropdowns), savedQuery and savedFilterValues (the where and filter
// values it opens with) are kept as HyperDX keeps them, for the clients
// that show them.
type Dashboard struct {
	ID                 string        `json:"id"`
	Name               string        `json:"name"`
	Tags               []string      `json:"tags"`
	Tiles              []Tile        `json:"tiles"`
	Filters            []Filter      `json:"filters"`
	SavedQuery         *string       `json:"savedQuery"`
	SavedQueryLanguage *string       `json:"savedQueryLanguage"`
	SavedFilterValues  []FilterValue `json:"savedFilterValues"`
	// Containers group tiles into sections (HyperDX's), each maybe with
	// tabs; a tile names its section and tab. Absent when there is none.
	Containers []Container `json:"containers,omitempty"`
	CreatedAt  time.Time   `json:"createdAt"`
	UpdatedAt  time.Time   `json:"updatedAt"`

	// Given says which of the optional fields a body sent, so an update
	// can keep what it leaves out, as HyperDX's does.
	Given Given `json:"-"`
}

// Given tells which optional parts a dashboard body carried.
type Given struct{ Filters, Containers bool }

// Container is a section of a dashboard's tiles (HyperDX's container):
// a title, collapsed or not, maybe tabs that its tiles pick.
type Container struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Collapsed   bool   `json:"collapsed"`
	Collapsible *bool  `json:"collapsible,omitempty"`
	Bordered    *bool  `json:"bordered,omitempty"`
	Tabs        []Tab  `json:"tabs,omitempty"`
}

// Tab is one of a container's tabs.
type Tab struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Filter is one of a dashboard's filter dropdowns. A QUERY_EXPRESSION
// filter offers the values of Expression over SourceID's rows (matching
// Where), applied to the tiles of AppliesToSourceIDs (absent: the tiles
// of SourceID); a STATIC_LIST filter offers its Options, as a variable
// only. A field of the other type is absent, so an answer can be sent
// back as it is.
type Filter struct {
	ID                 string   `json:"id"`
	Type               string   `json:"type"`
	Name               string   `json:"name"`
	Expression         string   `json:"expression,omitempty"`
	SourceID           string   `json:"sourceId,omitempty"`
	Options            []string `json:"options,omitempty"`
	SourceMetricType   string   `json:"sourceMetricType,omitempty"`
	Where              string   `json:"where,omitempty"`
	WhereLanguage      string   `json:"whereLanguage,omitempty"`
	AppliesToSourceIDs []string `json:"appliesToSourceIds,omitempty"`
	// IsBroadcastEnabled (absent: true) filters the tiles with the
	// chosen value; IsVariableEnabled makes it a variable, named
	// VariableName (absent: derived from Name), as HyperDX's. Absent
	// stays absent, so the defaults keep applying.
	IsBroadcastEnabled *bool  `json:"isBroadcastEnabled,omitempty"`
	IsVariableEnabled  *bool  `json:"isVariableEnabled,omitempty"`
	VariableName       string `json:"variableName,omitempty"`
}

// FilterValue is a filter value a dashboard opens with: a condition
// (type sql or lucene, or none) or the values chosen for a variable
// (type variable: Name and Values, which may be empty).
type FilterValue struct {
	Type      string    `json:"type,omitempty"`
	Condition string    `json:"condition"`
	Name      string    `json:"name,omitempty"`
	Values    *[]string `json:"values,omitempty"`
}

// MarshalJSON answers each kind of value with its own fields alone.
func (v FilterValue) MarshalJSON() ([]byte, error) {
	if v.Type == "variable" {
		values := []string{}
		if v.Values != nil {
			values = *v.Values
		}
		return json.Marshal(struct {
			Type   string   `json:"type"`
			Name   string   `json:"name"`
			Values []string `json:"values"`
		}{v.Type, v.Name, values})
	}
	return json.Marshal(struct {
		Type      string `json:"type,omitempty"`
		Condition string `json:"condition"`
	}{v.Type, v.Condition})
}

// Tile is a chart placed on the dashboard's 24-column grid.
type Tile struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	W      int    `json:"w"`
	H      int    `json:"h"`
	Config Config `json:"config"`
	// ContainerID and TabID place the tile in a container and its tab.
	ContainerID string `json:"containerId,omitempty"`
	TabID       string `json:"tabId,omitempty"`

	// emptyContainer and emptyTab: the body sent containerId or tabId
	// as "", which names nothing and is refused (a stored one reads as
	// absent).
	emptyContainer, emptyTab bool
}

// The display types a tile takes.
const (
	Line       = "line"
	StackedBar = "stacked_bar"
	Table      = "table"
	Number     = "number"
	Pie        = "pie"
	Bar        = "bar"
	Search     = "search"
	Markdown   = "markdown"
	// Heatmap counts a trace source's events in buckets of a value (a
	// duration, usually) over time; EventPatterns groups a source's
	// events by the pattern of their body.
	Heatmap       = "heatmap"
	EventPatterns = "event_patterns"
)

// Config is what a tile shows. Builder charts (line, stacked_bar, table,
// number, pie, bar) aggregate their Select items over SourceID grouped by
// GroupBy; a search tile lists SearchSelect columns of the events matching
// Where; a markdown tile shows Markdown; a raw-SQL tile (ConfigType "sql")
// keeps its SQLTemplate, which is stored but not run (see docs/api.md).
// A heatmap tile counts the events of Where in buckets of its one
// HeatmapSelect item's value; an event-patterns tile groups the events
// of Where by pattern, SearchSelect naming the field it reads.
type Config struct {
	ConfigType    string
	DisplayType   string
	SourceID      string
	Select        []Select
	SearchSelect  string
	GroupBy       string
	Where         string
	WhereLanguage string
	Markdown      string
	ConnectionID  string
	SQLTemplate   string
	HeatmapSelect []HeatmapItem
	// Formulas, on a builder chart, are series computed from its select
	// items by arithmetic naming them by letter, A the first
	// (charts.ParseFormula); Display's showOperandSeries says whether the
	// items are drawn beside them.
	Formulas []Formula
	// Having, on a builder table, is HyperDX's SQL condition over a
	// grouped row's aggregates. Kept as given (HyperDX stores it
	// unchecked); the table tile sends it to POST /api/v2/charts/series,
	// which checks it on the engine's parse (query.CheckSQLHaving) and
	// keeps the groups satisfying it. An alert does not apply it, so an
	// alert on a tile with one is refused.
	Having string
	// Display holds HyperDX's presentation options (numberFormat,
	// fillNulls, seriesLimit, …) as they came, so a dashboard read and
	// written back keeps them.
	Display map[string]json.RawMessage
}

// Select is one aggregated series of a builder chart.
type Select struct {
	AggFn           string `json:"aggFn,omitempty"` // empty only beside a query
	ValueExpression string `json:"valueExpression,omitempty"`
	// Query, on a metric source, is a Datadog metric query or formula
	// (charts.Series.Query); it replaces aggFn, valueExpression and where,
	// so a dashboard imported from Datadog keeps its queries as written.
	Query string `json:"query,omitempty"`
	// MetricName and MetricType, on a metric source, chart that metric of
	// the source's table of that type (HyperDX's metric select item); the
	// metric's Value is aggregated unless valueExpression names another
	// column.
	MetricName string `json:"metricName,omitempty"`
	MetricType string `json:"metricType,omitempty"`
	// PeriodAggFn "delta" charts a gauge metric's change over each bucket
	// rather than its last value (charts.Series.Delta); other items
	// ignore it, as HyperDX does.
	PeriodAggFn   string          `json:"periodAggFn,omitempty"`
	Alias         string          `json:"alias,omitempty"`
	Level         float64         `json:"level,omitempty"`
	Where         string          `json:"where"`
	WhereLanguage string          `json:"whereLanguage"`
	NumberFormat  json.RawMessage `json:"numberFormat,omitempty"`
}

// Formula is one computed series of a chart tile (HyperDX's metric
// formula): its expression, and how it is labelled and formatted.
type Formula struct {
	Expression   string          `json:"expression"`
	Alias        string          `json:"alias,omitempty"`
	NumberFormat json.RawMessage `json:"numberFormat,omitempty"`
}

// HeatmapItem is a heatmap tile's select item (HyperDX's): the value
// bucketed on the y axis, what each cell counts (count() when empty) and
// the y axis' scale, log or linear (log when empty).
type HeatmapItem struct {
	ValueExpression  string `json:"valueExpression"`
	CountExpression  string `json:"countExpression,omitempty"`
	HeatmapScaleType string `json:"heatmapScaleType,omitempty"`
}

// MarshalJSON answers valueExpression always (empty for count) beside an
// aggFn, as HyperDX does; a query item has none.
func (s Select) MarshalJSON() ([]byte, error) {
	type plain Select
	b, err := json.Marshal(plain(s))
	if err != nil || s.Query != "" || s.ValueExpression != "" {
		return b, err
	}
	return append([]byte(`{"valueExpression":"",`), b[1:]...), nil
}

// displayOptions are the presentation options kept verbatim; they change
// how a chart is drawn, not what it computes. granularity is the bucket a
// tile is drawn at ("auto" or one of charts.Granularities, the names
// POST /api/v2/charts/series takes), checked by Validate.
var displayOptions = []string{
	"numberFormat", "granularity", "fillNulls", "alignDateRangeToGranularity", "compareToPreviousPeriod",
	"fitYAxisToData", "seriesLimit", "groupByColumnsOnLeft", "color", "colorRules", "limit", "onClick", "orderBy", "showOperandSeries",
	"backgroundChart", "asRatio",
}

// IsChart reports whether the tile aggregates select items (and so can be
// charted and alerted on).
func (c *Config) IsChart() bool {
	if c.ConfigType != "" {
		return false
	}
	switch c.DisplayType {
	case Line, StackedBar, Table, Number, Pie, Bar:
		return true
	}
	return false
}

// MarshalJSON writes the config in HyperDX's shape: select is the list of
// series for charts and the column list for a search tile.
func (c Config) MarshalJSON() ([]byte, error) {
	m := map[string]any{"displayType": c.DisplayType}
	for k, v := range c.Display {
		m[k] = v
	}
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	switch {
	case c.ConfigType != "":
		m["configType"] = c.ConfigType
		m["connectionId"] = c.ConnectionID
		m["sqlTemplate"] = c.SQLTemplate
		put("sourceId", c.SourceID)
	case c.DisplayType == Markdown:
		m["markdown"] = c.Markdown
	case c.DisplayType == AlertList:
		put("where", c.Where)
	case c.DisplayType == Search || c.DisplayType == EventPatterns:
		m["sourceId"] = c.SourceID
		m["select"] = c.SearchSelect
		m["where"] = c.Where
		m["whereLanguage"] = c.WhereLanguage
	case c.DisplayType == Heatmap:
		m["sourceId"] = c.SourceID
		m["select"] = c.HeatmapSelect
		if c.HeatmapSelect == nil {
			m["select"] = []HeatmapItem{}
		}
		m["where"] = c.Where
		m["whereLanguage"] = c.WhereLanguage
	default:
		m["sourceId"] = c.SourceID
		m["select"] = c.Select
		put("groupBy", c.GroupBy)
		put("having", c.Having)
		if len(c.Formulas) > 0 {
			m["formulas"] = c.Formulas
		}
	}
	return json.Marshal(m)
}

// Tile finds a tile by id.
func (d *Dashboard) Tile(id string) (*Tile, bool) {
	for i := range d.Tiles {
		if d.Tiles[i].ID == id {
			return &d.Tiles[i], true
		}
	}
	return nil, false
}

// AsRatio reports whether a chart tile draws its first select item over
// its second (HyperDX's asRatio) rather than a line per item.
func (c *Config) AsRatio() bool {
	return c.IsChart() && string(c.Display["asRatio"]) == "true"
}

// Watched is what an alert on a chart tile measures, as the tile draws
// it: the tile's first select item, or, on a ratio tile (AsRatio), its
// first two (the first over the second), grouped by the tile's groupBy
// fields. An item naming a metric (metricName, metricType) reads that
// metric, as on the chart. A ratio without exactly two items, which
// Validate refuses, is nothing the tile draws, so nothing is watched. A
// tile with formulas is watched through its first formula: every item is
// one of its operands (A the first).
func (c *Config) Watched() ([]Select, []string, bool) {
	if !c.IsChart() || len(c.Select) == 0 {
		return nil, nil, false
	}
	if len(c.Formulas) > 0 {
		return c.Select, query.SplitList(c.GroupBy), true
	}
	if c.AsRatio() {
		if len(c.Select) != 2 {
			return nil, nil, false
		}
		return c.Select[:2], query.SplitList(c.GroupBy), true
	}
	return c.Select[:1], query.SplitList(c.GroupBy), true
}

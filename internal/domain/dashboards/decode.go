package dashboards

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Invalid is a dashboard the caller must correct; it lists every problem.
type Invalid struct{ error }

func invalid(p []string) error {
	if len(p) == 0 {
		return nil
	}
	return Invalid{errors.New(strings.Join(p, "; "))}
}

// input is a dashboard body as HyperDX's API v2 takes it, plus what a
// dashboard read back carries (id, timestamps), so GET then PUT works.
type input struct {
	ID                 string            `json:"id"`
	Name               string            `json:"name"`
	Tags               []string          `json:"tags"`
	Tiles              []json.RawMessage `json:"tiles"`
	Filters            []Filter          `json:"filters"`
	SavedQuery         *string           `json:"savedQuery"`
	SavedQueryLanguage json.RawMessage   `json:"savedQueryLanguage"`
	SavedFilterValues  []FilterValue     `json:"savedFilterValues"`
	Containers         []Container       `json:"containers"`
	CreatedAt          time.Time         `json:"createdAt"`
	UpdatedAt          time.Time         `json:"updatedAt"`
}

// tileInput is a tile in any of the three forms: HyperDX's config,
// HyperDX's older series list, or this API's first config.
type tileInput struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	X       int    `json:"x"`
	Y       int    `json:"y"`
	W       int    `json:"w"`
	H       int    `json:"h"`
	AsRatio *bool  `json:"asRatio"`
	// SeriesReturnType is HyperDX v1's: "column" (each series its own
	// line, what a tile draws) or "ratio" (the first over the second).
	SeriesReturnType string                     `json:"seriesReturnType"`
	Series           []json.RawMessage          `json:"series"`
	Config           map[string]json.RawMessage `json:"config"`
	ContainerID      *string                    `json:"containerId"`
	TabID            *string                    `json:"tabId"`
}

// Decode reads a dashboard body in HyperDX's shapes, or this API's first
// one, into a Dashboard; Validate then checks the values. Tiles of the
// older forms are translated as HyperDX translates them, so a dashboard
// always reads back in the config form.
func Decode(body []byte) (Dashboard, error) {
	var in input
	if err := strict(body, &in); err != nil {
		return Dashboard{}, Invalid{fmt.Errorf("invalid JSON body: %w", err)}
	}
	var p []string
	d := Dashboard{
		ID: in.ID, Name: in.Name, Tags: in.Tags, Tiles: make([]Tile, 0, len(in.Tiles)),
		Filters: in.Filters, SavedQuery: in.SavedQuery, SavedFilterValues: in.SavedFilterValues, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt,
		Containers: in.Containers, Given: Given{Filters: in.Filters != nil, Containers: in.Containers != nil},
	}
	if d.Filters == nil {
		d.Filters = []Filter{}
	}
	if d.SavedFilterValues == nil {
		d.SavedFilterValues = []FilterValue{}
	}
	// A saved query without a language is lucene, as HyperDX defaults it;
	// an explicit null beside one is a mistake HyperDX refuses.
	switch lang := string(in.SavedQueryLanguage); {
	case lang == "null" && d.SavedQuery != nil:
		p = append(p, "savedQueryLanguage cannot be null when savedQuery is provided")
	case lang == "" || lang == "null":
		if d.SavedQuery != nil {
			l := "lucene"
			d.SavedQueryLanguage = &l
		}
	default:
		var l string
		if err := json.Unmarshal(in.SavedQueryLanguage, &l); err != nil {
			p = append(p, "savedQueryLanguage must be a string")
		} else {
			d.SavedQueryLanguage = &l
		}
	}
	if d.Tags == nil {
		d.Tags = []string{}
	}
	for i, raw := range in.Tiles {
		at := fmt.Sprintf("tiles.%d", i)
		var ti tileInput
		if err := strict(raw, &ti); err != nil {
			p = append(p, fmt.Sprintf("%s: %v", at, err))
			continue
		}
		t := Tile{ID: ti.ID, Name: ti.Name, X: ti.X, Y: ti.Y, W: ti.W, H: ti.H}
		if ti.ContainerID != nil {
			t.ContainerID, t.emptyContainer = *ti.ContainerID, *ti.ContainerID == ""
		}
		if ti.TabID != nil {
			t.TabID, t.emptyTab = *ti.TabID, *ti.TabID == ""
		}
		var err error
		switch {
		case ti.SeriesReturnType != "" && ti.SeriesReturnType != "column":
			err = fmt.Errorf(`seriesReturnType %q is not supported yet; "column" is`, ti.SeriesReturnType)
		case ti.Series != nil && ti.Config != nil:
			err = errors.New("a tile cannot have both series and config")
		case ti.Series != nil:
			t.Config, err = fromSeries(ti.Series)
			// HyperDX's translation: a time or table chart says whether it
			// is a ratio (the tile's asRatio), and a time chart fills its
			// gaps.
			if err == nil && t.Config.IsChart() && t.Config.DisplayType != Number {
				if t.Config.Display == nil {
					t.Config.Display = map[string]json.RawMessage{}
				}
				t.Config.Display["asRatio"] = json.RawMessage(fmt.Sprint(ti.AsRatio != nil && *ti.AsRatio))
				if t.Config.DisplayType != Table {
					t.Config.Display["fillNulls"] = json.RawMessage("true")
				}
			}
		case ti.Config != nil:
			switch {
			case ti.AsRatio != nil:
				err = errors.New("asRatio property is not supported when using config property; specify config.asRatio instead")
			case isFirstForm(ti.Config):
				t.Config, err = fromFirstForm(ti.Config)
			default:
				t.Config, err = fromConfig(ti.Config)
			}
		default:
			err = errors.New("a tile must have either series or config")
		}
		if err != nil {
			p = append(p, fmt.Sprintf("%s: %v", at, err))
			continue
		}
		d.Tiles = append(d.Tiles, t)
	}
	return d, invalid(p)
}

func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// heatmapKeys are the fields of HyperDX's heatmap tile config: no
// groupBy, no chart options beside numberFormat.
var heatmapKeys = []string{"displayType", "sourceId", "select", "where", "whereLanguage", "numberFormat"}

// fromConfig reads HyperDX's config form: builder charts, search,
// markdown, or configType "sql".
func fromConfig(m map[string]json.RawMessage) (Config, error) {
	if string(m["displayType"]) == `"`+AlertList+`"` {
		return fromAlertList(m)
	}
	var c Config
	str := func(k string, dst *string) error {
		raw, ok := m[k]
		if !ok || string(raw) == "null" {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("config.%s must be a string", k)
		}
		return nil
	}
	if err := str("configType", &c.ConfigType); err != nil {
		return c, err
	}
	// Checked first: a body of another dialect must not be read as a
	// builder chart's, whose other fields it may not fit.
	if c.ConfigType != "" && c.ConfigType != "sql" {
		return c, fmt.Errorf(`config.configType must be "sql" or omitted, got %q`, c.ConfigType)
	}
	for _, k := range []struct {
		key string
		dst *string
	}{
		{"configType", &c.ConfigType},
		{"displayType", &c.DisplayType},
		{"sourceId", &c.SourceID},
		{"groupBy", &c.GroupBy},
		{"where", &c.Where},
		{"whereLanguage", &c.WhereLanguage},
		{"markdown", &c.Markdown},
		{"connectionId", &c.ConnectionID},
		{"sqlTemplate", &c.SQLTemplate},
		{"having", &c.Having},
	} {
		if err := str(k.key, k.dst); err != nil {
			return c, err
		}
	}
	if c.DisplayType == Heatmap && c.ConfigType == "" {
		for k := range m {
			if !slices.Contains(heatmapKeys, k) {
				return c, fmt.Errorf("config.%s is not a field of a heatmap tile (it takes %s)", k, strings.Join(heatmapKeys, ", "))
			}
		}
	}
	if raw, ok := m["select"]; ok {
		if c.DisplayType == Heatmap && c.ConfigType == "" {
			if err := strict(raw, &c.HeatmapSelect); err != nil {
				return c, fmt.Errorf("config.select of a heatmap tile: %w", err)
			}
		} else if c.DisplayType == Search || c.DisplayType == EventPatterns {
			if err := json.Unmarshal(raw, &c.SearchSelect); err != nil {
				return c, errors.New("config.select of a search tile is the columns shown, a string")
			}
		} else if err := strict(raw, &c.Select); err != nil {
			return c, fmt.Errorf("config.select: %w", err)
		}
	}
	if raw, ok := m["formulas"]; ok && string(raw) != "null" {
		if err := strict(raw, &c.Formulas); err != nil {
			return c, fmt.Errorf("config.formulas: %w", err)
		}
		if len(c.Formulas) == 0 {
			c.Formulas = nil
		}
	}
	for k, raw := range m {
		switch {
		case slices.Contains([]string{
			"configType", "displayType", "sourceId", "groupBy", "where", "whereLanguage",
			"markdown", "connectionId", "sqlTemplate", "select", "formulas", "having",
		}, k):
		case slices.Contains(displayOptions, k):
			if c.Display == nil {
				c.Display = map[string]json.RawMessage{}
			}
			c.Display[k] = raw
		default:
			return c, fmt.Errorf("unknown field config.%s", k)
		}
	}
	canonical(&c)
	return c, nil
}

// canonical gives a builder chart the options HyperDX always answers:
// a time chart says whether it is a ratio and fills its gaps unless told
// not to, a table says whether it is a ratio; fitYAxisToData is a line
// chart's alone (HyperDX drops it elsewhere).
func canonical(c *Config) {
	if c.ConfigType != "" {
		// A raw SQL tile keeps its colour alone, as HyperDX's raw SQL
		// schema does: colour rules and a background chart are the
		// builder's.
		delete(c.Display, "colorRules")
		delete(c.Display, "backgroundChart")
		return
	}
	set := func(k, v string) {
		if _, ok := c.Display[k]; !ok {
			if c.Display == nil {
				c.Display = map[string]json.RawMessage{}
			}
			c.Display[k] = json.RawMessage(v)
		}
	}
	switch c.DisplayType {
	case Line, StackedBar:
		set("asRatio", "false")
		set("fillNulls", "true")
	case Table:
		set("asRatio", "false")
	default:
		// Only time charts and tables divide (HyperDX's schemas of the
		// others have no asRatio); false elsewhere says nothing.
		if string(c.Display["asRatio"]) == "false" {
			delete(c.Display, "asRatio")
		}
	}
	if c.DisplayType != Line {
		delete(c.Display, "fitYAxisToData")
	}
	if c.DisplayType == Number {
		// A number tile draws its one formula alone: its operands are
		// never shown, so the option says nothing (HyperDX answers none).
		delete(c.Display, "showOperandSeries")
	}
}

// seriesInput is one entry of HyperDX's older tiles[].series.
type seriesInput struct {
	Type           string          `json:"type"`
	SourceID       string          `json:"sourceId"`
	AggFn          string          `json:"aggFn"`
	Level          float64         `json:"level"`
	Field          string          `json:"field"`
	Alias          string          `json:"alias"`
	Where          string          `json:"where"`
	WhereLanguage  string          `json:"whereLanguage"`
	GroupBy        []string        `json:"groupBy"`
	SortOrder      string          `json:"sortOrder"`
	NumberFormat   json.RawMessage `json:"numberFormat"`
	DisplayType    string          `json:"displayType"`
	Fields         []string        `json:"fields"`
	Content        string          `json:"content"`
	MetricDataType string          `json:"metricDataType"`
	MetricName     string          `json:"metricName"`
}

// fromSeries translates the older series form as HyperDX does: a tile's
// series are one chart over the first series' source and groupBy; a
// search series lists its fields, a markdown series its content.
func fromSeries(raws []json.RawMessage) (Config, error) {
	if len(raws) == 0 {
		return Config{}, errors.New("series needs at least one entry")
	}
	series := make([]seriesInput, len(raws))
	for i, raw := range raws {
		if err := strict(raw, &series[i]); err != nil {
			return Config{}, fmt.Errorf("series[%d]: %w", i, err)
		}
		if series[i].Type != series[0].Type {
			return Config{}, errors.New("all series must have the same type")
		}
	}
	first := series[0]
	switch first.Type {
	case "markdown":
		return Config{DisplayType: Markdown, Markdown: first.Content}, nil
	case "search":
		return Config{
			DisplayType: Search, SourceID: first.SourceID, SearchSelect: strings.Join(first.Fields, ", "),
			Where: first.Where, WhereLanguage: first.WhereLanguage,
		}, nil
	case "time", "table", "number":
	default:
		return Config{}, fmt.Errorf("series type must be one of time, table, number, search, markdown, got %q", first.Type)
	}
	// HyperDX joins the older groupBy list with bare commas.
	c := Config{DisplayType: first.Type, SourceID: first.SourceID, GroupBy: strings.Join(first.GroupBy, ",")}
	if first.Type == "time" {
		c.DisplayType = Line
		if first.DisplayType != "" {
			c.DisplayType = first.DisplayType
		}
	}
	if len(first.NumberFormat) > 0 {
		c.Display = map[string]json.RawMessage{"numberFormat": first.NumberFormat}
	}
	for i, s := range series {
		if s.SourceID != first.SourceID {
			return Config{}, fmt.Errorf("series[%d] reads source %q, series[0] %q: a tile's series share one source", i, s.SourceID, first.SourceID)
		}
		// One chart has one groupBy, the first series': a later series
		// that names another would be drawn grouped as the first, not as
		// it says (one that names none takes the first's).
		if len(s.GroupBy) > 0 && !slices.Equal(s.GroupBy, first.GroupBy) {
			return Config{}, fmt.Errorf("series[%d] is grouped by %q, series[0] by %q: a tile's series share one groupBy", i, s.GroupBy, first.GroupBy)
		}
		// A series' numberFormat is the tile's (the first's, above), as
		// HyperDX translates it.
		c.Select = append(c.Select, Select{
			AggFn: s.AggFn, ValueExpression: s.Field, Alias: s.Alias, Level: s.Level,
			Where: s.Where, WhereLanguage: s.WhereLanguage, MetricName: s.MetricName, MetricType: s.MetricDataType,
		})
	}
	return c, nil
}

// firstForm is this API's first tile config: one series, groupBy a list.
type firstForm struct {
	Source        string   `json:"source"`
	AggFn         string   `json:"aggFn"`
	Field         string   `json:"field"`
	Level         float64  `json:"level"`
	Where         string   `json:"where"`
	WhereLanguage string   `json:"whereLanguage"`
	GroupBy       []string `json:"groupBy"`
	DisplayType   string   `json:"displayType"`
}

// isFirstForm tells this API's first config from HyperDX's: only the
// first has source and aggFn at its top.
func isFirstForm(m map[string]json.RawMessage) bool {
	_, source := m["source"]
	_, agg := m["aggFn"]
	return source || agg
}

func fromFirstForm(m map[string]json.RawMessage) (Config, error) {
	b, _ := json.Marshal(m)
	var f firstForm
	if err := strict(b, &f); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if f.DisplayType == "" {
		f.DisplayType = Line
	}
	c := Config{DisplayType: f.DisplayType, SourceID: f.Source, GroupBy: strings.Join(f.GroupBy, ", ")}
	if f.DisplayType == Search {
		c.Where, c.WhereLanguage = f.Where, f.WhereLanguage
		return c, nil
	}
	if f.AggFn == "count" {
		f.Field = "" // the first form let count carry a field it ignored
	}
	c.Select = []Select{{AggFn: f.AggFn, ValueExpression: f.Field, Level: f.Level, Where: f.Where, WhereLanguage: f.WhereLanguage}}
	return c, nil
}

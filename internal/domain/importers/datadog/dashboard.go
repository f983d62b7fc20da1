package datadog

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
)

// Dashboard is the body of POST /api/v2/dashboards (HyperDX's config form).
type Dashboard struct {
	Name    string   `json:"name"`
	Tags    []string `json:"tags"`
	Tiles   []Tile   `json:"tiles"`
	Filters []Filter `json:"filters"`
}

// Filter is a dashboard filter dropdown (HyperDX's QUERY_EXPRESSION
// filter): a template variable's tag, its values listed from the metric
// source and a chosen one narrowing the tiles of the sources it applies
// to.
type Filter struct {
	Type               string   `json:"type"`
	Name               string   `json:"name"`
	Expression         string   `json:"expression"`
	SourceID           string   `json:"sourceId"`
	AppliesToSourceIDs []string `json:"appliesToSourceIds,omitempty"`
}

// Tile is a dashboard tile on the 24-column grid.
type Tile struct {
	ID     string         `json:"id"`
	Name   string         `json:"name"`
	X      int            `json:"x"`
	Y      int            `json:"y"`
	W      int            `json:"w"`
	H      int            `json:"h"`
	Config map[string]any `json:"config"`
}

// Select is a chart's series: a Datadog metric query, or a count or
// aggregate of logs or spans matching a Datadog search.
type Select struct {
	Query           string `json:"query,omitempty"`
	AggFn           string `json:"aggFn,omitempty"`
	ValueExpression string `json:"valueExpression,omitempty"`
	Where           string `json:"where,omitempty"`
	WhereLanguage   string `json:"whereLanguage,omitempty"`
	Alias           string `json:"alias,omitempty"`
}

type widget struct {
	ID         json.RawMessage            `json:"id"`
	Definition map[string]json.RawMessage `json:"definition"`
	Layout     *layout                    `json:"layout"`
}

type layout struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

type templateVar struct {
	Name    string `json:"name"`
	Prefix  string `json:"prefix"`
	Default string `json:"default"`
	// Newer dashboards give defaults as a list.
	Defaults []string `json:"defaults"`
	// AvailableValues restricts what may be chosen.
	AvailableValues []string `json:"available_values"`
}

// scopeTag is the tag a variable without a prefix stands for, when every
// value it names (defaults, available values; * aside) is a tag of one
// key: {env:prod, env:dev} is env. Otherwise "": a $scope at * may be any
// tag of any key, which no one filter of a tag lists.
func (v templateVar) scopeTag() string {
	if v.Prefix != "" {
		return ""
	}
	key := ""
	for _, val := range append(append([]string{v.Default}, v.Defaults...), v.AvailableValues...) {
		if val == "" || val == "*" {
			continue
		}
		k, rest, ok := strings.Cut(val, ":")
		if !ok || k == "" || rest == "" || strings.ContainsAny(val, " ,{}()") || (key != "" && k != key) {
			return ""
		}
		key = k
	}
	return key
}

type dashIn struct {
	Title             string          `json:"title"`
	LayoutType        string          `json:"layout_type"`
	Widgets           []widget        `json:"widgets"`
	TemplateVariables []templateVar   `json:"template_variables"`
	Description       json.RawMessage `json:"description"`
	// Older screenboards (still shipped by some integrations) name
	// themselves board_title and place their widgets freely.
	BoardTitle string `json:"board_title"`
}

// dashImport is the state of one dashboard's translation.
type dashImport struct {
	src   Sources
	vars  []templateVar
	free  bool
	out   Dashboard
	items []Item
	// y is where the next group (or free-standing widget row) starts.
	y int
	// bottom is the lowest edge of the tiles placed so far.
	bottom int
	count  int
}

// ImportDashboard translates a Datadog dashboard (as Datadog's API returns
// it or an integration ships it) into an otelhouse dashboard, with an item
// per widget. Groups are flattened in order, each under a markdown header
// tile; an ordered layout's 12 columns (a group's own width inside it)
// become 24; a free layout is scaled to 24 columns.
func ImportDashboard(body []byte, src Sources) (Dashboard, []Item, error) {
	var in dashIn
	if err := json.Unmarshal(body, &in); err != nil {
		return Dashboard{}, nil, invalidf("invalid JSON body: %v", err)
	}
	if in.Widgets == nil {
		return Dashboard{}, nil, invalidf("not a Datadog dashboard: it has no widgets")
	}
	name := strings.TrimSpace(cmpOr(in.Title, in.BoardTitle))
	if name == "" {
		name = "Imported Datadog dashboard"
	}
	d := &dashImport{
		src: src, vars: in.TemplateVariables, free: in.LayoutType == "free" || (in.LayoutType == "" && in.BoardTitle != ""),
		out: Dashboard{Name: name, Tags: []string{"datadog"}, Tiles: []Tile{}},
	}
	d.templateFilters(in.TemplateVariables)
	scale := 2.0 // ordered: 12 columns
	if d.free {
		right := 0.0
		for _, w := range in.Widgets {
			if w.Layout != nil {
				right = math.Max(right, w.Layout.X+w.Layout.Width)
			}
		}
		scale = 24 / math.Max(right, 1)
	}
	d.widgets(in.Widgets, "widgets", 0, scale)
	return d.out, d.items, nil
}

// templateFilters makes each template variable with a tag (its prefix,
// or the one key all its values name: scopeTag) a dashboard filter on
// that tag, for the metric, log and span tiles alike
// (a Datadog where and a metric query both name it so). Its default is
// written into the queries (substitute); a value chosen in the filter
// narrows them further, so a default of * (most) imports exactly.
func (d *dashImport) templateFilters(vars []templateVar) {
	if len(vars) == 0 {
		return
	}
	d.out.Filters = []Filter{}
	var notes, fixed, inferred []string
	for _, v := range vars {
		tag := v.Prefix
		if tag == "" {
			if tag = v.scopeTag(); tag == "" {
				notes = append(notes, fmt.Sprintf("$%s has no tag: its default %q is written into the queries, with no filter (a dashboard filter lists one tag's values; this variable takes a tag of any key)", v.Name, v.value()))
				continue
			}
			inferred = append(inferred, fmt.Sprintf("$%s has no tag, but its values are all %s:…: a filter on %s", v.Name, tag, tag))
		}
		d.out.Filters = append(d.out.Filters, Filter{
			Type: "QUERY_EXPRESSION", Name: v.Name, Expression: tag, SourceID: d.src.Metrics,
			AppliesToSourceIDs: []string{d.src.Metrics, d.src.Logs, d.src.Traces},
		})
		if v.value() != "*" {
			fixed = append(fixed, fmt.Sprintf("$%s=%s", v.Name, v.value()))
		}
	}
	if len(fixed) > 0 {
		notes = append(notes, "defaults are written into the queries, so a value chosen in the filter narrows within them ("+strings.Join(fixed, ", ")+")")
	}
	item := Item{Path: "template_variables", Outcome: Imported, Notes: append([]string{fmt.Sprintf("%d dashboard filters", len(d.out.Filters))}, inferred...)}
	if len(notes) > 0 {
		item.Outcome, item.Notes = Approximated, append(item.Notes, notes...)
	}
	d.items = append(d.items, item)
}

func (v templateVar) value() string {
	if len(v.Defaults) > 0 {
		return v.Defaults[0]
	}
	if v.Default == "" {
		return "*"
	}
	return v.Default
}

// substitute writes the template variables' defaults into a query:
// $var (or $var.value) is prefix:value, or the value itself without a
// prefix; a variable at * matches everything and leaves the filter. It
// answers the query and whether that is an approximation: a variable
// with a tag and the default * is exact (its dashboard filter narrows the
// query when a value is chosen); one without a tag, or with another
// default, is fixed at that default.
func (d *dashImport) substitute(q string) (string, bool) {
	used, approx := false, false
	for _, v := range d.vars {
		re := regexp.MustCompile(`\$` + regexp.QuoteMeta(v.Name) + `(\.value)?\b`)
		if !re.MatchString(q) {
			continue
		}
		used = true
		val := v.value()
		approx = approx || (v.Prefix == "" && v.scopeTag() == "") || val != "*"
		rep := ""
		if val != "*" {
			rep = val
			if v.Prefix != "" {
				rep = v.Prefix + ":" + val
			}
		}
		q = re.ReplaceAllLiteralString(q, rep)
	}
	if !used {
		return q, false
	}
	// Tidy the filters a removed variable left: {,a} {a,} {} and doubled
	// commas, and a boolean filter's dangling AND or OR ({a AND }).
	q = danglingAfter.ReplaceAllString(q, "}")
	q = danglingBefore.ReplaceAllString(q, "{")
	// Until nothing changes: two removed variables in a row ({,,a})
	// leave a comma after the first pass.
	for prev := ""; prev != q; {
		prev = q
		q = strayComma.ReplaceAllStringFunc(q, func(s string) string {
			switch {
			case strings.HasPrefix(s, "{"):
				return "{"
			case strings.HasSuffix(s, "}"):
				return "}"
			}
			return ","
		})
	}
	q = regexp.MustCompile(`\{\s*\}`).ReplaceAllString(q, "{*}")
	return strings.Join(strings.Fields(q), " "), approx
}

// A comma left without a neighbour by a removed variable: {, ,} or ,,.
var strayComma = regexp.MustCompile(`\{\s*,|,\s*\}|,\s*,`)

// A boolean operator left without an operand by a removed variable.
var (
	danglingAfter  = regexp.MustCompile(`\s+(?:AND|OR)\s*\}`)
	danglingBefore = regexp.MustCompile(`\{\s*(?:AND|OR)\s+`)
)

func (d *dashImport) widgets(ws []widget, path string, depth int, scale float64) {
	for i, w := range ws {
		at := fmt.Sprintf("%s[%d]", path, i)
		if d.count++; d.count > maxWidgets {
			d.items = append(d.items, Item{Path: at, Outcome: Skipped, Notes: []string{fmt.Sprintf("more than %d widgets", maxWidgets)}})
			return
		}
		typ, title := str(w.Definition, "type"), str(w.Definition, "title")
		if typ == "group" {
			if depth >= maxDepth {
				d.items = append(d.items, Item{Path: at, Type: typ, Title: title, Outcome: Skipped, Notes: []string{"groups nested too deep"}})
				continue
			}
			d.group(w, at, depth, scale)
			continue
		}
		d.widget(w, at, typ, title, scale)
	}
}

// group places a group's widgets below the previous ones, under a header;
// its inner grid (the group's width, 12 by default) spans all 24 columns.
func (d *dashImport) group(w widget, at string, _ int, scale float64) {
	title := str(w.Definition, "title")
	var inner []widget
	_ = json.Unmarshal(w.Definition["widgets"], &inner)
	gw := 12.0
	if w.Layout != nil && w.Layout.Width > 0 && !d.free {
		gw = w.Layout.Width
	}
	d.y = max(d.y, d.bottom)
	it := Item{Path: at, Type: "group", Title: title, Outcome: Imported, Notes: []string{"flattened in order under a markdown header"}}
	if title != "" {
		id := d.tileID(w, "g")
		d.out.Tiles = append(d.out.Tiles, Tile{
			ID: id, Name: title, X: 0, Y: d.y, W: 24, H: 1,
			Config: map[string]any{"displayType": "markdown", "markdown": "### " + title},
		})
		it.TileID = id
		d.y++
	}
	d.items = append(d.items, it)
	base := d.y
	bottom := d.y
	innerScale := 24 / gw
	if d.free {
		innerScale = scale
	}
	for i, c := range inner {
		cat := fmt.Sprintf("%s.widgets[%d]", at, i)
		if d.count++; d.count > maxWidgets {
			d.items = append(d.items, Item{Path: cat, Outcome: Skipped, Notes: []string{fmt.Sprintf("more than %d widgets", maxWidgets)}})
			return
		}
		typ, ctitle := str(c.Definition, "type"), str(c.Definition, "title")
		if typ == "group" {
			d.items = append(d.items, Item{Path: cat, Type: typ, Title: ctitle, Outcome: Skipped, Notes: []string{"a group inside a group"}})
			continue
		}
		d.y = base
		d.widget(c, cat, typ, ctitle, innerScale)
	}
	d.y = max(bottom, d.bottom)
}

func (d *dashImport) tileID(w widget, prefix string) string {
	id := strings.Trim(string(w.ID), `"`)
	if id == "" || len(id) > 30 {
		id = fmt.Sprint(len(d.out.Tiles))
	}
	id = prefix + id
	for _, t := range d.out.Tiles {
		if t.ID == id {
			return fmt.Sprintf("%s-%d", id, len(d.out.Tiles))
		}
	}
	return id
}

// place maps a widget's layout to the grid, relative to the current row:
// a widget with no layout gets a row of its own.
func (d *dashImport) place(w widget, scale float64) (x, y, wd, h int) {
	if w.Layout == nil {
		return 0, d.y, 24, 4
	}
	x = int(math.Round(w.Layout.X * scale))
	wd = max(1, int(math.Round(w.Layout.Width*scale)))
	h = max(1, int(math.Round(w.Layout.Height*2)))
	y = d.y + int(math.Round(w.Layout.Y*2))
	if d.free {
		h = max(1, int(math.Round(w.Layout.Height*scale)))
		y = d.y + int(math.Round(w.Layout.Y*scale))
	}
	x = min(max(x, 0), 23)
	wd = min(wd, 24-x)
	return x, y, wd, h
}

func (d *dashImport) widget(w widget, at, typ, title string, scale float64) {
	var n note
	cfg := d.config(w.Definition, typ, &n)
	it := n.item(at, typ, title)
	if cfg != nil {
		x, y, wd, h := d.place(w, scale)
		id := d.tileID(w, "w")
		name := title
		if name == "" {
			name = typ
		}
		d.out.Tiles = append(d.out.Tiles, Tile{ID: id, Name: name, X: x, Y: y, W: wd, H: h, Config: cfg})
		it.TileID = id
		d.bottom = max(d.bottom, y+h)
		if w.Layout == nil {
			d.y += h
		}
	} else if it.Outcome != Skipped {
		it.Outcome = Skipped
	}
	d.items = append(d.items, it)
}

// config is a widget's tile config, nil when it has no counterpart.
func (d *dashImport) config(def map[string]json.RawMessage, typ string, n *note) map[string]any {
	switch typ {
	case "note":
		return map[string]any{"displayType": "markdown", "markdown": str(def, "content")}
	case "free_text":
		n.approx("free text is shown as markdown")
		return map[string]any{"displayType": "markdown", "markdown": str(def, "text")}
	case "image":
		n.approx("an image is a markdown image")
		return map[string]any{"displayType": "markdown", "markdown": fmt.Sprintf("![](%s)", str(def, "url"))}
	case "iframe":
		n.approx("an iframe is a markdown link to its page")
		u := str(def, "url")
		return map[string]any{"displayType": "markdown", "markdown": fmt.Sprintf("[%s](%s)", u, u)}
	case "timeseries":
		return d.chart(def, "line", n)
	case "query_value":
		return d.chart(def, "number", n)
	case "toplist":
		return d.chart(def, "bar", n)
	case "query_table":
		return d.chart(def, "table", n)
	case "change":
		return d.change(def, n)
	case "hostmap":
		n.approx("a host map is a table of its fill value by host")
		var r struct {
			Fill struct {
				Q string `json:"q"`
			} `json:"fill"`
		}
		_ = json.Unmarshal(def["requests"], &r)
		return d.seriesConfig("table", []request{{Q: r.Fill.Q}}, n)
	case "log_stream":
		return d.search(str(def, "query"), d.src.Logs, n)
	case "list_stream":
		var rs []struct {
			Query struct {
				DataSource  string `json:"data_source"`
				QueryString string `json:"query_string"`
			} `json:"query"`
		}
		_ = json.Unmarshal(def["requests"], &rs)
		if len(rs) == 0 {
			n.skip("a list stream without a request")
			return nil
		}
		switch rs[0].Query.DataSource {
		case "logs_stream", "logs", "logs_pattern_stream", "logs_transaction_stream":
			return d.search(rs[0].Query.QueryString, d.src.Logs, n)
		case "trace_stream", "spans", "apm_issue_stream":
			return d.search(rs[0].Query.QueryString, d.src.Traces, n)
		case "event_stream":
			n.approx("events are logs here (the receiver stores Datadog events as logs)")
			return d.search(rs[0].Query.QueryString, d.src.Logs, n)
		}
		n.skip("a list stream of %q has no counterpart", rs[0].Query.DataSource)
		return nil
	case "event_stream", "event_timeline":
		n.approx("events are logs here (the receiver stores Datadog events as logs): a search of them")
		return d.search(str(def, "query"), d.src.Logs, n)
	case "heatmap":
		// The nearest tile: the same series over time, a line per group
		// rather than a band of colour per bucket of values. otelhouse's
		// heatmap tile buckets a trace source's spans by a column; it
		// is not built over a metric query, which a Datadog heatmap is.
		n.approx("a heatmap of a metric is drawn as lines, one per group (the heatmap tile here counts spans of a trace source, not a metric's values)")
		return d.chart(def, "line", n)
	case "distribution":
		// The nearest tile: the value of each group as a bar, where
		// Datadog draws how many groups (or points) fall in each range
		// of values.
		n.approx("a distribution is a bar of each group's value (no histogram of values across groups)")
		return d.chart(def, "bar", n)
	case "check_status":
		return d.checkStatus(def, n)
	case "manage_status", "monitor_summary":
		return d.manageStatus(def, n)
	case "alert_graph", "alert_value":
		n.skip("a monitor's own graph or value: monitors are imported one by one (POST /api/v2/alerts/import), each alert charting its tile")
	case "slo", "slo_list", "servicemap", "trace_service", "topology_map", "geomap", "sunburst", "treemap", "scatterplot", "funnel", "run_workflow", "powerpack", "split_group":
		n.skip("%s widgets have no counterpart yet", typ)
	default:
		n.skip("unknown widget type %q", typ)
	}
	return nil
}

var checkName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]*$`)

// checkStatus shows a service check as the receiver stores it — a gauge
// named after the check, 0 OK, 1 warning, 2 critical, 3 unknown — as its
// worst value: one number for the cluster, a table when per group.
func (d *dashImport) checkStatus(def map[string]json.RawMessage, n *note) map[string]any {
	check := str(def, "check")
	if !checkName.MatchString(check) {
		n.skip("check %q is not a check name", check)
		return nil
	}
	var tags, by []string
	_ = json.Unmarshal(def["tags"], &tags)
	_ = json.Unmarshal(def["group_by"], &by)
	var filter []string
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" && t != "*" {
			filter = append(filter, t)
		}
	}
	display := "number"
	if str(def, "grouping") == "check" {
		display = "table"
		if len(by) == 0 {
			by = []string{"host"}
		}
	} else {
		by = nil
	}
	n.approx("a check's status is its gauge (0 OK, 1 warning, 2 critical, 3 unknown): the worst over the range, as a %s", display)
	return d.seriesConfig(display, []request{{Q: checkQuery(check, filter, by)}}, n)
}

// varsNote is a widget's note when a template variable's default was
// written into its queries.
const varsNote = "template variables replaced by their defaults"

func (d *dashImport) search(q, source string, n *note) map[string]any {
	q, approx := d.substitute(q)
	if approx {
		n.approx(varsNote)
	}
	return map[string]any{"displayType": "search", "sourceId": source, "select": "", "where": strings.TrimSpace(q), "whereLanguage": "datadog"}
}

// request is one of a widget's requests: a q, or queries and formulas.
type request struct {
	Q        string    `json:"q"`
	Queries  []dsQuery `json:"queries"`
	Formulas []struct {
		Formula string `json:"formula"`
		Alias   string `json:"alias"`
	} `json:"formulas"`
	DisplayType string          `json:"display_type"`
	LogQuery    json.RawMessage `json:"log_query"`
	APMQuery    json.RawMessage `json:"apm_query"`
}

type dsQuery struct {
	Name       string `json:"name"`
	DataSource string `json:"data_source"`
	Query      string `json:"query"`
	Search     struct {
		Query string `json:"query"`
	} `json:"search"`
	Compute struct {
		Aggregation string `json:"aggregation"`
		Metric      string `json:"metric"`
	} `json:"compute"`
	GroupBy []struct {
		Facet string `json:"facet"`
	} `json:"group_by"`
}

func (d *dashImport) chart(def map[string]json.RawMessage, display string, n *note) map[string]any {
	var rs []request
	if err := json.Unmarshal(def["requests"], &rs); err != nil {
		n.skip("requests are not a list of requests: %v", err)
		return nil
	}
	if display == "line" {
		for _, r := range rs {
			switch r.DisplayType {
			case "bars":
				display = "stacked_bar"
			case "area":
				n.approx("an area is drawn as a line")
			}
		}
	}
	return d.seriesConfig(display, rs, n)
}

var queryName = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\b`)

// perUnit are the formula functions whose counterpart is a rate scaled.
var perUnit = map[string]string{"per_second": "1", "per_minute": "60", "per_hour": "3600"}

func (d *dashImport) seriesConfig(display string, rs []request, n *note) map[string]any {
	var sel []Select
	source := ""
	groupBy := []string{}
	use := func(src string) bool {
		if source == "" {
			source = src
		}
		if source != src {
			n.skip("a series reads %s beside %s: a tile reads one source", src, source)
			return false
		}
		return true
	}
	metric := func(q, alias string) {
		q, approx := d.substitute(q)
		if approx {
			if !slices.Contains(n.notes, varsNote) {
				n.approx(varsNote)
			}
		}
		q = rewriteFunctions(q, n)
		if _, err := charts.ParseDatadogMetric(q); err != nil {
			n.skip("series %q: %v", q, functionError(q, err))
			return
		}
		if how, _ := charts.DatadogAlgorithmNote(q); how != "" {
			n.approx("%s: a value per bucket, not Datadog's band around the series", how)
		}
		arithmeticNotes(q, n)
		if use(d.src.Metrics) {
			sel = append(sel, Select{Query: q, Alias: alias})
		}
	}
	for _, r := range rs {
		switch {
		case r.Q != "":
			for _, q := range splitSeries(r.Q) {
				metric(q, "")
			}
		case len(r.Queries) > 0:
			byName := map[string]dsQuery{}
			for _, q := range r.Queries {
				byName[q.Name] = q
			}
			formulas := r.Formulas
			if len(formulas) == 0 {
				for _, q := range r.Queries {
					formulas = append(formulas, struct {
						Formula string `json:"formula"`
						Alias   string `json:"alias"`
					}{Formula: q.Name})
				}
			}
			for _, f := range formulas {
				d.formula(f.Formula, f.Alias, byName, n, metric, use, &sel, &groupBy)
			}
		case r.LogQuery != nil || r.APMQuery != nil:
			n.skip("the older log_query/apm_query request form is not read; re-save the widget in Datadog to get queries and formulas")
		default:
			n.skip("a request without a query")
		}
	}
	if len(sel) == 0 {
		if n.outcome != Skipped {
			n.skip("no series could be imported")
		}
		return nil
	}
	if len(sel) > 20 {
		n.skip("more than 20 series: the first 20 are kept")
		sel = sel[:20]
	}
	if slices.Contains([]string{"number", "bar", "pie"}, display) && len(sel) > 1 {
		n.approx("a %s tile shows one series: the first of %d", display, len(sel))
		sel = sel[:1]
	}
	if n.outcome == Skipped {
		n.outcome = Approximated // some series are kept
	}
	cfg := map[string]any{"displayType": display, "sourceId": source, "select": sel}
	if len(groupBy) > 0 {
		cfg["groupBy"] = strings.Join(groupBy, ", ")
	}
	return cfg
}

// formula turns a queries+formulas series into a select item: metric
// queries are written into the formula (query1 / query2 → the two
// queries), a logs or spans query is a count or aggregate with a Datadog
// search.
func (d *dashImport) formula(f, alias string, byName map[string]dsQuery, n *note, metric func(q, alias string),
	use func(string) bool, sel *[]Select, groupBy *[]string,
) {
	f = strings.TrimSpace(f)
	// per_minute(query1) and the like: the query's rate, scaled.
	for fn, k := range perUnit {
		if strings.HasPrefix(f, fn+"(") && strings.HasSuffix(f, ")") {
			inner := strings.TrimSpace(f[len(fn)+1 : len(f)-1])
			if q, ok := byName[inner]; ok && q.DataSource == "metrics" {
				n.approx("%s(%s) is the query's .as_rate() times %s", fn, inner, k)
				expr := q.Query + ".as_rate()"
				if k != "1" {
					expr += " * " + k
				}
				metric(expr, alias)
				return
			}
		}
	}
	// default_zero(query1) of a logs or spans query: the count or
	// aggregate as it is.
	if inner, ok := strings.CutPrefix(f, "default_zero("); ok && strings.HasSuffix(inner, ")") {
		inner = strings.TrimSpace(strings.TrimSuffix(inner, ")"))
		if q, ok := byName[inner]; ok && q.DataSource != "metrics" && q.DataSource != "" {
			n.approx("default_zero(%s) is the query as it is: buckets without a match draw no value rather than zero", inner)
			f = inner
		}
	}
	if q, ok := byName[f]; ok && q.DataSource != "metrics" && q.DataSource != "" {
		src := ""
		switch q.DataSource {
		case "logs":
			src = d.src.Logs
		case "spans":
			src = d.src.Traces
		default:
			n.skip("series %s: %s queries have no counterpart", f, q.DataSource)
			return
		}
		s := Select{Where: q.Search.Query, WhereLanguage: "datadog", Alias: alias}
		var approx bool
		if s.Where, approx = d.substitute(s.Where); approx {
			n.approx(varsNote)
		}
		switch agg := q.Compute.Aggregation; agg {
		case "count":
			s.AggFn = "count"
		case "cardinality":
			s.AggFn, s.ValueExpression = "count_distinct", attributeName(q.Compute.Metric)
		case "avg", "sum", "min", "max":
			s.AggFn, s.ValueExpression = agg, attributeName(q.Compute.Metric)
		default:
			n.skip("series %s: the %q aggregation has no counterpart", f, agg)
			return
		}
		if (s.AggFn != "count") && s.ValueExpression == "" {
			n.skip("series %s: %s without a measure", f, s.AggFn)
			return
		}
		for _, g := range q.GroupBy {
			*groupBy = append(*groupBy, attributeName(g.Facet))
		}
		if use(src) {
			*sel = append(*sel, s)
		}
		return
	}
	// A metric formula: every name is a metric query of the request.
	missing := ""
	expr := queryName.ReplaceAllStringFunc(f, func(w string) string {
		if q, ok := byName[w]; ok {
			if q.DataSource != "metrics" && q.DataSource != "" {
				missing = w
			}
			return q.Query
		}
		return w
	})
	if missing != "" {
		n.skip("formula %q mixes %s with metric queries", f, missing)
		return
	}
	metric(expr, alias)
}

// attributeName is how a Datadog facet is named in a where or groupBy:
// @http.status_code is the attribute http.status_code; a reserved
// attribute (service, host, status) keeps its name.
func attributeName(facet string) string { return strings.TrimPrefix(facet, "@") }

package search

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// FacetSample is how many of the newest matching events facets and
// autocomplete values count: enough for the top values of a field to be
// the top values, bounded so a panel answers in the same time on a busy
// source as on a quiet one.
const FacetSample = 10000

// FacetRequest asks for the facets of a search: its range and where.
type FacetRequest struct {
	Start, End    time.Time
	Where         string
	WhereLanguage string
	// Columns are the table's columns faceted first whatever their
	// coverage (service, severity or status, span name): FacetColumns.
	Columns []string
	// Fields bounds the fields answered (0 means 20) and Values the values
	// of each (0 means 10).
	Fields, Values int
}

// FacetValue is a value of a field and the events of the sample with it.
type FacetValue struct {
	Value string `json:"value"`
	Count uint64 `json:"count"`
}

// Facet is a field's most common values. Field is written as the where
// takes it (a column, an attribute's key, Resource.<key>), so a client
// filters with field:value.
type Facet struct {
	Field string `json:"field"`
	// Count is the events of the sample that carry the field.
	Count  uint64       `json:"count"`
	Values []FacetValue `json:"values"`
}

// Facets answers the fields of a search's result with their top values.
type Facets struct {
	// Sampled is the events counted: the newest matching ones, at most
	// Limit.
	Sampled uint64  `json:"sampled"`
	Limit   int     `json:"limit"`
	Facets  []Facet `json:"facets"`
}

// FacetColumns are the columns a source's facets start with: its service
// and severity for logs; service, status, span name and kind for traces.
// Empty names and those the table lacks are skipped by GetFacets.
func FacetColumns(kind, service, severity, status, name string) []string {
	if kind == "trace" {
		return []string{service, status, name, "SpanKind"}
	}
	return []string{service, severity}
}

// facetColumn is a chosen column in the facets statement: its rank keeps
// the columns in the order asked (service before severity whatever their
// names), ahead of the attributes.
type facetColumn struct {
	Rank       int
	Name, Expr string
}

// duplicateResourceFacet is the resource attribute the OpenTelemetry
// schema copies into the service column: shown once, as that column.
const duplicateResourceFacet = "Resource.service.name"

// GetFacets counts the values of the chosen columns and of every record
// and resource attribute over the newest FacetSample events matching the
// where, in one engine statement (the facets template), and answers the
// chosen columns and then the fields most events carry.
func GetFacets(ctx context.Context, db *sql.DB, scope *query.Scope, req FacetRequest, timeout time.Duration) (Facets, error) {
	if !req.Start.Before(req.End) {
		return Facets{}, query.Mistake(errors.New("the start of the range must be before its end"))
	}
	if req.Fields == 0 {
		req.Fields = 20
	}
	if req.Values == 0 {
		req.Values = 10
	}
	if req.Fields < 1 || req.Fields > 100 || req.Values < 1 || req.Values > 100 {
		return Facets{}, query.Mistake(errors.New("fields and values must be from 1 to 100"))
	}
	var p query.Params
	cond, err := scope.Where(ctx, db, req.WhereLanguage, req.Where, &p)
	if err != nil {
		return Facets{}, err
	}
	var cols []facetColumn
	var read []string
	seen := map[string]bool{}
	for _, c := range req.Columns {
		name := c
		expr, ok := scope.Column(c)
		if !ok {
			// A role that is an expression is offered under the alias a
			// where finds it by (service, level), which its text is not.
			name = scope.Alias(c)
			expr, ok = scope.Role(c)
		}
		if c == "" || name == "" || !ok || seen[c] {
			continue
		}
		seen[c] = true
		cols = append(cols, facetColumn{Rank: len(cols) + 1, Name: p.Add(name, "String"), Expr: expr})
		read = append(read, expr)
	}
	src := scope.Source()
	attrs, _ := scope.Column(src.AttributesMap)
	res, _ := scope.Column(src.ResourceMap)
	for _, m := range []string{attrs, res} {
		if m != "" {
			read = append(read, m)
		}
	}
	if len(read) == 0 {
		return Facets{Limit: FacetSample, Facets: []Facet{}}, nil
	}
	data := map[string]any{
		"From": scope.From, "TS": scope.Timestamp, "Where": cond, "Columns": cols, "Attrs": attrs, "Resource": res,
		"Read": read, "Sample": FacetSample, "Values": req.Values, "Rows": (req.Fields+2)*req.Values + 1,
		"Start": p.Add(strconv.FormatInt(req.Start.UnixNano(), 10), "Int64"), "End": p.Add(strconv.FormatInt(req.End.UnixNano(), 10), "Int64"),
	}
	rows, err := readRows(ctx, db, render("facets", data), p, timeout)
	if err != nil {
		return Facets{}, err
	}
	out := Facets{Limit: FacetSample, Facets: []Facet{}}
	at := map[string]int{}
	for _, r := range rows {
		f, _ := r["f"].(string)
		v, _ := r["v"].(string)
		c, _ := r["c"].(uint64)
		if f == "" {
			out.Sampled = c
			continue
		}
		if f == duplicateResourceFacet && src.ServiceColumn != "" && seen[src.ServiceColumn] {
			continue
		}
		i, ok := at[f]
		if !ok {
			if len(out.Facets) == req.Fields {
				continue
			}
			i = len(out.Facets)
			at[f] = i
			w, _ := r["with_field"].(uint64)
			out.Facets = append(out.Facets, Facet{Field: f, Count: w, Values: []FacetValue{}})
		}
		out.Facets[i].Values = append(out.Facets[i].Values, FacetValue{Value: v, Count: c})
	}
	return out, nil
}

// ValuesRequest asks for a field's frequent values (autocomplete after
// field:), in a range and optionally under the search's where.
type ValuesRequest struct {
	Start, End    time.Time
	Where         string
	WhereLanguage string
	Field, Prefix string
	// Limit bounds the values (0 means 20, at most 100).
	Limit int
}

// FieldValues answers a field's most frequent values among the newest
// FacetSample events matching the where, those starting with Prefix (any
// case), most frequent first.
func FieldValues(ctx context.Context, db *sql.DB, scope *query.Scope, req ValuesRequest, timeout time.Duration) ([]FacetValue, error) {
	if !req.Start.Before(req.End) {
		return nil, query.Mistake(errors.New("the start of the range must be before its end"))
	}
	if req.Limit == 0 {
		req.Limit = 20
	}
	if req.Limit < 1 || req.Limit > 100 {
		return nil, query.Mistake(errors.New("limit must be from 1 to 100"))
	}
	if err := query.CheckField(req.Field); err != nil {
		return nil, query.Mistake(err)
	}
	var p query.Params
	cond, err := scope.Where(ctx, db, req.WhereLanguage, req.Where, &p)
	if err != nil {
		return nil, err
	}
	expr, err := scope.Field(req.Field, &p)
	if err != nil {
		return nil, err
	}
	data := map[string]any{
		"From": scope.From, "TS": scope.Timestamp, "Where": cond, "Expr": expr, "Sample": FacetSample, "Limit": req.Limit,
		"Start": p.Add(strconv.FormatInt(req.Start.UnixNano(), 10), "Int64"), "End": p.Add(strconv.FormatInt(req.End.UnixNano(), 10), "Int64"),
	}
	if req.Prefix != "" {
		data["Prefix"] = p.Add(req.Prefix, "String")
	}
	rows, err := readRows(ctx, db, render("field_values", data), p, timeout)
	if err != nil {
		return nil, err
	}
	out := make([]FacetValue, 0, len(rows))
	for _, r := range rows {
		v, _ := r["v"].(string)
		c, _ := r["c"].(uint64)
		out = append(out, FacetValue{Value: v, Count: c})
	}
	return out, nil
}

// keysFor keeps each source table's attribute and resource keys for
// keysTTL, so autocomplete costs one engine statement per table a minute,
// not one per keystroke.
var keysFor = struct {
	sync.Mutex
	m map[string]cachedKeys
}{m: map[string]cachedKeys{}}

type cachedKeys struct {
	at              time.Time
	attrs, resource []string
}

const keysTTL = time.Minute

// FieldNames answers the field names a where box offers for a prefix
// (any case): the table's columns (not the exporter's internal ones nor
// the maps themselves), the record attributes' keys and the resource
// attributes' keys as Resource.<key>, seen in the newest rows. Names
// starting with the prefix come first, then those containing it; at most
// limit (0 means 50).
func FieldNames(ctx context.Context, db *sql.DB, scope *query.Scope, prefix string, limit int, timeout time.Duration) ([]string, error) {
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > 500 {
		return nil, query.Mistake(errors.New("limit must be from 1 to 500"))
	}
	src := scope.Source()
	attrs, res, err := mapKeys(ctx, db, scope, timeout)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, c := range scope.Columns() {
		if c[0] != src.AttributesMap && c[0] != src.ResourceMap && !strings.HasPrefix(c[0], "__") {
			all = append(all, c[0])
		}
	}
	all = append(all, attrs...)
	for _, k := range res {
		all = append(all, "Resource."+k)
	}
	lp := strings.ToLower(prefix)
	var starts, contains []string
	seen := map[string]bool{}
	for _, n := range all {
		l := strings.ToLower(n)
		switch {
		case seen[n]:
		case strings.HasPrefix(l, lp):
			starts = append(starts, n)
		case strings.Contains(l, lp):
			contains = append(contains, n)
		}
		seen[n] = true
	}
	sort.Strings(starts)
	sort.Strings(contains)
	out := append(starts, contains...)
	if len(out) > limit {
		out = out[:limit]
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// mapKeys reads (or recalls) the attribute and resource keys of the
// scope's table in one statement.
func mapKeys(ctx context.Context, db *sql.DB, scope *query.Scope, timeout time.Duration) ([]string, []string, error) {
	src := scope.Source()
	attrs, _ := scope.Column(src.AttributesMap)
	res, _ := scope.Column(src.ResourceMap)
	if attrs == "" && res == "" {
		return nil, nil, nil
	}
	key := scope.From + "\x00" + attrs + "\x00" + res
	keysFor.Lock()
	c, ok := keysFor.m[key]
	keysFor.Unlock()
	if ok && time.Since(c.at) < keysTTL {
		return c.attrs, c.resource, nil
	}
	rows, err := readRows(ctx, db, render("field_keys", map[string]any{"From": scope.From, "TS": scope.Timestamp, "Attrs": attrs, "Resource": res}), query.Params{}, timeout)
	if err != nil {
		return nil, nil, err
	}
	c = cachedKeys{at: time.Now()}
	if len(rows) == 1 {
		c.attrs, _ = rows[0]["attrs"].([]string)
		c.resource, _ = rows[0]["resource"].([]string)
	}
	sort.Strings(c.attrs)
	sort.Strings(c.resource)
	keysFor.Lock()
	keysFor.m[key] = c
	keysFor.Unlock()
	return c.attrs, c.resource, nil
}

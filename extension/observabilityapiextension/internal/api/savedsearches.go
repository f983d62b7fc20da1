package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/otelhouse/otelhouse/internal/domain/savedsearch"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// externalSavedSearch is a saved search as HyperDX's external API reads
// and writes it: sourceId, select as one SQL select list, the team's id,
// sidebar filters. It is stored as the shared savedsearch.SavedSearch
// (which the web UI reads), with select split into its items.
type externalSavedSearch struct {
	ID            string               `json:"id"`
	Name          string               `json:"name"`
	SourceID      string               `json:"sourceId"`
	Select        string               `json:"select"`
	Where         string               `json:"where"`
	WhereLanguage string               `json:"whereLanguage"`
	OrderBy       string               `json:"orderBy"`
	Tags          []string             `json:"tags"`
	Filters       []savedsearch.Filter `json:"filters"`
	TeamID        string               `json:"teamId,omitempty"`
	CreatedAt     json.RawMessage      `json:"createdAt,omitempty"`
	UpdatedAt     json.RawMessage      `json:"updatedAt,omitempty"`
}

// savedSearchInput is what a create or update may send.
type savedSearchInput struct {
	Name          string               `json:"name"`
	SourceID      string               `json:"sourceId"`
	Select        string               `json:"select"`
	Where         string               `json:"where"`
	WhereLanguage string               `json:"whereLanguage"`
	OrderBy       string               `json:"orderBy"`
	Tags          []string             `json:"tags"`
	Filters       []savedsearch.Filter `json:"filters"`
}

// HyperDX's caps on a saved search's fields.
const (
	maxSavedName    = 1024
	maxSavedSelect  = 4 << 10
	maxSavedWhere   = 8 << 10
	maxSavedOrderBy = 1024
	maxSavedTags    = 50
	maxSavedTag     = 32
	maxSavedFilters = 100
)

func decodeSavedSearch(s *Server, ctx context.Context, body []byte, st stamp) (document, error) { //nolint:revive // the kinds' decoders share one type, the server first
	var in savedSearchInput
	if err := decodeStrict(body, &in); err != nil {
		return document{}, validationError{err}
	}
	var p problems.List
	if len(in.Name) > maxSavedName {
		p.Add("name is longer than %d characters", maxSavedName)
	}
	if len(in.Select) > maxSavedSelect {
		p.Add("select is longer than %d characters", maxSavedSelect)
	}
	if len(in.Where) > maxSavedWhere {
		p.Add("where is longer than %d characters", maxSavedWhere)
	}
	if len(in.OrderBy) > maxSavedOrderBy {
		p.Add("orderBy is longer than %d characters", maxSavedOrderBy)
	}
	if len(in.Tags) > maxSavedTags {
		p.Add("tags: at most %d", maxSavedTags)
	}
	for _, t := range in.Tags {
		if len(t) > maxSavedTag {
			p.Add("tags: %q is longer than %d characters", t, maxSavedTag)
		}
	}
	// A filter is stored to be shown in the search page's sidebar, which
	// renders only one IN, NOT IN or numeric BETWEEN of a column; one it
	// would not show would still filter, unseen, so it is refused, unless
	// the search already had it (a read-modify-write echoes it back).
	var kept []savedsearch.Filter
	if st.old != nil {
		var old savedsearch.SavedSearch
		if json.Unmarshal(st.old, &old) == nil {
			kept = old.Filters
		}
	}
	if len(in.Filters) > maxSavedFilters {
		p.Add("filters: at most %d", maxSavedFilters)
	}
	for i := range in.Filters {
		f := &in.Filters[i]
		if f.Type == "" {
			f.Type = "sql"
		}
		if len(f.Condition) > maxSavedWhere {
			p.Add("filters[%d]: the condition is longer than %d characters", i, maxSavedWhere)
			continue
		}
		if slices.ContainsFunc(kept, func(k savedsearch.Filter) bool { return k.Equal(*f) }) {
			continue
		}
		if f.Type != "sql" || !sidebarFilter(f.Condition) {
			p.Add("filters[%d]: only a sql IN, NOT IN or numeric BETWEEN of one column is shown in the sidebar", i)
		}
	}
	ss := savedsearch.SavedSearch{
		Name: in.Name, Source: in.SourceID, Where: in.Where, WhereLanguage: in.WhereLanguage,
		Select: splitSelect(in.Select), OrderBy: in.OrderBy, Tags: in.Tags, Filters: in.Filters,
	}
	team := teamOf(ctx)
	exists := func(id string) (bool, error) { return s.sources.Exists(ctx, team, id) }
	if in.SourceID == "" {
		p.Add("sourceId must name an existing source of the team")
		exists = func(string) (bool, error) { return true, nil }
		ss.Source = "-" // reported above
	} else if ok, err := exists(in.SourceID); err != nil {
		return document{}, err
	} else if !ok {
		p.Add("sourceId must name an existing source of the team, got %q", in.SourceID)
		exists = func(string) (bool, error) { return true, nil }
	}
	err := ss.Validate(exists)
	if bad := (savedsearch.Invalid{}); errors.As(err, &bad) {
		p.Add("%v", err)
	} else if err != nil {
		return document{}, err
	}
	// Two saved searches of one name cannot be told apart in a list: a
	// team's names are unique, in any case.
	others, err := s.opts.Store.OfTeam(ctx, team, kindSaved)
	if err != nil {
		return document{}, err
	}
	for _, o := range others {
		var e savedsearch.SavedSearch
		if o.ID != st.id && json.Unmarshal(o.Doc, &e) == nil && strings.EqualFold(strings.TrimSpace(e.Name), strings.TrimSpace(ss.Name)) {
			p.Add("a saved search named %q already exists", e.Name)
		}
	}
	if err := p.Err(); err != nil {
		return document{}, validationError{err}
	}
	if ss.Filters == nil {
		ss.Filters = []savedsearch.Filter{}
	}
	ss.ID, ss.CreatedAt, ss.UpdatedAt = st.id, st.created, st.updated
	return document{st.id, &ss}, nil
}

// publicSavedSearch is a stored saved search in HyperDX's shape.
func publicSavedSearch(team string, doc []byte) (any, error) {
	var ss savedsearch.SavedSearch
	if err := json.Unmarshal(doc, &ss); err != nil {
		return nil, fmt.Errorf("stored saved search: %w", err)
	}
	var raw struct {
		CreatedAt, UpdatedAt json.RawMessage
	}
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, fmt.Errorf("stored saved search: %w", err)
	}
	out := externalSavedSearch{
		ID: ss.ID, Name: ss.Name, SourceID: ss.Source, Select: strings.Join(ss.Select, ", "),
		Where: ss.Where, WhereLanguage: ss.WhereLanguage, OrderBy: ss.OrderBy, Tags: ss.Tags, Filters: ss.Filters,
		TeamID: team, CreatedAt: raw.CreatedAt, UpdatedAt: raw.UpdatedAt,
	}
	if out.WhereLanguage == "" {
		out.WhereLanguage = "lucene"
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if out.Filters == nil {
		out.Filters = []savedsearch.Filter{}
	}
	return out, nil
}

// splitSelect splits a select list at its top-level commas (not inside
// parentheses or quotes), trimming each item.
func splitSelect(s string) []string {
	out := []string{}
	depth, start := 0, 0
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"' || r == '`':
			quote = r
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			if item := strings.TrimSpace(s[start:i]); item != "" {
				out = append(out, item)
			}
			start = i + 1
		}
	}
	if item := strings.TrimSpace(s[start:]); item != "" {
		out = append(out, item)
	}
	return out
}

// sidebarFilter reports whether cond is one predicate the search page's
// sidebar shows: `col IN (v, …)`, `col NOT IN (v, …)` or
// `col BETWEEN n AND m` with numbers. It reads tokens, never runs the text:
// the condition is checked again as any sql where when a search runs.
func sidebarFilter(cond string) bool {
	toks, ok := sqlTokens(cond)
	if !ok || len(toks) < 3 || !isIdent(toks[0]) {
		return false
	}
	rest := toks[1:]
	upper := func(i int) string { return strings.ToUpper(rest[i]) }
	if upper(0) == "BETWEEN" {
		if len(rest) != 4 || upper(2) != "AND" {
			return false
		}
		_, e1 := strconv.ParseFloat(rest[1], 64)
		_, e2 := strconv.ParseFloat(rest[3], 64)
		return e1 == nil && e2 == nil
	}
	if upper(0) == "NOT" {
		rest = rest[1:]
	}
	if len(rest) < 3 || strings.ToUpper(rest[0]) != "IN" || rest[1] != "(" || rest[len(rest)-1] != ")" {
		return false
	}
	list := rest[2 : len(rest)-1]
	for i, t := range list {
		if i%2 == 1 {
			if t != "," {
				return false
			}
		} else if !isLiteral(t) {
			return false
		}
	}
	return len(list)%2 == 1
}

func isIdent(t string) bool {
	if t == "" || strings.HasPrefix(t, "'") {
		return false
	}
	if strings.HasPrefix(t, "`") || strings.HasPrefix(t, `"`) {
		return true
	}
	for i, r := range t {
		if !(unicode.IsLetter(r) || r == '_' || r == '.' || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return !slices.Contains([]string{"AND", "OR", "NOT", "IN", "BETWEEN"}, strings.ToUpper(t))
}

func isLiteral(t string) bool {
	if strings.HasPrefix(t, "'") {
		return true
	}
	_, err := strconv.ParseFloat(t, 64)
	return err == nil
}

// sqlTokens splits a condition into identifiers, quoted strings, numbers
// and punctuation; ok is false for anything else.
func sqlTokens(s string) (toks []string, ok bool) {
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')' || r == ',':
			toks = append(toks, string(r))
			i++
		case r == '\'' || r == '"' || r == '`':
			j := i + 1
			for ; j < len(rs); j++ {
				if rs[j] == '\\' {
					j++
					continue
				}
				if rs[j] == r {
					if j+1 < len(rs) && rs[j+1] == r && r == '\'' { // '' inside a string
						j++
						continue
					}
					break
				}
			}
			if j >= len(rs) {
				return nil, false
			}
			toks = append(toks, string(rs[i:j+1]))
			i = j + 1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_' || rs[j] == '.' || (j == i && rs[j] == '-')) {
				j++
			}
			toks = append(toks, string(rs[i:j]))
			i = j
		default:
			return nil, false
		}
	}
	return toks, true
}

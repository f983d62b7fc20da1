package dashboards

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
)

// The types of dashboard filter, HyperDX's.
const (
	QueryExpression = "QUERY_EXPRESSION"
	StaticList      = "STATIC_LIST"
)

// checkFilters checks a dashboard's filters as HyperDX's schemas do and
// fills their defaults: ids, and a static list's mode flags (a variable,
// never broadcast). A filter broadcasts its value (absent: it does), is
// a variable (absent: it is not), or both; a field of the mode it is not
// in is refused rather than kept and ignored; variable names are tokens,
// one per variable.
func checkFilters(d *Dashboard, p *problems.List, newID func() string, exists func(string) (bool, error)) error {
	ids := map[string]bool{}
	variables := map[string]bool{}
	for i := range d.Filters {
		f := &d.Filters[i]
		at := fmt.Sprintf("filters.%d", i)
		if f.ID == "" {
			f.ID = newID()
		}
		if ids[f.ID] {
			p.Add("%s.id %q is used twice", at, f.ID)
		}
		ids[f.ID] = true
		if strings.TrimSpace(f.Name) == "" {
			p.Add("%s.name is required", at)
		}
		switch f.Type {
		case QueryExpression:
			if err := checkQueryFilter(f, p, at, exists); err != nil {
				return err
			}
		case StaticList:
			checkStaticFilter(f, p, at)
		default:
			p.Add("%s.type: Invalid discriminator value. Expected '%s' | '%s', got %q", at, QueryExpression, StaticList, f.Type)
			continue
		}
		broadcast := f.IsBroadcastEnabled == nil || *f.IsBroadcastEnabled
		variable := f.IsVariableEnabled != nil && *f.IsVariableEnabled
		if !broadcast && !variable {
			p.Add("%s: filter %q must broadcast its value, be available as a variable, or both", at, f.Name)
		}
		if f.VariableName != "" && !variable {
			p.Add("%s: filter %q sets variableName but is not available as a variable", at, f.Name)
		}
		if len(f.AppliesToSourceIDs) > 0 && !broadcast {
			p.Add("%s: filter %q sets appliesToSourceIds but does not broadcast its value", at, f.Name)
		}
		if f.VariableName != "" && !isToken(f.VariableName) {
			p.Add("%s.variableName must be a bare token (letters, digits and _, not starting with a digit), got %q", at, f.VariableName)
			continue
		}
		if !variable {
			continue
		}
		name := cmp.Or(f.VariableName, VariableOf(f.Name))
		switch {
		case name == "":
			p.Add("%s: filter %q has no usable variable name: its name has no letter or digit to make one of, so set variableName", at, f.Name)
		case variables[name]:
			p.Add("%s: variable name %q is used by another filter", at, name)
		}
		variables[name] = true
	}
	return nil
}

func checkQueryFilter(f *Filter, p *problems.List, at string, exists func(string) (bool, error)) error {
	if f.Options != nil {
		p.Add("%s: Unrecognized key(s) in object: 'options' (options are a %s filter's)", at, StaticList)
	}
	if strings.TrimSpace(f.Expression) == "" {
		p.Add("%s.expression is required", at)
	}
	if f.WhereLanguage != "" {
		p.OneOf(at+".whereLanguage", f.WhereLanguage, query.WhereLanguages)
	}
	if f.SourceID == "" {
		p.Add("%s.sourceId is required", at)
	} else if ok, err := exists(f.SourceID); err != nil {
		return err
	} else if !ok {
		p.Add("%s.sourceId: source %q does not exist", at, f.SourceID)
	}
	for _, id := range f.AppliesToSourceIDs {
		if ok, err := exists(id); err != nil {
			return err
		} else if !ok {
			p.Add("%s.appliesToSourceIds: source %q does not exist", at, id)
		}
	}
	return nil
}

// checkStaticFilter: a static list is a variable over its options, which
// are given and distinct; it reads no source.
func checkStaticFilter(f *Filter, p *problems.List, at string) {
	for _, k := range []struct {
		key   string
		given bool
	}{
		{"expression", f.Expression != ""},
		{"sourceId", f.SourceID != ""},
		{"sourceMetricType", f.SourceMetricType != ""},
		{"where", f.Where != ""},
		{"whereLanguage", f.WhereLanguage != ""},
		{"appliesToSourceIds", f.AppliesToSourceIDs != nil},
	} {
		if k.given {
			p.Add("%s: Unrecognized key(s) in object: '%s' (a %s filter reads no source)", at, k.key, StaticList)
		}
	}
	if len(f.Options) == 0 {
		p.Add("%s.options: a %s filter takes at least one option", at, StaticList)
	}
	seen := map[string]bool{}
	for _, o := range f.Options {
		if seen[o] {
			p.Add("%s.options: %q is listed twice", at, o)
		}
		seen[o] = true
	}
	no, yes := false, true
	if f.IsBroadcastEnabled == nil {
		f.IsBroadcastEnabled = &no
	}
	if f.IsVariableEnabled == nil {
		f.IsVariableEnabled = &yes
	}
	if *f.IsBroadcastEnabled {
		p.Add("%s.isBroadcastEnabled: a %s filter does not broadcast its value (false)", at, StaticList)
	}
	if !*f.IsVariableEnabled {
		p.Add("%s.isVariableEnabled: a %s filter is a variable (true)", at, StaticList)
	}
}

// VariableOf is the variable name a filter takes from its name when it
// sets none: each run of characters other than ASCII letters, digits
// and _ becomes one _, trimmed at the ends; "" when no token is left.
func VariableOf(name string) string {
	var b strings.Builder
	gap := false
	for _, r := range name {
		if tokenRune(r) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
		} else {
			gap = true
		}
	}
	if v := strings.Trim(b.String(), "_"); isToken(v) {
		return v
	}
	return ""
}

func tokenRune(r rune) bool {
	return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// isToken: letters, digits and _, not starting with a digit.
func isToken(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	return !slices.ContainsFunc([]rune(s), func(r rune) bool { return !tokenRune(r) })
}

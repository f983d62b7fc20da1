package search

import "strings"

// Maps names a source's attribute and resource map columns, for Project.
type Maps struct{ Attributes, Resource string }

// Project keeps the named fields of each row, found as the where
// translator finds them: a column by its name, `<map column>.<key>`,
// `Resource.<key>`, and any other name as a record attribute. A field a
// row lacks is null.
func Project(rows []map[string]any, names []string, m Maps) []map[string]any {
	if len(names) == 0 {
		return rows
	}
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		p := make(map[string]any, len(names))
		for _, n := range names {
			p[n] = field(r, n, m)
		}
		out[i] = p
	}
	return out
}

func field(r map[string]any, name string, m Maps) any {
	if v, ok := r[name]; ok {
		return v
	}
	lookup := func(col, key string) any {
		if mp, ok := r[col].(map[string]string); ok {
			if v, ok := mp[key]; ok {
				return v
			}
		}
		return nil
	}
	if col, key, ok := strings.Cut(name, "."); ok {
		if _, isMap := r[col].(map[string]string); isMap {
			return lookup(col, key)
		}
	}
	if key, ok := strings.CutPrefix(name, "Resource."); ok && m.Resource != "" {
		return lookup(m.Resource, key)
	}
	if m.Attributes != "" {
		return lookup(m.Attributes, name)
	}
	return nil
}

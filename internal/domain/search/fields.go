package search

import (
	"context"
	"database/sql"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// Column is a column of a source's table.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// FieldList is what a search's column picker offers.
type FieldList struct {
	Columns []Column `json:"columns"`
	// Attributes and Resource are keys seen in the newest rows of the
	// source's attribute and resource maps.
	Attributes []string `json:"attributes"`
	Resource   []string `json:"resource"`
}

// Fields lists a source's columns and the map keys of its newest rows.
func Fields(ctx context.Context, db *sql.DB, scope *query.Scope, timeout time.Duration) (FieldList, error) {
	out := FieldList{Columns: []Column{}, Attributes: []string{}, Resource: []string{}}
	for _, c := range scope.Columns() {
		out.Columns = append(out.Columns, Column{Name: c[0], Type: c[1]})
	}
	src := scope.Source()
	for _, m := range []struct {
		col  string
		into *[]string
	}{{src.AttributesMap, &out.Attributes}, {src.ResourceMap, &out.Resource}} {
		col, ok := scope.Column(m.col)
		if !ok {
			continue
		}
		rows, err := readRows(ctx, db, render("map_keys", map[string]any{"Map": col, "From": scope.From, "TS": scope.Timestamp}), query.Params{}, timeout)
		if err != nil {
			return out, err
		}
		for _, r := range rows {
			for _, v := range r {
				if ks, ok := v.([]string); ok {
					*m.into = ks
				}
			}
		}
	}
	return out, nil
}

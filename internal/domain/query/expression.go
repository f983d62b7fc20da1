package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// A source's expressions (HyperDX's timestampValueExpression and the
// like) are SQL the API and HyperDX's clients write into queries. Like a
// sql where, each is decided on the engine's parse of it (EXPLAIN AST),
// never on its text: the ones read as columns must name one; the others
// may be any expression over the table's columns that a sql where may
// hold (map and JSON access, pure functions such as JSONExtractString or
// lower), with no sub-query, table function or alias.

// CheckExpression decides on the engine's parse whether text is a column
// name (column: only that), or an expression over columns; with list,
// several of those separated by commas, or *.
func CheckExpression(ctx context.Context, db *sql.DB, text string, column, list bool) error {
	if len(text) > maxFieldBytes {
		return Error{fmt.Errorf("at most %d bytes", maxFieldBytes)}
	}
	if list && strings.TrimSpace(text) == "*" {
		return nil
	}
	n, err := parseCondition(ctx, db, text)
	if err != nil {
		return err
	}
	var fns *Catalog
	if !column {
		if fns, err = catalogOf(ctx, db); err != nil {
			return err
		}
	}
	if n.kind == "Function" && n.detail == "tuple" && len(n.children) == 1 {
		// The parentheses the condition is framed in read a list as a
		// tuple.
		if !list {
			return Error{errors.New("one expression is expected, not a list")}
		}
		for _, c := range n.children[0].children {
			if err := checkAccess(c, column, fns); err != nil {
				return err
			}
		}
		return nil
	}
	return checkAccess(n, column, fns)
}

// checkAccess accepts an identifier, or (unless column) an expression
// over columns that a sql where could hold.
func checkAccess(n *astNode, column bool, fns *Catalog) error {
	if strings.Contains(n.detail, " (alias ") {
		return Error{errors.New("aliases (AS) are not allowed")}
	}
	if column {
		if n.kind == "Identifier" && len(n.children) == 0 && !strings.Contains(n.detail, ".") {
			return nil
		}
		return Error{errors.New("a column name is expected")}
	}
	if !mentionsName(n) {
		return Error{errors.New("an expression over the table's columns is expected, not a constant")}
	}
	if _, err := renderWhere(n, whereScope{fns: fns, anyColumn: true}); err != nil {
		return Error{errors.New(strings.ReplaceAll(err.Error(), "a sql where", "a source expression"))}
	}
	return nil
}

// mentionsName reports whether n reads a name (a column) anywhere.
func mentionsName(n *astNode) bool {
	if n.kind == "Identifier" {
		return true
	}
	for _, c := range n.children {
		if mentionsName(c) {
			return true
		}
	}
	return false
}

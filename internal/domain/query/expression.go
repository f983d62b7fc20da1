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
// never on its text: only names of columns, and map or JSON access on a
// column, are accepted.

// CheckExpression decides on the engine's parse whether text is a column
// name (column: only that), or a column or a map element of one
// (M['key']); with list, several of those separated by commas, or *.
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
	if n.kind == "Function" && n.detail == "tuple" && len(n.children) == 1 {
		// The parentheses the condition is framed in read a list as a
		// tuple.
		if !list {
			return Error{errors.New("one expression is expected, not a list")}
		}
		for _, c := range n.children[0].children {
			if err := checkAccess(c, column); err != nil {
				return err
			}
		}
		return nil
	}
	return checkAccess(n, column)
}

// checkAccess accepts an identifier, or (unless column) a map element of
// one with a constant key.
func checkAccess(n *astNode, column bool) error {
	if strings.Contains(n.detail, " (alias ") {
		return Error{errors.New("aliases (AS) are not allowed")}
	}
	switch {
	case n.kind == "Identifier" && len(n.children) == 0:
		if column && strings.Contains(n.detail, ".") {
			return Error{fmt.Errorf("%q: a column name is expected", n.detail)}
		}
		return nil
	case !column && n.kind == "Function" && n.detail == "arrayElement" && len(n.children) == 1 && len(n.children[0].children) == 2:
		args := n.children[0].children
		if args[1].kind == "Literal" && len(args[1].children) == 0 {
			return checkAccess(args[0], false)
		}
	}
	if column {
		return Error{errors.New("a column name is expected")}
	}
	return Error{errors.New("a column, or a map or JSON access on one (Attributes['key'], J.a.b), is expected")}
}

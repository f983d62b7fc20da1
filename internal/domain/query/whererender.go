package query

import (
	"errors"
	"fmt"
	"strings"
)

// whereScope is what a condition's names may stand for: the source's
// columns, and inside a lambda its parameters.
type whereScope struct {
	cols   map[string]string
	fns    *Catalog
	params map[string]bool
	// having: the condition filters grouped rows. Outside an aggregate's
	// arguments (inAgg false) its names are the select items' aliases,
	// each written as aliases says (the name the query gives the value).
	having, inAgg bool
	aliases       map[string]string
	// used, when set, records the aliases the condition names.
	used map[string]bool
	// anyColumn takes every name for a column: a source's expression is
	// checked when it is saved, when its table may not exist yet, and
	// again against the table's columns when it is read (checkRoles).
	anyColumn bool
}

// what names the condition in messages.
func (sc whereScope) what() string {
	if sc.having {
		return "a having"
	}
	return "a sql where"
}

// conditionOf finds the condition in the dump of `SELECT 1 WHERE (…)`;
// anything more (SETTINGS, FORMAT, a second SELECT, a FROM) is refused.
func conditionOf(root *astNode) (*astNode, error) {
	notOne := errors.New("a sql where must be one condition: it closes its parentheses or adds clauses")
	if root.kind != "SelectWithUnionQuery" || len(root.children) != 1 {
		return nil, notOne
	}
	list := root.children[0]
	if list.kind != "ExpressionList" || len(list.children) != 1 {
		return nil, notOne
	}
	sel := list.children[0]
	if sel.kind != "SelectQuery" || sel.detail != "" || len(sel.children) != 2 {
		return nil, notOne
	}
	head := sel.children[0]
	if head.kind != "ExpressionList" || len(head.children) != 1 || head.children[0].kind != "Literal" || head.children[0].detail != "UInt64_1" {
		return nil, notOne
	}
	return sel.children[1], nil
}

// renderWhere checks a condition's tree and writes it as SQL of its own:
// names quoted, functions in call form, constants re-escaped. Only what
// the check accepted can appear in the text, however the user spelled it.
func renderWhere(n *astNode, sc whereScope) (string, error) {
	var b strings.Builder
	if err := sc.render(&b, n); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (sc whereScope) render(b *strings.Builder, n *astNode) error {
	if strings.Contains(n.detail, " (alias ") {
		return fmt.Errorf("aliases (AS) are not allowed in %s", sc.what())
	}
	switch n.kind {
	case "Literal":
		if len(n.children) > 0 {
			return errors.New("the engine's constant could not be read")
		}
		l, err := parseLiteral(n.detail)
		if err != nil {
			return err
		}
		writeLiteral(b, l)
		return nil
	case "Identifier":
		if len(n.children) > 0 {
			return fmt.Errorf("%q is not a column of the source", n.detail)
		}
		return sc.renderName(b, n.detail)
	case "Function":
		return sc.renderCall(b, n)
	case "Subquery", "TableIdentifier", "SelectWithUnionQuery", "SelectQuery":
		return fmt.Errorf("%s may not read other tables (no sub-queries)", sc.what())
	case "QueryParameter":
		return fmt.Errorf("query parameters ({name:Type}) are not allowed in %s", sc.what())
	case "Asterisk", "QualifiedAsterisk", "ColumnsRegexpMatcher", "ColumnsListMatcher", "QualifiedColumnsRegexpMatcher", "QualifiedColumnsListMatcher":
		return fmt.Errorf("* and COLUMNS() are not allowed in %s", sc.what())
	case "Set":
		return fmt.Errorf("SETTINGS are not allowed in %s", sc.what())
	}
	return fmt.Errorf("%s is not allowed in %s", n.kind, sc.what())
}

// renderName writes a column, a column's subcolumn or tuple element
// (`T.a` reads as T, then a), or a lambda parameter.
func (sc whereScope) renderName(b *strings.Builder, name string) error {
	if sc.params[name] {
		writeName(b, name)
		return nil
	}
	if sc.having && !sc.inAgg {
		// Outside an aggregate a group's rows have no one value of a
		// column: the having names what the select computed, or what
		// the rows are grouped by.
		if as, ok := sc.aliases[name]; ok {
			if sc.used != nil {
				sc.used[name] = true
			}
			writeName(b, as)
			return nil
		}
		return fmt.Errorf("%q is not a select item's alias or a grouped field; outside an aggregate a having names those only (a column is read through an aggregate, e.g. max(%s))", name, name)
	}
	if _, ok := sc.cols[name]; ok {
		writeName(b, name)
		return nil
	}
	parts := strings.Split(name, ".")
	if _, ok := sc.cols[parts[0]]; (ok || sc.anyColumn) && !sc.params[parts[0]] && (len(parts) > 1 || sc.anyColumn) {
		for i, p := range parts {
			if p == "" {
				break
			}
			if i > 0 {
				b.WriteByte('.')
			}
			writeName(b, p)
		}
		return nil
	}
	return fmt.Errorf("%q is not a column of the source, a function call or a constant", name)
}

// inFamily are the IN operator's function names: their right side is read
// as a table when it is a name, so there it must be constant. The GLOBAL
// and IgnoreSet forms are for distributed and internal use only.
var inFamily = map[string]bool{"in": true, "notIn": true, "nullIn": true, "notNullIn": true}

func (sc whereScope) renderCall(b *strings.Builder, n *astNode) error {
	name := n.detail
	if sc.having && aggregate(name) {
		return sc.renderAggregate(b, n)
	}
	notInHaving := func() error {
		return fmt.Errorf("function %s is not allowed in a having (the aggregates docs/api.md lists are, and functions that compute on values)", name)
	}
	if len(n.children) != 1 || n.children[0].kind != "ExpressionList" {
		if sc.having {
			return notInHaving()
		}
		return fmt.Errorf("function %s: parametric, aggregate and window functions are not allowed in %s", name, sc.what())
	}
	args := n.children[0].children
	if name == "lambda" {
		return sc.renderLambda(b, args)
	}
	if sc.having && !inFamily[name] && !sc.fns.allows(name) {
		// Said before the arguments: outside an aggregate they would be
		// refused as columns, which hides the misspelt aggregate.
		return notInHaving()
	}
	if inFamily[name] && (len(args) != 2 || !constant(args[1])) {
		return errors.New("after IN only constant values are allowed (a name or sub-query there would be read as a table)")
	}
	// The arguments first: the innermost refusal is the one to report.
	var inner strings.Builder
	for i, a := range args {
		if i > 0 {
			inner.WriteString(", ")
		}
		if err := sc.render(&inner, a); err != nil {
			return err
		}
	}
	// The catalogue leaves out every IN spelling; the operator's own
	// forms are allowed here, with their constant right side.
	if !inFamily[name] && !sc.fns.allows(name) {
		return fmt.Errorf("function %s is not allowed in %s (only functions that compute on values are)", name, sc.what())
	}
	writeName(b, name)
	b.WriteByte('(')
	b.WriteString(inner.String())
	b.WriteByte(')')
	return nil
}

// renderLambda writes `(x, y) -> body`; its parameters are new plain
// names, in scope in its body only.
func (sc whereScope) renderLambda(b *strings.Builder, args []*astNode) error {
	bad := errors.New("a lambda must be written (x, …) -> expression")
	if len(args) != 2 || args[0].kind != "Function" || args[0].detail != "tuple" ||
		len(args[0].children) != 1 || len(args[0].children[0].children) == 0 {
		return bad
	}
	inner := sc
	inner.params = map[string]bool{}
	for k := range sc.params {
		inner.params[k] = true
	}
	b.WriteByte('(')
	for i, p := range args[0].children[0].children {
		if p.kind != "Identifier" || len(p.children) > 0 || strings.Contains(p.detail, ".") || strings.Contains(p.detail, " (alias ") {
			return bad
		}
		if i > 0 {
			b.WriteString(", ")
		}
		writeName(b, p.detail)
		inner.params[p.detail] = true
	}
	b.WriteString(") -> ")
	return inner.render(b, args[1])
}

// constant reports whether n is a constant: a literal, or tuple/array
// of constants.
func constant(n *astNode) bool {
	switch {
	case n.kind == "Literal":
		return true
	case n.kind == "Function" && (n.detail == "tuple" || n.detail == "array") && len(n.children) == 1:
		for _, c := range n.children[0].children {
			if !constant(c) {
				return false
			}
		}
		return true
	}
	return false
}

// writeName writes a backquoted name.
func writeName(b *strings.Builder, name string) {
	b.WriteByte('`')
	for i := 0; i < len(name); i++ {
		writeEscaped(b, name[i], '`')
	}
	b.WriteByte('`')
}

// writeLiteral writes a constant so that the engine reads it back as the
// same constant.
func writeLiteral(b *strings.Builder, l literal) {
	switch l.kind {
	case "null":
		b.WriteString("NULL")
	case "string":
		b.WriteByte('\'')
		for i := 0; i < len(l.text); i++ {
			writeEscaped(b, l.text[i], '\'')
		}
		b.WriteByte('\'')
	case "bool":
		if l.text == "1" {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case "int", "uint":
		b.WriteString(l.text)
	case "float":
		// 1.0 prints as 1: written so, it would read back as an integer.
		b.WriteString(l.text)
		if !strings.ContainsAny(l.text, ".eEin") {
			b.WriteString(".0")
		}
	case "array", "tuple":
		open, closer := "[", "]"
		if l.kind == "tuple" {
			open, closer = "(", ")"
		}
		b.WriteString(open)
		for i, it := range l.items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeLiteral(b, it)
		}
		b.WriteString(closer)
	}
}

// writeEscaped writes one byte of a quoted string or name; quotes,
// backslashes and control bytes are escaped.
func writeEscaped(b *strings.Builder, c, quote byte) {
	switch {
	case c == quote || c == '\\':
		b.WriteByte('\\')
		b.WriteByte(c)
	case c < 0x20 || c == 0x7f:
		fmt.Fprintf(b, "\\x%02X", c)
	default:
		b.WriteByte(c)
	}
}

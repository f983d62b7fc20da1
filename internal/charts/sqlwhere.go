package charts

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// A whereLanguage=sql condition is pasted into the chart's query, which
// runs with the API's database credentials: those reach the API's own
// state (teams, key hashes, other teams' webhooks) and, through functions
// such as file(), the host's files. An API key must not grant that, so a
// condition is checked token by token against an allow list: it may name
// the source's columns, constants, lambda parameters, the operators and
// keywords of an expression, and functions of the categories that compute
// on values. Anything else (another table, a subquery, a comment, a
// function that reads files, dictionaries, settings or remote services)
// is refused before the query is sent.

// whereKeywords are the words an expression may use besides names.
var whereKeywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IN": true, "IS": true, "NULL": true, "TRUE": true, "FALSE": true,
	"LIKE": true, "ILIKE": true, "REGEXP": true, "BETWEEN": true, "DIV": true, "MOD": true,
	"CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true, "AS": true, "INF": true, "NAN": true,
	"INTERVAL": true, "NANOSECOND": true, "MICROSECOND": true, "MILLISECOND": true, "SECOND": true, "MINUTE": true,
	"HOUR": true, "DAY": true, "WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true,
}

// safeCategories are system.functions categories whose functions compute
// only on their arguments.
var safeCategories = map[string]bool{
	"Arithmetic": true, "Arrays": true, "Bit": true, "Comparison": true, "Conditional": true,
	"Dates and Times": true, "Distance": true, "Encoding": true, "Geo": true, "Geo Polygon": true, "Hash": true,
	"IP Address": true, "JSON": true, "Logical": true, "Map": true, "Mathematical": true, "Null": true,
	"Rounding": true, "String": true, "String Replacement": true, "String Search": true, "String Splitting": true,
	"Tuple": true, "Type Conversion": true, "URL": true, "UUID": true,
}

// safeOthers are the functions of the catch-all "Other" category that are
// as pure as the categories above; the rest of it reads files, tables,
// settings or server state, or sleeps.
var safeOthers = map[string]bool{
	"bar": true, "countDigits": true, "formatReadableDecimalSize": true, "formatReadableQuantity": true,
	"formatReadableSize": true, "formatReadableTimeDelta": true, "getSubcolumn": true, "identity": true,
	"isConstant": true, "isDecimalOverflow": true, "MACNumToString": true, "MACStringToNum": true,
	"MACStringToOUI": true, "parseReadableSize": true, "parseReadableSizeOrNull": true,
	"parseReadableSizeOrZero": true, "parseTimeDelta": true, "toColumnTypeName": true, "toTypeName": true,
	"transform": true, "variantElement": true, "variantType": true, "visibleWidth": true,
}

// inFunctions are IN's function spellings: their second argument may
// name a table, which the operator form's check below rules out.
var inFunctions = map[string]bool{
	"in": true, "notin": true, "globalin": true, "globalnotin": true, "nullin": true, "notnullin": true,
	"globalnullin": true, "globalnotnullin": true, "inignoreset": true, "notinignoreset": true,
	"globalinignoreset": true, "globalnotinignoreset": true, "nullinignoreset": true, "notnullinignoreset": true,
	"globalnullinignoreset": true, "globalnotnullinignoreset": true,
}

// Function is one row of the server's function catalogue.
type Function struct {
	Name            string
	CaseInsensitive bool
	// Categories of the function, or of the function it is an alias of.
	Categories string
}

// Catalog tells which functions a sql where may call.
type Catalog struct {
	exact, folded map[string]bool
}

// NewCatalog allows the functions whose every category is safe.
func NewCatalog(fns []Function) *Catalog {
	c := &Catalog{exact: map[string]bool{}, folded: map[string]bool{}}
	for _, f := range fns {
		ok := f.Categories != ""
		for _, cat := range strings.Split(f.Categories, ",") {
			cat = strings.TrimSpace(cat)
			ok = ok && (safeCategories[cat] || cat == "Other" && safeOthers[f.Name])
		}
		if !ok || inFunctions[strings.ToLower(f.Name)] {
			continue
		}
		c.exact[f.Name] = true
		if f.CaseInsensitive {
			c.folded[strings.ToLower(f.Name)] = true
		}
	}
	return c
}

func (c *Catalog) allows(name string) bool {
	return c.exact[name] || c.folded[strings.ToLower(name)]
}

//go:embed functions.sql
var functionsSQL string

// catalogTTL bounds how long a server's catalogue is trusted: an upgrade
// may add functions.
const catalogTTL = 10 * time.Minute

type loadedCatalog struct {
	at time.Time
	c  *Catalog
}

var catalogs sync.Map // *sql.DB → loadedCatalog

// catalogOf reads the server's function catalogue, cached per database.
func catalogOf(ctx context.Context, db *sql.DB) (*Catalog, error) {
	if l, ok := catalogs.Load(db); ok && time.Since(l.(loadedCatalog).at) < catalogTTL {
		return l.(loadedCatalog).c, nil
	}
	rows, err := db.QueryContext(ctx, functionsSQL)
	if err != nil {
		return nil, fmt.Errorf("reading the server's function catalogue (a sql where needs system.functions with its categories column): %w", err)
	}
	defer rows.Close()
	var fns []Function
	for rows.Next() {
		var f Function
		var ci uint8
		if err := rows.Scan(&f.Name, &ci, &f.Categories); err != nil {
			return nil, err
		}
		f.CaseInsensitive = ci != 0
		fns = append(fns, f)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	c := NewCatalog(fns)
	catalogs.Store(db, loadedCatalog{at: time.Now(), c: c})
	return c, nil
}

type sqlTokKind uint8

const (
	sqlWord   sqlTokKind = iota + 1 // bare name or keyword
	sqlQuoted                       // `name` or "name"
	sqlNumber
	sqlString
	sqlPunct
)

type sqlTok struct {
	kind sqlTokKind
	text string // a quoted name unquoted; punctuation one or two bytes
	pos  int
}

// is tells whether t is the punctuation p.
func (t sqlTok) is(p string) bool { return t.kind == sqlPunct && t.text == p }

// lexSQL splits a condition into ClickHouse tokens, refusing what an
// expression never needs: comments, statement separators, query
// parameters, heredocs and bytes outside ASCII (outside strings).
func lexSQL(s string) ([]sqlTok, error) {
	var toks []sqlTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case isWordStart(c):
			j := i + 1
			for j < len(s) && (isWordStart(s[j]) || isDigit(s[j])) {
				j++
			}
			toks = append(toks, sqlTok{sqlWord, s[i:j], i})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := i + 1
			for j < len(s) && (isWordStart(s[j]) || isDigit(s[j]) || s[j] == '.' ||
				(s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E') && !strings.HasPrefix(s[i:], "0x")) {
				j++
			}
			if !number.MatchString(s[i:j]) {
				return nil, fmt.Errorf("%q at offset %d is not a number", s[i:j], i)
			}
			toks = append(toks, sqlTok{sqlNumber, s[i:j], i})
			i = j
		case c == '\'' || c == '`' || c == '"':
			text, j, ok := quoted(s, i)
			if !ok {
				return nil, fmt.Errorf("unterminated %c at offset %d", c, i)
			}
			kind := sqlQuoted
			if c == '\'' {
				kind = sqlString
			}
			toks = append(toks, sqlTok{kind, text, i})
			i = j
		case strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "/*") || c == '#':
			return nil, fmt.Errorf("comments are not allowed (offset %d)", i)
		case strings.HasPrefix(s[i:], "::") || strings.HasPrefix(s[i:], "->"):
			toks = append(toks, sqlTok{sqlPunct, s[i : i+2], i})
			i += 2
		case strings.IndexByte("()[],.+-*/%=!<>|:?", c) >= 0:
			toks = append(toks, sqlTok{sqlPunct, s[i : i+1], i})
			i++
		default:
			return nil, fmt.Errorf("character %q is not allowed outside a string (offset %d)", c, i)
		}
	}
	return toks, nil
}

// number is what ClickHouse reads as one numeric literal; letters glued to
// digits are refused rather than guessed at.
var number = regexp.MustCompile(`^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|[0-9_]*\.?[0-9_]*([eE][+-]?[0-9_]+)?)$`)

func isWordStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }

// quoted reads the quoted token at i (backslash escapes, or the quote
// doubled) and returns its content and the offset after it.
func quoted(s string, i int) (string, int, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 >= len(s) {
				return "", 0, false
			}
			b.WriteByte(s[j])
			j++
			b.WriteByte(s[j])
		case q:
			if j+1 < len(s) && s[j+1] == q {
				b.WriteByte(q)
				j++
				continue
			}
			return b.String(), j + 1, true
		default:
			b.WriteByte(s[j])
		}
	}
	return "", 0, false
}

// group is an open bracket of the condition.
type group struct {
	close byte
	// constant: opened after IN, or inside such a group, where a name
	// would be read as a table.
	constant bool
	// cast: CAST's own parentheses, where AS introduces a type.
	cast bool
}

// CheckSQLWhere accepts a condition that is one self-contained expression
// over the columns cols, calling only functions fns allows.
func CheckSQLWhere(cond string, cols map[string]string, fns *Catalog) error {
	toks, err := lexSQL(cond)
	if err != nil {
		return err
	}
	lambda := lambdaParams(toks)
	var open []group
	inConstant := func() bool { return len(open) > 0 && open[len(open)-1].constant }
	afterIn := false // the previous token was the IN operator
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		wasAfterIn := afterIn
		afterIn = false
		switch t.kind {
		case sqlNumber, sqlString:
		case sqlPunct:
			switch t.text {
			case "(", "[":
				close := byte(')')
				if t.text == "[" {
					close = ']'
				}
				cast := i > 0 && toks[i-1].kind == sqlWord && strings.EqualFold(toks[i-1].text, "cast")
				open = append(open, group{close: close, constant: wasAfterIn || inConstant(), cast: cast})
			case ")", "]":
				if len(open) == 0 || open[len(open)-1].close != t.text[0] {
					return fmt.Errorf("unbalanced %q at offset %d: a sql where must be one self-contained condition", t.text, t.pos)
				}
				open = open[:len(open)-1]
			case "::":
				n, err := skipType(toks, i+1)
				if err != nil {
					return err
				}
				i = n - 1
			case ".":
				// a subcolumn or tuple element: the name after it belongs
				// to the column before it, which was checked
				if i == 0 || toks[i-1].kind != sqlWord && toks[i-1].kind != sqlQuoted && !toks[i-1].is(")") && !toks[i-1].is("]") ||
					i+1 >= len(toks) || toks[i+1].kind != sqlWord && toks[i+1].kind != sqlQuoted && toks[i+1].kind != sqlNumber ||
					i+2 < len(toks) && toks[i+2].is("(") {
					return fmt.Errorf("unexpected '.' at offset %d: only a column's subcolumns may follow one", t.pos)
				}
				i++
			}
		case sqlWord, sqlQuoted:
			// Keywords first: some are also functions (not, and, in, year),
			// and in's function form must get the operator's check.
			if t.kind == sqlWord && whereKeywords[strings.ToUpper(t.text)] {
				switch strings.ToUpper(t.text) {
				case "IN":
					afterIn = true
				case "AS":
					if len(open) == 0 || !open[len(open)-1].cast {
						return fmt.Errorf("AS is only allowed in CAST(value AS type) (offset %d)", t.pos)
					}
					n, err := skipType(toks, i+1)
					if err != nil {
						return err
					}
					i = n - 1
				}
				continue
			}
			if i+1 < len(toks) && toks[i+1].is("(") {
				if !fns.allows(t.text) {
					return fmt.Errorf("function %s is not allowed in a sql where (only functions that compute on values are)", t.text)
				}
				if wasAfterIn {
					afterIn = true // its arguments are IN's values
				}
				continue
			}
			if _, ok := cols[t.text]; !ok && !lambda[t.text] {
				return fmt.Errorf("%q is not a column of the source, a keyword or a function call", t.text)
			}
			if wasAfterIn || inConstant() {
				return fmt.Errorf("after IN only constant values are allowed, not %q (it would be read as a table)", t.text)
			}
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("unclosed bracket: a sql where must be one self-contained condition")
	}
	return nil
}

// lambdaParams collects the names that lambdas declare (x -> …, (x, y) -> …).
func lambdaParams(toks []sqlTok) map[string]bool {
	ps := map[string]bool{}
	for i, t := range toks {
		if !t.is("->") || i == 0 {
			continue
		}
		if p := toks[i-1]; p.kind == sqlWord {
			ps[p.text] = true
			continue
		}
		if !toks[i-1].is(")") {
			continue
		}
		for j := i - 2; j >= 0 && !toks[j].is("("); j-- {
			if toks[j].kind == sqlWord {
				ps[toks[j].text] = true
			}
		}
	}
	return ps
}

// skipType steps over a data type (a name, then its parameters in
// brackets) and returns the index after it. Type parameters are names,
// numbers and strings, never expressions.
func skipType(toks []sqlTok, i int) (int, error) {
	if i >= len(toks) || toks[i].kind != sqlWord && toks[i].kind != sqlQuoted {
		return 0, errors.New("expected a type name after AS or after the :: cast")
	}
	i++
	if i >= len(toks) || !toks[i].is("(") {
		return i, nil
	}
	depth := 0
	for ; i < len(toks); i++ {
		t := toks[i]
		if t.kind == sqlPunct {
			switch t.text {
			case "(":
				depth++
			case ")":
				depth--
			case ",", "=", "-":
			default:
				return 0, fmt.Errorf("unexpected %q in a type at offset %d", t.text, t.pos)
			}
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("unclosed type parameters")
}

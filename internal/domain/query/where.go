package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Fields resolves a user field name to a SQL expression (a known column,
// or a map lookup with a bound key) and says whether it is numeric.
type Fields interface {
	Resolve(name string, p *Params) (expr string, numeric bool, err error)
	// Body is the expression bare terms are searched in.
	Body() string
}

// Folder is implemented by Fields whose keyword fields match without
// regard to case (severity: OTel SDKs write ERROR, Datadog writes error).
type Folder interface {
	Folds(name string) bool
}

// Texts is implemented by Fields that know which names are plain String
// values (String columns, map lookups). Those are compared as they are:
// toString() around a map lookup hides it from the map's bloom-filter
// skip indexes, so a term on an attribute would read every granule.
type Texts interface {
	IsText(name string) bool
}

// Fallbacks is implemented by Fields where a bare key is looked up in
// one map and, when that map lacks it, in a second (record attributes,
// then resource attributes). A condition is then written on each map's
// own lookup, (primary matches OR (primary lacks the key AND secondary
// matches)), so each side can use its map's skip indexes, which a
// condition on if(mapContains(…), …, …) could not.
type Fallbacks interface {
	Fallback(name string, p *Params) (primary, present, secondary string, ok bool)
}

// WhereLanguages are the languages a where is written in: the Lucene
// subset (Lucene), a checked SQL condition (sqlwhere.go) or Datadog's
// log and span search syntax (datadog.go).
var WhereLanguages = []string{"lucene", "sql", "datadog"}

// Params collects bound values as {pN:Type} placeholders. Values holds
// each value as the engine reads a query parameter (param_pN over HTTP):
// in its escaped text form, which clickhouse-go does not apply. Unescaped,
// a value ending in a backslash or holding a newline was an engine error
// (a 5xx for the user's search), and C:\temp searched for a tab.
type Params struct{ Values map[string]string }

// Add binds v and returns its placeholder.
func (p *Params) Add(v, typ string) string {
	if p.Values == nil {
		p.Values = map[string]string{}
	}
	name := "p" + strconv.Itoa(len(p.Values))
	p.Values[name] = escapeParam(v)
	return "{" + name + ":" + typ + "}"
}

// paramEscaper writes a value in the engine's escaped format, the one it
// parses query parameters with: a backslash starts an escape, and a tab
// or newline would end the value.
var paramEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`, "\x00", `\0`)

func escapeParam(v string) string {
	if !strings.ContainsAny(v, "\\\t\n\r\x00") {
		return v
	}
	return paramEscaper.Replace(v)
}

// MaxWhereBytes bounds a where (either language). Real filters are a few
// hundred bytes; a bound with a reason answers a pasted megabyte with a
// 400 before it is compiled, instead of an engine request too large to
// send (a 5xx).
const MaxWhereBytes = 64 << 10

// CheckWhere refuses a where too long to be a filter.
func CheckWhere(text string) error {
	if len(text) > MaxWhereBytes {
		return fmt.Errorf("where is longer than %d bytes (%d)", MaxWhereBytes, len(text))
	}
	return nil
}

// maxFieldBytes bounds a field name (groupBy, a chart's field).
const maxFieldBytes = 1024

// CheckField refuses a field name no column or attribute key is meant to
// have: empty, longer than 1 KiB, or holding a control character (a
// newline in a groupBy is a mistake in the request, not a key to look up).
func CheckField(name string) error {
	if name == "" {
		return fmt.Errorf("field name is empty")
	}
	if len(name) > maxFieldBytes {
		return fmt.Errorf("field name is longer than %d bytes", maxFieldBytes)
	}
	for i, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("field name %q has a control character at byte %d", name, i)
		}
	}
	return nil
}

// Lucene compiles the supported Lucene subset to a SQL condition:
// field:value, field:"phrase", field:val*, -term and NOT, AND, OR,
// parentheses, field:[a TO b], field:>n (>=, <, <=), bare terms searched in
// the body, and field:* for presence. Adjacent terms are ANDed.
//
// A term matches as HyperDX's query parser reads it (common-utils
// queryParser): field:value on a text field holds value, in any case
// (field:"value" is the value exactly); a bare word is a whole word of
// the body in any case, a bare "phrase" its words and the phrase; a bare
// term with * or ? matches the whole body as a pattern (time* starts
// with time, *timeout* holds it).
func Lucene(q string, f Fields, p *Params) (string, error) {
	if err := CheckWhere(q); err != nil {
		return "", err
	}
	// Outside a quoted phrase a backslash is kept as typed (C:\temp), but
	// one ending the query is Lucene's "escape of nothing": refused, as
	// Lucene's own parser does, rather than guessed at.
	if t := strings.TrimRightFunc(q, unicode.IsSpace); strings.HasSuffix(t, `\`) {
		return "", fmt.Errorf("the query ends with a backslash, which escapes nothing; to search for a backslash, quote it: \"\\\\\"")
	}
	ps := &parser{toks: tokenize(q), f: f, p: p}
	if len(ps.toks) == 0 {
		return "1", nil
	}
	if len(ps.toks) > maxTerms {
		return "", fmt.Errorf("more than %d terms and operators", maxTerms)
	}
	expr, err := ps.or()
	if err != nil {
		return "", err
	}
	if ps.i < len(ps.toks) {
		return "", fmt.Errorf("unexpected %q at position %d", ps.toks[ps.i].text, ps.toks[ps.i].pos)
	}
	return expr, nil
}

type tok struct {
	text     string
	quoted   bool // the value was a "quoted phrase"
	dashes   int  // leading '-'s outside a quote (-field:"x", -"x")
	grouped  bool // a value of a field:( … ) group
	open     int  // position of a quote never closed, or -1
	fieldEnd int  // length of the field name before ':', -1 for a bare term
	pos      int
}

// tokenize splits on blanks and parentheses, keeping quoted phrases (with
// \" escapes) and [a TO b] ranges whole.
func tokenize(q string) []tok {
	var out []tok
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')':
			out = append(out, tok{text: string(r), fieldEnd: -1, pos: i, open: -1})
			i++
		default:
			start := i
			var sb strings.Builder
			quoted := false
			fieldEnd := -1
			open := -1
			for i < len(rs) && !unicode.IsSpace(rs[i]) && rs[i] != '(' && rs[i] != ')' {
				switch rs[i] {
				case ':':
					if fieldEnd < 0 && !quoted && sb.Len() > 0 {
						fieldEnd = sb.Len()
					}
					sb.WriteRune(rs[i])
					i++
				case '"':
					quoted = true
					qstart := i
					i++
					for i < len(rs) && rs[i] != '"' {
						if rs[i] == '\\' && i+1 < len(rs) {
							i++
						}
						sb.WriteRune(rs[i])
						i++
					}
					if i >= len(rs) {
						open = qstart
					}
					i++ // closing quote
				case '[', '{':
					for i < len(rs) && rs[i] != ']' && rs[i] != '}' {
						sb.WriteRune(rs[i])
						i++
					}
					if i < len(rs) {
						sb.WriteRune(rs[i])
						i++
					}
				default:
					sb.WriteRune(rs[i])
					i++
				}
			}
			dashes := 0
			for start+dashes < len(rs) && rs[start+dashes] == '-' {
				dashes++
			}
			out = append(out, tok{text: sb.String(), quoted: quoted, fieldEnd: fieldEnd, pos: start, open: open, dashes: dashes})
		}
	}
	return out
}

// A query is user input compiled on the API's goroutine and then parsed
// by the engine (whose max_parser_depth is 1000): its size and nesting
// are bounded here, with a reason, rather than found as a stack or an
// engine error.
const (
	maxTerms = 2000
	// MaxDepth is also the nesting a chart's metric formula may have.
	MaxDepth = 64
)

type parser struct {
	toks  []tok
	i     int
	depth int // NOT, - and ( around the term being read
	f     Fields
	p     *Params
	// group is the field of the field:( … ) group being read: its bare
	// terms are that field's values.
	group string
}

func (ps *parser) peek() string {
	if ps.i < len(ps.toks) && !ps.toks[ps.i].quoted && ps.toks[ps.i].fieldEnd < 0 {
		return ps.toks[ps.i].text
	}
	return ""
}

func (ps *parser) or() (string, error) {
	first, err := ps.and()
	if err != nil {
		return "", err
	}
	terms := []string{first}
	for ps.peek() == "OR" {
		ps.i++
		t, err := ps.and()
		if err != nil {
			return "", err
		}
		terms = append(terms, t)
	}
	return join(terms, " OR "), nil
}

func (ps *parser) and() (string, error) {
	first, err := ps.unary()
	if err != nil {
		return "", err
	}
	terms := []string{first}
	for ps.i < len(ps.toks) && ps.peek() != "OR" && ps.peek() != ")" {
		if ps.peek() == "AND" {
			ps.i++
		}
		t, err := ps.unary()
		if err != nil {
			return "", err
		}
		terms = append(terms, t)
	}
	return join(terms, " AND "), nil
}

// join writes a chain flat, a AND b AND c, as the engine reads it: one
// level of nesting however long, and built once rather than recopied
// per term.
func join(terms []string, op string) string {
	if len(terms) == 1 {
		return terms[0]
	}
	return "(" + strings.Join(terms, op) + ")"
}

func (ps *parser) unary() (string, error) {
	if ps.i >= len(ps.toks) {
		return "", fmt.Errorf("incomplete expression")
	}
	if ps.depth++; ps.depth > MaxDepth {
		return "", fmt.Errorf("nested deeper than %d levels", MaxDepth)
	}
	defer func() { ps.depth-- }()
	t := ps.toks[ps.i]
	if !t.quoted && t.fieldEnd < 0 && (t.text == "NOT" || t.text == "-") {
		ps.i++
		e, err := ps.unary()
		return "NOT " + e, err
	}
	if t.dashes > 0 && strings.HasPrefix(t.text, "-") && len(t.text) > 1 {
		// -field:"x" and -"x" negate too: the dash is outside the quote.
		ps.toks[ps.i].text, ps.toks[ps.i].dashes = t.text[1:], t.dashes-1
		if ps.toks[ps.i].fieldEnd > 0 {
			ps.toks[ps.i].fieldEnd--
		}
		e, err := ps.unary()
		return "NOT " + e, err
	}
	if !t.quoted && t.fieldEnd < 0 && t.text == "(" {
		ps.i++
		e, err := ps.or()
		if err != nil {
			return "", err
		}
		if ps.peek() != ")" {
			return "", fmt.Errorf("missing ) for ( at position %d", t.pos)
		}
		ps.i++
		return e, nil
	}
	if !t.quoted && t.fieldEnd > 0 && t.fieldEnd == len(t.text)-1 && ps.i+1 < len(ps.toks) &&
		!ps.toks[ps.i+1].quoted && ps.toks[ps.i+1].fieldEnd < 0 && ps.toks[ps.i+1].text == "(" {
		// field:( … ): HyperDX's group, its terms values of the field.
		ps.i += 2
		outer := ps.group
		ps.group = t.text[:t.fieldEnd]
		e, err := ps.or()
		ps.group = outer
		if err != nil {
			return "", err
		}
		if ps.peek() != ")" {
			return "", fmt.Errorf("missing ) for ( at position %d", ps.toks[ps.i-1].pos)
		}
		ps.i++
		return e, nil
	}
	if !t.quoted && t.fieldEnd < 0 && (t.text == "AND" || t.text == "OR" || t.text == ")") {
		return "", fmt.Errorf("unexpected %s at position %d", t.text, t.pos)
	}
	ps.i++
	return ps.term(t)
}

// term compiles one field:value or bare term.
func (ps *parser) term(t tok) (string, error) {
	field, value, hasField := "", t.text, t.fieldEnd > 0
	if hasField {
		field, value = t.text[:t.fieldEnd], t.text[t.fieldEnd+1:]
	} else if ps.group != "" {
		field, hasField, t.grouped = ps.group, true, true
	}
	// Input that would otherwise search for something nobody meant (and
	// silently find nothing) is refused with the way to write it.
	if t.open >= 0 {
		return "", fmt.Errorf("the quote at position %d is never closed", t.open)
	}
	if hasField && value == "" && !t.quoted {
		return "", fmt.Errorf("%s: has no value at position %d; write %s:* for any value or %s:\"\" for an empty one", field, t.pos, field, field)
	}
	if hasField && !t.quoted && value != "" && !strings.HasPrefix(value, "[") && !strings.HasPrefix(value, "{") && !strings.ContainsAny(value[:1], "<>") {
		// A URL's or a path's colon (http://…, C:\temp) is a character to
		// search for; any other is Lucene's field separator used twice.
		if _, rest, ok := strings.Cut(value, ":"); ok && !strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, `\`) {
			return "", fmt.Errorf("%s:%s has a second ':' at position %d; quote the value to search for it: %s:\"%s\"", field, value, t.pos, field, value)
		}
	}
	if !hasField {
		if value == "" {
			return "", fmt.Errorf("empty term at position %d", t.pos)
		}
		return ps.bare(t, value), nil
	}
	if fb, ok := ps.f.(Fallbacks); ok {
		if primary, present, secondary, ok := fb.Fallback(field, ps.p); ok {
			a, err := ps.match(t, field, value, primary, false, true)
			if err != nil {
				return "", err
			}
			b, _ := ps.match(t, field, value, secondary, false, true)
			return "(" + a + " OR (NOT " + present + " AND " + b + "))", nil
		}
	}
	expr, numeric, err := ps.f.Resolve(field, ps.p)
	if err != nil {
		return "", err
	}
	tx, ok := ps.f.(Texts)
	return ps.match(t, field, value, expr, numeric, ok && tx.IsText(field))
}

// match is the condition of one field:value term on expr; text says expr
// is a String already.
func (ps *parser) match(t tok, field, value, expr string, numeric, text bool) (string, error) {
	switch {
	case value == "*":
		return "notEmpty(toString(" + expr + "))", nil
	case strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]"):
		lo, hi, ok := strings.Cut(value[1:len(value)-1], " TO ")
		if !ok {
			return "", fmt.Errorf("range %q needs the form [a TO b]", value)
		}
		// Bracketed: NOT binds tighter than AND, and -field:[a TO b] must
		// negate the whole range.
		return "(" + ps.compare(expr, numeric, ">=", strings.TrimSpace(lo)) + " AND " + ps.compare(expr, numeric, "<=", strings.TrimSpace(hi)) + ")", nil
	case strings.HasPrefix(value, ">=") || strings.HasPrefix(value, "<="):
		if err := orderable(field, value[:2], value[2:]); err != nil {
			return "", err
		}
		return ps.compare(expr, true, value[:2], value[2:]), nil
	case strings.HasPrefix(value, ">") || strings.HasPrefix(value, "<"):
		if err := orderable(field, value[:1], value[1:]); err != nil {
			return "", err
		}
		return ps.compare(expr, true, value[:1], value[1:]), nil
	case numeric:
		if _, err := strconv.ParseFloat(value, 64); err == nil {
			return "toFloat64(" + expr + ") = " + ps.p.Add(value, "Float64"), nil
		}
	}
	if !t.quoted || t.grouped {
		// Unquoted: the value holds it, in any case; * and ? are
		// wildcards within it, leading and trailing ones add nothing.
		// In a field:( … ) group (HyperDX's) they anchor: (*bar) ends
		// with bar, (bar*) starts with it; a quoted phrase is held.
		pattern := "%" + likePattern(strings.Trim(value, "*")) + "%"
		switch lead, trail := strings.HasPrefix(value, "*"), strings.HasSuffix(value, "*"); {
		case t.quoted:
			pattern = "%" + likeLiteral(value) + "%"
		case t.grouped && lead && !trail:
			pattern = "%" + likePattern(strings.TrimLeft(value, "*"))
		case t.grouped && trail && !lead:
			pattern = likePattern(strings.TrimRight(value, "*")) + "%"
		}
		like := ps.p.Add(pattern, "String")
		m := expr
		if !text {
			m = "toString(" + expr + ")"
		}
		if hint := presenceHint(expr); hint != "" {
			// Bracketed, so that NOT negates the match and never the
			// hint: a negated term's rows may lack the key.
			return "(" + m + " ILIKE " + like + " AND " + hint + ")", nil
		}
		return m + " ILIKE " + like, nil
	}
	if fo, ok := ps.f.(Folder); ok && fo.Folds(field) {
		return "lower(toString(" + expr + ")) = " + ps.p.Add(strings.ToLower(value), "String"), nil
	}
	if text {
		return expr + " = " + ps.p.Add(value, "String"), nil
	}
	return "toString(" + expr + ") = " + ps.p.Add(value, "String"), nil
}

// likePattern is a Lucene wildcard value as a LIKE pattern: * any run, ?
// one character, LIKE's own % and _ (and its escape) taken literally.
func likePattern(v string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`, "*", "%", "?", "_").Replace(v)
}

// likeLiteral is v as a LIKE pattern matching v itself.
func likeLiteral(v string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(v)
}

// presenceHint is, for a lookup in a map (`Map`[{pN:String}], the form
// Fields write), the key's presence as an index hint: a condition on a
// value that a value's skip index cannot serve (a substring) still skips
// the granules without the key, through the index on the map's keys.
// HyperDX's parser adds the same hint.
func presenceHint(expr string) string {
	i := strings.Index(expr, "`[{")
	if !strings.HasPrefix(expr, "`") || i < 0 || !strings.HasSuffix(expr, "}]") {
		return ""
	}
	return "indexHint(mapContains(" + expr[:i+1] + ", " + expr[i+2:len(expr)-1] + "))"
}

// bare is a term without a field, searched in the body as HyperDX's
// parser searches it: with a wildcard, the whole body against the
// pattern; one word, a whole word of the body; several words (a phrase,
// or a term such as user-42 or a.b), each as a whole word and the text as
// it is written. A term of no word at all (:-)) is found as written.
// All without regard to case.
func (ps *parser) bare(t tok, value string) string {
	body := ps.f.Body()
	if !t.quoted && strings.ContainsAny(value, "*?") {
		return body + " ILIKE " + ps.p.Add(likePattern(value), "String")
	}
	words := tokenWords(value)
	if len(words) == 1 && words[0] == value {
		return "hasTokenCaseInsensitive(" + body + ", " + ps.p.Add(value, "String") + ")"
	}
	var conds []string
	for _, w := range words {
		conds = append(conds, "hasTokenCaseInsensitive("+body+", "+ps.p.Add(w, "String")+")")
	}
	conds = append(conds, "positionCaseInsensitiveUTF8("+body+", "+ps.p.Add(value, "String")+") > 0")
	return join(conds, " AND ")
}

// tokenWords splits v as the engine's hasToken splits a text: a word is
// a run of ASCII letters and digits and of non-ASCII bytes; any other
// ASCII byte separates words.
func tokenWords(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool {
		return r < 0x80 && !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
}

// orderable refuses a field:>v whose bound is neither a number nor a
// date or time (which start with a digit): field:>=abc compared text and
// matched nothing anyone meant.
func orderable(field, op, v string) error {
	if v == "" {
		return fmt.Errorf("%s:%s needs a number after %s", field, op, op)
	}
	if v == "*" || (v[0] >= '0' && v[0] <= '9') {
		return nil
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return nil
	}
	return fmt.Errorf("%s:%s%s compares with %q, which is not a number", field, op, v, v)
}

// compare binds a bound as a number when it is one (strings compare as
// strings); * means unbounded.
func (ps *parser) compare(expr string, numeric bool, op, v string) string {
	if v == "*" {
		return "1"
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return "toFloat64OrNull(toString(" + expr + ")) " + op + " " + ps.p.Add(v, "Float64")
	}
	_ = numeric
	return "toString(" + expr + ") " + op + " " + ps.p.Add(v, "String")
}

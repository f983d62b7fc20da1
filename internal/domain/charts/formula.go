package charts

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Formula is a parsed chart formula (a dashboard tile's or an inline alert's):
// arithmetic (+ - * /, unary minus, parentheses, numbers) over the
// chart's select items named by letter, A the first. HyperDX's grammar;
// there are no functions, so nothing of it reaches SQL.
type Formula struct{ root *formulaNode }

type formulaNode struct {
	op          byte // + - * / ; 'n' a number, 'r' a series, 'u' unary minus
	num         float64
	ref         int
	left, right *formulaNode
}

// ParseFormula parses expr against a chart of series select items; the
// error says what is wrong in HyperDX's words.
func ParseFormula(expr string, series int) (Formula, error) {
	if strings.TrimSpace(expr) == "" {
		return Formula{}, fmt.Errorf("Expression is empty") //nolint:staticcheck // HyperDX's words, capitalised
	}
	toks, err := formulaTokens(expr)
	if err != nil {
		return Formula{}, err
	}
	p := &formulaParser{toks: toks}
	root, err := p.expression()
	if err != nil {
		return Formula{}, err
	}
	if p.pos < len(p.toks) {
		if t := p.toks[p.pos]; t.text == ")" {
			return Formula{}, fmt.Errorf("Unmatched closing parenthesis") //nolint:staticcheck // HyperDX's words
		}
		return Formula{}, fmt.Errorf("Unexpected %s", p.toks[p.pos].describe()) //nolint:staticcheck // HyperDX's words
	}
	var unknown []string
	seen := map[int]bool{}
	refs := 0
	root.walk(func(n *formulaNode) {
		if n.op != 'r' {
			return
		}
		refs++
		if n.ref >= series && !seen[n.ref] {
			seen[n.ref] = true
			last := "this chart has no series"
			if series > 0 {
				last = "this chart only has series A through " + string(rune('A'+series-1))
			}
			unknown = append(unknown, fmt.Sprintf("Unknown series %q — %s", string(rune('A'+n.ref)), last))
		}
	})
	if refs == 0 {
		unknown = append(unknown, "Expression must reference at least one series (A, B, C, ...)")
	}
	if len(unknown) > 0 {
		return Formula{}, fmt.Errorf("%s", strings.Join(unknown, "; "))
	}
	return Formula{root}, nil
}

// Eval computes the formula over one bucket's select values: nil when an
// operand it reads is nil or a division is by zero.
func (f Formula) Eval(values []*float64) *float64 {
	v, ok := f.root.eval(values)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func (n *formulaNode) eval(values []*float64) (float64, bool) {
	switch n.op {
	case 'n':
		return n.num, true
	case 'r':
		if n.ref >= len(values) || values[n.ref] == nil {
			return 0, false
		}
		return *values[n.ref], true
	case 'u':
		v, ok := n.left.eval(values)
		return -v, ok
	}
	l, ok := n.left.eval(values)
	if !ok {
		return 0, false
	}
	r, ok := n.right.eval(values)
	if !ok {
		return 0, false
	}
	switch n.op {
	case '+':
		return l + r, true
	case '-':
		return l - r, true
	case '*':
		return l * r, true
	default:
		if r == 0 {
			return 0, false
		}
		return l / r, true
	}
}

func (n *formulaNode) walk(f func(*formulaNode)) {
	if n == nil {
		return
	}
	f(n)
	n.left.walk(f)
	n.right.walk(f)
}

type formulaToken struct {
	kind byte // 'n' number, 'r' series, 'o' operator or parenthesis
	text string
	num  float64
}

func (t formulaToken) describe() string {
	switch {
	case t.kind == 'n':
		return fmt.Sprintf("number %q", t.text)
	case t.kind == 'r':
		return fmt.Sprintf("series reference %q", t.text)
	case t.text == "(":
		return "opening parenthesis"
	case t.text == ")":
		return "closing parenthesis"
	}
	return fmt.Sprintf("operator %q", t.text)
}

func formulaTokens(expr string) ([]formulaToken, error) {
	var out []formulaToken
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isLetter := func(c byte) bool { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') }
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.IndexByte("+-*/()", c) >= 0:
			out = append(out, formulaToken{kind: 'o', text: string(c)})
			i++
		case isDigit(c) || (c == '.' && i+1 < len(expr) && isDigit(expr[i+1])):
			start := i
			for i < len(expr) && isDigit(expr[i]) {
				i++
			}
			if i < len(expr) && expr[i] == '.' {
				i++
				for i < len(expr) && isDigit(expr[i]) {
					i++
				}
			}
			v, err := strconv.ParseFloat(expr[start:i], 64)
			if err != nil || math.IsInf(v, 0) {
				return nil, fmt.Errorf("Invalid number %q", expr[start:i]) //nolint:staticcheck // HyperDX's words
			}
			out = append(out, formulaToken{kind: 'n', text: expr[start:i], num: v})
		case isLetter(c):
			start := i
			for i < len(expr) && isLetter(expr[i]) {
				i++
			}
			word := expr[start:i]
			switch {
			case c >= 'a':
				return nil, fmt.Errorf("Unexpected %q — series references are uppercase letters (A, B, C, ...)", word) //nolint:staticcheck // HyperDX's words
			case len(word) > 1:
				return nil, fmt.Errorf("Unexpected %q — series references are single letters (A, B, C, ...) and functions are not supported", word) //nolint:staticcheck // HyperDX's words
			}
			out = append(out, formulaToken{kind: 'r', text: word})
		default:
			return nil, fmt.Errorf("Unexpected character %q", string(c)) //nolint:staticcheck // HyperDX's words
		}
	}
	return out, nil
}

// formulaParser is a recursive descent over the tokens:
// expression = term {(+|-) term}; term = factor {(*|/) factor};
// factor = - factor | primary; primary = number | letter | ( expression ).
type formulaParser struct {
	toks  []formulaToken
	pos   int
	depth int
}

// maxFormulaDepth bounds the nesting a formula may have, so that a long
// run of parentheses or minus signs cannot exhaust the stack.
const maxFormulaDepth = 100

func (p *formulaParser) peekOp(ops string) (byte, bool) {
	if p.pos < len(p.toks) && p.toks[p.pos].kind == 'o' && len(p.toks[p.pos].text) == 1 && strings.Contains(ops, p.toks[p.pos].text) {
		return p.toks[p.pos].text[0], true
	}
	return 0, false
}

func (p *formulaParser) expression() (*formulaNode, error) {
	left, err := p.term()
	for err == nil {
		op, ok := p.peekOp("+-")
		if !ok {
			break
		}
		p.pos++
		var right *formulaNode
		if right, err = p.term(); err == nil {
			left = &formulaNode{op: op, left: left, right: right}
		}
	}
	return left, err
}

func (p *formulaParser) term() (*formulaNode, error) {
	left, err := p.factor()
	for err == nil {
		op, ok := p.peekOp("*/")
		if !ok {
			break
		}
		p.pos++
		var right *formulaNode
		if right, err = p.factor(); err == nil {
			left = &formulaNode{op: op, left: left, right: right}
		}
	}
	return left, err
}

func (p *formulaParser) factor() (*formulaNode, error) {
	if p.depth++; p.depth > maxFormulaDepth {
		return nil, fmt.Errorf("the expression nests deeper than %d", maxFormulaDepth)
	}
	defer func() { p.depth-- }()
	if _, ok := p.peekOp("-"); ok {
		p.pos++
		operand, err := p.factor()
		return &formulaNode{op: 'u', left: operand}, err
	}
	if p.pos >= len(p.toks) {
		return nil, fmt.Errorf("Unexpected end of expression") //nolint:staticcheck // HyperDX's words
	}
	t := p.toks[p.pos]
	p.pos++
	switch {
	case t.kind == 'n':
		return &formulaNode{op: 'n', num: t.num}, nil
	case t.kind == 'r':
		return &formulaNode{op: 'r', ref: int(t.text[0] - 'A')}, nil
	case t.text == "(":
		inner, err := p.expression()
		if err != nil {
			return nil, err
		}
		if _, ok := p.peekOp(")"); !ok {
			return nil, fmt.Errorf("Missing closing parenthesis") //nolint:staticcheck // HyperDX's words
		}
		p.pos++
		return inner, nil
	}
	return nil, fmt.Errorf("Unexpected %s", t.describe()) //nolint:staticcheck // HyperDX's words
}

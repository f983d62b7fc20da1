package query

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The engine's EXPLAIN AST prints its parse of a statement as one node a
// line, indented by depth: `Kind[ detail][ (children N)]`. The dump is
// the engine's own tree, so the where check decides on what the engine
// will run, not on a guess at its grammar. The dump is not a perfect
// encoding (a quoted name may hold " (children 1)" or a line break), so
// a reading that does not fit the tree exactly is refused, and what runs
// is rendered from the checked tree and parsed again to the same dump
// (see CheckSQLWhere), never the user's text.

// astNode is one node of an EXPLAIN AST dump.
type astNode struct {
	kind     string // Function, Identifier, Literal, ExpressionList, …
	detail   string // a function's or identifier's name, a literal's value
	children []*astNode
}

// parseASTDump reads an EXPLAIN AST dump into its one root node.
func parseASTDump(dump string) (*astNode, error) {
	lines := strings.Split(strings.TrimRight(dump, "\n"), "\n")
	type open struct {
		n     *astNode
		depth int
		want  int // the children the line announced
	}
	var stack []open
	var root *astNode
	closeTo := func(depth int) error {
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			top := stack[len(stack)-1]
			if len(top.n.children) != top.want {
				return fmt.Errorf("the engine's parse could not be read: %s announces %d children, has %d", top.n.kind, top.want, len(top.n.children))
			}
			stack = stack[:len(stack)-1]
		}
		return nil
	}
	for _, line := range lines {
		depth := len(line) - len(strings.TrimLeft(line, " "))
		n, want, err := parseASTLine(line[depth:])
		if err != nil {
			return nil, err
		}
		if err := closeTo(depth); err != nil {
			return nil, err
		}
		switch {
		case root == nil && depth == 0:
			root = n
		case len(stack) == 0 || stack[len(stack)-1].depth != depth-1:
			return nil, errors.New("the engine's parse could not be read: a node outside the tree")
		default:
			parent := stack[len(stack)-1].n
			parent.children = append(parent.children, n)
		}
		stack = append(stack, open{n, depth, want})
	}
	if err := closeTo(0); err != nil {
		return nil, err
	}
	if root == nil {
		return nil, errors.New("the engine returned no parse")
	}
	return root, nil
}

// parseASTLine reads one line of the dump without its indentation.
func parseASTLine(s string) (*astNode, int, error) {
	want := 0
	if i := strings.LastIndex(s, " (children "); i >= 0 && strings.HasSuffix(s, ")") {
		n, err := strconv.Atoi(s[i+len(" (children ") : len(s)-1])
		if err == nil && n > 0 {
			want, s = n, s[:i]
		}
	}
	kind, detail, _ := strings.Cut(s, " ")
	if kind == "" || strings.ContainsFunc(kind, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return nil, 0, fmt.Errorf("the engine's parse could not be read at %q", s)
	}
	return &astNode{kind: kind, detail: detail}, want, nil
}

// literal is a constant as EXPLAIN AST prints it: NULL, a quoted string,
// Type_value for numbers and booleans, Array_[…] and Tuple_(…).
type literal struct {
	kind  string // "null", "string", "int", "uint", "float", "bool", "array", "tuple"
	text  string // a string's bytes; a number's or boolean's digits as printed
	items []literal
}

// parseLiteral reads a Literal node's detail.
func parseLiteral(s string) (literal, error) {
	l, rest, err := readLiteral(s)
	if err != nil {
		return literal{}, err
	}
	if rest != "" {
		return literal{}, fmt.Errorf("the engine's constant %q could not be read", s)
	}
	return l, nil
}

func readLiteral(s string) (literal, string, error) {
	bad := fmt.Errorf("the engine's constant %q could not be read", s)
	switch {
	case strings.HasPrefix(s, "NULL"):
		return literal{kind: "null"}, s[4:], nil
	case strings.HasPrefix(s, "'"):
		text, n, ok := unquoteLiteral(s)
		if !ok {
			return literal{}, "", bad
		}
		return literal{kind: "string", text: text}, s[n:], nil
	case strings.HasPrefix(s, "Array_["), strings.HasPrefix(s, "Tuple_("):
		kind, closer := "array", byte(']')
		if s[0] == 'T' {
			kind, closer = "tuple", ')'
		}
		rest := s[len("Array_["):]
		l := literal{kind: kind}
		for len(rest) > 0 && rest[0] != closer {
			if len(l.items) > 0 {
				if !strings.HasPrefix(rest, ", ") {
					return literal{}, "", bad
				}
				rest = rest[2:]
			}
			item, r, err := readLiteral(rest)
			if err != nil {
				return literal{}, "", err
			}
			l.items, rest = append(l.items, item), r
		}
		if rest == "" {
			return literal{}, "", bad
		}
		return l, rest[1:], nil
	}
	typ, value, ok := strings.Cut(s, "_")
	if !ok {
		return literal{}, "", bad
	}
	end := strings.IndexAny(value, ",])")
	if end < 0 {
		end = len(value)
	}
	value, rest := value[:end], value[end:]
	var kind string
	var err error
	switch typ {
	case "UInt64", "UInt128", "UInt256":
		kind, err = "uint", digits(value, false)
	case "Int64", "Int128", "Int256":
		kind, err = "int", digits(value, true)
	case "Float64":
		kind = "float"
		if _, perr := strconv.ParseFloat(value, 64); perr != nil {
			err = perr
		}
	case "Bool":
		kind = "bool"
		if value != "0" && value != "1" {
			err = bad
		}
	default:
		err = fmt.Errorf("constants of type %s are not allowed in a sql where", typ)
	}
	if err != nil {
		return literal{}, "", err
	}
	return literal{kind: kind, text: value}, rest, nil
}

// digits checks an integer as printed (a sign only where signed).
func digits(s string, signed bool) error {
	if signed {
		s = strings.TrimPrefix(s, "-")
	}
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		return fmt.Errorf("the engine's number %q could not be read", s)
	}
	return nil
}

// unquoteLiteral reads the single-quoted string at the start of s, with
// the escapes the engine prints (\' \\ \n \t \r \0 \b \f \v \xHH; any
// other byte stands for itself), and returns its bytes and length.
func unquoteLiteral(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			return b.String(), i + 1, true
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, false
			}
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case 'x':
				if i+2 >= len(s) {
					return "", 0, false
				}
				v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
				if err != nil {
					return "", 0, false
				}
				b.WriteByte(byte(v))
				i += 2
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// Package alerttemplate renders the texts users write for alert
// notifications (an alert's message, a webhook's body) as Go templates.
//
// They are user input executed inside the collector, and text/template is
// made for trusted templates: 30 bytes of it can loop for hours
// ({{range 1000000000000}}), recurse exponentially ({{define}} calling
// itself twice through {{template}}), or build gigabytes
// ({{$a = print $a $a}} repeated, {{printf "%01000000d" 0}} in a loop).
// So the loops are taken away (no {{template}}, {{range}} only over a
// field and not nested, no variables), and what builds text is metered:
// print, printf, html, js and urlquery share a budget of bytes per render,
// charged before they run, and the output is capped.
package alerttemplate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"
)

const (
	// MaxTemplate bounds a template's text.
	MaxTemplate = 16 << 10
	// MaxOutput bounds a rendered text: a notification is a few lines.
	MaxOutput = 64 << 10
	// maxBuilt bounds the bytes print, printf and the escapers may build
	// in one render.
	maxBuilt = 1 << 20
	// maxValue and maxList bound the strings and lists a template reads,
	// and so what one comparison or range costs.
	maxValue = MaxOutput
	maxList  = 32
	// maxWidthDigits bounds printf widths and precisions (fmt allows a
	// million, a MB per verb, built before the meter sees it).
	maxWidthDigits = 3
)

// Check says why text may not be used: nil when it is a template of the
// allowed subset, and nil when it is no Go template at all (Handlebars or
// Mustache text such as {{#is_alert}} is sent as written).
func Check(text string) error {
	_, err := compile(text, &meter{})
	if errors.Is(err, errNotTemplate) {
		return nil
	}
	return err
}

// Render fills text with data (JSON-shaped: maps, lists, strings,
// numbers). Text that is not a template, uses what Check refuses, fails,
// builds too much or renders past MaxOutput comes back as written.
func Render(text string, data map[string]any) string {
	m := &meter{left: maxBuilt}
	t, err := compile(text, m)
	if err != nil {
		return text
	}
	out := capped{max: MaxOutput}
	if err := t.Execute(&out, bound(data)); err != nil {
		return text
	}
	return out.buf.String()
}

var errNotTemplate = errors.New("not a Go template")

func compile(text string, m *meter) (*template.Template, error) {
	if !strings.Contains(text, "{{") {
		return nil, errNotTemplate
	}
	t, err := template.New("t").Option("missingkey=zero").Funcs(m.funcs()).Parse(text)
	if err != nil {
		return nil, errNotTemplate
	}
	if len(text) > MaxTemplate {
		return nil, fmt.Errorf("template: longer than %d bytes", MaxTemplate)
	}
	if len(t.Templates()) > 1 {
		return nil, errors.New("template: {{define}} and {{block}} are not allowed")
	}
	if t.Tree == nil {
		return t, nil
	}
	return t, walk(t.Root, false)
}

// walk takes away the loops: {{template}} (recursion), and ranges over
// anything but a field (a number ranges that many times) or inside
// another range (nested ranges multiply).
func walk(n parse.Node, inRange bool) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := walk(c, inRange); err != nil {
				return err
			}
		}
		return nil
	case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
		return nil
	case *parse.ActionNode:
		return pipe(n.Pipe)
	case *parse.IfNode:
		return branch(&n.BranchNode, inRange)
	case *parse.WithNode:
		return branch(&n.BranchNode, inRange)
	case *parse.RangeNode:
		if inRange {
			return errors.New("template: {{range}} may not be nested in another {{range}}")
		}
		if !overField(n.Pipe) {
			return fmt.Errorf("template: {{range %s}}: range may only go over a field, such as {{range .group}}", n.Pipe)
		}
		return branch(&n.BranchNode, true)
	case *parse.TemplateNode:
		return errors.New("template: {{template}} is not allowed")
	}
	return fmt.Errorf("template: %s is not allowed", n)
}

func branch(b *parse.BranchNode, inRange bool) error {
	if err := pipe(b.Pipe); err != nil {
		return err
	}
	if err := walk(b.List, inRange); err != nil {
		return err
	}
	return walk(b.ElseList, inRange)
}

// allowed are the functions a template may call: the metered builders
// and builtins whose result is no larger than their arguments.
var allowed = map[string]bool{
	"and": true, "or": true, "not": true, "eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"len": true, "index": true, "slice": true, "print": true, "println": true, "printf": true,
	"html": true, "js": true, "urlquery": true,
}

func pipe(p *parse.PipeNode) error {
	if p == nil {
		return nil
	}
	if len(p.Decl) > 0 {
		return fmt.Errorf("template: %s: variables are not allowed", p)
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			if err := arg(a); err != nil {
				return err
			}
		}
		if id, ok := c.Args[0].(*parse.IdentifierNode); ok && id.Ident == "printf" && len(c.Args) > 1 {
			if err := format(c.Args[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

func arg(a parse.Node) error {
	switch a := a.(type) {
	case *parse.IdentifierNode:
		// Also in argument position, a name is a call.
		if !allowed[a.Ident] {
			return fmt.Errorf("template: function %s is not allowed", a.Ident)
		}
		return nil
	case *parse.FieldNode, *parse.DotNode, *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
		return nil
	case *parse.VariableNode:
		// A variable could hold a megabyte built once and compared in
		// every action; $ is the notification.
		if a.Ident[0] != "$" {
			return fmt.Errorf("template: %s: variables are not allowed", a)
		}
		return nil
	case *parse.PipeNode:
		return pipe(a)
	case *parse.ChainNode:
		return arg(a.Node)
	}
	return fmt.Errorf("template: %s is not allowed", a)
}

// format checks a literal printf format when the template is written;
// any other format is checked when it is used.
func format(a parse.Node) error {
	if s, ok := a.(*parse.StringNode); ok {
		return checkFormat(s.Text)
	}
	return nil
}

// checkFormat refuses widths and precisions of more than maxWidthDigits
// digits, and widths taken from arguments (*).
func checkFormat(f string) error {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		digits := 0
		for i++; i < len(f) && strings.IndexByte("+-# 0123456789.[]", f[i]) >= 0; i++ {
			switch {
			case f[i] == '0' && digits == 0: // the 0 flag, or a leading zero
			case f[i] >= '0' && f[i] <= '9':
				if digits++; digits > maxWidthDigits {
					return fmt.Errorf("template: printf %q: widths and precisions may have at most %d digits", f, maxWidthDigits)
				}
			default:
				digits = 0
			}
		}
		if i < len(f) && f[i] == '*' {
			return fmt.Errorf("template: printf %q: widths from arguments (*) are not allowed", f)
		}
	}
	return nil
}

// overField: the pipeline is one field (.group) or $ with fields.
func overField(p *parse.PipeNode) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		return true
	case *parse.VariableNode:
		return a.Ident[0] == "$" && len(a.Ident) > 1
	}
	return false
}

// meter is one render's budget of built bytes.
type meter struct{ left int }

var errBuildsTooMuch = fmt.Errorf("template builds more than %d bytes", maxBuilt)

// charge takes n bytes from the budget, or fails the call (and so the
// render) before anything is built.
func (m *meter) charge(n int) error {
	if m.left -= n; m.left < 0 {
		return errBuildsTooMuch
	}
	return nil
}

// funcs are the builtins that build text, charged with a bound of what
// they will build: their arguments' size (a verb at most 1,000 bytes
// more, an escape at most 6 bytes per byte).
func (m *meter) funcs() template.FuncMap {
	return template.FuncMap{
		"print": func(a ...any) (string, error) {
			if err := m.charge(size(a)); err != nil {
				return "", err
			}
			return fmt.Sprint(a...), nil
		},
		"println": func(a ...any) (string, error) {
			if err := m.charge(size(a) + len(a)); err != nil {
				return "", err
			}
			return fmt.Sprintln(a...), nil
		},
		"printf": func(f string, a ...any) (string, error) {
			if err := checkFormat(f); err != nil {
				return "", err
			}
			if err := m.charge(len(f) + 1000*strings.Count(f, "%") + size(a)); err != nil {
				return "", err
			}
			return fmt.Sprintf(f, a...), nil
		},
		"html":     m.escaper(template.HTMLEscaper),
		"js":       m.escaper(template.JSEscaper),
		"urlquery": m.escaper(template.URLQueryEscaper),
	}
}

func (m *meter) escaper(esc func(...any) string) func(...any) (string, error) {
	return func(a ...any) (string, error) {
		if err := m.charge(6 * size(a)); err != nil {
			return "", err
		}
		return esc(a...), nil
	}
}

// size bounds the length of v formatted.
func size(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case []any:
		n := 2
		for _, x := range v {
			n += size(x) + 1
		}
		return n
	case map[string]any:
		n := 5
		for k, x := range v {
			n += len(k) + size(x) + 2
		}
		return n
	}
	return 32 // numbers, bools, nil
}

// bound copies data with strings cut to maxValue bytes and lists to
// maxList items, whatever the telemetry's group values or an alert's name.
func bound(v any) any {
	switch v := v.(type) {
	case string:
		if len(v) > maxValue {
			return strings.ToValidUTF8(v[:maxValue], "") + "…"
		}
		return v
	case []any:
		if len(v) > maxList {
			v = v[:maxList]
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = bound(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = bound(x)
		}
		return out
	}
	return v
}

// capped is a buffer that fails a write past max, which stops the
// template's execution there.
type capped struct {
	buf bytes.Buffer
	max int
}

var errTooLong = errors.New("rendered text is too long")

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, errTooLong
	}
	return c.buf.Write(p)
}

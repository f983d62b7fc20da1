package query

import "strings"

// SplitList splits a list of fields or expressions as HyperDX writes them
// in one string (a tile's groupBy "ServiceName, SeverityText", a search's
// select "Timestamp, JSONExtractString(Body, 'msg')") at its top-level
// commas: a comma inside parentheses, brackets, braces or a quoted string
// or name belongs to its item. Items are trimmed; empty ones are left
// out. Whether an item may run is decided on the engine's parse of it,
// never here.
func SplitList(s string) []string {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = appendItem(out, s[start:i])
			start = i + 1
		}
	}
	return appendItem(out, s[start:])
}

func appendItem(out []string, f string) []string {
	if f = strings.TrimSpace(f); f != "" {
		out = append(out, f)
	}
	return out
}

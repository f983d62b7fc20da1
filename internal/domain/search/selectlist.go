package search

// SplitSelect splits a search's select list (HyperDX's: "Timestamp, Body,
// JSONExtractString(Body, 'msg')") at its top-level commas: a comma
// inside parentheses, brackets or a quoted string or name belongs to its
// item. Items are trimmed; empty ones are left out. Whether an item may
// run is not decided here but on the engine's parse of it
// (query.Scope.Selected).
func SplitSelect(text string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	add := func(item string) {
		if item = trim(item); item != "" {
			out = append(out, item)
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
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
			add(text[start:i])
			start = i + 1
		}
	}
	add(text[start:])
	return out
}

func trim(s string) string {
	i, j := 0, len(s)
	for i < j && isBlank(s[i]) {
		i++
	}
	for j > i && isBlank(s[j-1]) {
		j--
	}
	return s[i:j]
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// IsFieldName reports whether a select item names a field as a where
// does (a column, <map column>.<key>, Resource.<key>, an attribute key)
// rather than being an expression to compute.
func IsFieldName(item string) bool {
	if item == "" {
		return false
	}
	for i := 0; i < len(item); i++ {
		c := item[i]
		if !(c == '_' || c == '.' || c == '-' || c == '@' || c == ':' || c == '/' ||
			c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

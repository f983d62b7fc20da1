package dashboards

import (
	"encoding/json"
	"errors"
	"strings"
)

// SplitGroupBy splits a tile's groupBy ("ServiceName, SeverityText") into
// its fields at the commas outside parentheses, brackets and quotes, so
// "toStartOfHour(Timestamp), LogAttributes['a,b']" is two.
func SplitGroupBy(s string) []string {
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
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = appendField(out, s[start:i])
			start = i + 1
		}
	}
	return appendField(out, s[start:])
}

func appendField(out []string, f string) []string {
	if f = strings.TrimSpace(f); f != "" {
		out = append(out, f)
	}
	return out
}

// Fields is a groupBy as a tile keeps it (one string) or as a chart query
// takes it (a list); either decodes to the list.
type Fields []string

// UnmarshalJSON takes "a, b" or ["a", "b"].
func (f *Fields) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = SplitGroupBy(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("groupBy must be a string or a list of strings")
	}
	*f = list
	return nil
}

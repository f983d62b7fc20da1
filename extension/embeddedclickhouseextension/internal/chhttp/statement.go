// Package chhttp serves the ClickHouse HTTP interface over embedded engine
// sessions, enough of it that clickhouse-go, the contrib clickhouse
// exporter and curl work against it as against a server.
package chhttp

import (
	"strings"
)

// statement is a query split the way the HTTP interface needs it, from
// the engine's parse (parse.go).
type statement struct {
	sql    string // what to execute (an INSERT without its FORMAT clause and data)
	insert bool   // INSERT … FORMAT <format> or VALUES: the data follows
	format string // the INSERT's data format, or the query's output FORMAT; "" when absent
	inline string // data written after an INSERT's FORMAT clause, in the query itself
	// effect is what the statement leaves on its session; streams, that
	// its output can be handed over block by block.
	effect  effect
	streams bool
	// parsed is the engine's parse of sql (with its FORMAT clause, for
	// an INSERT).
	parsed *parsed
}

// effect is what a statement leaves on the engine session that ran it.
type effect uint8

const (
	effectNone      effect = iota
	effectSettings         // SET: the session's settings
	effectDatabase         // USE: its current database
	effectTemporary        // CREATE TEMPORARY TABLE: its temporary tables
)

// classify fills the statement's kind from the engine's parse: its
// session effect (ClickHouse gives each request without a session_id a
// fresh context, so these effects must not reach the next request the
// pooled session serves), and whether it streams: a SELECT (the others'
// output is small, and the engine streams no SHOW, DESCRIBE or DDL).
func (st *statement) classify() {
	p := st.parsed
	switch p.root() {
	case "Set":
		st.effect = effectSettings
	case "UseQuery":
		st.effect = effectDatabase
	case "CreateQuery":
		// The tree does not say TEMPORARY; the canonical text's first
		// line is the statement's head, names escaped.
		head, _, _ := strings.Cut(p.canonical, "\n")
		if strings.Contains(head, " TEMPORARY ") {
			st.effect = effectTemporary
		}
	case "SelectWithUnionQuery", "SelectIntersectExceptQuery":
		st.streams = true
	}
	if !st.insert {
		st.format = p.outputFormat()
	}
}

// dataCandidate is where an INSERT's data might begin: after VALUES, or
// after FORMAT <name>. The engine's parse decides which one is (readRequest).
type dataCandidate struct {
	headEnd   int    // where the VALUES or FORMAT keyword starts
	format    string // the data's format
	dataStart int    // where the data starts
}

// dataCandidates lists, in order, the places an INSERT's data might
// begin, for the engine to confirm: only a hint of where to look, for
// text that is not confirmed is never run as an INSERT's head. It reads
// tokens as the engine's lexer does (comments, quoted strings and names,
// heredocs, parentheses) so that an INSERT with "format" in its values
// is not cut there.
func dataCandidates(sql string) []dataCandidate {
	if w := leadingWords(sql, 1); len(w) == 0 || w[0] != "insert" {
		return nil
	}
	var out []dataCandidate
	depth := 0
	for i := codeStart(sql); i < len(sql); {
		if next, ok := skipNonCode(sql, i); ok {
			i = next
			continue
		}
		switch c := sql[i]; {
		case isBlank(c):
			i++
		case c == '(' || c == '[':
			depth++
			i++
		case c == ')' || c == ']':
			depth--
			i++
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i)
		case c == '$':
			i = skipHeredoc(sql, i)
		case identEnd(sql, i) > i:
			end := identEnd(sql, i)
			word := sql[i:end]
			if depth == 0 && strings.EqualFold(word, "values") {
				out = append(out, dataCandidate{headEnd: i, format: "Values", dataStart: end})
			}
			if depth == 0 && strings.EqualFold(word, "format") {
				j := end + codeStart(sql[end:])
				if k := identEnd(sql, j); k > j && !startsDigit(sql, j) {
					out = append(out, dataCandidate{headEnd: i, format: sql[j:k], dataStart: dataAfterFormat(sql, k)})
				}
			}
			i = end
		default:
			i++
		}
	}
	return out
}

// dataAfterFormat is where data starts after a FORMAT clause ending at i:
// past blanks and one line break, as ClickHouse reads it.
func dataAfterFormat(sql string, i int) int {
	for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t') {
		i++
	}
	if strings.HasPrefix(sql[i:], "\r\n") {
		return i + 2
	}
	if i < len(sql) && sql[i] == '\n' {
		return i + 1
	}
	return i
}

func startsDigit(s string, i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }

// isBlank is whitespace as the engine's lexer reads it (\f and \v too).
func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

// skipNonCode steps over the comment at i, if there is one.
func skipNonCode(s string, i int) (int, bool) {
	switch {
	case strings.HasPrefix(s[i:], "--"), strings.HasPrefix(s[i:], "# "), strings.HasPrefix(s[i:], "#!"):
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			return i + j + 1, true
		}
		return len(s), true
	case strings.HasPrefix(s[i:], "/*"):
		// ClickHouse nests block comments.
		depth, j := 0, i
		for j < len(s) {
			switch {
			case strings.HasPrefix(s[j:], "/*"):
				depth++
				j += 2
			case strings.HasPrefix(s[j:], "*/"):
				depth--
				j += 2
				if depth == 0 {
					return j, true
				}
			default:
				j++
			}
		}
		return len(s), true
	}
	return i, false
}

// skipQuoted steps over the string literal or quoted name at i; quotes
// are escaped by a backslash or by doubling.
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// skipHeredoc steps over a $tag$…$tag$ literal at i, or the lone '$'.
func skipHeredoc(s string, i int) int {
	j := wordEnd(s, i+1)
	if j >= len(s) || s[j] != '$' {
		return i + 1
	}
	tag := s[i : j+1]
	if k := strings.Index(s[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(s)
}

// codeStart is where sql's code starts, past blanks and comments.
func codeStart(sql string) int {
	i := 0
	for i < len(sql) {
		if next, ok := skipNonCode(sql, i); ok {
			i = next
		} else if isBlank(sql[i]) {
			i++
		} else {
			break
		}
	}
	return i
}

// leadingWords returns up to n lowercased words at the start of sql,
// past blanks, parentheses and comments.
func leadingWords(sql string, n int) []string {
	var words []string
	for i := 0; i < len(sql) && len(words) < n; {
		i += codeStart(sql[i:])
		if i < len(sql) && sql[i] == '(' {
			i++
			continue
		}
		j := identEnd(sql, i)
		if j == i {
			break
		}
		words = append(words, strings.ToLower(sql[i:j]))
		i = j
	}
	return words
}

// identEnd is the end of the bare name at i: word characters, and '$'
// after the first (the engine's lexer reads a$b as one name, not as a
// heredoc's start).
func identEnd(s string, i int) int {
	start := i
	for i < len(s) && (isWordChar(s[i]) || s[i] == '$' && i > start) {
		i++
	}
	return i
}

// wordEnd is the end of the run of word characters at i (a heredoc's tag).
func wordEnd(s string, i int) int {
	for i < len(s) && isWordChar(s[i]) {
		i++
	}
	return i
}

// isWordChar is a character of a bare name: ASCII letters, digits, '_',
// and every byte of a UTF-8 sequence.
func isWordChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80
}

// Package chhttp serves the ClickHouse HTTP interface over embedded engine
// sessions, enough of it that clickhouse-go, the contrib clickhouse
// exporter and curl work against it as against a server.
package chhttp

import (
	"regexp"
	"slices"
	"strings"
)

// statement is a query split the way the HTTP interface needs it.
type statement struct {
	sql    string // what to execute (an INSERT without its FORMAT clause and data)
	insert bool   // INSERT … FORMAT <format>: the data follows
	format string // the FORMAT clause's format, "" when absent
	inline string // data written after an INSERT's FORMAT clause, in the query itself
}

var (
	insertFormatRE = regexp.MustCompile(`(?is)^(\s*insert\s+into\s+.*?)\s+format\s+([A-Za-z0-9_]+)[ \t]*\r?\n?(.*)$`)
	formatRE       = regexp.MustCompile(`(?is)\sformat\s+([A-Za-z0-9_]+)\s*;?\s*$`)
)

// parseStatement finds an INSERT's FORMAT clause (its data is streamed to
// the engine, never pasted into SQL) or a query's output FORMAT.
func parseStatement(q string) statement {
	body := q[codeStart(q):]
	if m := insertFormatRE.FindStringSubmatch(body); m != nil && !strings.Contains(strings.ToLower(m[1]), " select ") {
		return statement{sql: m[1], insert: true, format: m[2], inline: m[3]}
	}
	st := statement{sql: strings.TrimRight(strings.TrimSpace(q), ";")}
	if m := formatRE.FindStringSubmatch(q); m != nil {
		st.format = m[1]
	}
	return st
}

// multiStatement reports whether sql holds more than one statement: a ';'
// outside literals, quoted names and comments, followed by more than
// blanks and comments. ClickHouse's HTTP interface refuses these; the
// engine would run them all.
func multiStatement(sql string) bool {
	ended := false
	for i := 0; i < len(sql); {
		if next, ok := skipNonCode(sql, i); ok {
			i = next
			continue
		}
		switch c := sql[i]; {
		case c == ';':
			ended = true
		case ended && c != ' ' && c != '\t' && c != '\r' && c != '\n':
			return true
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i)
			continue
		case c == '$':
			i = skipHeredoc(sql, i)
			continue
		}
		i++
	}
	return false
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
	j := identEnd(s, i+1)
	if j >= len(s) || s[j] != '$' {
		return i + 1
	}
	tag := s[i : j+1]
	if k := strings.Index(s[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(s)
}

// effect is what a statement leaves on the engine session that ran it.
type effect uint8

const (
	effectNone      effect = iota
	effectSettings         // SET: the session's settings
	effectDatabase         // USE: its current database
	effectTemporary        // CREATE TEMPORARY TABLE: its temporary tables
)

// sessionEffect classifies a single statement by its leading words.
// ClickHouse gives each request without a session_id a fresh context, so
// these effects must not reach the next request the pooled session serves.
func sessionEffect(sql string) effect {
	words := leadingWords(sql, 4)
	switch {
	case len(words) == 0:
		return effectNone
	case words[0] == "set":
		return effectSettings
	case words[0] == "use":
		return effectDatabase
	case (words[0] == "create" || words[0] == "attach") && slices.Contains(words[1:], "temporary"):
		return effectTemporary
	}
	return effectNone
}

// streams reports whether sql is a statement whose output the engine can
// hand over block by block: a SELECT (the others' output is small, and
// the engine streams no SHOW, DESCRIBE or DDL).
func streams(sql string) bool {
	words := leadingWords(sql, 1)
	return len(words) == 1 && (words[0] == "select" || words[0] == "with")
}

// codeStart is where sql's code starts, past blanks and comments.
func codeStart(sql string) int {
	i := 0
	for i < len(sql) {
		if next, ok := skipNonCode(sql, i); ok {
			i = next
		} else if c := sql[i]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
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

// identEnd is the end of the run of word characters at i.
func identEnd(s string, i int) int {
	for i < len(s) && (s[i] == '_' || s[i] >= '0' && s[i] <= '9' || s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z') {
		i++
	}
	return i
}

package chhttp

import (
	"strconv"
	"strings"
)

// hostAccess says why sql would read or write the host's files past the
// engine's grants, or "" when it would not. clickhouse-local, which the
// engine is, lets its user reach every file the process can, and three
// ways in take no grant: the file() function (user_files_path does not
// confine it there), and INTO OUTFILE and FROM INFILE, which its client
// side runs. The engine's user (engineusers.xml) is refused the table
// functions and engines that reach files, URLs, servers and processes.
//
// The check reads tokens as the engine's lexer does: comments and string
// literals are skipped, quoted names unescaped (`fi\x6ce` is file), so a
// name cannot be spelled past it; it may refuse a table or column named
// file that is followed by a parenthesis, which ClickHouse would accept.
func hostAccess(sql string) string {
	var prev string // the previous bare word, lowercased; "" after anything else
	for i := 0; i < len(sql); {
		if next, ok := skipNonCode(sql, i); ok {
			i = next
			continue
		}
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case c == '\'':
			i, prev = skipQuoted(sql, i), ""
		case c == '$':
			i, prev = skipHeredoc(sql, i), ""
		case c == '`' || c == '"':
			end := skipQuoted(sql, i)
			if strings.EqualFold(unquoteName(sql[i:end]), "file") && callFollows(sql, end) {
				return "the file() function reads the host's files"
			}
			i, prev = end, ""
		case identEnd(sql, i) > i:
			end := identEnd(sql, i)
			word := strings.ToLower(sql[i:end])
			switch {
			case word == "file" && callFollows(sql, end):
				return "the file() function reads the host's files"
			case word == "outfile" && prev == "into":
				return "INTO OUTFILE writes the host's files"
			case word == "infile" && prev == "from":
				return "FROM INFILE reads the host's files"
			}
			i, prev = end, word
		default:
			i, prev = i+1, ""
		}
	}
	return ""
}

// callFollows reports whether the next token after i is '('.
func callFollows(sql string, i int) bool {
	i += codeStart(sql[i:])
	return i < len(sql) && sql[i] == '('
}

// unquoteName is a backquoted or double-quoted name as the engine reads
// it: doubled quotes and backslash escapes (\xHH, \n, \\ …) undone.
func unquoteName(quoted string) string {
	if len(quoted) < 2 {
		return ""
	}
	q, s := quoted[0], quoted[1:len(quoted)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && i+1 < len(s) && s[i+1] == q:
			i++
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'x', 'X':
				if i+2 < len(s) {
					if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
						b.WriteByte(byte(v))
						i += 2
						continue
					}
				}
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte(e)
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

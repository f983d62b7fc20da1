// Package chhttp serves the ClickHouse HTTP interface over embedded engine
// sessions, enough of it that clickhouse-go, the contrib clickhouse
// exporter and curl work against it as against a server.
package chhttp

import (
	"regexp"
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
	leadingComment = regexp.MustCompile(`^(\s*(--[^\n]*\n|/\*.*?\*/))+`)
)

// parseStatement finds an INSERT's FORMAT clause (its data is streamed to
// the engine, never pasted into SQL) or a query's output FORMAT.
func parseStatement(q string) statement {
	body := leadingComment.ReplaceAllString(q, "")
	if m := insertFormatRE.FindStringSubmatch(body); m != nil && !strings.Contains(strings.ToLower(m[1]), " select ") {
		return statement{sql: m[1], insert: true, format: m[2], inline: m[3]}
	}
	st := statement{sql: strings.TrimRight(strings.TrimSpace(q), ";")}
	if m := formatRE.FindStringSubmatch(q); m != nil {
		st.format = m[1]
	}
	return st
}

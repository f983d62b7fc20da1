package chhttp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHostAccess(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want string // "" when the statement may run
	}{
		{"SELECT file('/proc/self/environ', 'RawBLOB')", "file()"},
		{"SELECT file ('/etc/passwd')", "file()"},
		{"SELECT file/* c */\n('/etc/passwd')", "file()"},
		{"SELECT `file`('/etc/passwd')", "file()"},
		{`SELECT "file"('/etc/passwd')`, "file()"},
		{"SELECT `fi\\x6ce`('/etc/passwd')", "file()"},
		{"SELECT `fi``le`('/etc/passwd')", ""}, // the name fi`le
		{"SELECT * FROM file('x.csv')", "file()"},
		{"INSERT INTO t VALUES (file('/etc/passwd'))", "file()"},
		{"CREATE VIEW v AS SELECT file('/etc/passwd')", "file()"},
		{"SELECT 1 INTO OUTFILE '/tmp/x'", "INTO OUTFILE"},
		{"select 1 into /* c */ outfile '/tmp/x' TRUNCATE", "INTO OUTFILE"},
		{"INSERT INTO t FROM INFILE '/etc/passwd' FORMAT RawBLOB", "FROM INFILE"},
		{"SELECT 'file(' AS a, $$file('x')$$, 'INTO OUTFILE'", ""},
		{"SELECT 1 -- file('/etc/passwd')\n", ""},
		{"SELECT file, outfile, infile FROM logs", ""},
		{"SELECT profile(1), file_name('x'), `file name`(1)", ""},
		{"SELECT count() FROM otel.otel_logs WHERE Body LIKE '%file(%'", ""},
	} {
		got := hostAccess(tc.sql)
		if tc.want == "" {
			assert.Empty(t, got, tc.sql)
		} else {
			assert.Contains(t, got, tc.want, tc.sql)
		}
	}
}

func TestUnquoteName(t *testing.T) {
	for quoted, want := range map[string]string{
		"`file`":         "file",
		"`fi\\x6Ce`":     "file",
		"\"a\"\"b\"":     `a"b`,
		"`a\\`b`":        "a`b",
		"`tab\\there`":   "tab\there",
		"`short\\x6`":    "shortx6",
		"``":             "",
		"`back\\\\x6ce`": `back\x6ce`,
	} {
		assert.Equal(t, want, unquoteName(quoted), quoted)
	}
}

package chhttp

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What reaches the host's files, URLs, servers or processes is refused
// from the engine's parse, in every spelling the engine reads: control
// characters as blanks, '$' inside names, quoted and escaped names.
func TestHostAccessRefused(t *testing.T) {
	need(t)
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("s3cr3t"), 0o600))
	for _, sql := range []string{
		"SELECT file('" + secret + "', 'RawBLOB')",
		"SELECT file\f('" + secret + "', 'RawBLOB')",
		"SELECT file\v('" + secret + "', 'RawBLOB')",
		"SELECT file/* c */\n('" + secret + "')",
		"SELECT `fi\\x6ce`('" + secret + "')",
		`SELECT "file"('` + secret + `')`,
		// '$' inside a name is no heredoc: nothing is swallowed.
		"SELECT 1 AS a$a$, file('" + secret + "', 'RawBLOB') AS b$a$",
		"SELECT * FROM file('" + secret + "', 'RawBLOB')",
		"SELECT * FROM FILE('" + secret + "', 'RawBLOB')",
		"INSERT INTO FUNCTION file('" + dir + "/w', 'RawBLOB') SELECT 'x'",
		"CREATE TABLE x AS file('" + secret + "', 'RawBLOB')",
		"SELECT * FROM url('http://127.0.0.1:1/', 'RawBLOB')",
		"SELECT * FROM remote('127.0.0.1:1', system.one)",
		"SELECT * FROM s3('http://127.0.0.1:1/b/k', 'RawBLOB')",
		"SELECT * FROM executable('sh', 'RawBLOB', 'a String')",
		"SELECT * FROM format(Values, 'a String', '(file(''" + secret + "''))')",
		"SELECT (SELECT * FROM file('" + secret + "', 'RawBLOB'))",
		"CREATE VIEW v AS SELECT file('" + secret + "')",
		"SELECT 1 INTO OUTFILE '" + dir + "/out'",
		"select 1 into /* c */ outfile '" + dir + "/out2' TRUNCATE",
		"EXPLAIN SELECT 1 INTO OUTFILE '" + dir + "/out3'",
		"CREATE TABLE out4 (a UInt8) ENGINE = Memory INTO OUTFILE '" + dir + "/out4'",
		"SHOW TABLES INTO OUTFILE '" + dir + "/out5'",
		"INSERT INTO t FROM INFILE '" + secret + "' FORMAT RawBLOB",
		"INSERT INTO t (a) VALUES (file('" + secret + "'))",
	} {
		status, body, h := do(t, http.MethodPost, "", strings.NewReader(sql))
		assert.Equal(t, http.StatusForbidden, status, "%q: %s", sql, body)
		assert.Equal(t, "497", h.Get("X-ClickHouse-Exception-Code"), sql)
		assert.NotContains(t, body, "s3cr3t", sql)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written beside the secret")
}

// Names and text that only look like what is refused run.
func TestHostAccessLookalikesRun(t *testing.T) {
	need(t)
	for _, sql := range []string{
		"SELECT 'file(' AS a, $$file('x')$$ AS b, 'INTO OUTFILE' AS c",
		"SELECT 1 -- file('/etc/passwd')\n",
		"SELECT 1 AS file, 2 AS outfile, 3 AS infile",
		"SELECT format('{} {}', 'a', 'b'), formatReadableSize(1)",
		"SELECT 1 AS `x\nINTO OUTFILE 'y'`",
		"SELECT count() FROM numbers(3) WHERE toString(number) LIKE '%file(%'",
	} {
		status, body, _ := do(t, http.MethodPost, "", strings.NewReader(sql))
		assert.Equal(t, http.StatusOK, status, "%q: %s", sql, body)
	}
}

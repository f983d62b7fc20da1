package chhttp

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

// FuzzStatement: whatever the front lets through, the engine reads no
// file and writes none. Each input runs through the HTTP front on the
// real engine (read-only, one second at most); SECRET and OUTDIR in it
// stand for a file holding a marker and a directory that must stay empty.
func FuzzStatement(f *testing.F) {
	for _, seed := range []string{
		"SELECT file('SECRET', 'RawBLOB')",
		"SELECT file\f('SECRET')",
		"SELECT 1 AS a$a$, file('SECRET') AS b$a$",
		"SELECT * FROM file('SECRET', 'RawBLOB')",
		"SELECT `fi\\x6ce`('SECRET')",
		"SELECT 1 INTO OUTFILE 'OUTDIR/x'",
		"EXPLAIN SELECT 1 INTO OUTFILE 'OUTDIR/y'",
		"SELECT * FROM format(Values, 'a String', '(file(''SECRET''))')",
		"INSERT INTO t VALUES (file('SECRET'))",
		"INSERT INTO t FORMAT Values (file('SECRET'))",
		"SELECT 'format x', $$file('SECRET')$$",
		"SELECT 1; SELECT file('SECRET')",
		"SELECT 1 SETTINGS input_format_values_interpret_expressions = 1",
	} {
		f.Add(seed)
	}
	if srvURL == "" {
		testenv.Missing(f, "OTELHOUSE_LIBCHDB not set: run through `make fuzz`, which fetches libchdb")
	}
	dir := f.TempDir()
	secret, out := filepath.Join(dir, "secret"), filepath.Join(dir, "out")
	const marker = "fuzz-s3cr3t-7f3a"
	if err := os.WriteFile(secret, []byte(marker), 0o600); err != nil {
		f.Fatal(err)
	}
	if err := os.Mkdir(out, 0o700); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		sql = strings.NewReplacer("SECRET", secret, "OUTDIR", out).Replace(sql)
		status, body, _ := do(t, http.MethodGet, q("query", sql, "readonly", "1", "max_execution_time", "1",
			"max_result_bytes", "1000000", "timeout_overflow_mode", "break"), nil)
		if strings.Contains(body, marker) {
			t.Fatalf("the front let %q read the host's file (status %d)", sql, status)
		}
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			_ = os.RemoveAll(filepath.Join(out, entries[0].Name()))
			t.Fatalf("the front let %q write %s", sql, entries[0].Name())
		}
	})
}

package embeddedclickhouseextension

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ways around the engine's confinement found in issue 41, through the
// distribution's engine (its user, grants and constraints) and front:
// control characters between a function's name and '(', '$' inside a
// name, a SETTINGS clause or template deduction that evaluates Values
// expressions, INTO OUTFILE outside the data directory, and settings
// whose values are SQL the engine runs.
func TestEngineConfinementRound2(t *testing.T) {
	need(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("s3cr3t"), 0o600))
	sql(t, "CREATE TABLE IF NOT EXISTS default.confined2 (a String) ENGINE = MergeTree ORDER BY a")
	for _, tc := range []struct{ query, code string }{
		{"SELECT file\f('" + secret + "', 'RawBLOB')", "497"},
		{"SELECT file\v('" + secret + "', 'RawBLOB')", "497"},
		{"SELECT 1 AS a$a$, file('" + secret + "', 'RawBLOB') AS b$a$", "497"},
		{"SELECT 1 INTO OUTFILE '" + outside + "/out'", "497"},
		{"SELECT 1 INTO OUTFILE '" + outside + "/out2' AND STDOUT", "497"},
		{"EXPLAIN SELECT 1 INTO OUTFILE '" + outside + "/out3'", "497"},
		{"SELECT * FROM format(Values, 'a String', '(file(''" + secret + "''))')", "497"},
		{"SELECT 1 SETTINGS additional_result_filter = 'length(file(''" + secret + "'')) > 0'", "452"},
		{"SELECT * FROM system.one SETTINGS additional_table_filters = {'system.one': 'length(file(''" + secret + "'')) > 0'}", "452"},
	} {
		t.Run(strings.ReplaceAll(tc.query, outside, "TMP"), func(t *testing.T) {
			status, code := attempt(t, tc.query)
			assert.NotEqual(t, http.StatusOK, status, tc.query)
			assert.Equal(t, tc.code, code, tc.query)
		})
	}
	for _, query := range []string{
		"INSERT INTO default.confined2 SETTINGS input_format_values_interpret_expressions = 1 FORMAT Values",
		"INSERT INTO default.confined2 SETTINGS input_format_values_interpret_expressions = 1 VALUES",
		"INSERT INTO default.confined2 FORMAT Values",
	} {
		status, _ := attempt(t, query, "(file('"+secret+"', 'RawBLOB'))")
		assert.NotEqual(t, http.StatusOK, status, query)
	}
	assert.NotContains(t, sql(t, "SELECT groupArray(a) FROM default.confined2"), "s3cr3t")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written beside the secret")

	// A dashboard or alert named with the word format, as the API stores it.
	sql(t, "INSERT INTO default.confined2 (a) VALUES ('{\"name\":\"the format x\"}')")
	assert.Contains(t, sql(t, "SELECT groupArray(a) FROM default.confined2"), "the format x")
}

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

// Values data the front has not read as expressions is read by the engine
// as literals only: neither a SETTINGS clause nor a URL parameter turns
// expressions back on, and no template deduced from a row evaluates one.
func TestValuesDataNotReadIsLiteralsOnly(t *testing.T) {
	need(t)
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("s3cr3t"), 0o600))
	_, body, _ := do(t, http.MethodPost, "", strings.NewReader("CREATE TABLE IF NOT EXISTS values_lit (a String) ENGINE = Memory"))
	require.Empty(t, body)
	row := "(file('" + secret + "', 'RawBLOB'))"
	for _, tc := range []struct{ params, query, body string }{
		// The statement in the URL, the data in the body.
		{q("query", "INSERT INTO values_lit FORMAT Values"), "", row},
		{q("query", "INSERT INTO values_lit VALUES"), "", row},
		{q("query", "INSERT INTO values_lit SETTINGS input_format_values_interpret_expressions = 1 FORMAT Values"), "", row},
		{q("query", "INSERT INTO values_lit SETTINGS input_format_values_interpret_expressions = 1, input_format_values_deduce_templates_of_expressions = 1 VALUES"), "", row},
		{q("query", "INSERT INTO values_lit SELECT * FROM input('a String') SETTINGS input_format_values_interpret_expressions = 1 FORMAT Values"), "", row},
		{q("query", "INSERT INTO values_lit FORMAT Values", "input_format_values_interpret_expressions", "1",
			"input_format_values_deduce_templates_of_expressions", "1"), "", row},
		// Template deduction alone evaluated expressions.
		{q("query", "INSERT INTO values_lit FORMAT Values", "input_format_values_deduce_templates_of_expressions", "1"), "", row},
	} {
		t.Run(tc.params, func(t *testing.T) {
			status, body, _ := do(t, http.MethodPost, tc.params, strings.NewReader(tc.body))
			assert.NotEqual(t, http.StatusOK, status, tc.params)
			assert.NotContains(t, body, "s3cr3t", tc.params)
		})
	}
	_, body, _ = do(t, http.MethodPost, "", strings.NewReader("SELECT count() FROM values_lit WHERE a LIKE '%s3cr3t%'"))
	assert.Equal(t, "0\n", body)

	// Literals still go in, whichever way they are sent.
	status, body, _ := do(t, http.MethodPost, q("query", "INSERT INTO values_lit FORMAT Values"), strings.NewReader("('a'), ('b')"))
	assert.Equal(t, http.StatusOK, status, body)
	status, body, _ = do(t, http.MethodPost, q("query", "INSERT INTO values_lit VALUES"), strings.NewReader("('c')"))
	assert.Equal(t, http.StatusOK, status, body)
	_, body, _ = do(t, http.MethodPost, "", strings.NewReader("SELECT count() FROM values_lit"))
	assert.Equal(t, "3\n", body)
}

// Values written in the statement are read as expressions, checked like
// the statement, and may hold them: the API store's INSERTs do.
func TestValuesInTheStatementAreChecked(t *testing.T) {
	need(t)
	_, body, _ := do(t, http.MethodPost, "", strings.NewReader("CREATE TABLE IF NOT EXISTS values_expr (a String, t DateTime64(3)) ENGINE = Memory"))
	require.Empty(t, body)
	for _, sql := range []string{
		"INSERT INTO values_expr (a, t) SETTINGS insert_quorum = 'auto', insert_quorum_parallel = 0 VALUES ('x', fromUnixTimestamp64Milli(1, 'UTC'))",
		"INSERT INTO values_expr (a, t) VALUES ('y', now64(3)), (concat('z', toString(1)), fromUnixTimestamp64Milli(2, 'UTC'));",
	} {
		status, body, _ := do(t, http.MethodPost, "", strings.NewReader(sql))
		assert.Equal(t, http.StatusOK, status, "%s: %s", sql, body)
	}
	_, body, _ = do(t, http.MethodPost, "", strings.NewReader("SELECT count() FROM values_expr"))
	assert.Equal(t, "3\n", body)

	status, _, h := do(t, http.MethodPost, "", strings.NewReader("INSERT INTO values_expr (a, t) VALUES ('x', now()), (toString(file('/etc/passwd')), now())"))
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, "497", h.Get("X-ClickHouse-Exception-Code"))
	// What follows the data is data, never a second statement.
	status, body, _ = do(t, http.MethodPost, "", strings.NewReader("INSERT INTO values_expr (a, t) VALUES ('w', now()); SELECT 'second'"))
	assert.NotContains(t, body, "second")
	_ = status
}

// The word "format" inside an INSERT's values, or in its data, does not
// cut the statement: a dashboard named "the format x" is stored.
func TestFormatInsideValues(t *testing.T) {
	need(t)
	_, body, _ := do(t, http.MethodPost, "", strings.NewReader("CREATE TABLE IF NOT EXISTS values_fmt (a String, b String) ENGINE = Memory"))
	require.Empty(t, body)
	for _, sql := range []string{
		"INSERT INTO values_fmt (a, b) VALUES ('dashboard', '{\"name\":\"the format x\"}')",
		"INSERT INTO values_fmt (a, b) VALUES ('alert', 'values format JSON here')",
		"INSERT INTO values_fmt (a, b) FORMAT CSV\nnote,the format x\n",
		"INSERT INTO values_fmt (a, b) FORMAT JSONEachRow {\"a\":\"j\",\"b\":\"in format Values\"}",
	} {
		status, body, _ := do(t, http.MethodPost, "", strings.NewReader(sql))
		assert.Equal(t, http.StatusOK, status, "%s: %s", sql, body)
	}
	_, body, _ = do(t, http.MethodPost, "", strings.NewReader("SELECT b FROM values_fmt ORDER BY a FORMAT TSVRaw"))
	assert.Equal(t, "values format JSON here\n{\"name\":\"the format x\"}\nin format Values\nthe format x\n", body)
}

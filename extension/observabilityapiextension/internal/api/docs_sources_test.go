package api

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// The source and connection examples of docs/api.md run as written: each
// curl that posts to /api/v2/sources or /api/v2/connections, its body
// sent with the team's default connection for $CONN.
func TestDocsSourceAndConnectionExamples(t *testing.T) {
	doc, err := os.ReadFile("../../../../docs/api.md")
	require.NoError(t, err)
	fx := setup(t)
	lines := strings.Split(string(doc), "\n")
	n := 0
	for i, line := range lines {
		if !strings.HasPrefix(line, "curl -s -X POST localhost:8000/api/v2/") || i+1 >= len(lines) {
			continue
		}
		path := strings.Fields(line)[4][len("localhost:8000"):]
		if path != "/api/v2/sources" && path != "/api/v2/connections" {
			continue
		}
		body, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "-d '")
		require.True(t, ok, "line %d: the body follows on the next line", i+2)
		body = strings.TrimSuffix(body, "'")
		body = strings.ReplaceAll(body, `'"$CONN"'`, sources.DefaultConnectionID("a"))
		r := call(t, http.MethodPost, fx.url+path, bearer(fx.keyA), body)
		assert.Equal(t, http.StatusOK, r.status, "docs/api.md line %d: %v", i+1, r.body)
		n++
	}
	assert.GreaterOrEqual(t, n, 3, "the examples were found")
	r := call(t, http.MethodGet, fx.url+"/api/v2/connections", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, sources.DefaultConnectionID("a"), r.body["data"].([]any)[0].(map[string]any)["id"], "the example's jq reads the default connection first")
}

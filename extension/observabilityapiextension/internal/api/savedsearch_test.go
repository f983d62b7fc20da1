package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Saved searches: CRUD, a source of the team, validation with reasons,
// team scoping.
func TestSavedSearches(t *testing.T) {
	fx := setup(t)
	base := fx.url + "/api/v2/saved-searches"
	r := call(t, http.MethodPost, base, bearer(fx.keyA), map[string]any{"name": "checkout errors", "sourceId": "logs",
		"where": "service:checkout level:error", "select": "Timestamp, Body", "tags": []string{"oncall"}})
	require.Equal(t, http.StatusOK, r.status, r.body)
	ss := item(r)
	id := ss["id"].(string)
	assert.Equal(t, "lucene", ss["whereLanguage"])

	r = call(t, http.MethodPut, base+"/"+id, bearer(fx.keyA), map[string]any{"name": "checkout errors", "sourceId": "logs", "where": "level:error"})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "level:error", item(r)["where"])
	assert.Empty(t, item(r)["select"], "an update replaces every field")

	r = call(t, http.MethodGet, base, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Len(t, r.body["data"], 1)
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodGet, base+"/"+id, bearer(fx.keyB), nil).status, "another team's")

	r = call(t, http.MethodPost, base, bearer(fx.keyA), map[string]any{"sourceId": "nope", "whereLanguage": "kql"})
	assert.Equal(t, http.StatusBadRequest, r.status)
	for _, want := range []string{"name is required", `sourceId must name an existing source of the team, got "nope"`, "whereLanguage must be one of lucene, sql"} {
		assert.Contains(t, r.body["message"], want)
	}
	assert.Equal(t, http.StatusOK, call(t, http.MethodDelete, base+"/"+id, bearer(fx.keyA), nil).status)
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodGet, base+"/"+id, bearer(fx.keyA), nil).status)
}

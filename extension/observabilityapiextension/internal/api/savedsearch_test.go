package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Saved searches: CRUD, a source of the team, validation with reasons,
// team scoping.
func TestSavedSearches(t *testing.T) {
	fx := setup(t)
	base := fx.url + "/api/v2/saved-searches"
	r := call(t, http.MethodPost, base, bearer(fx.keyA), map[string]any{
		"name": "checkout errors", "sourceId": "logs",
		"where": "service:checkout level:error", "select": "Timestamp, Body", "tags": []string{"oncall"},
	})
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

// Issue 42: a team's saved-search names are unique in any case (create
// and rename alike); another team may use the same name.
func TestSavedSearchNamesAreUnique(t *testing.T) {
	fx := setup(t)
	body := func(name string) map[string]any {
		return map[string]any{"name": name, "sourceId": "logs", "where": "level:error", "whereLanguage": "lucene"}
	}
	first := call(t, http.MethodPost, fx.url+"/api/v2/saved-searches", bearer(fx.keyA), body("Checkout errors"))
	require.Equal(t, http.StatusOK, first.status, first.body)
	r := call(t, http.MethodPost, fx.url+"/api/v2/saved-searches", bearer(fx.keyA), body(" checkout ERRORS "))
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["message"], `a saved search named "Checkout errors" already exists`)
	other := call(t, http.MethodPost, fx.url+"/api/v2/saved-searches", bearer(fx.keyA), body("Payments"))
	require.Equal(t, http.StatusOK, other.status)
	r = call(t, http.MethodPut, fx.url+"/api/v2/saved-searches/"+item(other)["id"].(string), bearer(fx.keyA), body("CHECKOUT errors"))
	assert.Equal(t, http.StatusBadRequest, r.status, "a rename onto a taken name: %v", r.body)
	r = call(t, http.MethodPut, fx.url+"/api/v2/saved-searches/"+item(first)["id"].(string), bearer(fx.keyA), body("Checkout Errors"))
	assert.Equal(t, http.StatusOK, r.status, "its own name, recased: %v", r.body)
	now := time.Now()
	require.NoError(t, fx.server.opts.Store.Put(context.Background(), "b", kindSource, "logs", []byte(`{"id":"logs","name":"logs","kind":"log","database":"otel","table":"t","timestampColumn":"ts"}`), now, now))
	r = call(t, http.MethodPost, fx.url+"/api/v2/saved-searches", bearer(fx.keyB), body("Checkout errors"))
	assert.Equal(t, http.StatusOK, r.status, "another team's names are its own: %v", r.body)
}

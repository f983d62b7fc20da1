package api

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 46: ClickHouse Cloud serves the managed resources under
// /clickstack/ today; the API serves that form beside /observability/,
// over the same team and handlers.
func TestClickStackForm(t *testing.T) {
	fx := setup(t)
	cs := fx.url + "/v1/organizations/org1/services/svc1/clickstack"
	key := basic(fx.mgdID, fx.mgdSK)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

	t.Run("create answers 200 in the envelope", func(t *testing.T) {
		r := call(t, http.MethodPost, cs+"/dashboards", key, dashboard("from clickstack"))
		require.Equal(t, http.StatusOK, r.status, r.body)
		assert.Equal(t, float64(200), r.body["status"])
		assert.Regexp(t, uuid, r.body["requestId"])
		assert.Equal(t, "from clickstack", item(r)["name"])
		self := call(t, http.MethodGet, fx.url+"/api/v2/dashboards/"+item(r)["id"].(string), bearer(fx.keyA), nil)
		assert.Equal(t, http.StatusOK, self.status, "the same team's dashboard in the self-hosted form")
	})

	t.Run("validate checks without storing", func(t *testing.T) {
		r := call(t, http.MethodPost, cs+"/dashboards/validate", key, dashboard("only checked"))
		require.Equal(t, http.StatusOK, r.status, r.body)
		assert.Equal(t, float64(200), r.body["status"])
		assert.Equal(t, "only checked", item(r)["name"])
		bad := call(t, http.MethodPost, cs+"/dashboards/validate", key, map[string]any{"name": ""})
		assert.Equal(t, http.StatusBadRequest, bad.status, bad.body)
		list := call(t, http.MethodGet, cs+"/dashboards", key, nil)
		for _, d := range list.body["result"].([]any) {
			assert.NotEqual(t, "only checked", d.(map[string]any)["name"], "validate stores nothing")
		}
	})

	t.Run("lists page by limit and offset up to 1000", func(t *testing.T) {
		call(t, http.MethodPost, cs+"/dashboards", key, dashboard("second"))
		r := call(t, http.MethodGet, cs+"/dashboards", key, nil)
		require.Equal(t, http.StatusOK, r.status, r.body)
		assert.Equal(t, float64(1000), r.body["limit"], "the default page")
		assert.Equal(t, float64(2), r.body["total"])
		assert.Len(t, r.body["result"], 2)
		r = call(t, http.MethodGet, cs+"/dashboards?limit=1&offset=1", key, nil)
		assert.Len(t, r.body["result"], 1)
		assert.Equal(t, float64(1), r.body["offset"])
		assert.Equal(t, http.StatusOK, call(t, http.MethodGet, cs+"/dashboards?limit=1000", key, nil).status)
		r = call(t, http.MethodGet, cs+"/dashboards?limit=1001", key, nil)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, "limit must be an integer from 1 to 1000", r.body["error"])
		// The /observability/ form keeps its own page.
		r = call(t, http.MethodGet, fx.url+"/v1/organizations/org1/services/svc1/observability/dashboards?limit=1000", key, nil)
		assert.Equal(t, http.StatusBadRequest, r.status)
	})

	t.Run("sources are listed", func(t *testing.T) {
		r := call(t, http.MethodGet, cs+"/sources", key, nil)
		require.Equal(t, http.StatusOK, r.status, r.body)
		assert.NotEmpty(t, r.body["result"])
	})

	t.Run("errors in the envelope", func(t *testing.T) {
		r := call(t, http.MethodGet, cs+"/dashboards/nope", key, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		assert.Equal(t, float64(404), r.body["status"])
		assert.Equal(t, "Dashboard not found", r.body["error"])
		assert.Regexp(t, uuid, r.body["requestId"])
		r = call(t, http.MethodPost, cs+"/webhooks", key, map[string]any{"url": "ftp://x"})
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, r.body["error"], "name is required")
	})

	t.Run("Basic key of the configured organization and service only", func(t *testing.T) {
		assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, cs+"/dashboards", basic(fx.mgdID, "nope"), nil).status)
		assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, cs+"/dashboards", bearer(fx.keyA), nil).status)
		r := call(t, http.MethodGet, fx.url+"/v1/organizations/org1/services/other/clickstack/dashboards", key, nil)
		assert.Equal(t, http.StatusNotFound, r.status, "another service")
	})
}

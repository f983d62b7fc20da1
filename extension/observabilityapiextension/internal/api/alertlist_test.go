package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An alert-list tile (otelhouse's displayType alerts) is stored and read
// back as documented (call checks each answer against openapi.yaml); a
// state it does not know is the caller's mistake.
func TestAlertListTile(t *testing.T) {
	fx := setup(t)
	self := fx.url + "/api/v2/dashboards"
	tile := map[string]any{"displayType": "alerts", "where": "redis", "alertStates": []string{"ALERT", "NO_DATA"}}
	body := map[string]any{"name": "on call", "tiles": []any{map[string]any{"id": "al", "name": "Alerts", "x": 0, "y": 0, "w": 12, "h": 4, "config": tile}}}
	created := call(t, http.MethodPost, self, bearer(fx.keyA), body)
	require.Equal(t, http.StatusOK, created.status, created.body)
	id := created.body["data"].(map[string]any)["id"].(string)

	got := call(t, http.MethodGet, self+"/"+id, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	assert.Equal(t, map[string]any{"displayType": "alerts", "where": "redis", "alertStates": []any{"ALERT", "NO_DATA"}},
		got.body["data"].(map[string]any)["tiles"].([]any)[0].(map[string]any)["config"])

	tile["alertStates"] = []string{"WARN"}
	bad := call(t, http.MethodPost, self, bearer(fx.keyA), body)
	assert.Equal(t, http.StatusBadRequest, bad.status, bad.body)
	assert.Contains(t, bad.body["message"], "alertStates[0] must be one of OK, ALERT, NO_DATA")
}

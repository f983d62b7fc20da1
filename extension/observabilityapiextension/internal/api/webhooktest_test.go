package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 43: "Send test" delivers a sample notification as an alert's
// would go (the webhook's write-only headers included) and answers what
// the receiver said; a refusal is an answer, not the API's failure.
func TestWebhookSendTest(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	wh := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{
		"name": "ops", "url": hook.URL,
		"headers": map[string]string{"X-Token": "s3cret"},
	})
	require.Equal(t, http.StatusOK, wh.status, wh.body)
	id := item(wh)["id"].(string)

	r := call(t, http.MethodPost, fx.url+"/api/v2/webhooks/"+id+"/test", bearer(fx.keyA), map[string]any{})
	require.Equal(t, http.StatusOK, r.status, r.body)
	got := r.body["data"].(map[string]any)
	assert.Equal(t, true, got["delivered"])
	assert.EqualValues(t, http.StatusOK, got["status"])
	assert.Contains(t, got, "durationMs")
	n := rc.notifications()
	require.Len(t, n, 1)
	assert.Equal(t, "Test notification", n[0].Name)
	assert.Equal(t, StateAlert, n[0].State)
	assert.Contains(t, rc.auth[0], "s3cret|test-", "the sealed header goes, with an idempotency key of its own")

	rc.failNext.Store(1)
	r = call(t, http.MethodPost, fx.url+"/api/v2/webhooks/"+id+"/test", bearer(fx.keyA), map[string]any{})
	require.Equal(t, http.StatusOK, r.status, r.body)
	got = r.body["data"].(map[string]any)
	assert.Equal(t, false, got["delivered"])
	assert.EqualValues(t, http.StatusServiceUnavailable, got["status"])
	assert.EqualValues(t, 1, got["attempts"], "a test is one attempt")
	assert.NotEmpty(t, got["error"])

	r = call(t, http.MethodPost, fx.url+"/api/v2/webhooks/"+id+"/test", bearer(fx.keyB), map[string]any{})
	assert.Equal(t, http.StatusNotFound, r.status, "another team's webhook: %v", r.body)
	assert.Equal(t, "Webhook not found", r.body["message"])
	r = call(t, http.MethodPost, sessionURL(t, fx, "a", "someone")+"/api/v2/webhooks/"+id+"/test", "", map[string]any{})
	assert.Equal(t, http.StatusOK, r.status, "the UI's session door serves it too: %v", r.body)
	assert.Len(t, rc.notifications(), 2, "the refused one was not received")
}

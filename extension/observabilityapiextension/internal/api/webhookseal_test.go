package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// storedDocs is every version of every webhook row on disk, as the
// engine's password holder (or a query that escaped its check) reads it.
func storedDocs(t *testing.T, fx fixture) string {
	t.Helper()
	rows, err := chtest.DB(t).QueryContext(context.Background(), "SELECT doc FROM "+fx.state+".api_resources WHERE kind = 'webhook'")
	require.NoError(t, err)
	defer rows.Close()
	var all []string
	for rows.Next() {
		var d string
		require.NoError(t, rows.Scan(&d))
		all = append(all, d)
	}
	require.NoError(t, rows.Err())
	return strings.Join(all, "\n")
}

// Issue 41: a webhook's headers (a receiver's credentials) were stored in
// clear in the state tables. They are sealed as keys are, bound to the
// webhook, and never answered.
func TestWebhookHeadersAreStoredSealed(t *testing.T) {
	fx := setup(t)
	r := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{
		"name": "w", "url": "https://x.example",
		"headers": map[string]string{"Authorization": "Bearer secret-token-1"},
	})
	require.Equal(t, http.StatusOK, r.status, r.body)
	id := item(r)["id"].(string)
	assert.NotContains(t, item(r), "headers")
	docs := storedDocs(t, fx)
	assert.NotContains(t, docs, "secret-token-1")
	assert.Contains(t, docs, `"sealedHeaders":`)

	res, err := fx.server.opts.Store.Get(context.Background(), "a", kindWebhook, id)
	require.NoError(t, err)
	assert.NotContains(t, string(res.Doc), `"headers"`)
	got := call(t, http.MethodGet, fx.url+"/api/v2/webhooks/"+id, bearer(fx.keyA), nil)
	assert.NotContains(t, item(got), webhook.SealedField, "the sealed form is not answered either")

	// Deleted, it keeps no document.
	require.Equal(t, http.StatusOK, call(t, http.MethodDelete, fx.url+"/api/v2/webhooks/"+id, bearer(fx.keyA), nil).status)
	deleted, err := fx.server.opts.Store.DeletedWithDoc(context.Background(), kindWebhook)
	require.NoError(t, err)
	assert.Empty(t, deleted)
}

// Webhooks stored in clear by an earlier release, live or deleted, are
// sealed at start, and their clear versions leave the disk.
func TestWebhookHeadersInClearAreSealedAtStart(t *testing.T) {
	fx := setup(t)
	ctx := context.Background()
	st, now := fx.server.opts.Store, time.Now()
	require.NoError(t, st.Put(ctx, "a", kindWebhook, "old", []byte(`{"id":"old","name":"w","url":"https://x.example","service":"generic","headers":{"Authorization":"Bearer secret-token-2"}}`), now, now))
	require.NoError(t, st.Put(ctx, "b", kindWebhook, "gone", []byte(`{"id":"gone","name":"w","url":"https://x.example","headers":{"X-Key":"secret-token-3"}}`), now, now))
	_, err := chtest.DB(t).ExecContext(ctx, "INSERT INTO "+fx.state+".api_resources (team_id, kind, id, doc, version, deleted, created_at, updated_at) "+
		`VALUES ('b', 'webhook', 'gone', '{"id":"gone","headers":{"X-Key":"secret-token-3"}}', `+strconv.FormatInt(time.Now().UnixNano(), 10)+`, 1, now64(3), now64(3))`)
	require.NoError(t, err)
	require.Contains(t, storedDocs(t, fx), "secret-token-2")

	n, err := fx.server.SealWebhookHeaders(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	docs := storedDocs(t, fx)
	assert.NotContains(t, docs, "secret-token-2")
	assert.NotContains(t, docs, "secret-token-3")

	res, err := st.Get(ctx, "a", kindWebhook, "old")
	require.NoError(t, err)
	assert.Contains(t, string(res.Doc), `"name":"w"`, "the rest of the document is kept")
	var doc struct{ SealedHeaders string }
	require.NoError(t, json.Unmarshal(res.Doc, &doc))
	h, err := webhook.OpenHeaders(fx.server.opts.Sealer, "a", "old", doc.SealedHeaders)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"Authorization": "Bearer secret-token-2"}, h)
	_, err = webhook.OpenHeaders(fx.server.opts.Sealer, "b", "old", doc.SealedHeaders)
	require.Error(t, err, "bound to its team and id")

	n, err = fx.server.SealWebhookHeaders(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left at the next start")
}

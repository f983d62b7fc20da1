package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// GET /api/v2, /api/v2/team and /team/members answer who a key belongs
// to, as HyperDX's do, and never the key.
func TestTeamAndKeyOwner(t *testing.T) {
	fx := setup(t)
	ctx := context.Background()
	st := fx.server.opts.Store
	owned := keys.New("ohp_")
	require.NoError(t, st.PutUser(ctx, store.User{ID: "u1", TeamID: "a", Email: "ann@example.com", Role: "owner", CreatedAt: time.Now()}))
	require.NoError(t, st.PutUser(ctx, store.User{ID: "u2", TeamID: "a", Email: "bob@example.com", Role: "member", CreatedAt: time.Now()}))
	require.NoError(t, st.PutKey(ctx, store.Key{Hash: keys.Hash(owned), TeamID: "a", Kind: keys.Personal, KeyID: "ka", UserID: "u1"}))

	for _, path := range []string{"/api/v2", "/api/v2/"} {
		r := call(t, http.MethodGet, fx.url+path, bearer(owned), nil)
		require.Equal(t, http.StatusOK, r.status, r.body)
		assert.Equal(t, "v2", r.body["version"])
		user := r.body["user"].(map[string]any)
		assert.Equal(t, "u1", user["id"])
		assert.Equal(t, "u1", user["_id"], "HyperDX's name for it")
		assert.Equal(t, "ann@example.com", user["email"])
		assert.Equal(t, "a", user["team"])
	}
	r := call(t, http.MethodGet, fx.url+"/api/v2", bearer(fx.keyB), nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, map[string]any{"team": "b"}, r.body["user"], "a key no account has taken has only its team")
	assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, fx.url+"/api/v2", "", nil).status)

	r = call(t, http.MethodGet, fx.url+"/api/v2/team", bearer(owned), nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, map[string]any{"id": "a", "name": "a"}, r.body["data"])

	r = call(t, http.MethodGet, fx.url+"/api/v2/team/members", bearer(owned), nil)
	require.Equal(t, http.StatusOK, r.status)
	members := r.body["data"].([]any)
	require.Len(t, members, 2)
	byEmail := map[string]bool{}
	for _, m := range members {
		m := m.(map[string]any)
		byEmail[m["email"].(string)] = m["isCurrentUser"].(bool)
	}
	assert.Equal(t, map[string]bool{"ann@example.com": true, "bob@example.com": false}, byEmail)
	r = call(t, http.MethodGet, fx.url+"/api/v2/team/members", bearer(fx.keyB), nil)
	assert.Empty(t, r.body["data"], "another team's accounts are not listed")
}

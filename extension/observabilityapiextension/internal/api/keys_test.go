package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Keys rotate and revoke through the API as through the UI: the key used
// to rotate stops working at once, the new one works, and a key from
// configuration is not the API's to revoke.
func TestRotateAndRevokeKeys(t *testing.T) {
	fx := setup(t)
	r := call(t, http.MethodPost, fx.url+"/api/v2/keys/personal/rotate", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	fresh := item(r)["key"].(string)
	assert.Regexp(t, `^ohp_[0-9a-f]{48}$`, fresh)
	assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, fx.url+"/api/v2/sources", bearer(fx.keyA), nil).status, "the old key")
	assert.Equal(t, http.StatusOK, call(t, http.MethodGet, fx.url+"/api/v2/sources", bearer(fresh), nil).status)
	assert.Equal(t, http.StatusOK, call(t, http.MethodGet, fx.url+"/api/v2/sources", bearer(fx.keyB), nil).status, "another team's key is untouched")

	ctx := context.Background()
	configured := "from-configuration"
	require.NoError(t, fx.server.opts.Store.PutKey(ctx, store.Key{Hash: keys.Hash(configured), TeamID: "a", Kind: keys.Ingestion, KeyID: "cfg"}))
	r = call(t, http.MethodPost, fx.url+"/api/v2/keys/ingestion/rotate", bearer(fresh), nil)
	require.Equal(t, http.StatusOK, r.status)
	ingestion := item(r)
	cache := fx.server.opts.Store.KeyCache(keys.Ingestion)
	_, ok, err := cache.Lookup(ctx, keys.Hash(ingestion["key"].(string)))
	require.NoError(t, err)
	assert.True(t, ok, "the new ingestion key is accepted")

	assert.Equal(t, http.StatusConflict, call(t, http.MethodDelete, fx.url+"/api/v2/keys/ingestion/cfg", bearer(fresh), nil).status)
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodDelete, fx.url+"/api/v2/keys/ingestion/nope", bearer(fresh), nil).status)
	r = call(t, http.MethodDelete, fx.url+"/api/v2/keys/ingestion/"+ingestion["id"].(string), bearer(fresh), nil)
	assert.Equal(t, http.StatusOK, r.status)
	_, ok, err = cache.Lookup(ctx, keys.Hash(ingestion["key"].(string)))
	require.NoError(t, err)
	assert.False(t, ok, "revoked at once")
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodDelete, fx.url+"/api/v2/keys/ingestion/"+ingestion["id"].(string), bearer(fx.keyB), nil).status,
		"another team cannot reach it")
}

// Issue 41: the team's ingestion keys are the owner's to change; a
// member's personal key may search, build and alert, and rotate itself,
// but not rotate or revoke the key every agent sends.
func TestOnlyTheOwnerChangesIngestionKeys(t *testing.T) {
	fx := setup(t)
	ctx := context.Background()
	st := fx.server.opts.Store
	personal := func(id, role string) string {
		require.NoError(t, st.PutUser(ctx, store.User{ID: id, TeamID: "a", Email: id + "@example.com", PasswordHash: "x", Role: role}))
		k := keys.New("ohp_")
		require.NoError(t, st.PutKey(ctx, store.Key{Hash: keys.Hash(k), TeamID: "a", Kind: keys.Personal, KeyID: keys.Hash(k)[:12], UserID: id}))
		return k
	}
	member, owner := personal("m", "member"), personal("o", "owner")

	r := call(t, http.MethodPost, fx.url+"/api/v2/keys/ingestion/rotate", bearer(member), nil)
	assert.Equal(t, http.StatusForbidden, r.status)
	assert.Contains(t, r.body["message"], "only the team's owner")
	assert.Equal(t, http.StatusForbidden, call(t, http.MethodDelete, fx.url+"/api/v2/keys/ingestion/any", bearer(member), nil).status)
	assert.Equal(t, http.StatusOK, call(t, http.MethodGet, fx.url+"/api/v2/dashboards", bearer(member), nil).status, "a member reads and builds")
	r = call(t, http.MethodPost, fx.url+"/api/v2/keys/personal/rotate", bearer(member), nil)
	assert.Equal(t, http.StatusOK, r.status, "a member rotates its own key")

	r = call(t, http.MethodPost, fx.url+"/api/v2/keys/ingestion/rotate", bearer(owner), nil)
	assert.Equal(t, http.StatusOK, r.status, r.body)
}

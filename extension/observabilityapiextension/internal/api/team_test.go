package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
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

// sessionURL serves the session door's routes (Session) to requests that
// come as a signed-in account of a team, as the web UI's door passes them.
func sessionURL(t *testing.T, fx fixture, team, user string) string {
	t.Helper()
	h := fx.server.Session()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(apistate.WithCaller(r.Context(), apistate.Caller{Team: team, Identity: user})))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Issue 41: inviting, removing members and rotating the team's ingestion
// key are the owner's; a member reads the team, rotates its own key and
// reads the team's resources, and is told why the rest is refused. The
// same rules hold whether the account comes with its session (the UI) or
// its personal key.
func TestMembersDoNotManageTheTeam(t *testing.T) {
	fx := setup(t)
	ctx := context.Background()
	st := fx.server.opts.Store
	require.NoError(t, st.PutUser(ctx, store.User{ID: "own", TeamID: "a", Email: "o@example.com", Role: "owner", CreatedAt: time.Now()}))
	require.NoError(t, st.PutUser(ctx, store.User{ID: "mem", TeamID: "a", Email: "m@example.com", Role: "member", CreatedAt: time.Now()}))
	memberKey := keys.New("ohp_")
	require.NoError(t, st.PutKey(ctx, store.Key{Hash: keys.Hash(memberKey), TeamID: "a", Kind: keys.Personal, KeyID: "km", UserID: "mem"}))
	owner, member := sessionURL(t, fx, "a", "own"), sessionURL(t, fx, "a", "mem")

	r := call(t, http.MethodPost, owner+"/api/v2/team/invitation", "", map[string]any{"email": "new@example.com"})
	require.Equal(t, http.StatusOK, r.status, r.body)
	inv := r.body["data"].(map[string]any)
	assert.Contains(t, inv["path"], "/join#inv_", "the token rides in the fragment")
	invID := inv["invitation"].(map[string]any)["id"].(string)
	r = call(t, http.MethodGet, member+"/api/v2/team/invitations", "", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Len(t, r.body["data"], 1)

	for _, rq := range []struct{ method, path string }{
		{http.MethodPost, "/api/v2/team/invitation"},
		{http.MethodDelete, "/api/v2/team/invitation/" + invID},
		{http.MethodDelete, "/api/v2/team/member/own"},
		{http.MethodPost, "/api/v2/keys/ingestion/rotate"},
	} {
		t.Run(rq.method+" "+strings.Replace(rq.path, invID, "{id}", 1), func(t *testing.T) {
			var body any
			if rq.method == http.MethodPost {
				body = map[string]any{}
			}
			for who, base := range map[string]string{"session": member, "key": fx.url} {
				auth := ""
				if who == "key" {
					auth = bearer(memberKey)
				}
				r := call(t, rq.method, base+rq.path, auth, body)
				assert.Equal(t, http.StatusForbidden, r.status, "%s %s", who, rq.path)
				assert.Contains(t, r.body["message"], "only the team's owner", "%s %s", who, rq.path)
			}
		})
	}
	for _, path := range []string{"/api/v2/team", "/api/v2/team/members", "/api/v2/keys", "/api/v2/saved-searches", "/api/v2/alerts"} {
		r := call(t, http.MethodGet, member+path, "", nil)
		assert.Equal(t, http.StatusOK, r.status, "%s: %v", path, r.body)
	}
	r = call(t, http.MethodPost, member+"/api/v2/keys/personal/rotate", "", map[string]any{})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, fx.url+"/api/v2", bearer(memberKey), nil).status,
		"a session's rotation replaces the account's keys")
	r = call(t, http.MethodGet, member+"/api/v2/keys", "", nil)
	personal := r.body["data"].(map[string]any)["personal"].([]any)
	require.Len(t, personal, 1)
	assert.True(t, strings.HasPrefix(personal[0].(map[string]any)["key"].(string), "ohp_"), "its owner sees the new key in full")

	assert.Equal(t, http.StatusOK, call(t, http.MethodDelete, owner+"/api/v2/team/invitation/"+invID, "", nil).status)
	assert.Equal(t, http.StatusNotFound, call(t, http.MethodDelete, owner+"/api/v2/team/invitation/"+invID, "", nil).status)
	assert.Equal(t, http.StatusOK, call(t, http.MethodPost, owner+"/api/v2/keys/ingestion/rotate", "", map[string]any{}).status)
	assert.Equal(t, http.StatusOK, call(t, http.MethodDelete, owner+"/api/v2/team/member/mem", "", nil).status)
	r = call(t, http.MethodGet, owner+"/api/v2/team/members", "", nil)
	assert.Len(t, r.body["data"], 1, "the member is gone")
	assert.Equal(t, http.StatusForbidden, call(t, http.MethodGet, fx.url+"/api/v2/keys", bearer(fx.keyB), nil).status,
		"a key no account has taken sees no account's keys")
}

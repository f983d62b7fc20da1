package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

func open(t *testing.T, db string) *Store {
	s, err := Open(context.Background(), chtest.DB(t), db)
	require.NoError(t, err)
	return s
}

func TestResourcesAreTeamScoped(t *testing.T) {
	ctx := context.Background()
	s := open(t, "api_store_test")
	now := time.Now()
	require.NoError(t, s.Put(ctx, "team-a", "dashboard", "d1", []byte(`{"name":"one"}`), now, now))
	require.NoError(t, s.Put(ctx, "team-a", "dashboard", "d2", []byte(`{"name":"two"}`), now, now))
	require.NoError(t, s.Put(ctx, "team-b", "dashboard", "d3", []byte(`{"name":"other team"}`), now, now))

	r, err := s.Get(ctx, "team-a", "dashboard", "d1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"one"}`, string(r.Doc))
	_, err = s.Get(ctx, "team-b", "dashboard", "d1")
	assert.ErrorIs(t, err, ErrNotFound, "another team's id does not exist for you")

	// A newer version replaces the old one.
	require.NoError(t, s.Put(ctx, "team-a", "dashboard", "d1", []byte(`{"name":"renamed"}`), now, time.Now()))
	r, err = s.Get(ctx, "team-a", "dashboard", "d1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"renamed"}`, string(r.Doc))

	list, total, err := s.List(ctx, "team-a", "dashboard", 1, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, total)
	require.Len(t, list, 1)

	require.NoError(t, s.Delete(ctx, "team-a", "dashboard", "d2"))
	_, total, err = s.List(ctx, "team-a", "dashboard", 10, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	assert.ErrorIs(t, s.Delete(ctx, "team-a", "dashboard", "d2"), ErrNotFound)
}

func TestKeysAndTeams(t *testing.T) {
	ctx := context.Background()
	s := open(t, "api_keys_test")
	n, err := s.TeamCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	require.NoError(t, s.CreateTeam(ctx, "t1", "Team"))
	require.NoError(t, s.PutKey(ctx, Key{Hash: "h1", TeamID: "t1", Kind: "personal", KeyID: "k1"}))
	require.NoError(t, s.PutKey(ctx, Key{Hash: "h2", TeamID: "t1", Kind: "ingestion", KeyID: "k2"}))
	k, ok, err := s.KeyCache("personal").Lookup(ctx, "h1")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "t1", k.TeamID)
	_, ok, err = s.KeyCache("personal").Lookup(ctx, "h2")
	require.NoError(t, err)
	assert.False(t, ok, "an ingestion key is not a personal key")
	ing, err := s.KeysOfKind(ctx, "ingestion")
	require.NoError(t, err)
	assert.Len(t, ing, 1)
	n, err = s.TeamCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

func TestTwoStoresShareOneDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := open(t, "api_shared_test"), open(t, "api_shared_test")
	now := time.Now()
	require.NoError(t, a.Put(ctx, "t", "alert", "x", []byte(`{}`), now, now))
	_, err := b.Get(ctx, "t", "alert", "x")
	assert.NoError(t, err, "a replica sees another's writes")
	assert.Error(t, func() error { _, err := Open(ctx, chtest.DB(t), "bad-name;"); return err }())
}

package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A flood of unknown keys costs at most one load a second: before, every
// request on the API queried the engine for its Bearer key, so anyone who
// could reach the port could keep the engine busy without a key.
func TestKeyCacheLoadsRarely(t *testing.T) {
	loads := 0
	var fail error
	keys := []Key{{Hash: "h1", TeamID: "t1", Kind: "personal"}}
	c := &KeyCache{load: func(context.Context) ([]Key, error) {
		loads++
		return keys, fail
	}}
	ctx := context.Background()
	k, ok, err := c.Lookup(ctx, "h1")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "t1", k.TeamID)
	for i := 0; i < 10_000; i++ {
		_, ok, err = c.Lookup(ctx, "random-"+string(rune(i)))
		require.NoError(t, err)
		assert.False(t, ok)
	}
	assert.Equal(t, 1, loads, "misses within a second reuse the list")

	// A key another replica added is found once a second has passed.
	keys = append(keys, Key{Hash: "h2", TeamID: "t2"})
	c.tried = time.Now().Add(-2 * keysMissReload)
	_, ok, _ = c.Lookup(ctx, "h2")
	assert.True(t, ok)
	assert.Equal(t, 2, loads)

	// A failed reload serves the last good list; only a cache that never
	// loaded fails.
	fail = errors.New("engine down")
	c.fetched, c.tried = time.Now().Add(-2*keysRefreshEvery), time.Time{}
	_, ok, err = c.Lookup(ctx, "h1")
	require.NoError(t, err)
	assert.True(t, ok)
	_, _, err = (&KeyCache{load: c.load}).Lookup(ctx, "h1")
	assert.ErrorContains(t, err, "engine down")
}

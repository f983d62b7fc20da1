package store

import (
	"context"
	"sync"
	"time"
)

// How long a cached key list serves, and how often at most a hash that is
// not in it reloads the list.
var (
	// A key rotated on another replica stops working here within this.
	keysRefreshEvery = 5 * time.Second
	keysMissReload   = time.Second
)

// KeyCache answers key lookups from memory: every request on the API and
// every authenticated ingestion request checks a key, and a query per
// check would let anyone who can reach the port, key or not, keep the
// engine busy. Keys other replicas add are picked up on refresh; a hash
// that is not in the list reloads it at most once a second.
type KeyCache struct {
	load    func(context.Context) ([]Key, error)
	mu      sync.Mutex
	byHash  map[string]Key
	fetched time.Time // of the list held
	tried   time.Time // the last load, failed or not
}

// KeyCache returns the store's cache of the live keys of a kind.
func (s *Store) KeyCache(kind string) *KeyCache {
	s.cachesMu.Lock()
	defer s.cachesMu.Unlock()
	c := s.caches[kind]
	if c == nil {
		c = &KeyCache{load: func(ctx context.Context) ([]Key, error) { return s.KeysOfKind(ctx, kind) }}
		s.caches[kind] = c
	}
	return c
}

// keysChanged makes the kind's cache reload at its next lookup.
func (s *Store) keysChanged(kind string) {
	s.cachesMu.Lock()
	c := s.caches[kind]
	s.cachesMu.Unlock()
	if c != nil {
		c.invalidate()
	}
}

func (c *KeyCache) invalidate() {
	c.mu.Lock()
	c.fetched, c.tried = time.Time{}, time.Time{}
	c.mu.Unlock()
}

// Lookup finds a key by its hash. It fails only while no list has ever
// loaded; after that, a failed reload serves the last good list.
func (c *KeyCache) Lookup(ctx context.Context, hash string) (Key, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	k, ok := c.byHash[hash]
	fresh := now.Sub(c.fetched) <= keysRefreshEvery
	if c.byHash != nil && (ok && fresh || now.Sub(c.tried) < keysMissReload) {
		return k, ok, nil
	}
	c.tried = now
	list, err := c.load(ctx)
	if err != nil {
		if c.byHash == nil {
			return Key{}, false, err
		}
		return k, ok, nil
	}
	c.byHash = make(map[string]Key, len(list))
	for _, k := range list {
		c.byHash[k.Hash] = k
	}
	c.fetched = now
	k, ok = c.byHash[hash]
	return k, ok, nil
}

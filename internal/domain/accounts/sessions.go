package accounts

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// A session's seen_at is rewritten at most this often (the idle timeout's
// resolution), and a validated session is trusted from memory this long:
// every UI request checks its session, and a query or two per request
// would be most of a page's cost. A session ended on another replica ends
// here within sessionCacheFor.
const (
	touchEvery      = time.Minute
	sessionCacheFor = 5 * time.Second
)

type cachedSession struct {
	s       store.Session
	a       Account
	checked time.Time
}

type sessionCache struct {
	mu sync.Mutex
	m  map[string]cachedSession
}

func (c *sessionCache) get(hash string, now time.Time) (cachedSession, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs, ok := c.m[hash]
	if ok && now.Sub(cs.checked) > sessionCacheFor {
		delete(c.m, hash)
		return cs, false
	}
	return cs, ok
}

func (c *sessionCache) put(hash string, cs cachedSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 10_000 {
		clear(c.m)
	}
	c.m[hash] = cs
}

func (c *sessionCache) drop(hash string) {
	c.mu.Lock()
	delete(c.m, hash)
	c.mu.Unlock()
}

func (s *Service) openSession(ctx context.Context, u store.User) (string, error) {
	token := keys.New("")
	now := s.now().UTC()
	ss := store.Session{
		Hash: keys.Hash(token), UserID: u.ID, TeamID: u.TeamID, CreatedAt: now, SeenAt: now,
		ExpireAt: now.Add(s.opts.SessionLifetime),
	}
	return token, s.opts.Store.PutSession(ctx, ss)
}

// Session answers the account a session token belongs to, or
// ErrNoSession when it is unknown, ended, expired or idle too long, or
// its account was removed.
func (s *Service) Session(ctx context.Context, token string) (Account, error) {
	if token == "" {
		return Account{}, ErrNoSession
	}
	hash := keys.Hash(token)
	now := s.now().UTC()
	if cs, ok := s.sessions.get(hash, now); ok {
		return cs.a, nil
	}
	ss, err := s.opts.Store.SessionByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return Account{}, ErrNoSession
	}
	if err != nil {
		return Account{}, err
	}
	if now.After(ss.ExpireAt) || now.Sub(ss.SeenAt) > s.opts.IdleTimeout {
		return Account{}, ErrNoSession
	}
	u, err := s.opts.Store.UserByID(ctx, ss.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return Account{}, ErrNoSession
	}
	if err != nil {
		return Account{}, err
	}
	if now.Sub(ss.SeenAt) > touchEvery {
		ss.SeenAt = now
		if err := s.opts.Store.PutSession(ctx, ss); err != nil {
			return Account{}, err
		}
	}
	a := accountOf(u)
	s.sessions.put(hash, cachedSession{s: ss, a: a, checked: now})
	return a, nil
}

// Logout ends a session on every replica.
func (s *Service) Logout(ctx context.Context, token string) error {
	hash := keys.Hash(token)
	s.sessions.drop(hash)
	ss, err := s.opts.Store.SessionByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.opts.Store.DeleteSession(ctx, ss)
}

// endSessions ends every session of an account but keep's (a token, or
// "" to end them all), on every replica: the others trust their cache
// for at most sessionCacheFor.
func (s *Service) endSessions(ctx context.Context, userID, keep string) error {
	kept := ""
	if keep != "" {
		kept = keys.Hash(keep)
	}
	s.sessions.mu.Lock()
	for h, cs := range s.sessions.m {
		if cs.a.ID == userID && h != kept {
			delete(s.sessions.m, h)
		}
	}
	s.sessions.mu.Unlock()
	all, err := s.opts.Store.UserSessions(ctx, userID)
	if err != nil {
		return err
	}
	for _, ss := range all {
		if ss.Hash != kept {
			if err := s.opts.Store.DeleteSession(ctx, ss); err != nil {
				return err
			}
		}
	}
	return nil
}

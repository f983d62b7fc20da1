package accounts

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/chtest"
	"github.com/otelhouse/otelhouse/internal/keys"
	"github.com/otelhouse/otelhouse/internal/store"
)

// open makes a Service over a fresh state database, with the team and a
// sealed bootstrap personal key as the API's first start leaves them.
func open(t *testing.T, db string) (*Service, *store.Store, string) {
	t.Helper()
	chtest.FreshDatabase(t, db)
	st, err := store.Open(context.Background(), chtest.DB(t), db)
	require.NoError(t, err)
	sealer, err := keys.LoadSealer(filepath.Join(t.TempDir(), keys.SecretFile))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, st.CreateTeam(ctx, "default", "Default"))
	boot := keys.New("ohp_")
	require.NoError(t, st.PutKey(ctx, store.Key{Hash: keys.Hash(boot), TeamID: "default", Kind: keys.Personal, KeyID: keys.Hash(boot)[:12], Sealed: sealer.Seal(boot)}))
	return New(Options{Store: st, Sealer: sealer, Team: "default"}), st, boot
}

func TestFirstAccountOwnsTheTeamAndLaterOnesNeedAnInvitation(t *testing.T) {
	ctx := context.Background()
	s, st, boot := open(t, "accounts_owner_test")
	needs, err := s.NeedsOwner(ctx)
	require.NoError(t, err)
	assert.True(t, needs)

	_, err = s.Register(ctx, "not an email", "long enough", "")
	assert.ErrorAs(t, err, new(InputError))
	_, err = s.Register(ctx, "Owner@Example.com", "short", "")
	assert.ErrorAs(t, err, new(InputError))
	owner, err := s.Register(ctx, " Owner@Example.com ", "long enough password", "")
	require.NoError(t, err)
	assert.Equal(t, Owner, owner.Role)
	assert.Equal(t, "default", owner.TeamID)
	assert.Equal(t, "owner@example.com", owner.Email, "emails are compared lower-cased")

	// The owner took the bootstrap key (api-keys.txt's), and sees it.
	ks, err := s.Keys(ctx, owner)
	require.NoError(t, err)
	require.Len(t, ks.Personal, 1)
	assert.Equal(t, boot, ks.Personal[0].Key)

	_, err = s.Register(ctx, "second@example.com", "long enough password", "")
	assert.ErrorIs(t, err, ErrClosed, "no second account without an invitation")
	_, err = s.Register(ctx, "owner@example.com", "long enough password", "")
	assert.ErrorIs(t, err, ErrEmailTaken)
	_, err = s.Register(ctx, "second@example.com", "long enough password", "inv_forged")
	assert.ErrorIs(t, err, ErrInvitation)

	token, inv, err := s.Invite(ctx, owner, "second@example.com")
	require.NoError(t, err)
	pending, err := s.Invitations(ctx, owner.TeamID)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, inv.ID, pending[0].ID)
	_, err = s.Register(ctx, "third@example.com", "long enough password", token)
	assert.ErrorAs(t, err, new(InputError), "an invitation for one email is for that email")
	member, err := s.Register(ctx, "second@example.com", "long enough password", token)
	require.NoError(t, err)
	assert.Equal(t, Member, member.Role)
	assert.Equal(t, owner.TeamID, member.TeamID)
	_, err = s.Register(ctx, "third@example.com", "long enough password", token)
	assert.ErrorIs(t, err, ErrInvitation, "an invitation works once")

	// The member has a key of its own.
	mk, err := s.Keys(ctx, member)
	require.NoError(t, err)
	require.Len(t, mk.Personal, 1)
	assert.NotEqual(t, boot, mk.Personal[0].Key)

	members, err := s.Members(ctx, owner.TeamID)
	require.NoError(t, err)
	assert.Len(t, members, 2)
	assert.ErrorIs(t, s.RemoveMember(ctx, member, owner.ID), ErrForbidden, "the owner stays")
	require.NoError(t, s.RemoveMember(ctx, owner, member.ID))
	_, _, err = s.Login(ctx, "second@example.com", "long enough password", "10.0.0.1")
	assert.ErrorIs(t, err, ErrBadCredentials)
	_, ok, err := st.KeyCache(keys.Personal).Lookup(ctx, keys.Hash(mk.Personal[0].Key))
	require.NoError(t, err)
	assert.False(t, ok, "a removed member's key stops working")
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	s, _, _ := open(t, "accounts_sessions_test")
	_, err := s.Register(ctx, "a@example.com", "long enough password", "")
	require.NoError(t, err)

	_, _, err = s.Login(ctx, "a@example.com", "wrong password", "10.0.0.1")
	assert.ErrorIs(t, err, ErrBadCredentials)
	_, _, err = s.Login(ctx, "nobody@example.com", "wrong password", "10.0.0.1")
	assert.ErrorIs(t, err, ErrBadCredentials, "an unknown email answers as a wrong password")

	token, a, err := s.Login(ctx, "A@example.com", "long enough password", "10.0.0.1")
	require.NoError(t, err)
	got, err := s.Session(ctx, token)
	require.NoError(t, err)
	assert.Equal(t, a.ID, got.ID)
	_, err = s.Session(ctx, token+"x")
	assert.ErrorIs(t, err, ErrNoSession)

	// Idle past the timeout, then past the lifetime: ended.
	s.sessions.drop(keys.Hash(token))
	s.now = func() time.Time { return time.Now().Add(s.opts.IdleTimeout + time.Minute) }
	_, err = s.Session(ctx, token)
	assert.ErrorIs(t, err, ErrNoSession, "idle too long")
	s.now = time.Now

	require.NoError(t, s.ChangePassword(ctx, a, "long enough password", "a new long password"))
	assert.ErrorAs(t, s.ChangePassword(ctx, a, "wrong", "another long one"), new(InputError))
	_, _, err = s.Login(ctx, "a@example.com", "long enough password", "10.0.0.1")
	assert.ErrorIs(t, err, ErrBadCredentials)
	token2, _, err := s.Login(ctx, "a@example.com", "a new long password", "10.0.0.1")
	require.NoError(t, err)
	require.NoError(t, s.Logout(ctx, token2))
	_, err = s.Session(ctx, token2)
	assert.ErrorIs(t, err, ErrNoSession, "signed out")
}

func TestRotationStopsTheOldKeyAtOnce(t *testing.T) {
	ctx := context.Background()
	s, st, boot := open(t, "accounts_rotate_test")
	ingestion := keys.New("ohi_")
	require.NoError(t, st.PutKey(ctx, store.Key{Hash: keys.Hash(ingestion), TeamID: "default", Kind: keys.Ingestion, KeyID: "i", Sealed: s.opts.Sealer.Seal(ingestion)}))
	configured := "from-otlp-auth-token"
	require.NoError(t, st.PutKey(ctx, store.Key{Hash: keys.Hash(configured), TeamID: "default", Kind: keys.Ingestion, KeyID: "c"}))
	owner, err := s.Register(ctx, "o@example.com", "long enough password", "")
	require.NoError(t, err)

	personal, ingest := st.KeyCache(keys.Personal), st.KeyCache(keys.Ingestion)
	valid := func(c *store.KeyCache, key string) bool {
		_, ok, err := c.Lookup(ctx, keys.Hash(key))
		require.NoError(t, err)
		return ok
	}
	require.True(t, valid(personal, boot))
	require.True(t, valid(ingest, ingestion))

	k, err := s.RotatePersonal(ctx, owner)
	require.NoError(t, err)
	assert.False(t, valid(personal, boot), "the old personal key is refused at once")
	assert.True(t, valid(personal, k.Key))

	ki, err := s.RotateIngestion(ctx, owner)
	require.NoError(t, err)
	assert.False(t, valid(ingest, ingestion))
	assert.True(t, valid(ingest, ki.Key))
	assert.True(t, valid(ingest, configured), "configuration owns its keys")

	ks, err := s.Keys(ctx, owner)
	require.NoError(t, err)
	require.Len(t, ks.Ingestion, 2)
	shown := map[string]Key{}
	for _, k := range ks.Ingestion {
		shown[k.Source] = k
	}
	assert.Equal(t, ki.Key, shown["generated"].Key)
	assert.Empty(t, shown["configured"].Key, "a configured key is never shown")
}

// Failed sign-ins are slowed per email and per address: five are free,
// then each waits twice as long as the one before; a success clears them.
func TestThrottle(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	for i := 0; i < freeFailures; i++ {
		assert.Zero(t, th.wait("email:a", "addr:1"), "attempt %d", i)
		th.fail("email:a", "addr:1")
	}
	assert.Equal(t, time.Second, th.wait("email:a"))
	assert.Equal(t, time.Second, th.wait("email:b", "addr:1"), "the address is slowed for every email")
	assert.Zero(t, th.wait("email:b", "addr:2"))
	th.fail("email:a")
	assert.Equal(t, 2*time.Second, th.wait("email:a"))
	now = now.Add(3 * time.Second)
	assert.Zero(t, th.wait("email:a"))
	for i := 0; i < 40; i++ {
		th.fail("email:a")
	}
	assert.Equal(t, maxWait, th.wait("email:a"), "capped")
	th.clear("email:a")
	assert.Zero(t, th.wait("email:a"))
}

func TestPasswordHash(t *testing.T) {
	h := hashPassword("correct horse")
	assert.Contains(t, h, "$argon2id$v=19$m=19456,t=2,p=1$")
	ok, err := checkPassword(h, "correct horse")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = checkPassword(h, "correct horsE")
	require.NoError(t, err)
	assert.False(t, ok)
	assert.NotEqual(t, h, hashPassword("correct horse"), "salted")
	for _, bad := range []string{"", "$bcrypt$x", "$argon2id$v=19$m=99999999,t=2,p=1$AAAA$AAAA", "$argon2id$v=19$m=1,t=1,p=1$!!$AAAA"} {
		_, err := checkPassword(bad, "x")
		assert.Error(t, err, bad)
	}
}

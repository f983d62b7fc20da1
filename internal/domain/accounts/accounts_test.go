package accounts

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
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

	for _, bad := range []string{"not an email", "a@b", "a@b.", "a@.b"} {
		_, err = s.Register(ctx, bad, "long enough password", "")
		require.ErrorAs(t, err, new(InputError), bad)
	}
	_, err = s.Register(ctx, "Owner@Example.com", "short", "")
	require.ErrorAs(t, err, new(InputError))
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
	require.ErrorIs(t, err, ErrClosed, "no second account without an invitation")
	_, err = s.Register(ctx, "owner@example.com", "long enough password", "")
	require.ErrorIs(t, err, ErrEmailTaken)
	_, err = s.Register(ctx, "second@example.com", "long enough password", "inv_forged")
	require.ErrorIs(t, err, ErrInvitation)

	token, inv, err := s.Invite(ctx, owner, "second@example.com")
	require.NoError(t, err)
	pending, err := s.Invitations(ctx, owner.TeamID)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, inv.ID, pending[0].ID)
	_, err = s.Register(ctx, "third@example.com", "long enough password", token)
	require.ErrorAs(t, err, new(InputError), "an invitation for one email is for that email")
	member, err := s.Register(ctx, "second@example.com", "long enough password", token)
	require.NoError(t, err)
	assert.Equal(t, Member, member.Role)
	assert.Equal(t, owner.TeamID, member.TeamID)
	_, err = s.Register(ctx, "third@example.com", "long enough password", token)
	require.ErrorIs(t, err, ErrInvitation, "an invitation works once")

	// The member has a key of its own.
	mk, err := s.Keys(ctx, member)
	require.NoError(t, err)
	require.Len(t, mk.Personal, 1)
	assert.NotEqual(t, boot, mk.Personal[0].Key)

	members, err := s.Members(ctx, owner.TeamID)
	require.NoError(t, err)
	assert.Len(t, members, 2)
	require.ErrorIs(t, s.RemoveMember(ctx, member, owner.ID), ErrOwnerOnly, "a member removes no one")
	require.ErrorIs(t, s.RemoveMember(ctx, owner, owner.ID), ErrForbidden, "the owner stays")
	require.NoError(t, s.RemoveMember(ctx, owner, member.ID))
	_, err = s.Login(ctx, Attempt{Email: "second@example.com", Password: "long enough password", Addr: "10.0.0.1"})
	require.ErrorIs(t, err, ErrBadCredentials)
	_, ok, err := st.KeyCache(keys.Personal).Lookup(ctx, keys.Hash(mk.Personal[0].Key))
	require.NoError(t, err)
	assert.False(t, ok, "a removed member's key stops working")
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	s, _, _ := open(t, "accounts_sessions_test")
	_, err := s.Register(ctx, "a@example.com", "long enough password", "")
	require.NoError(t, err)

	_, err = s.Login(ctx, Attempt{Email: "a@example.com", Password: "wrong password", Addr: "10.0.0.1"})
	require.ErrorIs(t, err, ErrBadCredentials)
	_, err = s.Login(ctx, Attempt{Email: "nobody@example.com", Password: "wrong password", Addr: "10.0.0.1"})
	require.ErrorIs(t, err, ErrBadCredentials, "an unknown email answers as a wrong password")

	in, err := s.Login(ctx, Attempt{Email: "A@example.com", Password: "long enough password", Addr: "10.0.0.1"})
	require.NoError(t, err)
	token, a := in.Token, in.Account
	got, err := s.Session(ctx, token)
	require.NoError(t, err)
	assert.Equal(t, a.ID, got.ID)
	_, err = s.Session(ctx, token+"x")
	require.ErrorIs(t, err, ErrNoSession)

	// Idle past the timeout, then past the lifetime: ended.
	s.sessions.drop(keys.Hash(token))
	s.now = func() time.Time { return time.Now().Add(s.opts.IdleTimeout + time.Minute) }
	_, err = s.Session(ctx, token)
	require.ErrorIs(t, err, ErrNoSession, "idle too long")
	s.now = time.Now

	require.NoError(t, s.ChangePassword(ctx, a, token, "long enough password", "a new long password"))
	require.ErrorAs(t, s.ChangePassword(ctx, a, token, "wrong", "another long one"), new(InputError))
	_, err = s.Login(ctx, Attempt{Email: "a@example.com", Password: "long enough password", Addr: "10.0.0.1"})
	require.ErrorIs(t, err, ErrBadCredentials)
	in2, err := s.Login(ctx, Attempt{Email: "a@example.com", Password: "a new long password", Addr: "10.0.0.1"})
	require.NoError(t, err)
	token2 := in2.Token
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

// A key's first attempts pass; then each waits twice as long as the one
// before, up to the key's cap; a success forgets the client's own count
// and takes itself back from the shared ones.
func TestThrottle(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	pair, addr := tkey{"pair:a", pairBudget}, tkey{"address:1", budget{free: 5, max: time.Minute}}
	for i := 0; i < pairBudget.free; i++ {
		assert.Zero(t, th.begin(pair, addr), "attempt %d", i)
	}
	assert.Equal(t, time.Second, th.begin(pair))
	assert.Equal(t, time.Second, th.begin(tkey{"pair:b", pairBudget}, addr), "the address is slowed for every email")
	assert.Zero(t, th.begin(tkey{"pair:b", pairBudget}, tkey{"address:2", addressBudget}))
	now = now.Add(time.Second)
	assert.Zero(t, th.begin(pair))
	assert.Equal(t, 2*time.Second, th.begin(pair))
	now = now.Add(3 * time.Second)
	for i := 0; i < 40; i++ {
		now = now.Add(time.Hour - time.Second)
		th.begin(pair)
	}
	assert.Equal(t, pairBudget.max, th.begin(pair), "capped")
	th.succeeded([]string{pair.name}, nil)
	assert.Zero(t, th.begin(pair))

	// A success is taken back from a shared count: the owner signing in
	// every day never spends the address's budget.
	shared := tkey{"account:o", accountBudget}
	for i := 0; i < 3*accountBudget.free; i++ {
		require.Zero(t, th.begin(shared))
		th.succeeded(nil, []string{shared.name})
	}
}

// The message and Retry-After round up: never "try again in 0s".
func TestThrottledErrorRoundsUp(t *testing.T) {
	for wait, want := range map[time.Duration]string{
		time.Millisecond: "1s", 300 * time.Millisecond: "1s", time.Second: "1s", 1001 * time.Millisecond: "2s", 90 * time.Second: "1m30s",
	} {
		e := ThrottledError{Wait: wait}
		assert.Equal(t, "too many failed sign-ins: try again in "+want, e.Error(), wait)
		assert.GreaterOrEqual(t, e.Seconds(), 1)
	}
}

// Issue 41: 300 guesses sent at once got 299 × wrong and 1 × in, since
// each was checked against the count before hashing and counted after.
// Counted when they start, at most the pair's budget reach the hash from
// one address, and at most the account's from many.
func TestParallelGuessesAreCountedWhileInFlight(t *testing.T) {
	ctx := context.Background()
	s, _, _ := open(t, "accounts_parallel_test")
	_, err := s.Register(ctx, "o@example.com", "the right password", "")
	require.NoError(t, err)
	now := time.Now() // the hashes take seconds on a busy machine: the clock stands
	s.throttle.now = func() time.Time { return now }

	guess := func(n int, addr func(i int) string) (wrong, throttled int) {
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, err := s.Login(ctx, Attempt{Email: "o@example.com", Password: fmt.Sprintf("guess %d", i), Addr: addr(i)})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			switch {
			case errors.Is(err, ErrBadCredentials):
				wrong++
			case errors.As(err, new(ThrottledError)):
				throttled++
			default:
				t.Errorf("unexpected %v", err)
			}
		}
		return wrong, throttled
	}
	wrong, throttled := guess(300, func(int) string { return "203.0.113.9" })
	assert.Equal(t, pairBudget.free, wrong, "only the pair's budget is hashed")
	assert.Equal(t, 300-pairBudget.free, throttled)
	_, err = s.Login(ctx, Attempt{Email: "o@example.com", Password: "the right password", Addr: "203.0.113.9"})
	require.ErrorAs(t, err, new(ThrottledError), "the right password from the guesser's address waits too")

	wrong, _ = guess(300, func(i int) string { return fmt.Sprintf("198.51.100.%d", i%250) })
	assert.LessOrEqual(t, wrong, accountBudget.free, "from many addresses, the account's budget bounds them")
}

// A stranger's guesses, from one address or many, neither keep the owner
// out of a browser that signed in before, nor out of a new one at a new
// address for more than a minute.
func TestStrangersCannotLockTheOwnerOut(t *testing.T) {
	ctx := context.Background()
	s, _, _ := open(t, "accounts_lockout_test")
	_, err := s.Register(ctx, "o@example.com", "the right password", "")
	require.NoError(t, err)
	now := time.Now()
	s.throttle.now = func() time.Time { return now }
	before, err := s.Login(ctx, Attempt{Email: "o@example.com", Password: "the right password", Addr: "192.0.2.1"})
	require.NoError(t, err)
	require.NotEmpty(t, before.Device)

	for i := range 3 * accountBudget.free {
		_, _ = s.Login(ctx, Attempt{Email: "o@example.com", Password: "guess", Addr: fmt.Sprintf("198.51.100.%d", i)})
		now = now.Add(time.Second)
	}
	_, err = s.Login(ctx, Attempt{Email: "o@example.com", Password: "guess", Addr: "198.51.100.200"})
	require.ErrorAs(t, err, new(ThrottledError), "the account's budget is spent")

	// The owner's browser, from an address never seen: in at once.
	_, err = s.Login(ctx, Attempt{Email: "o@example.com", Password: "the right password", Addr: "192.0.2.77", Device: before.Device})
	require.NoError(t, err)
	// A device token is the account's only: forged, or another's, it is a
	// stranger's attempt.
	_, err = s.Login(ctx, Attempt{Email: "o@example.com", Password: "the right password", Addr: "192.0.2.78", Device: before.Device + "x"})
	require.ErrorAs(t, err, new(ThrottledError))

	// A new browser at a new address waits at most accountBudget.max.
	var th ThrottledError
	_, err = s.Login(ctx, Attempt{Email: "o@example.com", Password: "the right password", Addr: "192.0.2.79"})
	require.ErrorAs(t, err, &th)
	assert.LessOrEqual(t, th.Wait, accountBudget.max)
	now = now.Add(th.Wait)
	_, err = s.Login(ctx, Attempt{Email: "o@example.com", Password: "the right password", Addr: "192.0.2.79"})
	assert.NoError(t, err)
}

// Issue 41: a password change ends the account's other sessions, and
// keeps the one it came from.
func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	ctx := context.Background()
	s, _, _ := open(t, "accounts_pwchange_test")
	_, err := s.Register(ctx, "o@example.com", "the old password", "")
	require.NoError(t, err)
	here, err := s.Login(ctx, Attempt{Email: "o@example.com", Password: "the old password", Addr: "192.0.2.1"})
	require.NoError(t, err)
	there, err := s.Login(ctx, Attempt{Email: "o@example.com", Password: "the old password", Addr: "198.51.100.1"})
	require.NoError(t, err)
	_, err = s.Session(ctx, there.Token) // cached on this replica
	require.NoError(t, err)

	require.NoError(t, s.ChangePassword(ctx, here.Account, here.Token, "the old password", "the new password"))
	_, err = s.Session(ctx, there.Token)
	require.ErrorIs(t, err, ErrNoSession, "the other session ended")
	_, err = s.Session(ctx, here.Token)
	require.NoError(t, err, "the session the change came from stays")
	// A replica that never cached it reads the store: ended there too.
	other := New(s.opts)
	_, err = other.Session(ctx, there.Token)
	require.ErrorIs(t, err, ErrNoSession)
	_, err = other.Session(ctx, here.Token)
	assert.NoError(t, err)
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

// Package accounts is the web UI's people: accounts and their passwords,
// server-side sessions, invitations into a team, and the API keys each
// person may see and rotate. Its state lives in the API's store, so every
// replica shares it, and keys are the same rows the REST API and the
// ingestion authenticator check.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/otelhouse/otelhouse/internal/keys"
	"github.com/otelhouse/otelhouse/internal/store"
)

// Roles of an account in its team.
const (
	Owner  = "owner"
	Member = "member"
)

// Errors a caller shows the person (all other errors are the server's).
var (
	ErrBadCredentials = errors.New("wrong email or password")
	ErrClosed         = errors.New("this install already has an owner: ask a member for an invitation link")
	ErrInvitation     = errors.New("the invitation link is invalid, used or expired")
	ErrEmailTaken     = errors.New("an account with this email exists")
	ErrNoSession      = errors.New("not signed in, or the session expired")
	ErrForbidden      = errors.New("not allowed")
)

// InputError is a request the person must correct (a weak password, a
// malformed email).
type InputError struct{ msg string }

func (e InputError) Error() string { return e.msg }

// ThrottledError says how long to wait before the next login attempt.
type ThrottledError struct{ Wait time.Duration }

func (e ThrottledError) Error() string {
	return fmt.Sprintf("too many failed sign-ins: try again in %s", e.Wait.Round(time.Second))
}

// Options configure a Service.
type Options struct {
	Store  *store.Store
	Sealer *keys.Sealer
	// Team is the team the first account owns (the API bootstrap's).
	Team string
	// SessionLifetime ends a session this long after sign-in;
	// IdleTimeout ends it after this long without a request.
	SessionLifetime, IdleTimeout time.Duration
	// InvitationLifetime is how long an invitation link works.
	InvitationLifetime time.Duration
}

// Service is the accounts of one store.
type Service struct {
	opts     Options
	throttle *throttle
	// registering serialises the owner check and the write of the first
	// account on this replica.
	registering sync.Mutex
	sessions    sessionCache
	now         func() time.Time
}

// New makes a Service; zero durations take the defaults (30 days, 7 days
// idle, 7-day invitations).
func New(opts Options) *Service {
	if opts.SessionLifetime <= 0 {
		opts.SessionLifetime = 30 * 24 * time.Hour
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 7 * 24 * time.Hour
	}
	if opts.InvitationLifetime <= 0 {
		opts.InvitationLifetime = 7 * 24 * time.Hour
	}
	return &Service{opts: opts, throttle: newThrottle(), sessions: sessionCache{m: map[string]cachedSession{}}, now: time.Now}
}

// Account is what the UI shows of a person.
type Account struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	TeamID    string    `json:"teamId"`
	CreatedAt time.Time `json:"createdAt"`
}

func accountOf(u store.User) Account {
	return Account{ID: u.ID, Email: u.Email, Role: u.Role, TeamID: u.TeamID, CreatedAt: u.CreatedAt}
}

// NeedsOwner tells whether no account exists yet: the UI then offers
// "Create account" without an invitation.
func (s *Service) NeedsOwner(ctx context.Context) (bool, error) {
	n, err := s.opts.Store.UserCount(ctx)
	return n == 0, err
}

func normalEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || len(e) > 254 {
		return "", InputError{"enter an email address such as you@example.com"}
	}
	return e, nil
}

// checkNewPassword follows NIST SP 800-63B: a length floor, no
// composition rules, a ceiling only against abuse of the hash.
func checkNewPassword(pw, email string) error {
	switch {
	case len([]rune(pw)) < 8:
		return InputError{"the password needs at least 8 characters"}
	case len(pw) > 256:
		return InputError{"the password may have at most 256 bytes"}
	case strings.EqualFold(pw, email):
		return InputError{"the password may not be the email address"}
	}
	return nil
}

// Register creates an account: the first one owns the default team and
// needs no invitation; every later one needs a valid invitation token,
// and joins that invitation's team.
func (s *Service) Register(ctx context.Context, email, password, invitation string) (Account, error) {
	email, err := normalEmail(email)
	if err != nil {
		return Account{}, err
	}
	if err := checkNewPassword(password, email); err != nil {
		return Account{}, err
	}
	s.registering.Lock()
	defer s.registering.Unlock()
	if _, err := s.opts.Store.UserByEmail(ctx, email); err == nil {
		return Account{}, ErrEmailTaken
	} else if !errors.Is(err, store.ErrNotFound) {
		return Account{}, err
	}
	u := store.User{ID: keys.New("")[:24], Email: email, CreatedAt: s.now().UTC().Truncate(time.Millisecond)}
	var inv store.Invitation
	if invitation == "" {
		first, err := s.NeedsOwner(ctx)
		if err != nil {
			return Account{}, err
		}
		if !first {
			return Account{}, ErrClosed
		}
		u.TeamID, u.Role = s.opts.Team, Owner
	} else {
		inv, err = s.opts.Store.InvitationByHash(ctx, keys.Hash(invitation))
		if errors.Is(err, store.ErrNotFound) || err == nil && s.now().After(inv.ExpiresAt) {
			return Account{}, ErrInvitation
		}
		if err != nil {
			return Account{}, err
		}
		if inv.Email != "" && inv.Email != email {
			return Account{}, InputError{"this invitation is for " + inv.Email}
		}
		u.TeamID, u.Role = inv.TeamID, Member
	}
	u.PasswordHash = hashPassword(password)
	if err := s.opts.Store.PutUser(ctx, u); err != nil {
		return Account{}, err
	}
	if inv.Hash != "" {
		if err := s.opts.Store.DeleteInvitation(ctx, inv); err != nil {
			return Account{}, err
		}
	}
	if err := s.givePersonalKey(ctx, u); err != nil {
		return Account{}, err
	}
	return accountOf(u), nil
}

// Login checks a password and opens a session; it answers the session
// token for the cookie. Repeated failures for the email or from the
// client address are slowed (ThrottledError).
func (s *Service) Login(ctx context.Context, email, password, clientAddr string) (string, Account, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	tk := []string{"email:" + email, "addr:" + clientAddr}
	if wait := s.throttle.wait(tk...); wait > 0 {
		return "", Account{}, ThrottledError{Wait: wait}
	}
	u, err := s.opts.Store.UserByEmail(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", Account{}, err
	}
	phc := u.PasswordHash
	if phc == "" {
		phc = dummyHash
	}
	ok, err := checkPassword(phc, password)
	if err != nil {
		return "", Account{}, err
	}
	if !ok || u.ID == "" {
		s.throttle.fail(tk...)
		return "", Account{}, ErrBadCredentials
	}
	s.throttle.clear(tk...)
	token, err := s.openSession(ctx, u)
	return token, accountOf(u), err
}

// ChangePassword sets a new password after checking the current one.
func (s *Service) ChangePassword(ctx context.Context, a Account, current, next string) error {
	u, err := s.opts.Store.UserByID(ctx, a.ID)
	if err != nil {
		return err
	}
	ok, err := checkPassword(u.PasswordHash, current)
	if err != nil {
		return err
	}
	if !ok {
		return InputError{"the current password is wrong"}
	}
	if err := checkNewPassword(next, u.Email); err != nil {
		return err
	}
	u.PasswordHash = hashPassword(next)
	return s.opts.Store.PutUser(ctx, u)
}

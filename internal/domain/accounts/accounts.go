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

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
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
	// ErrOwnerOnly: the team's people and its ingestion keys are the
	// owner's to change (a member searches, builds and alerts).
	ErrOwnerOnly = errors.New("only the team's owner may invite people, remove members or change the team's ingestion keys")
)

// ManagesTeam tells whether an account of this role may invite people,
// remove members and rotate or revoke the team's ingestion keys: only the
// owner. A member may search, build dashboards, save searches and set
// alerts, and see and rotate its own personal key.
func ManagesTeam(role string) bool { return role == Owner }

// InputError is a request the person must correct (a weak password, a
// malformed email).
type InputError struct{ msg string }

func (e InputError) Error() string { return e.msg }

// ThrottledError says how long to wait before the next login attempt.
type ThrottledError struct{ Wait time.Duration }

func (e ThrottledError) Error() string {
	return fmt.Sprintf("too many failed sign-ins: try again in %s", time.Duration(e.Seconds())*time.Second)
}

// Seconds is the wait in whole seconds, rounded up and at least 1: the
// person is never told to try again in 0 s (Retry-After says the same).
func (e ThrottledError) Seconds() int {
	return max(1, int((e.Wait+time.Second-1)/time.Second))
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
	// inviting serialises invitations on this replica, so that one email
	// invited twice at once keeps one invitation.
	inviting sync.Mutex
	sessions sessionCache
	now      func() time.Time
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

// ByID reads an account (store.ErrNotFound when there is none): the REST
// API acts for the account a personal key or a session belongs to.
func (s *Service) ByID(ctx context.Context, id string) (Account, error) {
	u, err := s.opts.Store.UserByID(ctx, id)
	if err != nil {
		return Account{}, err
	}
	return accountOf(u), nil
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
	// RFC 5322 takes a@b, but no address a person reaches has a domain
	// without a dot: such a typo would make an account no invitation or
	// reset can ever reach.
	domain := e[strings.LastIndexByte(e, '@')+1:]
	if err != nil || a.Address != e || len(e) > 254 || !strings.Contains(strings.Trim(domain, "."), ".") {
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

// Attempt is one sign-in: the credentials, the client's address, and
// the device token of the browser ("" when it has none).
type Attempt struct {
	Email, Password string
	Addr, Device    string
}

// SignedIn is a successful sign-in: the session token for the cookie,
// the device token the browser keeps (deviceToken), and the account.
type SignedIn struct {
	Token, Device string
	Account       Account
}

// Login checks a password and opens a session. Attempts are counted when
// they start (throttle), against the account from this address, this
// address at any account, and the account from any address; a browser
// that signed in to the account before (its device token) is counted on
// its own instead, so a stranger's guesses cannot keep the owner out of
// it. A spent count answers ThrottledError.
func (s *Service) Login(ctx context.Context, at Attempt) (SignedIn, error) {
	email := strings.ToLower(strings.TrimSpace(at.Email))
	var mine, shared []tkey
	if device, ok := s.deviceOf(at.Device, email); ok {
		mine = []tkey{{"device:" + device, deviceBudget}}
	} else {
		mine = []tkey{{"pair:" + email + "\n" + at.Addr, pairBudget}}
		shared = []tkey{{"address:" + at.Addr, addressBudget}, {"account:" + email, accountBudget}}
	}
	if wait := s.throttle.begin(append(mine, shared...)...); wait > 0 {
		return SignedIn{}, ThrottledError{Wait: wait}
	}
	u, err := s.opts.Store.UserByEmail(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return SignedIn{}, err
	}
	phc := u.PasswordHash
	if phc == "" {
		phc = dummyHash
	}
	ok, err := checkPassword(phc, at.Password)
	if err != nil {
		return SignedIn{}, err
	}
	if !ok || u.ID == "" {
		return SignedIn{}, ErrBadCredentials // already counted
	}
	s.throttle.succeeded(names(mine), names(shared))
	token, err := s.openSession(ctx, u)
	if err != nil {
		return SignedIn{}, err
	}
	return SignedIn{Token: token, Device: s.deviceToken(email), Account: accountOf(u)}, nil
}

func names(ks []tkey) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.name
	}
	return out
}

// deviceToken marks a browser that signed in to an account: a random id
// and, sealed with the install's secret, the id and the email, so that
// no one without the secret can make one, and one made for an account
// says nothing about another.
func (s *Service) deviceToken(email string) string {
	if s.opts.Sealer == nil {
		return ""
	}
	id := keys.New("")[:24]
	return id + "." + s.opts.Sealer.Seal(id+"\n"+email)
}

// deviceOf answers the id of a device token made for email.
func (s *Service) deviceOf(token, email string) (string, bool) {
	id, sealed, ok := strings.Cut(token, ".")
	if !ok || id == "" || s.opts.Sealer == nil {
		return "", false
	}
	plain, err := s.opts.Sealer.Open(sealed, keys.Hash(id+"\n"+email))
	return id, err == nil && plain == id+"\n"+email
}

// ChangePassword sets a new password after checking the current one, and
// ends the account's other sessions (keeping keep, the session the
// change came from): whoever learnt the old password and signed in with
// it is signed out. A wrong current password is counted as a failed
// sign-in of the account from that session.
func (s *Service) ChangePassword(ctx context.Context, a Account, keep, current, next string) error {
	u, err := s.opts.Store.UserByID(ctx, a.ID)
	if err != nil {
		return err
	}
	k := tkey{"change:" + a.ID, pairBudget}
	if wait := s.throttle.begin(k); wait > 0 {
		return ThrottledError{Wait: wait}
	}
	ok, err := checkPassword(u.PasswordHash, current)
	if err != nil {
		return err
	}
	if !ok {
		return InputError{"the current password is wrong"}
	}
	s.throttle.succeeded([]string{k.name}, nil)
	if err := checkNewPassword(next, u.Email); err != nil {
		return err
	}
	u.PasswordHash = hashPassword(next)
	if err := s.opts.Store.PutUser(ctx, u); err != nil {
		return err
	}
	return s.endSessions(ctx, u.ID, keep)
}

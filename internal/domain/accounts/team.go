package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Invitation is an open invitation as the team sees it (never its token).
type Invitation struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	CreatedBy string    `json:"createdBy"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Members lists the team's accounts.
func (s *Service) Members(ctx context.Context, team string) ([]Account, error) {
	users, err := s.opts.Store.TeamUsers(ctx, team)
	if err != nil {
		return nil, err
	}
	out := make([]Account, 0, len(users))
	for _, u := range users {
		out = append(out, accountOf(u))
	}
	return out, nil
}

// Invite makes an invitation into the inviter's team, for one email or
// (email empty) anyone holding the link; it answers the token, which the
// link carries and which is never stored.
func (s *Service) Invite(ctx context.Context, by Account, email string) (string, Invitation, error) {
	if !ManagesTeam(by.Role) {
		return "", Invitation{}, ErrOwnerOnly
	}
	if email != "" {
		var err error
		if email, err = normalEmail(email); err != nil {
			return "", Invitation{}, err
		}
		if _, err := s.opts.Store.UserByEmail(ctx, email); err == nil {
			return "", Invitation{}, ErrEmailTaken
		}
	}
	s.inviting.Lock()
	defer s.inviting.Unlock()
	token := keys.New("inv_")
	now := s.now().UTC().Truncate(time.Millisecond)
	in := store.Invitation{
		Hash: keys.Hash(token), ID: keys.Hash(token)[:16], TeamID: by.TeamID, Email: email, CreatedBy: by.Email,
		CreatedAt: now, ExpiresAt: now.Add(s.opts.InvitationLifetime),
	}
	// An email already invited keeps its one invitation (as HyperDX's):
	// it gets a fresh link and lifetime, and the old link stops working.
	if email != "" {
		open, err := s.opts.Store.TeamInvitations(ctx, by.TeamID)
		if err != nil {
			return "", Invitation{}, err
		}
		for _, old := range open {
			if old.Email == email && now.Before(old.ExpiresAt) {
				if err := s.opts.Store.DeleteInvitation(ctx, old); err != nil {
					return "", Invitation{}, err
				}
				in.ID = old.ID
			}
		}
	}
	if err := s.opts.Store.PutInvitation(ctx, in); err != nil {
		return "", Invitation{}, err
	}
	return token, invitationOf(in), nil
}

func invitationOf(in store.Invitation) Invitation {
	return Invitation{ID: in.ID, Email: in.Email, CreatedBy: in.CreatedBy, CreatedAt: in.CreatedAt, ExpiresAt: in.ExpiresAt}
}

// Invitations lists the team's unexpired invitations.
func (s *Service) Invitations(ctx context.Context, team string) ([]Invitation, error) {
	all, err := s.opts.Store.TeamInvitations(ctx, team)
	if err != nil {
		return nil, err
	}
	out := []Invitation{}
	for _, in := range all {
		if s.now().Before(in.ExpiresAt) {
			out = append(out, invitationOf(in))
		}
	}
	return out, nil
}

// RevokeInvitation retires one of the actor's team's invitations.
func (s *Service) RevokeInvitation(ctx context.Context, actor Account, id string) error {
	if !ManagesTeam(actor.Role) {
		return ErrOwnerOnly
	}
	all, err := s.opts.Store.TeamInvitations(ctx, actor.TeamID)
	if err != nil {
		return err
	}
	for _, in := range all {
		if in.ID == id {
			return s.opts.Store.DeleteInvitation(ctx, in)
		}
	}
	return store.ErrNotFound
}

// RemoveMember removes an account of the actor's team, with its personal
// keys and (through the session check) its sessions. Only the owner
// removes; the owner cannot be removed, nor can one remove oneself.
func (s *Service) RemoveMember(ctx context.Context, actor Account, id string) error {
	if !ManagesTeam(actor.Role) {
		return ErrOwnerOnly
	}
	u, err := s.opts.Store.UserByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && u.TeamID != actor.TeamID {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	if u.Role == Owner || u.ID == actor.ID {
		return ErrForbidden
	}
	ks, err := s.opts.Store.TeamKeys(ctx, u.TeamID, keys.Personal)
	if err != nil {
		return err
	}
	for _, k := range ks {
		if k.UserID == u.ID {
			if err := s.opts.Store.DeleteKey(ctx, k); err != nil {
				return err
			}
		}
	}
	s.sessions.mu.Lock()
	clear(s.sessions.m)
	s.sessions.mu.Unlock()
	return s.opts.Store.DeleteUser(ctx, u)
}

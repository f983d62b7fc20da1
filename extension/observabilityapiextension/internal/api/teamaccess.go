package api

import (
	"errors"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/domain/accounts"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Team Settings over REST: the keys an account sees, the team's
// invitations and members. The web UI's team page calls these with its
// session; a script calls them with the account's personal key. The paths
// are HyperDX's (POST /team/invitation, DELETE /team/member/:id).

// actor is the account the request acts for: the personal key's owner or
// the session's. A bootstrap key no account has taken yet acts for no
// one, so the account-scoped endpoints refuse it.
func (s *Server) actor(r *http.Request) (accounts.Account, *result) {
	caller, _ := r.Context().Value(callerKey{}).(store.Key)
	if caller.UserID == "" {
		res := fail(http.StatusForbidden, "this key belongs to no account yet: sign in to the UI once to take it, or use your personal key")
		return accounts.Account{}, &res
	}
	a, err := s.accounts.ByID(r.Context(), caller.UserID)
	if err != nil {
		res := failed("user", err)
		return a, &res
	}
	return a, nil
}

// accountFailed answers an accounts error with the status it means.
func accountFailed(kind string, err error) result {
	var in accounts.InputError
	switch {
	case errors.As(err, &in):
		return fail(http.StatusBadRequest, err.Error())
	case errors.Is(err, accounts.ErrOwnerOnly), errors.Is(err, accounts.ErrForbidden):
		return fail(http.StatusForbidden, err.Error())
	case errors.Is(err, accounts.ErrEmailTaken):
		return fail(http.StatusConflict, err.Error())
	}
	return failed(kind, err)
}

// keysHandler answers GET /api/v2/keys: the caller's personal keys and the
// team's ingestion keys, each shown in full to the account it belongs to.
func (s *Server) keysHandler(r *http.Request) result {
	a, res := s.actor(r)
	if res != nil {
		return *res
	}
	k, err := s.accounts.Keys(r.Context(), a)
	if err != nil {
		return failed("", err)
	}
	return ok(http.StatusOK, k, nil)
}

// invitations answers GET /api/v2/team/invitations: the open ones.
func (s *Server) invitations(r *http.Request) result {
	l, err := s.accounts.Invitations(r.Context(), teamOf(r.Context()))
	if err != nil {
		return failed("", err)
	}
	return ok(http.StatusOK, l, nil)
}

// invite answers POST /api/v2/team/invitation ({"email": …}, or none for
// a link anyone may use): the invitation and the UI paths that accept it.
// An email already invited keeps its invitation, with a fresh link.
func (s *Server) invite(r *http.Request) result {
	a, res := s.actor(r)
	if res != nil {
		return *res
	}
	var in struct {
		Email string `json:"email"`
	}
	if body, err := readJSON(r, MaxBody); err != nil {
		return failed("", err)
	} else if err := decodeStrict(body, &in); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	token, inv, err := s.accounts.Invite(r.Context(), a, in.Email)
	if errors.Is(err, accounts.ErrEmailTaken) {
		return fail(http.StatusBadRequest, err.Error()) // HyperDX's status for it
	}
	if err != nil {
		return accountFailed("invitation", err)
	}
	// HyperDX's fields (invitationId, status, url) beside the invitation;
	// path carries the token in the fragment, which browsers never send.
	return ok(http.StatusCreated, map[string]any{
		"invitationId": inv.ID, "email": inv.Email, "status": "pending",
		"url": "/join-team?token=" + token, "invitation": inv, "path": "/join#" + token,
	}, nil)
}

// revokeInvitation answers DELETE /api/v2/team/invitation/{id}.
func (s *Server) revokeInvitation(r *http.Request) result {
	a, res := s.actor(r)
	if res != nil {
		return *res
	}
	if err := s.accounts.RevokeInvitation(r.Context(), a, r.PathValue("id")); err != nil {
		return accountFailed("invitation", err)
	}
	return ok(http.StatusOK, map[string]any{"id": r.PathValue("id"), "revoked": true}, nil)
}

// removeMember answers DELETE /api/v2/team/member/{id}: the account and
// its keys and sessions go.
func (s *Server) removeMember(r *http.Request) result {
	a, res := s.actor(r)
	if res != nil {
		return *res
	}
	if err := s.accounts.RemoveMember(r.Context(), a, r.PathValue("id")); err != nil {
		return accountFailed("member", err)
	}
	return ok(http.StatusOK, map[string]any{"id": r.PathValue("id"), "removed": true}, nil)
}

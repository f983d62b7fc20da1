package api

import (
	"errors"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/domain/accounts"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// rotatePersonal replaces the key the request came with by a new one (the
// same account's), and answers it: the old key is refused at once on
// this replica and within seconds on the others. A session (the UI)
// came with no key: the account's personal keys are all replaced.
func (s *Server) rotatePersonal(r *http.Request) result {
	caller, _ := r.Context().Value(callerKey{}).(store.Key)
	old := func(k store.Key) bool { return k.Hash == caller.Hash }
	if caller.Hash == "" {
		old = func(k store.Key) bool { return k.UserID == caller.UserID }
	}
	k, err := s.accounts.Rotate(r.Context(), caller.TeamID, caller.UserID, keys.Personal, old)
	if err != nil {
		return failed("", err)
	}
	return ok(http.StatusCreated, k, nil)
}

// managesTeam refuses a caller whose key belongs to an account that may
// not change the team's ingestion keys (a member's: accounts.ManagesTeam).
// The bootstrap key no account has taken yet is the operator's.
func (s *Server) managesTeam(r *http.Request) (result, bool) {
	caller, _ := r.Context().Value(callerKey{}).(store.Key)
	if caller.UserID == "" {
		return result{}, true
	}
	u, err := s.opts.Store.UserByID(r.Context(), caller.UserID)
	if err != nil {
		return failed("", err), false
	}
	if !accounts.ManagesTeam(u.Role) {
		return fail(http.StatusForbidden, accounts.ErrOwnerOnly.Error()), false
	}
	return result{}, true
}

// rotateIngestion replaces the team's generated ingestion keys by a new
// one; keys from configuration stay. Only the owner rotates.
func (s *Server) rotateIngestion(r *http.Request) result {
	if res, ok := s.managesTeam(r); !ok {
		return res
	}
	k, err := s.accounts.Rotate(r.Context(), teamOf(r.Context()), "", keys.Ingestion, func(k store.Key) bool { return k.Sealed != "" })
	if err != nil {
		return failed("", err)
	}
	return ok(http.StatusCreated, k, nil)
}

// revokeIngestion revokes one generated ingestion key by its id (the
// owner's to do).
func (s *Server) revokeIngestion(r *http.Request) result {
	if res, ok := s.managesTeam(r); !ok {
		return res
	}
	err := s.accounts.RevokeIngestion(r.Context(), teamOf(r.Context()), r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fail(http.StatusNotFound, "ingestion key not found")
	case errors.Is(err, accounts.ErrConfiguredKey):
		return fail(http.StatusConflict, err.Error())
	case err != nil:
		return failed("", err)
	default:
		return ok(http.StatusOK, map[string]any{"id": r.PathValue("id"), "revoked": true}, nil)
	}
}

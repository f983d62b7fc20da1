package api

import (
	"errors"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/accounts"
	"github.com/otelhouse/otelhouse/internal/keys"
	"github.com/otelhouse/otelhouse/internal/store"
)

// rotatePersonal replaces the key the request came with by a new one (the
// same account's), and answers it: the old key is refused at once on
// this replica and within seconds on the others.
func (s *Server) rotatePersonal(r *http.Request) result {
	caller, _ := r.Context().Value(callerKey{}).(store.Key)
	k, err := s.accounts.Rotate(r.Context(), caller.TeamID, caller.UserID, keys.Personal, func(k store.Key) bool { return k.Hash == caller.Hash })
	if err != nil {
		return failed("", err)
	}
	return ok(http.StatusCreated, k, nil)
}

// rotateIngestion replaces the team's generated ingestion keys by a new
// one; keys from configuration stay.
func (s *Server) rotateIngestion(r *http.Request) result {
	k, err := s.accounts.Rotate(r.Context(), teamOf(r.Context()), "", keys.Ingestion, func(k store.Key) bool { return k.Sealed != "" })
	if err != nil {
		return failed("", err)
	}
	return ok(http.StatusCreated, k, nil)
}

// revokeIngestion revokes one generated ingestion key by its id.
func (s *Server) revokeIngestion(r *http.Request) result {
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

package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// keyOwner is who a personal key belongs to, as GET /api/v2 shows it.
// A bootstrap key no account has taken yet has only its team.
type keyOwner struct {
	// MongoID is the account's id under the name HyperDX answers it.
	MongoID   string     `json:"_id,omitempty"`
	ID        string     `json:"id,omitempty"`
	Email     string     `json:"email,omitempty"`
	Role      string     `json:"role,omitempty"`
	Team      string     `json:"team"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
}

// whoami answers GET /api/v2 as HyperDX does: the API version and the
// owner of the key the request came with (never the key itself).
func (s *Server) whoami(r *http.Request) result {
	caller, _ := r.Context().Value(callerKey{}).(store.Key)
	owner := keyOwner{Team: caller.TeamID}
	if caller.UserID != "" {
		u, err := s.opts.Store.UserByID(r.Context(), caller.UserID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return failed("", err)
		}
		if err == nil {
			owner.MongoID, owner.ID, owner.Email, owner.Role, owner.CreatedAt = u.ID, u.ID, u.Email, u.Role, &u.CreatedAt
		}
	}
	return result{raw: true, data: map[string]any{"version": "v2", "user": owner}}
}

// teamInfo is GET /api/v2/team's answer, as HyperDX's.
type teamInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// team answers GET /api/v2/team: the caller's team.
func (s *Server) team(r *http.Request) result {
	t, err := s.opts.Store.TeamByID(r.Context(), teamOf(r.Context()))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fail(http.StatusNotFound, "team not found")
	case err != nil:
		return failed("", err)
	default:
		return ok(http.StatusOK, teamInfo{ID: t.ID, Name: t.Name}, nil)
	}
}

// member is one account of GET /api/v2/team/members, as HyperDX lists it.
type member struct {
	ID            string `json:"id"`
	Email         string `json:"email"`
	Role          string `json:"role"`
	IsCurrentUser bool   `json:"isCurrentUser"`
}

// teamMembers answers GET /api/v2/team/members: the team's accounts.
func (s *Server) teamMembers(r *http.Request) result {
	caller, _ := r.Context().Value(callerKey{}).(store.Key)
	users, err := s.opts.Store.TeamUsers(r.Context(), teamOf(r.Context()))
	if err != nil {
		return failed("", err)
	}
	out := make([]member, 0, len(users))
	for _, u := range users {
		out = append(out, member{ID: u.ID, Email: u.Email, Role: u.Role, IsCurrentUser: u.ID == caller.UserID})
	}
	return ok(http.StatusOK, out, nil)
}

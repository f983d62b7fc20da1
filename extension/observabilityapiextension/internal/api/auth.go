package api

import (
	"context"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
)

type teamKey struct{}

// formKey holds the form a request came in: paging and list envelopes
// differ between them.
type formKey struct{}

func formOf(ctx context.Context) form { f, _ := ctx.Value(formKey{}).(form); return f }

// callerKey holds the personal key a self-hosted request came with.
type callerKey struct{}

func teamOf(ctx context.Context) string { return ctx.Value(teamKey{}).(string) }

// guard authenticates the caller for the form and checks a cloud form's
// organization and service.
func (s *Server) guard(f form, next endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var team, identity string
		switch f {
		case managed, clickstack:
			if r.PathValue("org") != s.opts.OrganizationID || r.PathValue("svc") != s.opts.ServiceID || s.opts.OrganizationID == "" {
				writeFail(w, f, http.StatusNotFound, "organization or service not found")
				return
			}
			id, secret, ok := r.BasicAuth()
			for _, k := range s.opts.ManagedKeys {
				if ok && keys.Equal(id, k.ID) && keys.Equal(secret, k.Secret) {
					team, identity = k.TeamID, "managed:"+k.ID
				}
			}
		default:
			const prefix = "Bearer "
			h := r.Header.Get("Authorization")
			if len(h) > len(prefix) && h[:len(prefix)] == prefix {
				k, ok, err := s.personal.Lookup(r.Context(), keys.Hash(h[len(prefix):]))
				if err != nil {
					s.answer(w, r, f, failed("", err))
					return
				}
				if ok {
					team, identity = k.TeamID, "personal:"+k.Hash
					r = r.WithContext(context.WithValue(r.Context(), callerKey{}, k))
				}
			}
		}
		if team == "" {
			if s.opts.OnAuthFailure != nil {
				s.opts.OnAuthFailure(r, "missing or invalid API key")
			}
			writeFail(w, f, http.StatusUnauthorized, "missing or invalid API key")
			return
		}
		if !s.limits.allow(w, f, identity) {
			return
		}
		ctx := context.WithValue(context.WithValue(r.Context(), teamKey{}, team), formKey{}, f)
		s.answer(w, r, f, next(r.WithContext(ctx)))
	})
}

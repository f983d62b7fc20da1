package api

import (
	"context"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Session serves the self-hosted /api/v2 routes the web UI manages
// resources through, to a caller its door has already authenticated
// (apistate.WithCaller: the session cookie, checked by the UI). The
// endpoints, checks, limits and answers are the ones scripts get with a
// Bearer key; only how the team is known differs. A request without a
// caller in its context is refused, whatever its headers say.
func (s *Server) Session() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.selfRoutes {
		mux.Handle(rt.pattern, s.sessionGuard(rt.ep))
	}
	mux.Handle("/api/v2/", s.sessionGuard(func(*http.Request) result {
		return fail(http.StatusNotFound, "no such endpoint")
	}))
	return mux
}

// sessionGuard is guard for a caller another door authenticated: the
// same team context and the same rate limit, counted per session
// identity.
func (s *Server) sessionGuard(next endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := apistate.CallerOf(r.Context())
		if !ok {
			writeFail(w, selfHosted, http.StatusUnauthorized, "not signed in")
			return
		}
		if !s.limits.allow(w, selfHosted, "session:"+c.Identity) {
			return
		}
		ctx := context.WithValue(context.WithValue(r.Context(), teamKey{}, c.Team), formKey{}, selfHosted)
		// The session's account stands where a personal key's owner would.
		ctx = context.WithValue(ctx, callerKey{}, store.Key{TeamID: c.Team, UserID: c.Identity})
		s.answer(w, r, selfHosted, next(r.WithContext(ctx)))
	})
}

package api

import (
	"context"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
)

// Session serves the self-hosted /api/v2 routes the web UI manages
// resources through, to a caller its door has already authenticated
// (apistate.WithCaller: the session cookie, checked by the UI). The
// endpoints, checks, limits and answers are the ones scripts get with a
// Bearer key; only how the team is known differs. A request without a
// caller in its context is refused, whatever its headers say.
func (s *Server) Session() http.Handler {
	mux := http.NewServeMux()
	const base = "/api/v2/"
	for _, r := range []struct {
		path string
		kind string
	}{
		{"dashboards", kindDashboard},
		{"alerts", kindAlert},
		{"webhooks", kindWebhook},
		{"saved-searches", kindSaved},
	} {
		mux.Handle("GET "+base+r.path, s.sessionGuard(s.list(r.kind)))
		mux.Handle("POST "+base+r.path, s.sessionGuard(s.create(r.kind)))
		mux.Handle("GET "+base+r.path+"/{id}", s.sessionGuard(s.get(r.kind)))
		mux.Handle("PUT "+base+r.path+"/{id}", s.sessionGuard(s.update(r.kind)))
		mux.Handle("DELETE "+base+r.path+"/{id}", s.sessionGuard(s.remove(r.kind)))
	}
	mux.Handle("GET "+base+"sources", s.sessionGuard(s.list(kindSource)))
	mux.Handle("POST "+base+"charts/series", s.sessionGuard(s.chartSeriesHandler))
	mux.Handle("GET "+base+"alerts/{id}/history", s.sessionGuard(s.historyHandler))
	mux.Handle(base, s.sessionGuard(func(*http.Request) result {
		return fail(http.StatusNotFound, "no such endpoint for a browser session")
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
		s.answer(w, r, selfHosted, next(r.WithContext(ctx)))
	})
}

package webuiextension

import "net/http"

// routes is every path the UI serves: the REST API's /api/v2 for the
// signed-in browser (apiV2), the account endpoints that have no REST
// counterpart (sign-up, sign-in, sign-out, password) under /api/ (an
// unknown one is a JSON 404), and the app for everything else.
func (u *webUI) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range []struct {
		pattern  string
		signedIn bool
		ep       endpoint
	}{
		{"GET /api/status", false, u.status},
		{"POST /api/register", false, u.register},
		{"POST /api/login", false, u.login},
		{"POST /api/logout", false, u.logout},
		{"GET /api/me", true, u.me},
		{"POST /api/me/password", true, u.changePassword},
	} {
		mux.Handle(rt.pattern, u.serve(rt.signedIn, rt.ep))
	}
	mux.Handle("/api/v2/", u.apiV2())
	mux.Handle("/api/", u.serve(false, func(*http.Request, *call) (any, error) {
		return nil, httpError{http.StatusNotFound, "no such endpoint"}
	}))
	mux.Handle("/", u.assets)
	u.hosts = newHostGuard(u.cfg.ServerConfig.NetAddr.Endpoint, u.cfg.AllowedHosts)
	return securityHeaders(u.hosts.check(mux))
}

// securityHeaders keeps the app in its own origin: its own scripts and
// styles only (uPlot sets inline style attributes), never framed, no
// referrer (an invitation link's token stays in the fragment anyway).
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

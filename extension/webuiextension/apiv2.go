package webuiextension

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"

	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
)

// apiV2 is the REST API's /api/v2 for the signed-in browser: one front
// door. The session cookie (and on writes the CSRF header) stands for the
// Bearer key; what runs is the API's own handler (apistate.State.API), so
// a dashboard, alert or webhook made here is checked, stored and answered
// exactly as one made with curl.
func (u *webUI) apiV2() http.Handler {
	// A page of search rows is mostly repeated keys: compressed, a tenth.
	return gzhttp.GzipHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		st, acc := u.state()
		if st == nil || st.API == nil {
			w.Header().Set("Retry-After", "1")
			u.write(w, r, http.StatusServiceUnavailable, map[string]any{"message": "starting: the API's storage is not reachable yet"})
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := u.sameOrigin(r); err != nil {
				u.fail(w, r, err)
				return
			}
		}
		ck, err := r.Cookie(sessionCookie)
		token := ""
		if err == nil {
			token = ck.Value
		}
		account, err := acc.Session(r.Context(), token)
		if err != nil {
			u.fail(w, r, err)
			return
		}
		// A key in the header is not this door's business: the session
		// decides the team.
		r.Header.Del("Authorization")
		ctx := apistate.WithCaller(r.Context(), apistate.Caller{Team: account.TeamID, Identity: account.ID})
		st.API.ServeHTTP(w, r.WithContext(ctx))
	}))
}

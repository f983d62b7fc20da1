package webuiextension

import (
	"context"
	"errors"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelhouse/otelhouse/internal/domain/accounts"
)

// status tells the app what to show first: "Create account" on an
// install with no account, else sign-in (or the app when signed in).
func (u *webUI) status(r *http.Request, c *call) (any, error) {
	needs, err := c.accounts.NeedsOwner(r.Context())
	if err != nil {
		return nil, err
	}
	signedIn := false
	if ck, err := r.Cookie(sessionCookie); err == nil {
		_, err := c.accounts.Session(r.Context(), ck.Value)
		signedIn = err == nil
	}
	return map[string]any{"needsOwner": needs, "signedIn": signedIn}, nil
}

type credentials struct {
	Email      string `json:"email"`
	Password   string `json:"password"`
	Invitation string `json:"invitation,omitempty"`
}

// register creates an account and signs it in.
func (u *webUI) register(r *http.Request, c *call) (any, error) {
	var in credentials
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	if _, err := c.accounts.Register(r.Context(), in.Email, in.Password, in.Invitation); err != nil {
		return nil, err
	}
	return u.signIn(r, c, in)
}

func (u *webUI) login(r *http.Request, c *call) (any, error) {
	var in credentials
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	return u.signIn(r, c, in)
}

func (u *webUI) signIn(r *http.Request, c *call, in credentials) (any, error) {
	var device string
	if ck, err := r.Cookie(deviceCookie); err == nil {
		device = ck.Value
	}
	attempt := accounts.Attempt{Email: in.Email, Password: in.Password, Addr: clientAddr(r), Device: device}
	done, err := c.accounts.Login(r.Context(), attempt)
	outcome := "ok"
	var throttled accounts.ThrottledError
	switch {
	case errors.As(err, &throttled):
		outcome = "throttled"
	case errors.Is(err, accounts.ErrBadCredentials):
		outcome = "wrong_credentials"
		u.authLog.Failed("ui", clientAddr(r), "wrong email or password")
	case err != nil:
		outcome = "error"
	}
	u.telemetry.WebuiSignIns.Add(context.Background(), 1, metric.WithAttributes(attribute.String("outcome", outcome)))
	if err != nil {
		return nil, err
	}
	return reply{cookies: []*http.Cookie{u.cookie(done.Token, u.cfg.SessionLifetime), u.deviceCookie(done.Device)}, data: done.Account}, nil
}

// deviceCookie keeps the device token (accounts.Attempt): it lets this
// browser's sign-ins be counted apart from strangers' guesses at the
// same account. It grants nothing else, so it outlives sessions.
func (u *webUI) deviceCookie(token string) *http.Cookie {
	if token == "" {
		return nil
	}
	return &http.Cookie{Name: deviceCookie, Value: token, Path: "/api/", HttpOnly: true, SameSite: http.SameSiteStrictMode, //nolint:gosec // Secure whenever the UI serves TLS, as the session cookie
		Secure: u.cfg.ServerConfig.TLS.HasValue(), MaxAge: int(deviceLifetime.Seconds())}
}

// cookie is the session cookie (maxAge < 0 deletes it).
func (u *webUI) cookie(token string, maxAge time.Duration) *http.Cookie {
	ck := &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, //nolint:gosec // Secure whenever the UI serves TLS (below); plain HTTP on loopback cannot carry it
		Secure: u.cfg.ServerConfig.TLS.HasValue(), MaxAge: int(maxAge.Seconds())}
	if maxAge < 0 {
		ck.MaxAge = -1
	}
	return ck
}

func (u *webUI) logout(r *http.Request, c *call) (any, error) {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		if err := c.accounts.Logout(r.Context(), ck.Value); err != nil {
			return nil, err
		}
	}
	return reply{cookies: []*http.Cookie{u.cookie("", -1)}, data: map[string]any{"signedOut": true}}, nil
}

func (u *webUI) me(_ *http.Request, c *call) (any, error) { return c.account, nil }

func (u *webUI) changePassword(r *http.Request, c *call) (any, error) {
	var in struct {
		Current  string `json:"current"`
		Password string `json:"password"`
	}
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	if err := c.accounts.ChangePassword(r.Context(), c.account, c.token, in.Current, in.Password); err != nil {
		return nil, err
	}
	return map[string]any{"changed": true}, nil
}

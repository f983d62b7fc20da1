package webuiextension

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/klauspost/compress/gzip"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/internal/domain/accounts"
	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// call is what an endpoint gets besides its request: the shared state,
// the accounts and, behind signedIn, the caller's account and token.
type call struct {
	st       *apistate.State
	accounts *accounts.Service
	account  accounts.Account
	token    string
}

// endpoint answers a value (written as {"data": value}) or an error,
// which fail maps to a status and {"message": …} in one place; endpoints
// never touch the ResponseWriter (as Prometheus's web/api/v1).
type endpoint func(r *http.Request, c *call) (any, error)

// reply is a value an endpoint answers with a status other than 200, or
// with cookies (nil ones are left out).
type reply struct {
	status  int
	cookies []*http.Cookie
	data    any
}

// httpError is an error with its own status and message for the person.
type httpError struct {
	status int
	msg    string
}

func (e httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// maxBody bounds a request body: every UI request is a small JSON form.
const maxBody = 64 << 10

// sessionCookie carries the session token; HttpOnly, SameSite=Strict.
const sessionCookie = "otelhouse_session"

// deviceCookie carries the device token of a browser that signed in
// before (webUI.deviceCookie), for a year.
const (
	deviceCookie   = "otelhouse_device"
	deviceLifetime = 365 * 24 * time.Hour
)

// csrfHeader must be on every state-changing request: a cross-site page
// cannot send it without a CORS preflight, which this server never
// grants, and SameSite=Strict already keeps the cookie off such requests.
const csrfHeader = "X-Otelhouse-Request"

// serve wraps an endpoint: state, CSRF check, session when signedIn, the
// envelope.
func (u *webUI) serve(signedIn bool, ep endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		st, acc := u.state()
		if st == nil {
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
		c := &call{st: st, accounts: acc}
		if signedIn {
			ck, err := r.Cookie(sessionCookie)
			if err == nil {
				c.token = ck.Value
			}
			c.account, err = acc.Session(r.Context(), c.token)
			if err != nil {
				u.fail(w, r, err)
				return
			}
		}
		v, err := ep(r, c)
		if err != nil {
			u.fail(w, r, err)
			return
		}
		status := http.StatusOK
		if rp, ok := v.(reply); ok {
			for _, ck := range rp.cookies {
				if ck != nil {
					http.SetCookie(w, ck)
				}
			}
			if rp.status != 0 {
				status = rp.status
			}
			v = rp.data
		}
		u.write(w, r, status, map[string]any{"data": v})
	})
}

// sameOrigin refuses what a cross-site page could make the browser send.
// The Origin is judged by the names the UI answers to (hostGuard), never
// by the request's own Host: a rebinding page sends its own name in both.
func (u *webUI) sameOrigin(r *http.Request) error {
	if r.Header.Get(csrfHeader) == "" {
		return httpError{http.StatusForbidden, "missing " + csrfHeader + " header (cross-site request refused)"}
	}
	if o := r.Header.Get("Origin"); o != "" && !u.hosts.originAllowed(o) {
		return httpError{http.StatusForbidden, "cross-origin request refused: " + strconv.Quote(o) + " is not one of this UI's names (webui::allowed_hosts)"}
	}
	return nil
}

// status maps an error to what the person is told.
func (u *webUI) fail(w http.ResponseWriter, r *http.Request, err error) {
	var (
		he        httpError
		in        accounts.InputError
		throttled accounts.ThrottledError
	)
	status, msg := http.StatusInternalServerError, "internal error"
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.As(err, &throttled):
		w.Header().Set("Retry-After", strconv.Itoa(throttled.Seconds()))
		status, msg = http.StatusTooManyRequests, err.Error()
	case errors.As(err, &in), errors.Is(err, accounts.ErrInvitation):
		status, msg = http.StatusBadRequest, err.Error()
	case errors.Is(err, accounts.ErrBadCredentials), errors.Is(err, accounts.ErrNoSession):
		status, msg = http.StatusUnauthorized, err.Error()
	case errors.Is(err, accounts.ErrClosed), errors.Is(err, accounts.ErrForbidden), errors.Is(err, accounts.ErrOwnerOnly):
		status, msg = http.StatusForbidden, err.Error()
	case errors.Is(err, accounts.ErrEmailTaken):
		status, msg = http.StatusConflict, err.Error()
	case errors.Is(err, store.ErrNotFound):
		status, msg = http.StatusNotFound, err.Error()
	case r.Context().Err() != nil:
		return // the browser went away
	default:
		u.set.Logger.Error("web UI request failed", zap.String("path", r.URL.Path), zap.Error(err))
	}
	u.write(w, r, status, map[string]any{"message": msg})
}

// write sends a JSON body, gzip-compressed when the browser takes it and
// it is worth it: a page of 100 log rows is about 50 kB of JSON and 5 kB
// compressed.
func (u *webUI) write(w http.ResponseWriter, r *http.Request, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		u.set.Logger.Error("web UI answer does not encode", zap.Error(err))
		b, status = []byte(`{"message":"internal error"}`), http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Add("Vary", "Accept-Encoding")
	if len(b) >= 512 && acceptsEncoding(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		w.WriteHeader(status)
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		_, _ = zw.Write(b)
		_ = zw.Close()
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// decode reads a JSON body into v, refusing unknown fields.
func decode(r *http.Request, v any) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return httpError{http.StatusUnsupportedMediaType, "Content-Type must be application/json"}
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return badRequest("reading body: %v", err)
	}
	if len(b) > maxBody {
		return httpError{http.StatusRequestEntityTooLarge, "request body exceeds 64 KiB"}
	}
	if err := strictJSON(b, v); err != nil {
		return badRequest("invalid JSON body: %v", err)
	}
	return nil
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// clientAddr is the peer's address (a proxy's X-Forwarded-For is not
// trusted: anyone could set it to dodge the sign-in throttle).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

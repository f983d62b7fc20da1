package chhttp

// Who may call: the configured user and password, or anyone on loopback
// when none is configured.

import (
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

func (s *Server) authorized(r *http.Request) bool {
	if s.user == "" {
		return true
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		user, pass = r.Header.Get("X-ClickHouse-User"), r.Header.Get("X-ClickHouse-Key")
	}
	if user == "" {
		user, pass = r.URL.Query().Get("user"), r.URL.Query().Get("password")
	}
	return subtle.ConstantTimeCompare([]byte(user), []byte(s.user))&subtle.ConstantTimeCompare([]byte(pass), []byte(s.password)) == 1
}

// loopbackHost reports whether a Host header names this machine's
// loopback: localhost (and its subdomains, which browsers resolve there
// themselves), or a loopback address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return true // HTTP/1.0 sends none; browsers always do
	}
	if h := strings.ToLower(host); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guard answers what needs no statement (health checks, unknown paths,
// methods) and refuses callers that may not run one; it reports whether
// the request goes on.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	// A single server has no replicas to lag: /replicas_status answers Ok.
	// as a server without replicated tables does, for health checks.
	if r.URL.Path == "/ping" || r.URL.Path == "/replicas_status" ||
		(r.URL.Path == "/" && r.Method == http.MethodGet && r.URL.Query().Get("query") == "") {
		_, _ = io.WriteString(w, "Ok.\n")
		return false
	}
	if r.URL.Path != "/" {
		httpError(w, http.StatusNotFound, 0, "There is no handle "+r.URL.Path)
		return false
	}
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		httpError(w, http.StatusMethodNotAllowed, 0, "method "+r.Method+" not allowed")
		return false
	}
	if s.user == "" && !loopbackHost(r.Host) {
		// A page whose name the attacker re-points at 127.0.0.1 (DNS
		// rebinding) is same-origin with this port: its GETs carry no
		// Origin and it reads the answers. They still name its host.
		httpError(w, http.StatusForbidden, 0, "an engine without credentials answers only requests addressed to a loopback name, not "+
			strconv.Quote(r.Host)+": set username and password on the embedded engine to serve other names")
		return false
	}
	if s.user == "" && r.Header.Get("Origin") != "" {
		// Browsers send Origin with what a web page posts; without
		// credentials, any page could otherwise write to an open
		// loopback engine through the user's browser. Clients never
		// send it.
		httpError(w, http.StatusForbidden, 0, "requests from web pages need credentials: set username and password on the embedded engine")
		return false
	}
	if !s.authorized(r) {
		httpError(w, http.StatusUnauthorized, 516, "default: Authentication failed: password is incorrect, or there is no user with such name")
		return false
	}
	return true
}

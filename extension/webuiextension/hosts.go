package webuiextension

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// hostGuard decides which names the UI answers to. A page whose own name
// an attacker re-points at this server (DNS rebinding) is same-origin with
// the UI in the browser: it could read answers and, on a fresh install,
// register the owner account. Its requests still carry its name in Host,
// so a request is served only when Host names this UI: a loopback name,
// this machine's host name, the name the UI listens on, or a name from
// allowed_hosts. An IP literal is always accepted: a rebinding page has a
// name of its own, and a browser sends an IP as Host only when the person
// typed it, so the page's origin is then the UI itself (and a UI behind a
// published Docker port is reached at addresses it cannot list).
type hostGuard struct {
	any      bool
	exact    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
}

// newHostGuard builds the guard from the settings and this machine.
func newHostGuard(endpoint string, allowed []string) *hostGuard {
	g := &hostGuard{exact: map[string]bool{}}
	names := []string{"localhost", "*.localhost"}
	if h, _, err := net.SplitHostPort(endpoint); err == nil && h != "" {
		names = append(names, h)
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		short, _, _ := strings.Cut(h, ".")
		names = append(names, h, short)
	}
	for _, entry := range allowed {
		// One entry may list several names (OTELHOUSE_UI_HOSTS=a,b).
		names = append(names, strings.Split(entry, ",")...)
	}
	for _, n := range names {
		n = normalHost(n)
		switch {
		case n == "":
		case n == "*":
			g.any = true
		case strings.HasPrefix(n, "*."):
			g.suffixes = append(g.suffixes, n[1:])
		default:
			g.exact[n] = true
		}
	}
	return g
}

// normalHost is a Host's name alone: no port, no brackets, lower-case,
// without the root's trailing dot.
func normalHost(hostport string) string {
	host := strings.TrimSpace(hostport)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// allows tells whether a Host header (or an Origin's host) names this UI.
func (g *hostGuard) allows(hostport string) bool {
	host := normalHost(hostport)
	if host == "" || g.any || g.exact[host] {
		return true // an empty Host: HTTP/1.0 sends none; browsers always do
	}
	if net.ParseIP(host) != nil {
		return true
	}
	for _, s := range g.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// originAllowed tells whether an Origin header names this UI (the same
// names as Host), so a request's origin is judged by the UI's names, not
// by the Host the request itself carries.
func (g *hostGuard) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" (a sandboxed frame, a file) among them
	}
	return g.allows(u.Host)
}

// check refuses a request addressed to a name that is not this UI's,
// with 421 Misdirected Request and how to allow the name.
func (g *hostGuard) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.allows(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		msg := "this UI answers only requests addressed to its own names, not " + strconv.Quote(normalHost(r.Host)) +
			": add the name to webui::allowed_hosts (or OTELHOUSE_UI_HOSTS) if the UI is served under it"
		w.Header().Set("Cache-Control", "no-store")
		if strings.HasPrefix(r.URL.Path, "/api/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusMisdirectedRequest)
			b, _ := json.Marshal(map[string]string{"message": msg})
			_, _ = w.Write(append(b, '\n'))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusMisdirectedRequest)
		_, _ = w.Write([]byte(msg + "\n")) //nolint:gosec // plain text that browsers may not sniff as HTML; the host is quoted
	})
}

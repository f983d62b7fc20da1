package webuiextension

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/extension/extensiontest"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/webuiextension/internal/metadata"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

func runTests(m *testing.M) { chtest.Main(m) }

// provider stands in for the API extension: the state it would share.
type provider struct{ st *apistate.State }

func (p provider) APIState() *apistate.State { return p.st }

func newUI(t testing.TB, st *apistate.State, assetsDir string) http.Handler {
	t.Helper()
	cfg := createDefaultConfig().(*Config)
	cfg.AssetsDir = assetsDir
	ext, err := create(context.Background(), extensiontest.NewNopSettings(metadata.Type), cfg)
	require.NoError(t, err)
	u := ext.(*webUI)
	u.provider = provider{st}
	u.assets, err = loadAssets(assetsDir)
	require.NoError(t, err)
	return u.routes()
}

func realState(t *testing.T) *apistate.State {
	t.Helper()
	return realStateIn(t, "webui_test")
}

// realStateIn is the API's state in a fresh database, as its first start
// leaves it (the default team).
func realStateIn(t testing.TB, database string) *apistate.State {
	t.Helper()
	chtest.FreshDatabase(t, database)
	db := chtest.DB(t)
	st, err := store.Open(context.Background(), db, database)
	require.NoError(t, err)
	require.NoError(t, st.CreateTeam(context.Background(), "default", "Default"))
	for _, src := range sources.Defaults("otel", "default") {
		doc, _ := json.Marshal(src)
		require.NoError(t, st.Put(context.Background(), "default", sources.Kind, src.ID, doc, time.Now(), time.Now()))
	}
	sealer, err := keys.LoadSealer(filepath.Join(t.TempDir(), keys.SecretFile))
	require.NoError(t, err)
	return &apistate.State{Store: st, Sealer: sealer, DB: db, Team: "default", API: echoCaller, Sources: &sources.Catalog{
		Store:   st,
		Tenancy: &sources.Tenancy{Store: st, State: database, Owner: "default", OwnerDatabases: []string{"otel"}},
	}}
}

// echoCaller stands behind the session door where the REST API's session
// handler would (the API's own tests cover its endpoints): it answers who
// the door said the caller is and what reached it, padded to a size
// worth compressing.
var echoCaller = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	c, ok := apistate.CallerOf(r.Context())
	if !ok {
		http.Error(w, `{"message":"no caller"}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{
		"team": c.Team, "account": c.Identity,
		"path": r.URL.Path, "authorization": r.Header.Get("Authorization"), "padding": strings.Repeat("row ", 1024),
	}})
})

func do(t testing.TB, h http.Handler, method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = "localhost:8080" // as a browser on this machine addresses it
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestStartNeedsTheAPIExtension(t *testing.T) {
	ext, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(metadata.Type), createDefaultConfig())
	require.NoError(t, err)
	err = ext.Start(context.Background(), componenttest.NewNopHost())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"observability_api" is not configured`)
}

func TestStartingAnswers503WithRetryAfter(t *testing.T) {
	h := newUI(t, nil, "")
	w := do(t, h, http.MethodGet, "/api/status", "")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Contains(t, w.Body.String(), "starting")
	// The app itself is served meanwhile.
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodGet, "/search/logs", "").Code)
}

func TestWritesNeedTheCSRFHeaderAndTheSameOrigin(t *testing.T) {
	h := newUI(t, realState(t), "")
	body := `{"email":"a@example.com","password":"long enough password"}`
	w := do(t, h, http.MethodPost, "/api/register", body)
	assert.Equal(t, http.StatusForbidden, w.Code, "no CSRF header")
	w = do(t, h, http.MethodPost, "/api/register", body, csrfHeader, "1", "Origin", "https://evil.example")
	assert.Equal(t, http.StatusForbidden, w.Code, "another origin")
	w = do(t, h, http.MethodPost, "/api/register", "email=a", csrfHeader, "1", "Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, http.StatusUnsupportedMediaType, w.Code, "a form post")

	w = do(t, h, http.MethodPost, "/api/register", body, csrfHeader, "1", "Origin", "http://localhost:8080")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	ck := w.Result().Cookies()
	require.Len(t, ck, 2)
	assert.Equal(t, sessionCookie, ck[0].Name)
	assert.Equal(t, deviceCookie, ck[1].Name)
	for _, c := range ck {
		assert.True(t, c.HttpOnly, c.Name)
		assert.Equal(t, http.SameSiteStrictMode, c.SameSite, c.Name)
		assert.False(t, c.Secure, "no TLS configured")
	}

	me := do(t, h, http.MethodGet, "/api/me", "", "Cookie", sessionCookie+"="+ck[0].Value)
	assert.Equal(t, http.StatusOK, me.Code)
	assert.Contains(t, me.Body.String(), `"email":"a@example.com"`)
	assert.Equal(t, http.StatusUnauthorized, do(t, h, http.MethodGet, "/api/me", "").Code)
	assert.Equal(t, http.StatusUnauthorized, do(t, h, http.MethodGet, "/api/v2/keys", "", "Cookie", sessionCookie+"=forged").Code)

	// Bad input is a 4xx with a message.
	w = do(t, h, http.MethodPost, "/api/login", `{"email":"a@example.com","password":"x","extra":1}`, csrfHeader, "1")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	w = do(t, h, http.MethodPost, "/api/login", strings.Repeat(" ", maxBody+1), csrfHeader, "1")
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	w = do(t, h, http.MethodPost, "/api/login", `{"email":"a@example.com","password":"wrong"}`, csrfHeader, "1")
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	var msg struct{ Message string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &msg))
	assert.Equal(t, "wrong email or password", msg.Message)
}

// Issue 41: a page whose name an attacker re-points at this server (DNS
// rebinding) registered itself the owner of a fresh install, since the
// UI checked neither Host nor Origin against its own names.
func TestRebindingPagesAreRefused(t *testing.T) {
	h := newUI(t, realState(t), "")
	body := `{"email":"a@example.com","password":"long enough password"}`
	w := do(t, h, http.MethodPost, "/api/register", body, csrfHeader, "1", "Host", "attacker.example:8080", "Origin", "http://attacker.example:8080")
	assert.Equal(t, http.StatusMisdirectedRequest, w.Code)
	assert.Contains(t, w.Body.String(), `not \"attacker.example\"`)
	assert.Contains(t, w.Body.String(), "allowed_hosts")
	w = do(t, h, http.MethodGet, "/api/status", "", "Host", "attacker.example")
	assert.Equal(t, http.StatusMisdirectedRequest, w.Code, "reads too")
	w = do(t, h, http.MethodGet, "/", "", "Host", "attacker.example")
	assert.Equal(t, http.StatusMisdirectedRequest, w.Code, "the app too")
	assert.Contains(t, w.Body.String(), "allowed_hosts")

	// The Origin is judged by the UI's names, not by the request's Host.
	w = do(t, h, http.MethodPost, "/api/register", body, csrfHeader, "1", "Host", "localhost:8080", "Origin", "http://attacker.example:8080")
	assert.Equal(t, http.StatusForbidden, w.Code)
	w = do(t, h, http.MethodPost, "/api/register", body, csrfHeader, "1", "Origin", "null")
	assert.Equal(t, http.StatusForbidden, w.Code)
	needs := do(t, h, http.MethodGet, "/api/status", "")
	assert.Contains(t, needs.Body.String(), `"needsOwner":true`, "no one registered")

	// The names it does answer to.
	for _, host := range []string{"localhost", "LOCALHOST.:8080", "ui.localhost:8080", "127.0.0.1:8080", "[::1]:8080", "192.0.2.10:8080", ""} {
		assert.Equal(t, http.StatusOK, do(t, h, http.MethodGet, "/api/status", "", "Host", host).Code, host)
	}
	if name, err := os.Hostname(); err == nil {
		assert.Equal(t, http.StatusOK, do(t, h, http.MethodGet, "/api/status", "", "Host", name+":8080").Code, "this machine's name")
	}
}

func TestAllowedHostsAddNames(t *testing.T) {
	g := newHostGuard("otel.internal:8080", []string{"ui.example.com", "*.corp.example,  Other.Example. "})
	for _, ok := range []string{"otel.internal", "ui.example.com:443", "a.corp.example", "b.a.corp.example", "other.example", "localhost"} {
		assert.True(t, g.allows(ok), ok)
	}
	for _, no := range []string{"example.com", "corp.example", "evil-ui.example.com", "ui.example.com.evil", "localhost.evil"} {
		assert.False(t, g.allows(no), no)
	}
	assert.True(t, g.originAllowed("https://ui.example.com"))
	assert.False(t, g.originAllowed("https://evil.example"))
	assert.False(t, g.originAllowed("null"))
	assert.True(t, newHostGuard("0.0.0.0:8080", []string{"*"}).allows("anything.example"), `"*" allows any name`)

	cfg := createDefaultConfig().(*Config)
	require.NoError(t, confmap.NewFromStringMap(map[string]any{"allowed_hosts": []any{"ui.example.com"}}).Unmarshal(cfg))
	assert.Equal(t, []string{"ui.example.com"}, cfg.AllowedHosts)
}

func TestUnknownPathsAndSecurityHeaders(t *testing.T) {
	h := newUI(t, realState(t), "")
	w := do(t, h, http.MethodGet, "/api/nope", "")
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	// One front door: what the REST API serves is not served a second way.
	for _, p := range []string{"/api/search", "/api/histogram", "/api/facets", "/api/keys", "/api/team", "/api/sources", "/api/saved-searches"} {
		assert.Equal(t, http.StatusNotFound, do(t, h, http.MethodGet, p, "").Code, p)
	}
	w = do(t, h, http.MethodGet, "/assets/missing.js", "")
	assert.Equal(t, http.StatusNotFound, w.Code, "a missing script fails rather than turning into a page")
	w = do(t, h, http.MethodGet, "/traces/abc", "")
	assert.Equal(t, http.StatusOK, w.Code, "an app route is the app")
	assert.Contains(t, w.Body.String(), "<html")
	assert.Contains(t, w.Header().Get("Content-Security-Policy"), "default-src 'self'")
	assert.Equal(t, "DENY", w.Header().Get("X-Frame-Options"))
	assert.Equal(t, "no-referrer", w.Header().Get("Referrer-Policy"))
	assert.Equal(t, http.StatusMethodNotAllowed, do(t, h, http.MethodPost, "/search", "x").Code)
}

func TestAssetsArePrecompressedAndCached(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	for name, body := range map[string]string{
		"index.html": "<html>plain</html>", "index.html.br": "BR", "index.html.gz": "GZ",
		"assets/app-1a2b.js": "js", "assets/app-1a2b.js.gz": "JSGZ",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	h := newUI(t, nil, dir)
	for _, tc := range []struct{ path, accept, enc, body, cache string }{
		{"/", "gzip, deflate, br", "br", "BR", "no-cache"},
		{"/search/logs", "gzip", "gzip", "GZ", "no-cache"},
		{"/", "br;q=0, gzip", "gzip", "GZ", "no-cache"},
		{"/", "", "", "<html>plain</html>", "no-cache"},
		{"/assets/app-1a2b.js", "br, gzip", "gzip", "JSGZ", "public, max-age=31536000, immutable"},
		{"/index.html.br", "", "", "<html>plain</html>", "no-cache"},
	} {
		t.Run(tc.path+" "+tc.accept, func(t *testing.T) {
			w := do(t, h, http.MethodGet, tc.path, "", "Accept-Encoding", tc.accept)
			assert.Equal(t, http.StatusOK, w.Code, tc.path)
			assert.Equal(t, tc.enc, w.Header().Get("Content-Encoding"), "%s %q", tc.path, tc.accept)
			assert.Equal(t, tc.body, w.Body.String(), tc.path)
			assert.Equal(t, tc.cache, w.Header().Get("Cache-Control"), tc.path)
		})
	}
	assert.Equal(t, "text/javascript; charset=utf-8", do(t, h, http.MethodGet, "/assets/app-1a2b.js", "").Header().Get("Content-Type"))
}

func TestLargeAnswersAreCompressed(t *testing.T) {
	h := newUI(t, realState(t), "")
	w := do(t, h, http.MethodPost, "/api/register", `{"email":"a@example.com","password":"long enough password"}`, csrfHeader, "1")
	require.Equal(t, http.StatusOK, w.Code)
	cookie := sessionCookie + "=" + w.Result().Cookies()[0].Value
	var me struct{ Data struct{ ID string } }
	require.NoError(t, json.Unmarshal(do(t, h, http.MethodGet, "/api/me", "", "Cookie", cookie).Body.Bytes(), &me))
	w = do(t, h, http.MethodGet, "/api/v2/sources", "", "Cookie", cookie, "Accept-Encoding", "gzip", "Authorization", "Bearer someone-elses")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "gzip", w.Header().Get("Content-Encoding"), "a 4 kB answer of the REST API is compressed at the door")
	zr, err := gzip.NewReader(w.Body)
	require.NoError(t, err)
	var got struct{ Data map[string]any }
	require.NoError(t, json.NewDecoder(zr).Decode(&got))
	assert.Equal(t, "default", got.Data["team"], "the session decides the team")
	assert.Equal(t, me.Data.ID, got.Data["account"])
	assert.Equal(t, "/api/v2/sources", got.Data["path"])
	assert.Empty(t, got.Data["authorization"], "a key in the header is not the session door's business")
	w = do(t, h, http.MethodPost, "/api/v2/dashboards", "{}", "Cookie", cookie)
	assert.Equal(t, http.StatusForbidden, w.Code, "a write without the CSRF header is refused at the door")
	w = do(t, h, http.MethodGet, "/api/me", "", "Cookie", cookie, "Accept-Encoding", "gzip")
	assert.Empty(t, w.Header().Get("Content-Encoding"), "small answers go as they are")
}

func TestConfigRefusesUnknownKeys(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, confmap.NewFromStringMap(map[string]any{"endpoint": "127.0.0.1:9", "session_lifetime": "1h", "session_idle_timeout": "30m"}).Unmarshal(cfg))
	assert.Equal(t, "127.0.0.1:9", cfg.ServerConfig.NetAddr.Endpoint)
	assert.Equal(t, time.Hour, cfg.SessionLifetime)
	require.NoError(t, cfg.Validate())
	err := confmap.NewFromStringMap(map[string]any{"sesion_lifetime": "1h"}).Unmarshal(createDefaultConfig().(*Config))
	require.ErrorContains(t, err, "sesion_lifetime", "a typo is refused, not ignored")
	cfg.SessionIdleTimeout = 2 * time.Hour
	assert.ErrorContains(t, cfg.Validate(), "session_idle_timeout may not exceed session_lifetime")
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

// browser is a headless Debian chromium with a fresh profile, driven over
// the DevTools protocol; a failed test leaves a screenshot of every page
// it opened under test-output/ (gitignored).
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	testenv.Missing(t, "Debian's chromium is not installed: `make test` installs it (apt-get install chromium)")
	return ""
}

func newBrowser(t *testing.T, base, name string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true), chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	require.NoError(t, chromedp.Do(ctx), "starting chromium")
	b := &browser{t: t, ctx: ctx, base: base}
	t.Cleanup(func() {
		if t.Failed() {
			b.screenshot("FAILED-" + name)
		}
		cancel()
		cancelAlloc()
	})
	return b
}

// screenshot saves the page as test-output/<test>-<name>.png.
func (b *browser) screenshot(name string) {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	dir := filepath.Join("..", "test-output")
	_ = os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, strings.ReplaceAll(b.t.Name(), "/", "_")+"-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err == nil {
		b.t.Logf("screenshot: %s", path)
	}
}

// run runs actions with a deadline, failing the test with what failed.
func (b *browser) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	require.NoError(b.t, chromedp.Do(ctx, actions...), what)
}

// value runs one action that answers a value.
func value[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	require.NoError(b.t, err, what)
	return v
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	b.run("waiting for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	return strings.TrimSpace(value(b, "reading "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// eval runs JavaScript in the page, awaiting a promise it returns.
func eval[T any](b *browser, what, js string) T {
	b.t.Helper()
	return value(b, what, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// fill types into an input, replacing what it holds (typed over the
// selection, so the page sees input events as from a person).
func fill(sel, v string) chromedp.Action[chromedp.Void] {
	sel2 := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.focus(); e.select(); return true; })()`, sel)
	return chromedp.Steps(chromedp.WaitVisible(chromedp.CSS(sel)), poll(sel2), chromedp.SendKeys(chromedp.CSS(sel), v))
}

// poll waits until a JavaScript condition holds.
//
// A poll that starts while the page's document is being replaced can find
// the execution context it was given already gone ("Cannot find context
// with specified id"); it only reads, so it polls again in the new one.
func poll(js string) chromedp.Action[chromedp.Void] {
	p := chromedp.Poll[bool](js, chromedp.WithPollingInterval(100*time.Millisecond))
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for {
			_, err := p(ctx, t)
			if err == nil || !strings.Contains(err.Error(), "Cannot find context with specified id") || ctx.Err() != nil {
				return chromedp.Void{}, err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// waitText waits until the element's text contains want.
func waitText(sel, want string) chromedp.Action[chromedp.Void] {
	return poll(fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.innerText.includes(%q); })()`, sel, want))
}

func (b *browser) signUp(path, email, password string) {
	b.t.Helper()
	b.run("creating the account",
		chromedp.Navigate(b.base+path),
		fill(`input[name=email]`, email), fill(`input[name=password]`, password), fill(`input[name=confirm]`, password),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`nav.nav`)))
}

// sessionStatus asks /api/me from inside the page: the browser's own
// cookie, as the app sends it.
func (b *browser) sessionStatus() int {
	b.t.Helper()
	return eval[int](b, "asking /api/me", `fetch('/api/me').then(r => r.status)`)
}

func apiStatus(t *testing.T, method, url, bearer string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// apiPost creates a resource through the REST API with a personal key.
func apiPost(t *testing.T, url, bearer, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b)) // HyperDX answers a create 200
	var out struct{ Data map[string]any }
	require.NoError(t, json.Unmarshal(b, &out))
	return out.Data
}

func postWithKey(t *testing.T, url, header, key, ctype, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set(header, key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// The flow, in a real browser against the shipped configuration
// (ingestion keys required, by default): create the account, read both keys in
// Team Settings, use them, find the data in search, open the log's trace,
// rotate the personal key.
func TestBrowserFirstAccountToTraceWaterfall(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true", "OTLP_AUTH_TOKEN="}, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	api := fmt.Sprintf("http://127.0.0.1:%d", c.api)
	b := newBrowser(t, ui, "owner")

	// A new install offers "Create account"; the first account signs in.
	b.run("opening the UI", chromedp.Navigate(ui+"/"), waitText(`h1`, "Create account"))
	b.signUp("/", "owner@example.com", "correct horse battery")
	b.screenshot("after-signup")

	// Team Settings → API Keys shows both keys.
	b.run("opening Team Settings", chromedp.Click(chromedp.CSS(`a[href="/team"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=personal-key] code[data-key]`)))
	personal := b.text(`[data-testid=personal-key] code[data-key]`)
	ingestion := b.text(`[data-testid=ingestion-key] code[data-key]`)
	b.screenshot("team-settings")
	require.True(t, strings.HasPrefix(personal, "ohp_"), personal)
	require.True(t, strings.HasPrefix(ingestion, "ohi_"), ingestion)
	assert.Equal(t, http.StatusOK, apiStatus(t, http.MethodGet, api+"/api/v2/sources", personal))

	// The same key file the headless start writes holds the owner's key.
	// A Datadog log and an OTLP span of one trace, sent with the key.
	const ddTraceID = 7315942260781924395
	traceHex := fmt.Sprintf("%032x", uint64(ddTraceID))
	now := time.Now()
	dd := fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", c.datadog)
	logBody := fmt.Sprintf(`[{"message":"payment declined for order 4711","service":"checkout","status":"error","ddsource":"go","hostname":"web-1","dd.trace_id":"%d","dd.span_id":"42"}]`, uint64(ddTraceID))
	assert.Equal(t, http.StatusForbidden, postWithKey(t, dd, "DD-API-KEY", "ohi_wrong", "application/json", logBody), "a wrong key is refused")
	require.Equal(t, http.StatusAccepted, postWithKey(t, dd, "DD-API-KEY", ingestion, "application/json", logBody))
	spans := fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"checkout"}}]},
	 "scopeSpans":[{"spans":[
	  {"traceId":"%[1]s","spanId":"000000000000002a","name":"POST /checkout","kind":2,"startTimeUnixNano":"%[2]d","endTimeUnixNano":"%[3]d","status":{"code":2,"message":"card declined"},
	   "attributes":[{"key":"http.route","value":{"stringValue":"/checkout"}}]},
	  {"traceId":"%[1]s","spanId":"000000000000002b","parentSpanId":"000000000000002a","name":"charge card","kind":3,"startTimeUnixNano":"%[4]d","endTimeUnixNano":"%[5]d"}
	 ]}]}]}`, traceHex, now.Add(-300*time.Millisecond).UnixNano(), now.UnixNano(), now.Add(-250*time.Millisecond).UnixNano(), now.Add(-50*time.Millisecond).UnixNano())
	otlp := fmt.Sprintf("http://127.0.0.1:%d/v1/traces", c.otlpHTTP)
	assert.Equal(t, http.StatusUnauthorized, postWithKey(t, otlp, "Authorization", "Bearer nope", "application/json", spans))
	require.Equal(t, http.StatusOK, postWithKey(t, otlp, "Authorization", "Bearer "+ingestion, "application/json", spans))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_logs WHERE TraceId = '"+traceHex+"'") == "1" &&
			c.sql(t, "SELECT count() FROM otel.otel_traces WHERE TraceId = '"+traceHex+"'") == "2"
	}, 30*time.Second, 200*time.Millisecond, "stored")

	// Log search finds the log; its panel opens its trace; the waterfall
	// nests the child span under its parent.
	b.run("searching logs",
		chromedp.Navigate(ui+"/search/logs?q="+"service%3Acheckout+declined"),
		waitText(`[data-testid=results] tbody`, "payment declined for order 4711"))
	b.screenshot("log-search")
	b.run("opening the log", chromedp.Click(chromedp.CSS(`[data-testid=results] tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=event-panel]`)))
	assert.Contains(t, b.text(`[data-testid=event-panel]`), traceHex)
	// A value of the event becomes a filter of the search.
	b.run("filtering by its host", poll(`(() => { const e = document.querySelector('[data-filter="Resource.host.name:\\"web-1\\""]'); if (e) e.click(); return !!e; })()`),
		poll(`document.querySelector('[data-testid=results]').dataset.rowsFor === 'service:checkout declined Resource.host.name:"web-1"'`),
		waitText(`[data-testid=results] tbody`, "payment declined for order 4711"))
	b.run("opening the log again", chromedp.Click(chromedp.CSS(`[data-testid=results] tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=event-panel]`)))
	b.run("opening its trace", chromedp.Click(chromedp.CSS(`[data-testid=open-trace]`)),
		waitText(`[data-testid=waterfall]`, "charge card"))
	wf := b.text(`[data-testid=waterfall]`)
	assert.Contains(t, wf, "POST /checkout")
	assert.Contains(t, wf, "error", "the failed span is marked")
	assert.Contains(t, b.text(`[data-testid=trace-logs]`), "payment declined", "the trace's logs")
	depth := value(b, "reading nesting", chromedp.AttributeValue(chromedp.CSS(`[data-span-id="000000000000002b"] .wf-label`), "style"))
	assert.Contains(t, depth.Value, "22px", "the child is indented one level under its parent")
	b.run("opening the span", chromedp.Click(chromedp.CSS(`[data-span-id="000000000000002a"]`)), waitText(`[data-testid=span-panel]`, "card declined"))
	assert.Contains(t, b.text(`[data-testid=span-panel]`), "http.route")
	b.screenshot("trace")

	// Trace search finds the spans too.
	b.run("searching traces", chromedp.Navigate(ui+"/search/traces?q=TraceId%3A"+traceHex), waitText(`[data-testid=results] tbody`, "charge card"))

	// Columns come from the URL, attributes and resource attributes too.
	b.run("adding a resource column", chromedp.Navigate(ui+"/search/logs?q=declined&cols=Timestamp,Resource.host.name,Body"),
		waitText(`[data-testid=results] thead`, "Resource.host.name"), waitText(`[data-testid=results] tbody`, "web-1"))

	// A saved search: saved from the page, shared through the REST API,
	// opened again.
	b.run("saving a search", chromedp.Navigate(ui+"/search/logs?q=declined"), waitText(`[data-testid=results] tbody`, "payment declined"),
		chromedp.Click(chromedp.CSS(`.saved button:nth-child(2)`)), fill(`input[name=saved-name]`, "Declined payments"),
		chromedp.Click(chromedp.CSS(`.saved-form button[type=submit]`)), waitText(`[data-testid=saved-menu]`, "Saved (1)"))
	req, _ := http.NewRequest(http.MethodGet, api+"/api/v2/saved-searches", nil)
	req.Header.Set("Authorization", "Bearer "+personal)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	saved, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(saved), `"name":"Declined payments"`)
	b.run("opening it", chromedp.Navigate(ui+"/search/logs"), waitText(`[data-testid=saved-menu]`, "Saved (1)"),
		chromedp.Click(chromedp.CSS(`[data-testid=saved-menu]`)), chromedp.Click(chromedp.CSS(`.saved-item a`)),
		waitText(`[data-testid=results] tbody`, "payment declined"), poll(`location.search.includes('q=declined')`))

	// Live tail: a log sent while the page is open appears on top.
	b.run("tailing", chromedp.Navigate(ui+"/search/logs?q=livetail&live=1"), waitText(`.results-head`, "No matching events"))
	require.Equal(t, http.StatusAccepted, postWithKey(t, dd, "DD-API-KEY", ingestion, "application/json", `[{"message":"livetail marker","service":"checkout"}]`))
	b.run("the new log appears", waitText(`[data-testid=results] tbody`, "livetail marker"))

	// A bad where shows the translator's message.
	b.run("searching with a bad where", chromedp.Navigate(ui+"/search/logs?q=nosuchfield%3Ax+AND"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=search-error]`)))
	assert.NotEmpty(t, b.text(`[data-testid=search-error]`))

	// Rotating the personal key: the old one is refused at once.
	b.run("rotating the personal key",
		chromedp.Navigate(ui+"/team"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=personal-key] code[data-key]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=personal-key] button[data-action=rotate]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=personal-key] button.danger`)),
		poll(fmt.Sprintf(`document.querySelector('[data-testid=personal-key] code[data-key]').innerText !== %q`, personal)))
	rotated := b.text(`[data-testid=personal-key] code[data-key]`)
	assert.Equal(t, http.StatusUnauthorized, apiStatus(t, http.MethodGet, api+"/api/v2/sources", personal), "the old key stops working")
	assert.Equal(t, http.StatusOK, apiStatus(t, http.MethodGet, api+"/api/v2/sources", rotated))

	// A dashboard and an alert made through the REST API show in the UI.
	// One tile in each form the API takes: HyperDX's config, HyperDX's
	// older series, and this API's first config.
	dash := apiPost(t, api+"/api/v2/dashboards", rotated, `{"name":"Checkout health","tiles":[
		{"name":"Logs by service","x":0,"y":0,"w":16,"h":3,"config":{"displayType":"line","sourceId":"logs","groupBy":"ServiceName",
		  "select":[{"aggFn":"count","where":"","whereLanguage":"lucene"}]}},
		{"name":"Errors","x":16,"y":0,"w":8,"h":3,"config":{"source":"logs","aggFn":"count","where":"level:error","groupBy":[],"displayType":"number"}},
		{"name":"Runbook","x":0,"y":3,"w":12,"h":2,"series":[{"type":"markdown","content":"Page the checkout on-call first."}]},
		{"name":"By level","x":12,"y":3,"w":12,"h":2,"series":[{"type":"table","sourceId":"logs","aggFn":"count","where":"","whereLanguage":"lucene","groupBy":["SeverityText"]}]}]}`)
	hook := apiPost(t, api+"/api/v2/webhooks", rotated, `{"name":"ops","url":"https://hooks.example.com/ops"}`)
	apiPost(t, api+"/api/v2/alerts", rotated, fmt.Sprintf(`{"name":"Too many errors","dashboardId":%q,"tileId":%q,"threshold":100,"interval":"5m",
		"source":"tile","thresholdType":"above","channel":{"type":"webhook","webhookId":%q},"message":"errors"}`,
		dash["id"], dash["tiles"].([]any)[1].(map[string]any)["id"], hook["id"]))
	b.run("opening the dashboard", chromedp.Navigate(ui+"/dashboards"), waitText(`[data-testid=dashboards]`, "Checkout health"),
		chromedp.Click(chromedp.CSS(`[data-testid=dashboards] tr[data-dashboard="Checkout health"] a`)),
		waitText(`[data-testid=dashboard-grid]`, "Logs by service"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=dashboard-grid] canvas`)),
		poll(`(() => { const n = document.querySelector('.big-number'); return !!n && Number(n.innerText) >= 1; })()`),
		waitText(`[data-testid=dashboard-grid]`, "Page the checkout on-call first."),
		poll(`document.querySelectorAll('[data-testid=dashboard-grid] table.plain tr').length >= 1`))
	b.screenshot("dashboard")
	b.run("opening alerts", chromedp.Navigate(ui+"/alerts"), waitText(`[data-testid=alerts]`, "Too many errors"))
	b.screenshot("alerts")

	// A second browser, no invitation: sign-in only, and registering is refused.
	other := newBrowser(t, ui, "stranger")
	other.run("opening the UI", chromedp.Navigate(ui+"/"), waitText(`h1`, "Sign in"))
	status := eval[int](other, "registering without an invitation", `fetch('/api/register', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Otelhouse-Request': '1'},
		body: JSON.stringify({email: 'stranger@example.com', password: 'long enough password'})}).then(r => r.status)`)
	assert.Equal(t, http.StatusForbidden, status)

	// A wrong password shows an error and opens no session.
	other.run("signing in with a wrong password", fill(`input[name=email]`, "owner@example.com"), fill(`input[name=password]`, "wrong password"),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`.error`)))
	assert.Contains(t, other.text(`.error`), "wrong email or password")
	assert.Equal(t, http.StatusUnauthorized, other.sessionStatus())

	// An invitation link lets a colleague in, into the same team.
	b.run("inviting", chromedp.Navigate(ui+"/team"), fill(`form.inline input`, "colleague@example.com"),
		chromedp.Click(chromedp.CSS(`form.inline button`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=invite-link]`)))
	link := b.text(`[data-testid=invite-link]`)
	require.Contains(t, link, "/join#inv_")
	other.signUp(strings.TrimPrefix(link, ui), "colleague@example.com", "another long password")
	other.run("the colleague searches the team's logs", chromedp.Navigate(ui+"/search/logs?q=declined"),
		waitText(`[data-testid=results] tbody`, "payment declined"))

	// Signing out ends the session; a page then sends to sign-in and back.
	other.run("signing out", chromedp.Click(chromedp.CSS(`nav button.link`)), waitText(`h1`, "Sign in"))
	assert.Equal(t, http.StatusUnauthorized, other.sessionStatus())
	other.run("an expired session goes to sign-in", chromedp.Navigate(ui+"/team"), waitText(`h1`, "Sign in"))
	other.run("and back after it", fill(`input[name=email]`, "colleague@example.com"), fill(`input[name=password]`, "another long password"),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)), waitText(`h1`, "Team Settings"))
}

// One team never sees another's events: a second team (made the way an
// operator would, in the state tables) whose sources read another
// database finds nothing of the first team's, by search or by trace id.
func TestBrowserTeamsAreIsolated(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t),
		// Team b reads otel_b, assigned by the operator (docs/security.md, Tenancy).
		"--set", "extensions::observability_api::tenancy::team_databases::team-b=[otel_b]")
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	a := newBrowser(t, ui, "team-a")
	a.signUp("/", "a@example.com", "team a password")
	dd := fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", c.datadog)
	require.Equal(t, http.StatusAccepted, postWithKey(t, dd, "DD-API-KEY", ingestKey, "application/json",
		`[{"message":"team a secret","service":"a-svc","dd.trace_id":"99"}]`))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs WHERE Body = 'team a secret'") == "1" },
		30*time.Second, 200*time.Millisecond)
	a.run("team a finds its log", chromedp.Navigate(ui+"/search/logs?q=secret"), waitText(`[data-testid=results] tbody`, "team a secret"))

	// Team b: a team, its sources over database otel_b, an invitation.
	token := "inv_teamb_test_token"
	sum := c.sql(t, "SELECT lower(hex(SHA256('"+token+"')))")
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS otel_b",
		"CREATE TABLE otel_b.otel_logs AS otel.otel_logs",
		"INSERT INTO otelhouse.api_teams (id, name, version, created_at) VALUES ('team-b', 'B', 1, now64(3))",
		`INSERT INTO otelhouse.api_resources (team_id, kind, id, doc, version, created_at, updated_at) VALUES ('team-b', 'source', 'logs',
		  '{"id":"logs","name":"Logs","kind":"log","database":"otel_b","table":"otel_logs","timestampColumn":"Timestamp","bodyColumn":"Body","serviceColumn":"ServiceName","severityColumn":"SeverityText","attributesMap":"LogAttributes","resourceMap":"ResourceAttributes"}',
		  1, now64(3), now64(3))`,
		"INSERT INTO otelhouse.api_invitations (hash, id, team_id, email, created_by, created_at, expires_at, version) VALUES ('" + sum +
			"', 'b1', 'team-b', '', 'operator', now64(3), now64(3) + INTERVAL 1 DAY, 1)",
	} {
		require.Empty(t, c.sql(t, q), q)
	}
	b := newBrowser(t, ui, "team-b")
	b.signUp("/join#"+token, "b@example.com", "team b password")
	b.run("team b searches", chromedp.Navigate(ui+"/search/logs?q=secret&range=24h"), waitText(`.results-head`, "No matching events"))
	body := eval[string](b, "team b asks for team a's log by trace id", `fetch('/api/v2/traces/63').then(r => r.text())`)
	assert.NotContains(t, body, "team a secret")
	sources := eval[string](b, "team b's sources", `fetch('/api/v2/sources').then(r => r.text())`)
	var got struct{ Data []map[string]any }
	require.NoError(t, json.Unmarshal([]byte(sources), &got))
	require.Len(t, got.Data, 1)
	// Stored in the earlier shape, answered in HyperDX's.
	assert.Equal(t, map[string]any{"databaseName": "otel_b", "tableName": "otel_logs"}, got.Data[0]["from"])
	keys := eval[string](b, "team b's keys", `fetch('/api/v2/keys').then(r => r.text())`)
	assert.NotContains(t, keys, "ohi_", "team a's ingestion key is not shown to team b")
}

// seeJS answers why the element sel is not what a person sees ("" when
// it is): missing, an empty box, outside the viewport, covered by another
// element at its centre, or inside something scrolled sideways. It never
// scrolls anything into view: a test that did would find an element the
// page itself leaves off-screen (issue 42.1).
const seeJS = `((sel) => {
	const e = document.querySelector(sel);
	if (!e) return 'missing';
	const r = e.getBoundingClientRect();
	if (r.width <= 0 || r.height <= 0) return 'an empty box';
	if (r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
		return 'outside the ' + innerWidth + 'x' + innerHeight + ' viewport: ' + [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');
	const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
	if (!top || !(top === e || e.contains(top))) return 'covered by ' + (top ? top.outerHTML.slice(0, 120) : 'nothing');
	for (let a = e.parentElement; a; a = a.parentElement) if (a.scrollLeft) return 'inside ' + a.tagName + '.' + a.className + ' scrolled sideways';
	return '';
})(%q)`

// see waits until sel is visible to a person (seeJS), failing with why not.
func (b *browser) see(what, sel string) {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		why := eval[string](b, what, fmt.Sprintf(seeJS, sel))
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: %s is not visible: %s", what, sel, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// click clicks sel as a person does: at its centre on the screen, once it
// is visible there (chromedp.Click would scroll it into view first).
func (b *browser) click(what, sel string) {
	b.t.Helper()
	b.see(what, sel)
	xy := eval[[]float64](b, what, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, sel))
	b.run(what, chromedp.MouseClickXY(xy[0], xy[1]))
}

// clickFor clicks sel as click does until done (a JavaScript condition)
// holds, at most three times: a click that lands while the page is still
// laying itself out (a late button moving the target) is made again, as a
// person would.
func (b *browser) clickFor(what, sel, done string) {
	b.t.Helper()
	for i := 0; ; i++ {
		b.click(what, sel)
		if eval[bool](b, what, done) {
			return
		}
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) && !eval[bool](b, what, done) {
			time.Sleep(100 * time.Millisecond)
		}
		if eval[bool](b, what, done) {
			return
		}
		if i == 2 {
			b.t.Fatalf("%s: clicking %s three times did not make %s true", what, sel, done)
		}
	}
}

// scrollPanelTo scrolls the side panel (only it) until sel's top is near
// the panel's.
func (b *browser) scrollPanelTo(panel, sel string) {
	b.t.Helper()
	b.run("scrolling the panel to "+sel, poll(fmt.Sprintf(`(() => { const p = document.querySelector(%q), e = document.querySelector(%q);
		if (!p || !e) return false; p.scrollTop += e.getBoundingClientRect().top - p.getBoundingClientRect().top - 60; return true; })()`, panel, sel)))
}

// The search workbench as a person uses it at three screen widths: every
// event opens in a panel they can see and read to its nested attributes,
// a waterfall is reached from a log, a span row and a span; a mistake in
// the where box is a message; live tail shows a late event; services
// count requests (issue 42).
func TestBrowserSearchWorkbench(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "workbench")
	b.signUp("/", "owner@example.com", "correct horse battery")

	now := time.Now()
	traceHex := "4bf92f3577b34da6a3ce929d0e0e4736"
	var filler []string
	for i := 0; i < 60; i++ {
		filler = append(filler, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":"INFO","body":{"stringValue":"filler %d %s"}}`,
			now.Add(-time.Duration(i+2)*time.Second).UnixNano(), i, strings.Repeat("a long body that makes the table wide ", 8)))
	}
	logs := fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"checkout"}},{"key":"host.name","value":{"stringValue":"web-1"}}]},
	 "scopeLogs":[{"logRecords":[
	  {"timeUnixNano":"%d","severityText":"ERROR","body":{"stringValue":"workbench payment failed"},"traceId":"%s","spanId":"00f067aa0ba902b7",
	   "attributes":[{"key":"user","value":{"kvlistValue":{"values":[{"key":"address","value":{"kvlistValue":{"values":[{"key":"city","value":{"stringValue":"Lyon"}}]}}}]}}},
	    {"key":"exception.stacktrace","value":{"stringValue":"Error: declined\n    at charge (pay.js:10)\n    at main (app.js:3)"}},
	    {"key":"zz.last.attribute","value":{"stringValue":"end-of-panel"}}]},
	  %s]}]}]}`, now.Add(-time.Second).UnixNano(), traceHex, strings.Join(filler, ","))
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json", logs))
	span := func(id, parent, name string, kind, status int, svc string, startMs, endMs int) string {
		return fmt.Sprintf(`{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":%q}}]},"scopeSpans":[{"spans":[{"traceId":%q,"spanId":%q,"parentSpanId":%q,
		  "name":%q,"kind":%d,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","status":{"code":%d},"attributes":[{"key":"http.route","value":{"stringValue":"/checkout"}}]}]}]}`,
			svc, traceHex, id, parent, name, kind, now.Add(time.Duration(startMs-1000)*time.Millisecond).UnixNano(), now.Add(time.Duration(endMs-1000)*time.Millisecond).UnixNano(), status)
	}
	spans := `{"resourceSpans":[` + strings.Join([]string{
		span("00f067aa0ba902b7", "", "GET /checkout", 2, 2, "checkout", 0, 300),
		span("00f067aa0ba902b8", "00f067aa0ba902b7", "SELECT orders", 3, 0, "checkout", 10, 60),
		span("00f067aa0ba902b9", "00f067aa0ba902b7", "payments.charge", 2, 2, "payments", 80, 280),
		span("00f067aa0ba902ba", "00f067aa0ba902b9", "INSERT charges", 3, 0, "payments", 100, 150),
	}, ",") + `]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/traces", "Authorization", "Bearer "+ingestKey, "application/json", spans))
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_logs") == "61" && c.sql(t, "SELECT count() FROM otel.otel_traces") == "4"
	}, 30*time.Second, 200*time.Millisecond, "stored")

	for _, width := range []int64{1000, 1400, 1920} {
		b.run("a screen of this width", chromedp.EmulateViewport(width, 900))
		w := fmt.Sprint(width)

		// A log opens in a panel on screen, read to its last attribute.
		b.run("searching logs at "+w, chromedp.Navigate(ui+"/search/logs?q=service%3Acheckout"), waitText(`[data-testid=results] tbody`, "workbench payment failed"))
		b.click("opening the log at "+w, `[data-testid=results] tbody tr:first-child td:nth-child(2)`)
		b.see("the panel at "+w, `[data-testid=event-panel]`)
		b.see("the panel's close button at "+w, `[data-testid=event-panel] button[aria-label=Close]`)
		b.scrollPanelTo(`[data-testid=event-panel]`, `[data-attr=user]`)
		b.see("the nested attribute at "+w, `[data-attr=user]`)
		assert.Contains(t, b.text(`[data-attr=user]`), "Lyon", "the nested attribute is readable at %s px", w)
		b.scrollPanelTo(`[data-testid=event-panel]`, `[data-attr="zz.last.attribute"]`)
		b.see("the last attribute at "+w, `[data-attr="zz.last.attribute"]`)
		assert.Contains(t, b.text(`[data-attr="exception.stacktrace"]`), "declined\n    at charge", "a stack trace keeps its lines")
		b.see("the filter button at "+w, `[data-attr="zz.last.attribute"] button.add`)
		b.screenshot("log-panel-" + w)

		// Esc closes it; "/" goes to the where box.
		b.run("Esc closes the panel at "+w, chromedp.KeyEvent(kb.Escape), poll(`!document.querySelector('[data-testid=event-panel]')`))
		b.run("/ focuses the where box", chromedp.KeyEvent("/"), poll(`document.activeElement === document.querySelector('input[name=where]')`))

		// From the log to its trace.
		b.click("opening the log again at "+w, `[data-testid=results] tbody tr:first-child td:nth-child(2)`)
		b.scrollPanelTo(`[data-testid=event-panel]`, `[data-testid=open-trace]`)
		b.click("opening its trace at "+w, `[data-testid=open-trace]`)
		b.run("the waterfall from a log at "+w, waitText(`[data-testid=waterfall]`, "payments.charge"))

		// The trace page's span panel is on screen.
		b.click("opening a span at "+w, `[data-span-id="00f067aa0ba902b9"]`)
		b.see("the span panel at "+w, `[data-testid=span-panel]`)
		assert.Contains(t, b.text(`[data-testid=span-panel]`), "http.route")
		b.screenshot("span-panel-" + w)

		// Span search: a row opens in the panel, and its trace link opens
		// the waterfall.
		b.run("searching spans at "+w, chromedp.Navigate(ui+"/search/traces?q=service%3Apayments"), waitText(`[data-testid=results] tbody`, "payments.charge"))
		b.click("opening a span row at "+w, `[data-testid=results] tbody tr:first-child td:nth-child(2)`)
		b.see("the span's panel at "+w, `[data-testid=event-panel]`)
		b.screenshot("span-search-" + w)
		b.click("opening the row's trace at "+w, `[data-testid=results] tbody tr:first-child [data-testid=row-trace]`)
		b.run("the waterfall from a span row at "+w, waitText(`[data-testid=waterfall]`, "GET /checkout"))
	}

	// Every mistake is a message under the where box, never a silent 0 or
	// the engine's statement, and the histogram stops counting.
	for _, q := range []string{"lang=lucene&q=service%3A", "q=http.status_code%3A%3E%3Dabc", "q=%22unterminated", "q=a%3Ab%3Ac", "lang=sql&q=SeverityText+%3D+"} {
		b.run("searching "+q, chromedp.Navigate(ui+"/search/logs?"+q), chromedp.WaitVisible(chromedp.CSS(`[data-testid=search-error]`)))
		b.see("the message of "+q, `[data-testid=search-error]`)
		msg := b.text(`[data-testid=search-error]`)
		assert.NotEmpty(t, msg, q)
		for _, raw := range []string{"SELECT", "formatQuery", "EXPLAIN", "Code:"} {
			assert.NotContains(t, msg, raw, "%s: the engine's text is not shown", q)
		}
		b.run("the histogram gives up on "+q, waitText(`[data-testid=histogram-total]`, "No count"))
	}

	// A reversed absolute range is refused on Apply, with a message; Esc
	// closes the picker.
	b.run("a reversed range", chromedp.Navigate(ui+"/search/logs"), chromedp.Click(chromedp.CSS(`.timepicker > button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=time-popover]`)),
		poll(`(() => { const [f, t] = document.querySelectorAll('[data-testid=time-popover] input[type=datetime-local]');
			const set = (e, v) => { e.value = v; e.dispatchEvent(new Event('input', {bubbles: true})); };
			set(f, '2026-05-02T10:00:00'); set(t, '2026-05-01T10:00:00'); return true; })()`),
		chromedp.Click(chromedp.CSS(`[data-testid=time-popover] button.primary`)))
	assert.Contains(t, b.text(`[data-testid=range-error]`), "From must be before To")
	b.run("Esc closes the picker", chromedp.KeyEvent(kb.Escape), poll(`!document.querySelector('[data-testid=time-popover]')`))

	// Live tail: an event stamped 30 s ago, arriving after newer ones are
	// shown, appears in its place and is marked late.
	b.run("tailing", chromedp.Navigate(ui+"/search/logs?q=latetail&live=1"), waitText(`.results-head`, "No matching events"))
	tail := func(body string, at time.Time) {
		require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json",
			fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"tail"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"%d","body":{"stringValue":%q}}]}]}]}`, at.UnixNano(), body)))
	}
	tail("latetail fresh", time.Now())
	b.run("the fresh log appears", waitText(`[data-testid=results] tbody`, "latetail fresh"))
	tail("latetail from 30 s ago", time.Now().Add(-30*time.Second))
	b.run("the late log appears", waitText(`[data-testid=results] tbody`, "latetail from 30 s ago"))
	assert.Contains(t, b.text(`[data-testid=results] tbody tr.late`), "latetail from 30 s ago", "placed by its timestamp and marked late")
	assert.Contains(t, b.text(`[data-testid=results] tbody tr:first-child`), "latetail fresh", "newest first")

	// Services count requests: the database call is not one.
	b.run("services", chromedp.Navigate(ui+"/services"), waitText(`[data-testid=services]`, "payments.charge"))
	assert.Equal(t, "1", b.text(`tr.svc-row[data-service=checkout] td:nth-child(2)`), "checkout served one request; its SELECT is part of it")
	assert.Equal(t, "1", b.text(`tr.svc-row[data-service=payments] td:nth-child(2)`))
	assert.Equal(t, "100.00%", b.text(`tr.op-row[data-operation="payments.charge"] td:nth-child(3)`))
	b.screenshot("services")
}

// Facets, the event panel's include/exclude and the where box's
// autocomplete, as a person uses them at three screen widths: a value
// taken in or out from the Fields sidebar or the panel changes the rows;
// typing `serv` offers ServiceName, and after it the service's values
// (issue 42).
func TestBrowserSearchFacetsAndAutocomplete(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	b := newBrowser(t, ui, "facets")
	b.signUp("/", "owner@example.com", "correct horse battery")

	// Three services, logs of two regions: checkout 6 (eu 4, us 2),
	// payments 3 (us), inventory 1 (eu).
	now := time.Now()
	n := 0
	batch := func(svc string, regions ...string) string {
		var recs []string
		for _, r := range regions {
			n++
			recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","severityText":"INFO","body":{"stringValue":"facetlog %s %d"},"attributes":[{"key":"region","value":{"stringValue":%q}},{"key":"datadog.integration.log.source.category","value":{"stringValue":"web"}}]}`,
				now.Add(-time.Duration(n)*time.Second).UnixNano(), svc, n, r))
		}
		return fmt.Sprintf(`{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":%q}}]},"scopeLogs":[{"logRecords":[%s]}]}`, svc, strings.Join(recs, ","))
	}
	logs := `{"resourceLogs":[` + strings.Join([]string{
		batch("checkout", "eu", "eu", "us", "eu", "us", "eu"),
		batch("payments", "us", "us", "us"),
		batch("inventory", "eu"),
	}, ",") + `]}`
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/logs", "Authorization", "Bearer "+ingestKey, "application/json", logs))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_logs") == "10" }, 30*time.Second, 200*time.Millisecond, "stored")

	// rowsAfter waits for the search of where to finish and answers how
	// many rows it shows.
	rowsAfter := func(what, where string) int {
		b.t.Helper()
		b.run(what, poll(fmt.Sprintf(`(() => { const t = document.querySelector('[data-testid=results]'); return !!t && t.dataset.rowsFor === %q; })()`, where)))
		return eval[int](b, what, `document.querySelectorAll('[data-testid=results] tbody tr').length`)
	}

	for _, width := range []int64{1000, 1400, 1920} {
		b.run("a screen of this width", chromedp.EmulateViewport(width, 900))
		w := fmt.Sprint(width)

		b.run("searching logs at "+w, chromedp.Navigate(ui+"/search/logs?q=facetlog"), waitText(`[data-testid=results] tbody`, "facetlog"))
		require.Equal(t, 10, rowsAfter("every log at "+w, "facetlog"))
		b.run("the facets at "+w, waitText(`[data-testid=facets]`, "payments"))
		// A long dotted field name wraps at its dots, never mid-word:
		// each part between dots lies on one line, on more than one line.
		long := `[data-facet="datadog.integration.log.source.category"] h4`
		b.see("the long field name at "+w, long)
		assert.Equal(t, "datadog.integration.log.source.category", b.text(long), "the name reads as typed")
		lines := eval[[]int](b, "its parts' lines at "+w, fmt.Sprintf(`(() => {
			const h = document.querySelector(%q); const r = document.createRange();
			const tops = new Set(), per = [];
			for (const n of h.childNodes) {
				if (n.nodeType !== Node.TEXT_NODE) continue;
				r.selectNodeContents(n);
				const rects = [...r.getClientRects()];
				per.push(rects.length); rects.forEach((x) => tops.add(Math.round(x.top)));
			}
			return [tops.size, ...per];
		})()`, long))
		require.NotEmpty(t, lines)
		assert.Greater(t, lines[0], 1, "the name wraps in the sidebar at %s", w)
		for i, n := range lines[1:] {
			assert.Equal(t, 1, n, "part %d of the name is on one line at %s", i, w)
		}
		b.screenshot("facets-" + w)

		// From the Fields sidebar: take a service out, then a region in.
		b.click("excluding checkout at "+w, `[data-facet=ServiceName] button.facet-exc[data-filter='-ServiceName:"checkout"']`)
		assert.Equal(t, 4, rowsAfter("without checkout at "+w, `facetlog -ServiceName:"checkout"`), "payments 3 and inventory 1")
		b.run("the facets follow at "+w, poll(`(() => { const f = document.querySelector('[data-facet=ServiceName]'); return !!f && !f.innerText.includes('checkout'); })()`))
		b.click("including eu at "+w, `[data-facet=region] button.facet-inc[data-filter='region:"eu"']`)
		assert.Equal(t, 1, rowsAfter("eu without checkout at "+w, `facetlog -ServiceName:"checkout" region:"eu"`), "inventory's one")
		assert.Contains(t, b.text(`[data-testid=results] tbody`), "facetlog inventory")
		b.screenshot("facets-filtered-" + w)

		// From the event panel: the newest log (checkout, eu) gives its
		// region, then the next opened gives its service to take out.
		b.run("searching again at "+w, chromedp.Navigate(ui+"/search/logs?q=facetlog"))
		require.Equal(t, 10, rowsAfter("every log again at "+w, "facetlog"))
		b.click("opening the newest log at "+w, `[data-testid=results] tbody tr:first-child td:nth-child(2)`)
		b.scrollPanelTo(`[data-testid=event-panel]`, `[data-attr=region]`)
		b.screenshot("panel-" + w)
		b.click("including its region at "+w, `[data-testid=event-panel] [data-attr=region] button.add[data-filter='region:"eu"']`)
		assert.Equal(t, 5, rowsAfter("eu at "+w, `facetlog region:"eu"`), "checkout's 4 and inventory's 1")
		b.run("the panel closes on a filter", poll(`!document.querySelector('[data-testid=event-panel]')`))
		b.click("opening a log of eu at "+w, `[data-testid=results] tbody tr:first-child td:nth-child(2)`)
		b.click("excluding its service at "+w, `[data-testid=event-panel] button.exclude[data-filter='-service:"checkout"']`)
		assert.Equal(t, 1, rowsAfter("eu without checkout at "+w, `facetlog region:"eu" -service:"checkout"`))
		assert.Contains(t, b.text(`[data-testid=results] tbody`), "facetlog inventory")
		// The opposite of a term replaces it rather than adding a
		// contradiction.
		b.click("opening inventory's log at "+w, `[data-testid=results] tbody tr:first-child td:nth-child(2)`)
		b.scrollPanelTo(`[data-testid=event-panel]`, `[data-attr=region]`)
		b.click("excluding eu at "+w, `[data-testid=event-panel] [data-attr=region] button.exclude[data-filter='-region:"eu"']`)
		assert.Equal(t, 3, rowsAfter("us without checkout at "+w, `facetlog -service:"checkout" -region:"eu"`), "payments' 3")

		// Autocomplete: `serv` offers ServiceName; picking it offers its
		// values; picking one and Enter searches it.
		b.run("a fresh page at "+w, chromedp.Navigate(ui+"/search/logs"), fill(`input[name=where]`, "serv"))
		b.click("picking ServiceName at "+w, `[data-testid=suggestions] li[data-value=ServiceName]`)
		b.run("the field is written", poll(`document.querySelector('input[name=where]').value === 'ServiceName:'`))
		b.see("its values at "+w, `[data-testid=suggestions] li[data-value=payments]`)
		b.screenshot("autocomplete-values-" + w)
		b.click("picking payments at "+w, `[data-testid=suggestions] li[data-value=payments]`)
		b.run("the value is written", poll(`document.querySelector('input[name=where]').value.trim() === 'ServiceName:"payments"'`),
			chromedp.KeyEvent(kb.Enter))
		b.run("searched at "+w, poll(`(() => { const t = document.querySelector('[data-testid=results]'); return !!t && (t.dataset.rowsFor || '').trim() === 'ServiceName:"payments"'; })()`))
		assert.Equal(t, 3, eval[int](b, "rows", `document.querySelectorAll('[data-testid=results] tbody tr').length`))
	}

	// Span search's sidebar starts with service, status, span name and
	// kind, in that order, and excluding a status changes the rows.
	traceHex := "5bf92f3577b34da6a3ce929d0e0e4737"
	span := func(id, name string, status int) string {
		return fmt.Sprintf(`{"traceId":%q,"spanId":%q,"name":%q,"kind":2,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","status":{"code":%d}}`,
			traceHex, id, name, now.Add(-time.Second).UnixNano(), now.UnixNano(), status)
	}
	spans := fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"checkout"}}]},"scopeSpans":[{"spans":[%s,%s,%s]}]}]}`,
		span("00f067aa0ba902c1", "GET /cart", 2), span("00f067aa0ba902c2", "GET /cart", 0), span("00f067aa0ba902c3", "POST /pay", 0))
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/traces", "Authorization", "Bearer "+ingestKey, "application/json", spans))
	require.Eventually(t, func() bool { return c.sql(t, "SELECT count() FROM otel.otel_traces") == "3" }, 30*time.Second, 200*time.Millisecond, "stored")
	b.run("a narrow screen", chromedp.EmulateViewport(1000, 900))
	b.run("searching spans", chromedp.Navigate(ui+"/search/traces"), waitText(`[data-testid=facets]`, "POST /pay"))
	assert.Equal(t, []string{"ServiceName", "StatusCode", "SpanName", "SpanKind"},
		eval[[]string](b, "the span facets", `[...document.querySelectorAll('[data-facet]')].slice(0, 4).map((e) => e.dataset.facet)`))
	b.screenshot("span-facets")
	b.click("excluding the errors", `[data-facet=StatusCode] button.facet-exc[data-filter='-StatusCode:"Error"']`)
	assert.Equal(t, 2, rowsAfter("spans without errors", `-StatusCode:"Error"`))
}

// Saved searches (issue 42, item 5): a second search of a name the team
// already uses is refused with a message; opening one keeps the range
// on screen; deleting one asks first.
func TestBrowserSavedSearchNamesRangeAndDelete(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	ui := fmt.Sprintf("http://127.0.0.1:%d", c.ui)
	b := newBrowser(t, ui, "saved")
	b.signUp("/", "owner@example.com", "correct horse battery")

	save := func(name string) {
		b.t.Helper()
		b.run("saving "+name, chromedp.Navigate(ui+"/search/logs?q=service%3Acheckout&range=1h"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=saved-menu]`)))
		b.click("the Save button", `.saved button:nth-child(2)`)
		b.run("naming it", fill(`input[name=saved-name]`, name), chromedp.Click(chromedp.CSS(`.saved-form button[type=submit]`)))
	}
	save("Checkout")
	b.run("saved", waitText(`[data-testid=saved-menu]`, "Saved (1)"))
	save("checkout ")
	b.see("the refusal", `.saved-form .error`)
	assert.Contains(t, b.text(`.saved-form .error`), "already named “Checkout”")
	b.run("still one", chromedp.Navigate(ui+"/search/logs"), waitText(`[data-testid=saved-menu]`, "Saved (1)"))

	// Opened from a page on the last 6 hours, it keeps them.
	b.run("a page on 6 h", chromedp.Navigate(ui+"/search/logs?range=6h"), waitText(`[data-testid=saved-menu]`, "Saved (1)"))
	b.click("the list", `[data-testid=saved-menu]`)
	b.click("opening it", `.saved-item[data-saved=Checkout] a`)
	b.run("its where, the range kept", poll(`location.search.includes('q=service%3Acheckout') && location.search.includes('range=6h')`))

	// Delete asks; Cancel keeps it, Delete removes it.
	b.click("the list again", `[data-testid=saved-menu]`)
	b.click("×", `.saved-item[data-saved=Checkout] [data-action=delete]`)
	b.see("the question", `.saved-item[data-saved=Checkout] [data-action=confirm-delete]`)
	b.click("cancel", `.saved-item[data-saved=Checkout] .confirm button:not(.danger)`)
	b.see("still listed", `.saved-item[data-saved=Checkout] [data-action=delete]`)
	assert.Contains(t, b.text(`[data-testid=saved-menu]`), "Saved (1)")
	b.click("× again", `.saved-item[data-saved=Checkout] [data-action=delete]`)
	b.click("delete", `.saved-item[data-saved=Checkout] [data-action=confirm-delete]`)
	b.run("deleted", waitText(`[data-testid=saved-menu]`, "Saved (0)"))
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

var dbSeq atomic.Int64

type fixture struct {
	url          string
	server       *Server
	alerts       *alerting.Scheduler // beside the API, as the extension builds it
	keyA, keyB   string              // personal keys of teams a and b
	mgdID, mgdSK string
	state        string // the state database
}

// setup runs the API on its own state database with two teams.
func setup(t testing.TB) fixture {
	t.Helper()
	return setupWith(t, func(*Options) {})
}

// setupWith is setup with options changed by with.
func setupWith(t testing.TB, with func(*Options)) fixture {
	t.Helper()
	ctx := context.Background()
	state := fmt.Sprintf("api_test_%d", dbSeq.Add(1))
	st, err := store.Open(ctx, chtest.DB(t), state)
	require.NoError(t, err)
	fx := fixture{keyA: keys.New("ohp_"), keyB: keys.New("ohp_"), mgdID: "key-id", mgdSK: "key-secret", state: state}
	for team, k := range map[string]string{"a": fx.keyA, "b": fx.keyB} {
		keyTeams.Store(bearer(k), team)
		require.NoError(t, st.CreateTeam(ctx, team, team))
		require.NoError(t, st.PutKey(ctx, store.Key{Hash: keys.Hash(k), TeamID: team, Kind: keys.Personal, KeyID: team}))
	}
	sealer, err := keys.LoadSealer(filepath.Join(t.TempDir(), keys.SecretFile))
	require.NoError(t, err)
	opts := Options{
		Store: st, Sealer: sealer, Database: "otel", DB: chtest.DB(t), OrganizationID: "org1", ServiceID: "svc1", Logger: zap.NewNop(),
		ManagedKeys: []ManagedKey{{ID: fx.mgdID, Secret: fx.mgdSK, TeamID: "a"}},
		// Team a is the install's team; b has no database until a test
		// assigns it one.
		Tenancy: &sources.Tenancy{Store: st, State: state, Owner: "a", OwnerDatabases: []string{"otel", "api_charts", "api_alerts"}},
	}
	with(&opts)
	fx.alerts = newScheduler(opts, 20*time.Millisecond)
	if opts.SendTest == nil {
		sender := webhook.New(webhook.Options{Attempts: 1, Timeout: 5 * time.Second, AllowPrivate: true})
		opts.SendTest = func(ctx context.Context, team, id string) webhook.Result {
			return fx.alerts.SendTest(ctx, team, id, time.Now(), sender)
		}
	}
	s := New(opts)
	require.NoError(t, s.Bootstrap(ctx, "a"))
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	fx.url, fx.server = ts.URL, s
	return fx
}

// newScheduler is the alert scheduler the extension builds beside the
// API, over the same store, tenancy and connection; settle is its claim
// wait (alerts.claim_settle).
func newScheduler(o Options, settle time.Duration) *alerting.Scheduler {
	return alerting.New(alerting.Options{
		Store: o.Store, Sources: &sources.Catalog{Store: o.Store, Tenancy: o.Tenancy}, DB: o.DB,
		QueryTimeout: o.QueryTimeout, ClaimSettle: settle, Logger: o.Logger, Sealer: o.Sealer,
	})
}

type resp struct {
	status int
	body   map[string]any
}

func call(t testing.TB, method, url, auth string, body any, headers ...string) resp {
	t.Helper()
	var r io.Reader
	if m, ok := body.(map[string]any); ok && hasKey(m, "timestampColumn") && (method == http.MethodPost || method == http.MethodPut) &&
		strings.Contains(url, "/api/v2/sources") {
		team, _ := keyTeams.Load(auth)
		body = sourceBody(t, fmt.Sprint(team), m)
	}
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, r)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	checkContract(t, req, res, raw)
	out := resp{status: res.StatusCode}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

var (
	contractOnce sync.Once
	contract     routers.Router
)

// checkContract holds every response of a documented route to the OpenAPI
// document the API serves.
func checkContract(t testing.TB, req *http.Request, res *http.Response, body []byte) {
	t.Helper()
	contractOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
		require.NoError(t, err)
		require.NoError(t, doc.Validate(context.Background()))
		contract, err = gorillamux.NewRouter(doc)
		require.NoError(t, err)
	})
	route, params, err := contract.FindRoute(req)
	if err != nil {
		return // not a documented route (405 from the router, the managed webhooks 404)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), in),
		"%s %s -> %d %s", req.Method, req.URL.Path, res.StatusCode, body)
}

func bearer(k string) string { return "Bearer " + k }

func basic(id, secret string) string {
	req, _ := http.NewRequest(http.MethodGet, "/", nil)
	req.SetBasicAuth(id, secret)
	return req.Header.Get("Authorization")
}

// bigDashboard is a valid dashboard of about size bytes, its bulk in
// markdown tiles.
func bigDashboard(name string, size int) map[string]any {
	d := dashboard(name)
	for i := 0; size > 0; i++ {
		n := min(size, 50000)
		d["tiles"] = append(d["tiles"].([]any), map[string]any{
			"id": fmt.Sprintf("md%d", i), "name": "notes", "x": 0, "y": 3 + i, "w": 24, "h": 1,
			"config": map[string]any{"displayType": "markdown", "markdown": strings.Repeat("x", n)},
		})
		size -= n
	}
	return d
}

func dashboard(name string) map[string]any {
	return map[string]any{"name": name, "tags": []string{"prod"}, "tiles": []any{map[string]any{
		"id": "t1", "name": "errors", "x": 0, "y": 0, "w": 6, "h": 3,
		"config": map[string]any{"source": "logs", "aggFn": "count", "where": "level:error", "groupBy": []string{}},
	}}}
}

func TestAuth(t *testing.T) {
	fx := setup(t)
	for _, auth := range []string{"", "Bearer wrong", "Basic Zm9vOmJhcg==", bearer(fx.keyA) + "x"} {
		r := call(t, http.MethodGet, fx.url+"/api/v2/dashboards", auth, nil)
		assert.Equal(t, http.StatusUnauthorized, r.status, auth)
		assert.Equal(t, "missing or invalid API key", r.body["message"])
	}
	m := fx.url + "/v1/organizations/org1/services/svc1/observability/dashboards"
	r := call(t, http.MethodGet, m, basic(fx.mgdID, "nope"), nil)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Equal(t, float64(401), r.body["status"])
	assert.NotEmpty(t, r.body["requestId"])
	r = call(t, http.MethodGet, m, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusUnauthorized, r.status, "the managed form takes Basic key id:secret")
	r = call(t, http.MethodGet, fx.url+"/v1/organizations/other/services/svc1/observability/dashboards", basic(fx.mgdID, fx.mgdSK), nil)
	assert.Equal(t, http.StatusNotFound, r.status, "another organization")
}

func TestDashboardsCRUDBothForms(t *testing.T) {
	fx := setup(t)
	self := fx.url + "/api/v2/dashboards"
	created := call(t, http.MethodPost, self, bearer(fx.keyA), dashboard("first"))
	require.Equal(t, http.StatusOK, created.status, created.body)
	d := created.body["data"].(map[string]any)
	id := d["id"].(string)
	assert.NotEmpty(t, d["createdAt"])
	assert.Equal(t, "line", d["tiles"].([]any)[0].(map[string]any)["config"].(map[string]any)["displayType"], "defaulted")

	got := call(t, http.MethodGet, self+"/"+id, bearer(fx.keyA), nil)
	assert.Equal(t, "first", got.body["data"].(map[string]any)["name"])

	upd := dashboard("renamed")
	r := call(t, http.MethodPut, self+"/"+id, bearer(fx.keyA), upd)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, d["createdAt"], r.body["data"].(map[string]any)["createdAt"], "createdAt survives updates")

	// The managed form sees the same team's dashboards in its envelope.
	m := fx.url + "/v1/organizations/org1/services/svc1/observability/dashboards"
	r = call(t, http.MethodPost, m, basic(fx.mgdID, fx.mgdSK), dashboard("second"))
	require.Equal(t, http.StatusCreated, r.status, "the managed form keeps its specification's 201: %v", r.body)
	assert.Equal(t, float64(201), r.body["status"])
	assert.NotEmpty(t, r.body["requestId"])
	assert.Equal(t, "second", r.body["result"].(map[string]any)["name"])

	l := call(t, http.MethodGet, self+"?limit=1", bearer(fx.keyA), nil)
	assert.Equal(t, float64(2), total(l))
	assert.Len(t, l.body["data"], 1)
	l = call(t, http.MethodGet, m, basic(fx.mgdID, fx.mgdSK), nil)
	assert.Len(t, l.body["result"], 2)

	r = call(t, http.MethodDelete, self+"/"+id, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusOK, r.status)
	r = call(t, http.MethodGet, self+"/"+id, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "Dashboard not found", r.body["message"])
}

func TestTeamsAreIsolated(t *testing.T) {
	fx := setup(t)
	id := call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), dashboard("mine")).body["data"].(map[string]any)["id"].(string)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		r := call(t, method, fx.url+"/api/v2/dashboards/"+id, bearer(fx.keyB), nil)
		assert.Equal(t, http.StatusNotFound, r.status, "404, not 403: another team's id does not exist")
	}
	r := call(t, http.MethodPut, fx.url+"/api/v2/dashboards/"+id, bearer(fx.keyB), dashboard("stolen"))
	assert.Equal(t, http.StatusNotFound, r.status)
	l := call(t, http.MethodGet, fx.url+"/api/v2/dashboards", bearer(fx.keyB), nil)
	assert.Equal(t, float64(0), total(l))
	l = call(t, http.MethodGet, fx.url+"/api/v2/sources", bearer(fx.keyB), nil)
	assert.Equal(t, float64(0), total(l), "team a's sources are not team b's")
}

func TestValidationAndProtocolErrors(t *testing.T) {
	fx := setup(t)
	self := fx.url + "/api/v2/dashboards"
	bad := map[string]any{"tiles": []any{map[string]any{"w": 0, "h": 1, "config": map[string]any{"aggFn": "sum", "whereLanguage": "sql2"}}}}
	r := call(t, http.MethodPost, self, bearer(fx.keyA), bad)
	assert.Equal(t, http.StatusBadRequest, r.status)
	msg := r.body["message"].(string)
	for _, want := range []string{
		"name is required", "w must be 1 to 24, got 0", "config.sourceId is required",
		"valueExpression is required with aggFn sum", "whereLanguage must be one of",
	} {
		assert.Contains(t, msg, want, "every problem is listed")
	}
	r = call(t, http.MethodPost, self, bearer(fx.keyA), `{"name":"x","unknown":1}`)
	assert.Equal(t, http.StatusBadRequest, r.status)
	r = call(t, http.MethodPost, self, bearer(fx.keyA), `{"name":`)
	assert.Equal(t, http.StatusBadRequest, r.status)
	r = call(t, http.MethodPost, self, bearer(fx.keyA), `{"name":"x"}`, "Content-Type", "text/plain")
	assert.Equal(t, http.StatusUnsupportedMediaType, r.status)
	r = call(t, http.MethodPost, self, bearer(fx.keyA), `{"name":"`+strings.Repeat("x", MaxBody)+`"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	r = call(t, http.MethodPatch, self, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	r = call(t, http.MethodGet, self+"?limit=0", bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusBadRequest, r.status)
	r = call(t, http.MethodGet, fx.url+"/v1/organizations/org1/services/svc1/observability/webhooks", basic(fx.mgdID, fx.mgdSK), nil)
	assert.Equal(t, http.StatusNotFound, r.status, "webhooks are self-hosted only, as in the spec")
}

func TestAlertsReferenceTheirDashboardTileAndWebhook(t *testing.T) {
	fx := setup(t)
	dash := call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), dashboard("d")).body["data"].(map[string]any)["id"].(string)
	wh := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{
		"name": "ops", "url": "https://hooks.example/x", "headers": map[string]string{"Authorization": "secret"},
	})
	require.Equal(t, http.StatusOK, wh.status, wh.body)
	whID := wh.body["data"].(map[string]any)["id"].(string)
	assert.NotContains(t, wh.body["data"], "headers", "headers are write-only")
	g := call(t, http.MethodGet, fx.url+"/api/v2/webhooks/"+whID, bearer(fx.keyA), nil)
	assert.NotContains(t, g.body["data"], "headers")

	alert := map[string]any{
		"name": "too many errors", "message": "check it", "dashboardId": dash, "tileId": "t1", "threshold": 10,
		"interval": "5m", "source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": whID},
	}
	r := call(t, http.MethodPost, fx.url+"/v1/organizations/org1/services/svc1/observability/alerts", basic(fx.mgdID, fx.mgdSK), alert)
	require.Equal(t, http.StatusCreated, r.status, r.body)
	a := r.body["result"].(map[string]any)
	assert.Equal(t, "OK", a["state"])
	assert.NotEmpty(t, a["updatedAt"])

	bad := map[string]any{
		"name": "x", "dashboardId": dash, "tileId": "nope", "threshold": 1, "interval": "7m",
		"source": "tile", "thresholdType": "sideways", "channel": map[string]any{"type": "webhook", "webhookId": "missing"},
	}
	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), bad)
	assert.Equal(t, http.StatusBadRequest, r.status)
	for _, want := range []string{"interval must be one of", "thresholdType must be one of", `Tile not found (dashboard "` + dash + `" has no tile "nope")`, `Webhook not found ("missing")`} {
		assert.Contains(t, r.body["message"], want)
	}
	// Another team cannot point an alert at team a's dashboard.
	r = call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyB), alert)
	assert.Equal(t, http.StatusBadRequest, r.status)

	r = call(t, http.MethodDelete, fx.url+"/api/v2/webhooks/"+whID, bearer(fx.keyA), nil)
	assert.Equal(t, http.StatusConflict, r.status, "a webhook in use is not deleted")
	r = call(t, http.MethodDelete, fx.url+"/api/v2/dashboards/"+dash, bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status)
	l := call(t, http.MethodGet, fx.url+"/api/v2/alerts", bearer(fx.keyA), nil)
	assert.Equal(t, float64(0), total(l), "a dashboard's alerts go with it")
}

func TestRateLimitPerKey(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.RateLimit = RateLimit{PerSecond: 0.5, Burst: 3} })
	var statuses []int
	var last *http.Response
	for i := 0; i < 4; i++ {
		req, _ := http.NewRequest(http.MethodGet, fx.url+"/api/v2/dashboards", nil)
		req.Header.Set("Authorization", bearer(fx.keyA))
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		statuses = append(statuses, res.StatusCode)
		last = res
	}
	assert.Equal(t, []int{200, 200, 200, 429}, statuses)
	assert.Equal(t, "3", last.Header.Get("RateLimit-Limit"))
	assert.Equal(t, "0", last.Header.Get("RateLimit-Remaining"))
	assert.NotEmpty(t, last.Header.Get("Retry-After"))
	// Another key has its own budget.
	r := call(t, http.MethodGet, fx.url+"/api/v2/dashboards", bearer(fx.keyB), nil)
	assert.Equal(t, http.StatusOK, r.status)
}

func TestNoRateLimitByDefault(t *testing.T) {
	fx := setup(t)
	for i := 0; i < 30; i++ {
		r := call(t, http.MethodGet, fx.url+"/api/v2/sources", bearer(fx.keyA), nil)
		require.Equal(t, http.StatusOK, r.status)
	}
}

func TestOpenAPIIsServed(t *testing.T) {
	fx := setup(t)
	res, err := http.Get(fx.url + "/openapi.yaml")
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, OpenAPI, b)
}

func TestDefaultSources(t *testing.T) {
	fx := setup(t)
	l := call(t, http.MethodGet, fx.url+"/v1/organizations/org1/services/svc1/observability/sources", basic(fx.mgdID, fx.mgdSK), nil)
	require.Equal(t, http.StatusOK, l.status)
	var kinds []string
	for _, s := range l.body["result"].([]any) {
		kinds = append(kinds, s.(map[string]any)["kind"].(string))
	}
	assert.ElementsMatch(t, []string{"log", "trace", "metric"}, kinds)
}

// Every self-hosted route, the session door's too, is in the OpenAPI
// document: its answers are then held to it (checkContract), and the web
// UI's types, generated from it, know it.
func TestEveryRouteIsDocumented(t *testing.T) {
	fx := setup(t)
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	require.NoError(t, err)
	for _, pattern := range fx.server.patterns {
		method, path, _ := strings.Cut(pattern, " ")
		if strings.HasSuffix(path, "/{$}") {
			continue // the trailing-slash spelling of a documented path
		}
		item := doc.Paths.Value(path)
		if assert.NotNil(t, item, "%s is not in openapi.yaml", path) {
			assert.NotNil(t, item.GetOperation(method), "%s %s is not in openapi.yaml", method, path)
		}
	}
}

// keyTeams is each fixture's personal keys (as Authorization) by team.
var keyTeams sync.Map

// sourceBody is a source the tests wrote before sources took HyperDX's
// shape (database, table, *Column), as today's body: read as a stored
// document of that shape is (sources.Decode), through the team's default
// connection.
func sourceBody(t testing.TB, team string, m map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	src, err := sources.Decode(team, b)
	require.NoError(t, err)
	b, err = json.Marshal(src)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	delete(out, "id")
	return out
}

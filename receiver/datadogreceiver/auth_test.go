package datadogreceiver

import (
	"context"
	"net/http"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/metadata"
)

// host is a collector host with extensions.
type host map[component.ID]component.Component

func (h host) GetExtensions() map[component.ID]component.Component { return h }

func TestIngestionKeyAuthenticator(t *testing.T) {
	enableGate(t)
	// A real server authenticator: bearertokenauth holding the key.
	af := bearertokenauthextension.NewFactory()
	acfg := af.CreateDefaultConfig().(*bearertokenauthextension.Config)
	acfg.BearerToken = configopaque.String("agent-key")
	authID := component.MustNewID("bearertokenauth")
	ext, err := af.Create(context.Background(), extensiontest.NewNopSettings(af.Type()), acfg)
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, ext.Shutdown(context.Background())) }()

	cfg := createDefaultConfig().(*Config)
	cfg.NetAddr.Endpoint = "127.0.0.1:0"
	cfg.APIKeys = []configopaque.String{"static-key"}
	cfg.IngestionKeyAuthenticator = &authID
	sink := new(consumertest.LogsSink)
	r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), host{authID: ext}))
	defer func() { require.NoError(t, r.Shutdown(context.Background())) }()
	h := &harness{url: "http://" + r.(*datadogReceiver).addr.String(), client: &http.Client{Transport: &http.Transport{}}}
	defer h.client.CloseIdleConnections()

	for key, want := range map[string]int{"": 403, "wrong": 403, "agent-key": 202, "static-key": 202} {
		status, _, _ := h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody), "DD-API-KEY", key)
		assert.Equal(t, want, status, "key %q", key)
	}
	assert.Equal(t, 4, sink.LogRecordCount())
}

func TestIngestionKeyAuthenticatorMustExist(t *testing.T) {
	enableGate(t)
	id := component.MustNewID("observability_api")
	cfg := createDefaultConfig().(*Config)
	cfg.NetAddr.Endpoint = "127.0.0.1:0"
	cfg.IngestionKeyAuthenticator = &id
	r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	require.NoError(t, err)
	err = r.Start(context.Background(), componenttest.NewNopHost())
	require.ErrorContains(t, err, "is not an extension of this collector")
	require.NoError(t, r.Shutdown(context.Background()))
}

// Tracer paths take keyless requests from the tracer networks only (the
// test's client is on loopback); elsewhere, or with
// require_key_on_tracer_paths, a key is needed there too. Agent paths
// always need one while keys are checked.
func TestTracerPathsByClientNetwork(t *testing.T) {
	trace := []byte(`[[{"service":"s","name":"n","resource":"r","trace_id":1,"span_id":2,"start":1700000000000000000,"duration":10}]]`)
	for _, tc := range []struct {
		name     string
		mutate   func(*Config)
		keyless  int // a trace without a key
		withKey  int // a trace with the key
		agentNoK int // a log without a key
	}{
		{"defaults: loopback is a tracer network", func(*Config) {}, 200, 200, 403},
		{"loopback not listed", func(c *Config) { c.TracerNetworks = []string{"10.0.0.0/8"} }, 403, 200, 403},
		{"key required on tracer paths", func(c *Config) { c.RequireKeyOnTracerPaths = true }, 403, 200, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startAll(t, func(c *Config) {
				c.APIKeys = []configopaque.String{"k"}
				tc.mutate(c)
			}, new(consumertest.TracesSink), new(consumertest.LogsSink), nil)
			status, body, _ := h.do(t, http.MethodPost, "/v0.4/traces", trace, "Content-Type", "application/json")
			assert.Equal(t, tc.keyless, status, "%s: %s", tc.name, body)
			if status == 403 {
				assert.Contains(t, body, "API key", tc.name)
			}
			status, _, _ = h.do(t, http.MethodPost, "/v0.4/traces", trace, "Content-Type", "application/json", "DD-API-KEY", "k")
			assert.Equal(t, tc.withKey, status, tc.name)
			status, _, _ = h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody))
			assert.Equal(t, tc.agentNoK, status, tc.name)
		})
	}
}

func TestTracerNetworksAreValidated(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, cfg.Validate())
	cfg.TracerNetworks = []string{"10.0.0.0/8", "not-a-cidr"}
	assert.ErrorContains(t, cfg.Validate(), `tracer_networks: "not-a-cidr" is not a CIDR`)
}

// A web page can post to a collector on the developer's machine (a
// text/plain POST needs no preflight), and tracer paths take keyless
// requests from loopback: a request with a browser's Origin header is
// refused on every tracer path, with or without keys, and counted. Agent
// paths are not tracer paths and keep judging by the key alone.
func TestTracerPathsRefuseBrowsers(t *testing.T) {
	trace := []byte(`[[{"service":"s","name":"n","resource":"r","trace_id":1,"span_id":2,"start":1700000000000000000,"duration":10}]]`)
	for _, keys := range [][]configopaque.String{nil, {"k"}} {
		h := startAll(t, func(c *Config) { c.APIKeys = keys },
			new(consumertest.TracesSink), new(consumertest.LogsSink), new(consumertest.MetricsSink))
		paths := []string{
			"/v0.3/traces", "/v0.4/traces", "/v0.5/traces", "/v0.7/traces", "/v1.0/traces",
			"/v0.6/stats", "/telemetry/proxy/api/v2/apmtelemetry", "/profiling/v1/input", "/debugger/v1/input",
			"/v0.7/config", "/evp_proxy/v2/api/v2/citestcycle", "/dogstatsd/v2/proxy",
		}
		for _, p := range paths {
			for _, origin := range []string{"https://attacker.example", "null"} {
				status, body, _ := h.do(t, http.MethodPost, p, trace, "Content-Type", "text/plain", "Origin", origin, "DD-API-KEY", "k")
				assert.Equal(t, http.StatusForbidden, status, "%s from %s (keys %v)", p, origin, keys)
				assert.Contains(t, body, "tracers send no Origin header", p)
			}
		}
		status, body, _ := h.do(t, http.MethodGet, "/info", nil, "Origin", "https://attacker.example")
		assert.Equal(t, http.StatusForbidden, status, body)
		assert.Equal(t, int64(2*len(paths)+1), sumMetric(t, h.tel, "otelcol_receiver_datadog_browser_requests"))
		assert.Zero(t, h.traces.SpanCount(), "nothing from a web page is stored")

		status, body, _ = h.do(t, http.MethodPost, "/v0.4/traces", trace, "Content-Type", "application/json")
		assert.Equal(t, http.StatusOK, status, "a tracer (no Origin) is served: %s", body)
		status, body, _ = h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody), "Origin", "https://app.example", "DD-API-KEY", "k")
		assert.Equal(t, http.StatusAccepted, status, "agent paths judge by key: %s", body)
	}
}

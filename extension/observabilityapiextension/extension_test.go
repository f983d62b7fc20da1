package observabilityapiextension

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/api"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/metadata"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/metadatatest"
)

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// runTests is the package's TestMain (metadata.yaml): the tests, then the
// shared engine stopped.
func runTests(m *testing.M) { chtest.Main(m) }

// startOnFreeAddr starts the extension on a free loopback port. A port
// found free may be taken (by another test process's client) before the
// extension binds it: then it tries another.
func startOnFreeAddr(t *testing.T, cfg *Config) (string, component.Component) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		cfg.NetAddr.Endpoint = freeAddr(t)
		ext, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(metadata.Type), cfg)
		require.NoError(t, err)
		err = ext.Start(context.Background(), componenttest.NewNopHost())
		if err != nil && errors.Is(err, syscall.EADDRINUSE) && attempt < 10 {
			_ = ext.Shutdown(context.Background())
			continue
		}
		require.NoError(t, err)
		return cfg.NetAddr.Endpoint, ext
	}
}

func startAPI(t *testing.T, dataDir string, database ...string) (string, component.Component) {
	t.Helper()
	cfg := createDefaultConfig().(*Config)
	cfg.ClickHouse.Endpoint = "http://" + chtest.Endpoint(t)
	cfg.ClickHouse.Database = "api_ext_test"
	if len(database) > 0 {
		cfg.ClickHouse.Database = database[0]
	}
	cfg.DataDir = dataDir
	cfg.Managed = ManagedConfig{OrganizationID: "o", ServiceID: "s", Keys: []ManagedKey{{ID: "id", Secret: "secret"}}}
	require.NoError(t, cfg.Validate())
	addr, ext := startOnFreeAddr(t, cfg)
	t.Cleanup(func() { _ = ext.Shutdown(context.Background()) })
	require.Eventually(t, func() bool { return ext.(*apiExtension).ready.Load() != nil }, 30*time.Second, 20*time.Millisecond)
	return "http://" + addr, ext
}

func personalKey(t *testing.T, dataDir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, KeysFile))
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if k, ok := strings.CutPrefix(l, "personal_api_access_key="); ok {
			return k
		}
	}
	t.Fatal("no personal key in the keys file")
	return ""
}

func get(t *testing.T, url, auth string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", auth)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &body)
	return resp.StatusCode, body
}

func TestFirstStartRestartAndTwoInstances(t *testing.T) {
	chtest.FreshDatabase(t, "api_ext_test")
	dir := t.TempDir()
	url1, ext1 := startAPI(t, dir)
	st, err := os.Stat(filepath.Join(dir, KeysFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the keys file is private")
	key := personalKey(t, dir)
	assert.True(t, strings.HasPrefix(key, "ohp_"))

	status, body := get(t, url1+"/api/v2/sources", "Bearer "+key)
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, float64(3), body["meta"].(map[string]any)["total"], "the exporter's three tables are sources from the first start")

	// A second instance on the same state sees what the first writes.
	dir2 := t.TempDir()
	url2, _ := startAPI(t, dir2)
	_, err = os.Stat(filepath.Join(dir2, KeysFile))
	assert.True(t, os.IsNotExist(err), "keys are generated once, not per instance")
	req, _ := http.NewRequest(http.MethodPost, url1+"/api/v2/dashboards", strings.NewReader(`{"name":"shared"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "HyperDX answers a create 200")
	status, body = get(t, url2+"/api/v2/dashboards", "Bearer "+key)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, float64(2), body["meta"].(map[string]any)["total"], "the first start's Hosts dashboard and the new one")

	// Restart: the key and the data survive.
	require.NoError(t, ext1.Shutdown(context.Background()))
	url3, _ := startAPI(t, dir)
	status, body = get(t, url3+"/api/v2/dashboards", "Bearer "+key)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, float64(2), body["meta"].(map[string]any)["total"])
	req, _ = http.NewRequest(http.MethodGet, url3+"/v1/organizations/o/services/s/observability/dashboards", nil)
	req.SetBasicAuth("id", "secret")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "managed keys from config")
}

func TestServesUnavailableUntilStorageIsReachable(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.ClickHouse.Endpoint = "http://127.0.0.1:1" // nothing there
	cfg.DataDir = t.TempDir()
	addr, ext := startOnFreeAddr(t, cfg) // the collector starts anyway
	resp, err := http.Get("http://" + addr + "/api/v2/dashboards")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	require.NoError(t, ext.Shutdown(context.Background()), "shutdown stops the retries")
}

func TestAuthenticatesIngestionKeys(t *testing.T) {
	chtest.FreshDatabase(t, "api_auth_test")
	dir := t.TempDir()
	_, ext := startAPI(t, dir, "api_auth_test")
	a := ext.(*apiExtension)
	b, err := os.ReadFile(filepath.Join(dir, KeysFile))
	require.NoError(t, err)
	var ingestion string
	for _, l := range strings.Split(string(b), "\n") {
		if k, ok := strings.CutPrefix(l, "ingestion_api_key="); ok {
			ingestion = k
		}
	}
	require.NotEmpty(t, ingestion)
	tt := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
	a.telemetry, err = metadata.NewTelemetryBuilder(tt.NewTelemetrySettings())
	require.NoError(t, err)
	ctx := context.Background()
	_, err = a.Authenticate(ctx, map[string][]string{"authorization": {"Bearer " + ingestion}})
	require.NoError(t, err, "OTLP style")
	_, err = a.Authenticate(ctx, map[string][]string{"authorization": {"Bearer " + ingestion}, "dd-api-key": {"stale"}})
	require.NoError(t, err, "the bearer token decides, whatever the map's order")
	_, err = a.Authenticate(ctx, map[string][]string{"DD-API-KEY": {ingestion}})
	require.NoError(t, err, "agent style")
	_, err = a.Authenticate(ctx, map[string][]string{"DD-API-KEY": {"nope"}})
	require.ErrorIs(t, err, errBadKey)
	_, err = a.Authenticate(ctx, map[string][]string{})
	require.ErrorIs(t, err, errNoKey)
	_, err = a.Authenticate(ctx, map[string][]string{"DD-API-KEY": {personalKey(t, dir)}})
	require.ErrorIs(t, err, errBadKey, "a personal key is not an ingestion key")
	metadatatest.AssertEqualObservabilityAPIAuthFailures(t, tt, []metricdata.DataPoint[int64]{
		{Value: 3, Attributes: attribute.NewSet(attribute.String("door", "ingestion"))},
	}, metricdatatest.IgnoreTimestamp())
}

func TestConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, cfg.Validate())
	assert.Equal(t, "localhost:8000", cfg.NetAddr.Endpoint)
	cfg.Managed = ManagedConfig{OrganizationID: "o", Keys: []ManagedKey{{ID: "x"}}}
	err := cfg.Validate()
	require.ErrorContains(t, err, "go together")
	require.ErrorContains(t, err, "needs id and secret")
	cfg.Managed = ManagedConfig{OrganizationID: "o", ServiceID: "s", Keys: []ManagedKey{{}}}
	require.NoError(t, cfg.Validate(), "an entry from unset variables is ignored")
	assert.Empty(t, cfg.managedKeys())
	cfg.Alerts.Workers = -1
	require.ErrorContains(t, cfg.Validate(), "alerts.workers must not be negative")
	cfg.Alerts.Workers = 8
	cfg.TeamLimits.Webhooks = 0
	require.ErrorContains(t, cfg.Validate(), "team_limits values must be positive")
	cfg.TeamLimits.Webhooks = 100
	cfg.Alerts.HistoryRetention = 1500 * time.Millisecond
	require.ErrorContains(t, cfg.Validate(), "alerts.history_retention must be whole seconds")
	cfg.Alerts.HistoryRetention = 0
	require.NoError(t, cfg.Validate(), "0 keeps history for ever")
	cfg.SourceDatabases = []string{"app_logs", cfg.ClickHouse.Database, "System"}
	err = cfg.Validate()
	require.ErrorContains(t, err, `source_databases may not list "otelhouse"`)
	require.ErrorContains(t, err, `source_databases may not list "System"`)
	assert.NotContains(t, err.Error(), "app_logs")
}

func TestTeamLimitsConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, cfg.Unmarshal(confmap.NewFromStringMap(map[string]any{"team_limits": map[string]any{"alerts": 50}})))
	assert.Equal(t, api.TeamLimits{Dashboards: 1000, Alerts: 50, Sources: 100, Webhooks: 100, SavedSearches: 1000, Connections: 100}, cfg.TeamLimits,
		"one limit set, the others keep their defaults")
}

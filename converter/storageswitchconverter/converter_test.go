package storageswitchconverter

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

func shipped() map[string]any {
	return map[string]any{
		"extensions": map[string]any{"health_check": nil, "embedded_clickhouse": map[string]any{"endpoint": "127.0.0.1:8123"}},
		"service":    map[string]any{"extensions": []any{"health_check"}},
	}
}

func convert(t *testing.T, endpoint string, raw map[string]any) *confmap.Conf {
	t.Helper()
	conf := confmap.NewFromStringMap(raw)
	c := converter{getenv: func(k string) string {
		if k == EndpointEnvVar {
			return endpoint
		}
		return ""
	}}
	require.NoError(t, c.Convert(context.Background(), conf))
	return conf
}

func TestEmbeddedWhenNoEndpoint(t *testing.T) {
	for _, v := range []string{"", "  "} {
		conf := convert(t, v, shipped())
		assert.Equal(t, []any{"embedded_clickhouse", "health_check"}, conf.Get("service::extensions"))
	}
}

func TestExternalEndpointLeavesTheEngineOff(t *testing.T) {
	conf := convert(t, "https://ch.example:8443", shipped())
	assert.Equal(t, []any{"health_check"}, conf.Get("service::extensions"))
}

func TestAlreadyListedOrUndefined(t *testing.T) {
	raw := shipped()
	raw["service"] = map[string]any{"extensions": []any{"embedded_clickhouse", "health_check"}}
	assert.Equal(t, []any{"embedded_clickhouse", "health_check"}, convert(t, "", raw).Get("service::extensions"))
	none := map[string]any{"extensions": map[string]any{"health_check": nil}, "service": map[string]any{"extensions": []any{"health_check"}}}
	assert.Equal(t, []any{"health_check"}, convert(t, "", none).Get("service::extensions"))
}

func withClients(dataDir string) map[string]any {
	raw := shipped()
	raw["extensions"].(map[string]any)["embedded_clickhouse"] = map[string]any{"endpoint": "127.0.0.1:8123", "data_dir": dataDir, "username": "", "password": ""}
	raw["extensions"].(map[string]any)["observability_api"] = map[string]any{"clickhouse": map[string]any{"endpoint": "http://127.0.0.1:8123", "username": "default", "password": ""}}
	raw["exporters"] = map[string]any{
		"clickhouse":        map[string]any{"endpoint": "http://127.0.0.1:8123", "username": "default", "password": ""},
		"clickhouse/remote": map[string]any{"endpoint": "https://ch.example:8443", "password": ""},
		"clickhouse/own":    map[string]any{"endpoint": "http://localhost:8123", "password": "mine"},
	}
	return raw
}

// With no credentials configured, the engine gets a generated password
// (0600, kept across starts) and its loopback clients get it too.
func TestEmbeddedEngineGetsAGeneratedPassword(t *testing.T) {
	dir := t.TempDir()
	conf := convert(t, "", withClients(filepath.Join(dir, "clickhouse")))
	pw, _ := conf.Get("extensions::embedded_clickhouse::password").(string)
	require.Len(t, pw, 48)
	assert.Equal(t, "default", conf.Get("extensions::embedded_clickhouse::username"))
	assert.Equal(t, pw, conf.Get("exporters::clickhouse::password"))
	assert.Equal(t, pw, conf.Get("extensions::observability_api::clickhouse::password"))
	assert.Empty(t, conf.Get("exporters::clickhouse/remote::password"), "never sent off the host")
	assert.Equal(t, "mine", conf.Get("exporters::clickhouse/own::password"), "a configured password is kept")
	path := filepath.Join(dir, PasswordFile)
	assert.Equal(t, path, conf.Get("extensions::embedded_clickhouse::password_file"), "the engine's Start keeps it")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "resolving the configuration writes nothing")

	require.NoError(t, os.WriteFile(path, []byte(pw+"\n"), 0o600)) // as the engine's Start does
	again := convert(t, "", withClients(filepath.Join(dir, "clickhouse")))
	assert.Equal(t, pw, again.Get("extensions::embedded_clickhouse::password"), "the same password on the next start")

	// Credentials from the environment (CLICKHOUSE_USER) are the operator's.
	raw := withClients(filepath.Join(t.TempDir(), "clickhouse"))
	raw["extensions"].(map[string]any)["embedded_clickhouse"].(map[string]any)["username"] = "ops"
	conf = convert(t, "", raw)
	assert.Empty(t, conf.Get("extensions::embedded_clickhouse::password"))
	assert.Empty(t, conf.Get("exporters::clickhouse::password"))
}

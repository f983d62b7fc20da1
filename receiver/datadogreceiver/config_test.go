package datadogreceiver

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
)

// TestLoadConfig decodes YAML as the collector does: the receiver's own
// settings must survive the embedded confighttp.ServerConfig's Unmarshal.
func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	sub, err := cm.Sub("datadog")
	require.NoError(t, err)
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, sub.Unmarshal(cfg))
	require.NoError(t, confmap.Validate(cfg))
	assert.Equal(t, "0.0.0.0:18126", cfg.NetAddr.Endpoint)
	assert.Equal(t, int64(1<<20), cfg.MaxRequestBodySize)
	assert.Equal(t, 30*time.Second, cfg.IdleTimeout) //nolint:staticcheck // the key users still write must keep decoding
	assert.Equal(t, []configopaque.String{"", "k1", "k2"}, cfg.APIKeys)
	assert.Equal(t, [][]byte{[]byte("k1"), []byte("k2")}, cfg.keys())
	assert.True(t, cfg.RequireKeyOnTracerPaths)
	assert.Equal(t, 5, cfg.RetryAfterSeconds)
	assert.Equal(t, 16, cfg.MaxConcurrentRequests)
	assert.Equal(t, 2*time.Second, cfg.MaxRequestWait)
	assert.Equal(t, int64(64<<20), cfg.MaxDecodedSize)
	assert.Equal(t, int64(256<<20), createDefaultConfig().(*Config).MaxDecodedSize)
	assert.False(t, cfg.Logs.DecodeJSONMessage)
	assert.False(t, cfg.Logs.TraceIDs)

	typo, err := cm.Sub("datadog/typo")
	require.NoError(t, err)
	err = typo.Unmarshal(createDefaultConfig().(*Config))
	require.ErrorContains(t, err, "api_key")
}

package embeddedclickhouseextension

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub("embedded_clickhouse")
	require.NoError(t, err)
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, sub.Unmarshal(cfg))
	require.NoError(t, confmap.Validate(cfg))
	assert.Equal(t, "127.0.0.1:18123", cfg.NetAddr.Endpoint)
	assert.Equal(t, "/opt/libchdb.so", cfg.LibraryPath)
	assert.Equal(t, "/var/lib/otelhouse/clickhouse", cfg.DataDir)
	assert.Equal(t, 8, cfg.Sessions)
	assert.Equal(t, "otel", cfg.Username)
	assert.Equal(t, "pw", string(cfg.Password))
	// Entries add to the defaults rather than replace them.
	assert.Equal(t, map[string]any{"max_server_memory_usage_to_ram_ratio": 0.3, "cache_size_to_ram_max_ratio": 0.25, "max_concurrent_queries": 50}, cfg.Server)
	assert.Equal(t, map[string]any{
		"merge_selector_base": 30, "min_bytes_for_wide_part": 0,
		"merge_selector_algorithm": "StochasticSimple",
	}, cfg.MergeTree)
	assert.Equal(t, map[string]any{"materialize_skip_indexes_on_insert": 0, "max_threads": 2, "session_timezone": "UTC"}, cfg.Profile)
}

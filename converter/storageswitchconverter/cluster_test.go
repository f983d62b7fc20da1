package storageswitchconverter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

func convertEnv(env map[string]string, raw map[string]any) (*confmap.Conf, error) {
	conf := confmap.NewFromStringMap(raw)
	err := converter{getenv: func(k string) string { return env[k] }}.Convert(context.Background(), conf)
	return conf, err
}

func TestClusterPutsEveryTableOnIt(t *testing.T) {
	raw := withClients(t.TempDir())
	raw["exporters"].(map[string]any)["clickhouse/own"].(map[string]any)["table_engine"] = map[string]any{"name": "ReplicatedReplacingMergeTree"}
	raw["exporters"].(map[string]any)["clickhouse/remote"].(map[string]any)["cluster_name"] = "theirs"
	conf, err := convertEnv(map[string]string{EndpointEnvVar: "https://ch.example:8443", ClusterEnvVar: "otel_cluster"}, raw)
	require.NoError(t, err)
	assert.Equal(t, "otel_cluster", conf.Get("exporters::clickhouse::cluster_name"))
	assert.Equal(t, "ReplicatedMergeTree", conf.Get("exporters::clickhouse::table_engine::name"))
	assert.Equal(t, "ReplicatedReplacingMergeTree", conf.Get("exporters::clickhouse/own::table_engine::name"), "an engine written in the configuration wins")
	assert.Equal(t, "theirs", conf.Get("exporters::clickhouse/remote::cluster_name"), "so does a cluster")
	assert.Equal(t, "otel_cluster", conf.Get("extensions::observability_api::clickhouse::cluster"))
	assert.Equal(t, []any{"health_check"}, conf.Get("service::extensions"), "no embedded engine")
}

func TestClusterNeedsAnExternalServer(t *testing.T) {
	_, err := convertEnv(map[string]string{ClusterEnvVar: "otel_cluster"}, shipped())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CLICKHOUSE_CLUSTER=otel_cluster needs CLICKHOUSE_ENDPOINT")
}

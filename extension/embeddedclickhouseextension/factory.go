package embeddedclickhouseextension

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/extension"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/metadata"
)

// NewFactory returns the factory of the embedded_clickhouse extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = "127.0.0.1:8123"
	srv.MaxRequestBodySize = 256 << 20
	return &Config{ServerConfig: srv, Settings: Settings{
		DataDir: "./data/clickhouse", Sessions: 4,
		// The engine shares the process, and the host, with the collector:
		// its own default (90% of RAM) leaves the pipeline nothing when a
		// heavy query runs, and the OOM killer would stop ingestion too.
		// Past half, a query fails with MEMORY_LIMIT_EXCEEDED instead.
		// Caches count in that half: each is capped at a quarter of RAM
		// where the engine's default caps it at half.
		Server: map[string]any{"max_server_memory_usage_to_ram_ratio": 0.5, "cache_size_to_ram_max_ratio": 0.25},
		// Observability tables take a steady stream of small inserts, and
		// on a small host merging them is most of the engine's work: the
		// engine's default (5) rewrites each row about twice as often.
		MergeTree: map[string]any{"merge_selector_base": 30},
		// The exporter's tables carry eight text indexes, and building them
		// was most of the cost of an insert. Merges build them anyway, and
		// the small parts that an insert writes are cheap to read without
		// one until then.
		// The engine would otherwise take the host's timezone: text times
		// in queries and inserts would mean another instant on a laptop
		// abroad than on a server, and the data directory would change
		// meaning with the host. ClickHouse Cloud runs in UTC too.
		Profile: map[string]any{"materialize_skip_indexes_on_insert": 0, "session_timezone": "UTC"},
	}}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	return newEmbedded(set, cfg.(*Config)), nil
}

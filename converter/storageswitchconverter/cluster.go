package storageswitchconverter

import (
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// ClusterEnvVar names the ClickHouse cluster (of the external server) the
// tables are created on.
const ClusterEnvVar = "CLICKHOUSE_CLUSTER"

// onCluster creates every table on the cluster: each clickhouse exporter
// runs its DDL ON CLUSTER (cluster_name) with ReplicatedMergeTree (unless
// its table_engine names another), and observability_api keeps its state
// the same way (clickhouse::cluster). Settings written in the
// configuration win over these.
func onCluster(conf *confmap.Conf, cluster string) error {
	update := map[string]any{}
	exporters, _ := conf.Get("exporters").(map[string]any)
	for id := range exporters {
		if id != "clickhouse" && !strings.HasPrefix(id, "clickhouse/") {
			continue
		}
		if v, _ := conf.Get("exporters::" + id + "::cluster_name").(string); v == "" {
			update["exporters::"+id+"::cluster_name"] = cluster
		}
		if v, _ := conf.Get("exporters::" + id + "::table_engine::name").(string); v == "" || v == "MergeTree" {
			update["exporters::"+id+"::table_engine::name"] = "ReplicatedMergeTree"
		}
	}
	extensions, _ := conf.Get("extensions").(map[string]any)
	for id := range extensions {
		if id != "observability_api" && !strings.HasPrefix(id, "observability_api/") {
			continue
		}
		if v, _ := conf.Get("extensions::" + id + "::clickhouse::cluster").(string); v == "" {
			update["extensions::"+id+"::clickhouse::cluster"] = cluster
		}
	}
	return conf.Merge(confmap.NewFromStringMap(update))
}

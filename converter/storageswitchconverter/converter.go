// Package storageswitchconverter starts the embedded ClickHouse only when
// no external one is configured: with CLICKHOUSE_ENDPOINT unset (or empty)
// it adds every defined `embedded_clickhouse` extension to
// service::extensions; with it set, the configuration is left as written,
// so the same binary writes to the external server and opens no engine.
// An engine without configured credentials gets a generated password
// (password.go), which its loopback clients are given. With
// CLICKHOUSE_CLUSTER also set, the tables go on that cluster (cluster.go).
package storageswitchconverter

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// EndpointEnvVar names the external ClickHouse.
const EndpointEnvVar = "CLICKHOUSE_ENDPOINT"

const extensionType = "embedded_clickhouse"

type converter struct{ getenv func(string) string }

// NewFactory returns the converter factory ocb wires into the distribution.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(confmap.ConverterSettings) confmap.Converter {
		return converter{getenv: os.Getenv}
	})
}

func (c converter) Convert(_ context.Context, conf *confmap.Conf) error {
	external := strings.TrimSpace(c.getenv(EndpointEnvVar)) != ""
	if cluster := strings.TrimSpace(c.getenv(ClusterEnvVar)); cluster != "" {
		if !external {
			return fmt.Errorf("%s=%s needs %s: the embedded engine is one server, not a cluster", ClusterEnvVar, cluster, EndpointEnvVar)
		}
		return onCluster(conf, cluster)
	}
	if external {
		return nil
	}
	exts, _ := conf.Get("extensions").(map[string]any)
	var ids []string
	for id := range exts {
		if id == extensionType || strings.HasPrefix(id, extensionType+"/") {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	current, _ := conf.Get("service::extensions").([]any)
	// The engine goes first: extensions start in order, and the API and
	// storage-backed extensions may need it.
	out := make([]any, 0, len(current)+len(ids))
	for _, id := range ids {
		if !slices.Contains(current, any(id)) {
			out = append(out, id)
		}
	}
	out = append(out, current...)
	update := map[string]any{"service::extensions": out}
	if len(ids) == 1 {
		more, err := protect(conf, ids[0])
		if err != nil {
			return err
		}
		for k, v := range more {
			update[k] = v
		}
	}
	return conf.Merge(confmap.NewFromStringMap(update))
}

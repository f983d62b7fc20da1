// Package datadogswitchconverter turns the experimental Datadog receiver on
// from one environment variable: with ENABLE_DATADOG_RECEIVER=true it
// adds every configured `datadog` receiver to the traces, metrics and logs
// pipelines. With the variable unset (or any other value) the
// configuration is left as written, so a receiver that is only defined is
// never started and port 8126 stays closed. The receiver's feature gate,
// process state rather than configuration, is switched by the same
// variable in the distribution's main (distribution/datadog.go): a
// converter only maps configuration, so `otelcol validate` changes nothing.
package datadogswitchconverter

import (
	"context"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

type converter struct{ getenv func(string) string }

// NewFactory returns the converter factory ocb wires into the distribution.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(confmap.ConverterSettings) confmap.Converter {
		return converter{getenv: os.Getenv}
	})
}

// Convert adds the defined datadog receivers to the pipelines of the
// signals they serve when the switch is on.
func (c converter) Convert(_ context.Context, conf *confmap.Conf) error {
	if c.getenv(datadogreceiver.EnableEnvVar) != "true" {
		return nil
	}
	var ids []string
	if rs, ok := conf.Get("receivers").(map[string]any); ok {
		for id := range rs {
			if id == "datadog" || strings.HasPrefix(id, "datadog/") {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids) // stable pipelines whatever the map order
	pipelines, ok := conf.Get("service::pipelines").(map[string]any)
	if !ok || len(ids) == 0 {
		return nil
	}
	// Only the signals the receiver really has: a pipeline with a receiver
	// that lacks its signal would refuse to start.
	f := datadogreceiver.NewFactory()
	supported := map[string]bool{
		"traces":  f.TracesStability() != component.StabilityLevelUndefined,
		"metrics": f.MetricsStability() != component.StabilityLevelUndefined,
		"logs":    f.LogsStability() != component.StabilityLevelUndefined,
	}
	update := map[string]any{}
	for name, p := range pipelines {
		signal, _, _ := strings.Cut(name, "/")
		if !supported[signal] {
			continue
		}
		pm, _ := p.(map[string]any)
		recv := toStrings(pm["receivers"])
		for _, id := range ids {
			if !contains(recv, id) {
				recv = append(recv, id)
			}
		}
		update["service::pipelines::"+name+"::receivers"] = recv
	}
	return conf.Merge(confmap.NewFromStringMap(update))
}

func toStrings(v any) []any {
	l, _ := v.([]any)
	return append([]any(nil), l...)
}

func contains(l []any, s string) bool { return slices.Contains(l, any(s)) }

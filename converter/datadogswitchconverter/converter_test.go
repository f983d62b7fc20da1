package datadogswitchconverter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

func shipped() map[string]any {
	return map[string]any{
		"receivers": map[string]any{"otlp": nil, "datadog": map[string]any{"endpoint": "0.0.0.0:8126"}, "datadog/2": nil},
		"service": map[string]any{"pipelines": map[string]any{
			"traces":       map[string]any{"receivers": []any{"otlp"}},
			"traces/extra": map[string]any{"receivers": []any{"otlp", "datadog"}},
			"metrics":      map[string]any{"receivers": []any{"otlp"}},
			"logs":         map[string]any{"receivers": []any{"otlp"}},
		}},
	}
}

func convert(t *testing.T, env string, raw map[string]any) *confmap.Conf {
	t.Helper()
	conf := confmap.NewFromStringMap(raw)
	c := converter{getenv: func(k string) string {
		if k == datadogreceiver.EnableEnvVar {
			return env
		}
		return ""
	}}
	require.NoError(t, c.Convert(context.Background(), conf))
	return conf
}

func TestEnabled(t *testing.T) {
	conf := convert(t, "true", shipped())
	assert.False(t, datadogreceiver.Gate.IsEnabled(), "the gate is the distribution's main's, not the converter's")
	assert.Equal(t, []any{"otlp", "datadog", "datadog/2"}, conf.Get("service::pipelines::traces::receivers"))
	assert.Equal(t, []any{"otlp", "datadog", "datadog/2"}, conf.Get("service::pipelines::traces/extra::receivers"), "not added twice")
	assert.Equal(t, []any{"otlp", "datadog", "datadog/2"}, conf.Get("service::pipelines::logs::receivers"))
	assert.Equal(t, []any{"otlp", "datadog", "datadog/2"}, conf.Get("service::pipelines::metrics::receivers"))
	assert.Equal(t, "0.0.0.0:8126", conf.Get("receivers::datadog::endpoint"), "rest of the config untouched")
}

func TestOffLeavesConfigAlone(t *testing.T) {
	for _, env := range []string{"", "false", "1", "TRUE", "yes"} {
		conf := convert(t, env, shipped())
		assert.False(t, datadogreceiver.Gate.IsEnabled(), env)
		assert.Equal(t, shipped(), conf.ToStringMap(), env)
	}
}

func TestNoDatadogReceiverDefined(t *testing.T) {
	raw := map[string]any{
		"receivers": map[string]any{"otlp": nil},
		"service":   map[string]any{"pipelines": map[string]any{"traces": map[string]any{"receivers": []any{"otlp"}}}},
	}
	conf := convert(t, "true", raw)
	assert.Equal(t, []any{"otlp"}, conf.Get("service::pipelines::traces::receivers"))
}

package storageswitchconverter

import (
	"context"
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

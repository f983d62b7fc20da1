package otlpauthconverter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

func shipped() map[string]any {
	return map[string]any{
		"receivers": map[string]any{
			"otlp":    map[string]any{"protocols": map[string]any{"grpc": map[string]any{"endpoint": "0.0.0.0:4317"}, "http": map[string]any{"endpoint": "0.0.0.0:4318"}}},
			"otlp/2":  map[string]any{"protocols": map[string]any{"http": nil}},
			"datadog": map[string]any{"endpoint": "0.0.0.0:8126"},
		},
		"service": map[string]any{"extensions": []any{"health_check"}},
	}
}

func convert(t *testing.T, token string) *confmap.Conf {
	conf := confmap.NewFromStringMap(shipped())
	c := converter{getenv: func(k string) string {
		if k == TokenEnvVar {
			return token
		}
		return ""
	}}
	require.NoError(t, c.Convert(context.Background(), conf))
	return conf
}

func TestTokenSecuresEveryOTLPProtocol(t *testing.T) {
	conf := convert(t, "s3cret")
	assert.Equal(t, "s3cret", conf.Get("extensions::bearertokenauth/otlp::token"))
	assert.Equal(t, []any{"health_check", ExtensionID}, conf.Get("service::extensions"))
	for _, k := range []string{"receivers::otlp::protocols::grpc", "receivers::otlp::protocols::http", "receivers::otlp/2::protocols::http"} {
		assert.Equal(t, ExtensionID, conf.Get(k+"::auth::authenticator"), k)
	}
	assert.Equal(t, "0.0.0.0:4317", conf.Get("receivers::otlp::protocols::grpc::endpoint"), "rest untouched")
	assert.False(t, conf.IsSet("receivers::otlp/2::protocols::grpc"), "no protocol is added")
	assert.False(t, conf.IsSet("receivers::datadog::auth"), "the Datadog receiver checks DD-API-KEY itself")
}

func TestNoTokenLeavesOTLPOpen(t *testing.T) {
	for _, v := range []string{"", " "} {
		conf := convert(t, v)
		assert.Equal(t, shipped(), conf.ToStringMap())
	}
}

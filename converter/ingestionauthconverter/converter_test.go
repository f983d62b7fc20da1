package ingestionauthconverter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

func shipped(withAPI bool) map[string]any {
	m := map[string]any{
		"extensions": map[string]any{"health_check": nil},
		"receivers": map[string]any{
			"otlp":    map[string]any{"protocols": map[string]any{"grpc": map[string]any{"endpoint": "0.0.0.0:4317"}, "http": map[string]any{"endpoint": "0.0.0.0:4318"}}},
			"otlp/2":  map[string]any{"protocols": map[string]any{"http": nil}},
			"datadog": map[string]any{"endpoint": "0.0.0.0:8126"},
		},
		"service": map[string]any{"extensions": []any{"health_check"}},
	}
	if withAPI {
		m["extensions"].(map[string]any)["observability_api"] = map[string]any{"endpoint": "0.0.0.0:8000"}
	}
	return m
}

func convert(t *testing.T, token string, raw map[string]any, env ...string) *confmap.Conf {
	t.Helper()
	conf := confmap.NewFromStringMap(raw)
	c := converter{getenv: func(k string) string {
		if k == TokenEnvVar {
			return token
		}
		for i := 0; i+1 < len(env); i += 2 {
			if env[i] == k {
				return env[i+1]
			}
		}
		return ""
	}}
	require.NoError(t, c.Convert(context.Background(), conf))
	return conf
}

func TestThroughTheAPIExtension(t *testing.T) {
	conf := convert(t, "s3cret", shipped(true))
	for _, k := range []string{"receivers::otlp::protocols::grpc", "receivers::otlp::protocols::http", "receivers::otlp/2::protocols::http"} {
		assert.Equal(t, "observability_api", conf.Get(k+"::auth::authenticator"), k)
	}
	assert.Equal(t, "observability_api", conf.Get("receivers::datadog::ingestion_key_authenticator"))
	assert.False(t, conf.IsSet("extensions::bearertokenauth/otlp"), "no key copied anywhere")
	assert.False(t, conf.IsSet("receivers::datadog::api_keys"))
	assert.False(t, conf.IsSet("receivers::otlp/2::protocols::grpc"), "no protocol is added")
}

func TestFallbackWithoutTheAPI(t *testing.T) {
	conf := convert(t, "s3cret", shipped(false))
	assert.Equal(t, "s3cret", conf.Get("extensions::bearertokenauth/otlp::token"))
	assert.Equal(t, []any{"health_check", "bearertokenauth/otlp"}, conf.Get("service::extensions"))
	assert.Equal(t, "bearertokenauth/otlp", conf.Get("receivers::otlp::protocols::http::auth::authenticator"))
	assert.Equal(t, []any{"s3cret"}, conf.Get("receivers::datadog::api_keys"))
}

// Without OTLP_AUTH_TOKEN the API's keys (the generated Ingestion API
// Key) are required all the same: ingestion is closed by default.
func TestKeysAreRequiredByDefault(t *testing.T) {
	for _, v := range []string{"", " "} {
		conf := convert(t, v, shipped(true))
		assert.Equal(t, "observability_api", conf.Get("receivers::otlp::protocols::http::auth::authenticator"))
		assert.Equal(t, "observability_api", conf.Get("receivers::datadog::ingestion_key_authenticator"))
	}
}

// Opening ingestion takes one explicit setting: the environment variable
// or the API's open_ingestion key.
func TestOpenIngestionIsExplicit(t *testing.T) {
	conf := convert(t, "", shipped(true), OpenEnvVar, "true")
	assert.False(t, conf.IsSet("receivers::otlp::protocols::http::auth"))
	assert.False(t, conf.IsSet("receivers::datadog::ingestion_key_authenticator"))
	assert.Equal(t, true, conf.Get(openKey), "the API learns it is open, to warn")

	raw := shipped(true)
	raw["extensions"].(map[string]any)["observability_api"] = map[string]any{"open_ingestion": "true"}
	conf = convert(t, "s3cret", raw)
	assert.False(t, conf.IsSet("receivers::otlp::protocols::grpc::auth"))

	for _, v := range []string{"false", "1", "yes", ""} {
		conf = convert(t, "", shipped(true), OpenEnvVar, v)
		assert.Equal(t, "observability_api", conf.Get("receivers::otlp::protocols::grpc::auth::authenticator"), v)
	}
}

func TestNoKeySourceLeavesIngestionOpen(t *testing.T) {
	assert.Equal(t, shipped(false), convert(t, "", shipped(false)).ToStringMap())
}

// An authenticator the operator chose is kept.
func TestOwnAuthenticatorIsKept(t *testing.T) {
	raw := shipped(true)
	raw["receivers"].(map[string]any)["otlp/2"] = map[string]any{"protocols": map[string]any{"http": map[string]any{"auth": map[string]any{"authenticator": "oidc"}}}}
	conf := convert(t, "", raw)
	assert.Equal(t, "oidc", conf.Get("receivers::otlp/2::protocols::http::auth::authenticator"))
}

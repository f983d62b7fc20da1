// Package ingestionauthconverter secures ingestion when OTLP_AUTH_TOKEN is
// set, through one mechanism: with the observability_api extension
// configured (it holds every ingestion key, OTLP_AUTH_TOKEN among them),
// every OTLP protocol authenticates with it and every datadog receiver
// names it as ingestion_key_authenticator, so no key is copied into a
// receiver. Without that extension it falls back to a bearertokenauth
// extension holding the token and to the receivers' api_keys. Unset (or
// empty), ingestion stays open. A converter is needed because the
// authenticators refuse to be configured without a key.
package ingestionauthconverter

import (
	"context"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// TokenEnvVar holds the ingestion token.
const TokenEnvVar = "OTLP_AUTH_TOKEN"

const (
	apiExtension    = "observability_api"
	bearerExtension = "bearertokenauth/otlp"
)

type converter struct{ getenv func(string) string }

// NewFactory returns the converter factory ocb wires into the distribution.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(confmap.ConverterSettings) confmap.Converter {
		return converter{getenv: os.Getenv}
	})
}

func (c converter) Convert(_ context.Context, conf *confmap.Conf) error {
	token := c.getenv(TokenEnvVar)
	if strings.TrimSpace(token) == "" {
		return nil
	}
	update := map[string]any{}
	authenticator := apiExtension
	if !conf.IsSet("extensions::" + apiExtension) {
		authenticator = bearerExtension
		update["extensions::"+bearerExtension+"::token"] = token
		exts, _ := conf.Get("service::extensions").([]any)
		if !slices.Contains(exts, any(bearerExtension)) {
			update["service::extensions"] = append(slices.Clone(exts), bearerExtension)
		}
	}
	receivers, _ := conf.Get("receivers").(map[string]any)
	for id := range receivers {
		typ, _, _ := strings.Cut(id, "/")
		switch typ {
		case "otlp":
			for _, proto := range []string{"grpc", "http"} {
				key := "receivers::" + id + "::protocols::" + proto
				if conf.IsSet(key) {
					update[key+"::auth::authenticator"] = authenticator
				}
			}
		case "datadog":
			if authenticator == apiExtension {
				update["receivers::"+id+"::ingestion_key_authenticator"] = apiExtension
			} else {
				keys, _ := conf.Get("receivers::" + id + "::api_keys").([]any)
				update["receivers::"+id+"::api_keys"] = append(slices.Clone(keys), token)
			}
		}
	}
	return conf.Merge(confmap.NewFromStringMap(update))
}

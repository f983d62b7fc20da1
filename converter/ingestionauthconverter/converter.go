// Package ingestionauthconverter makes ingestion require a key by default,
// through one mechanism: with the observability_api extension configured
// (it holds every ingestion key: the generated Ingestion API Key, the
// keys the UI rotates, OTLP_AUTH_TOKEN and keys from its configuration),
// every OTLP protocol authenticates with it and every datadog receiver
// names it as ingestion_key_authenticator, so no key is copied into a
// receiver. Without that extension, OTLP_AUTH_TOKEN goes to a
// bearertokenauth extension and to the receivers' api_keys.
//
// Ingestion is open only when asked for, for local experiments:
// OTELHOUSE_OPEN_INGESTION=true, or observability_api's open_ingestion
// (the API logs a warning at every start while it is open). With neither
// the API extension nor OTLP_AUTH_TOKEN there is no key to check, and
// ingestion stays open, with a warning. A converter is needed because the
// authenticators refuse to be configured without a key.
package ingestionauthconverter

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
)

// Environment variables read.
const (
	TokenEnvVar = "OTLP_AUTH_TOKEN" //nolint:gosec // the variable's name, not a credential
	OpenEnvVar  = "OTELHOUSE_OPEN_INGESTION"
)

const (
	apiExtension    = "observability_api"
	openKey         = "extensions::" + apiExtension + "::open_ingestion"
	bearerExtension = "bearertokenauth/otlp" //nolint:gosec // a component id, not a credential
)

type converter struct {
	getenv func(string) string
	logger *zap.Logger
}

// NewFactory returns the converter factory ocb wires into the distribution.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(set confmap.ConverterSettings) confmap.Converter {
		return converter{getenv: os.Getenv, logger: set.Logger}
	})
}

// isTrue reads a resolved config value or an environment value.
func isTrue(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		return strings.EqualFold(strings.TrimSpace(b), "true")
	}
	return false
}

func (c converter) warn(msg string) {
	if c.logger != nil {
		c.logger.Warn(msg)
	}
}

func (c converter) Convert(_ context.Context, conf *confmap.Conf) error {
	withAPI := conf.IsSet("extensions::" + apiExtension)
	if isTrue(c.getenv(OpenEnvVar)) || withAPI && isTrue(conf.Get(openKey)) {
		if withAPI {
			// The API logs the warning at start, where the collector's own
			// logger writes it.
			return conf.Merge(confmap.NewFromStringMap(map[string]any{openKey: true}))
		}
		c.warn(fmt.Sprintf("%s=true: OTLP and Datadog ingestion accept telemetry without a key", OpenEnvVar))
		return nil
	}
	token := strings.TrimSpace(c.getenv(TokenEnvVar))
	update := map[string]any{}
	authenticator := apiExtension
	if !withAPI {
		if token == "" {
			c.warn("no observability_api extension and no " + TokenEnvVar + ": ingestion has no key to check and stays open")
			return nil
		}
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
				if conf.IsSet(key) && !conf.IsSet(key+"::auth::authenticator") {
					update[key+"::auth::authenticator"] = authenticator
				}
			}
		case "datadog":
			if authenticator == apiExtension {
				if !conf.IsSet("receivers::" + id + "::ingestion_key_authenticator") {
					update["receivers::"+id+"::ingestion_key_authenticator"] = apiExtension
				}
			} else {
				keys, _ := conf.Get("receivers::" + id + "::api_keys").([]any)
				update["receivers::"+id+"::api_keys"] = append(slices.Clone(keys), token)
			}
		}
	}
	return conf.Merge(confmap.NewFromStringMap(update))
}

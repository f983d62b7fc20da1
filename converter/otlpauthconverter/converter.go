// Package otlpauthconverter secures OTLP ingestion with OTLP_AUTH_TOKEN
// when it is set: it defines a bearertokenauth/otlp extension holding the
// token, starts it, and makes every protocol of every otlp receiver
// authenticate with it. Unset (or empty), OTLP stays open. A converter is
// needed because bearertokenauth refuses an empty token, so the extension
// cannot be written into the shipped config unconditionally.
package otlpauthconverter

import (
	"context"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// TokenEnvVar holds the ingestion token.
const TokenEnvVar = "OTLP_AUTH_TOKEN"

// ExtensionID is the authenticator the converter adds.
const ExtensionID = "bearertokenauth/otlp"

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
	update := map[string]any{
		"extensions::" + ExtensionID + "::token": token,
	}
	exts, _ := conf.Get("service::extensions").([]any)
	if !slices.Contains(exts, any(ExtensionID)) {
		update["service::extensions"] = append(slices.Clone(exts), ExtensionID)
	}
	receivers, _ := conf.Get("receivers").(map[string]any)
	for id := range receivers {
		if id != "otlp" && !strings.HasPrefix(id, "otlp/") {
			continue
		}
		for _, proto := range []string{"grpc", "http"} {
			key := "receivers::" + id + "::protocols::" + proto
			if conf.IsSet(key) {
				update[key+"::auth::authenticator"] = ExtensionID
			}
		}
	}
	return conf.Merge(confmap.NewFromStringMap(update))
}

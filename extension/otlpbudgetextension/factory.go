package otlpbudgetextension

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension"

	"github.com/otelhouse/otelhouse/extension/otlpbudgetextension/internal/metadata"
)

// defaultMaxDecodedSize is the Datadog receiver's default: real OTLP
// bodies take two to four times their size decoded, so a full 20 MiB body
// fits; hostile ones are cut here.
const defaultMaxDecodedSize = 256 << 20

// NewFactory returns the factory of the otlp_budget extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	return &Config{MaxDecodedSize: defaultMaxDecodedSize}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	return &budgetExtension{cfg: cfg.(*Config), logger: set.Logger}, nil
}

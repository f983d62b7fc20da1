package otlpbudgetextension

import (
	"context"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension"

	"github.com/otelhouse/otelhouse/extension/otlpbudgetextension/internal/metadata"
	"github.com/otelhouse/otelhouse/internal/runtime/admission"
)

// defaultMaxDecodedSize is the Datadog receiver's default: real OTLP
// bodies take two to four times their size decoded, so a full 20 MiB body
// fits; hostile ones are cut here.
const defaultMaxDecodedSize = 256 << 20

// Four requests of the largest size may decode at once, or any number of
// smaller ones up to the same sum: about what the Datadog receiver's
// default max_concurrent_requests allows on two cores. The wait and the
// retry delay are the Datadog receiver's too.
const (
	defaultMaxDecodedInFlight = 4 * defaultMaxDecodedSize
	defaultMaxRequestWait     = 5 * time.Second
	defaultRetryAfterSeconds  = 1
)

// NewFactory returns the factory of the otlp_budget extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	return &Config{
		MaxDecodedSize:     defaultMaxDecodedSize,
		MaxDecodedInFlight: defaultMaxDecodedInFlight,
		MaxRequestWait:     defaultMaxRequestWait,
		RetryAfterSeconds:  defaultRetryAfterSeconds,
	}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	c := cfg.(*Config)
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	return &budgetExtension{
		cfg: c, logger: set.Logger, telemetry: tb, admission: admission.New(c.MaxDecodedInFlight, c.MaxRequestWait),
		prevGoLimit: -1, setGoLimit: debug.SetMemoryLimit,
	}, nil
}

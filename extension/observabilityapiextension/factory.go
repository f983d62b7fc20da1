package observabilityapiextension

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/extension"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/api"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/metadata"
	"github.com/otelhouse/otelhouse/internal/runtime/authfail"
)

// NewFactory returns the factory of the observability_api extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = "localhost:8000"
	return &Config{ServerConfig: srv, Settings: Settings{
		ClickHouse:        ClickHouseConfig{Endpoint: "http://127.0.0.1:8123", Database: "otelhouse"},
		TelemetryDatabase: "otel",
		DataDir:           "./data",
		RateLimit:         RateLimitConfig{Burst: 20},
		TeamLimits:        api.DefaultTeamLimits,
		QueryTimeout:      time.Minute,
		Alerts: AlertsConfig{
			CheckInterval: 15 * time.Second, Workers: 8, WebhookTimeout: 10 * time.Second, WebhookAttempts: 5,
			WebhookBackoff: time.Second, HistoryRetention: 30 * 24 * time.Hour, ClaimSettle: 2 * time.Second,
		},
	}}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	return &apiExtension{cfg: cfg.(*Config), set: set, telemetry: tb, authLog: authfail.New(set.Logger)}, nil
}

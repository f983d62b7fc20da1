package webuiextension

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/extension"

	"github.com/otelhouse/otelhouse/extension/webuiextension/internal/metadata"
	"github.com/otelhouse/otelhouse/internal/runtime/authfail"
)

// NewFactory returns the factory of the webui extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = "localhost:8080"
	return &Config{ServerConfig: srv, Settings: Settings{
		API:                component.MustNewID("observability_api"),
		SessionLifetime:    30 * 24 * time.Hour,
		SessionIdleTimeout: 7 * 24 * time.Hour,
		InvitationLifetime: 7 * 24 * time.Hour,
	}}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	return &webUI{cfg: cfg.(*Config), set: set, telemetry: tb, authLog: authfail.New(set.Logger)}, nil
}

package datadogreceiver

import (
	"context"
	"net/http"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/metadata"
)

// host is a collector host with extensions.
type host map[component.ID]component.Component

func (h host) GetExtensions() map[component.ID]component.Component { return h }

func TestIngestionKeyAuthenticator(t *testing.T) {
	enableGate(t)
	// A real server authenticator: bearertokenauth holding the key.
	af := bearertokenauthextension.NewFactory()
	acfg := af.CreateDefaultConfig().(*bearertokenauthextension.Config)
	acfg.BearerToken = configopaque.String("agent-key")
	authID := component.MustNewID("bearertokenauth")
	ext, err := af.Create(context.Background(), extensiontest.NewNopSettings(af.Type()), acfg)
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, ext.Shutdown(context.Background())) }()

	cfg := createDefaultConfig().(*Config)
	cfg.NetAddr.Endpoint = "127.0.0.1:0"
	cfg.APIKeys = []configopaque.String{"static-key"}
	cfg.IngestionKeyAuthenticator = &authID
	sink := new(consumertest.LogsSink)
	r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), host{authID: ext}))
	defer func() { require.NoError(t, r.Shutdown(context.Background())) }()
	h := &harness{url: "http://" + r.(*datadogReceiver).addr.String(), client: &http.Client{Transport: &http.Transport{}}}
	defer h.client.CloseIdleConnections()

	for key, want := range map[string]int{"": 403, "wrong": 403, "agent-key": 202, "static-key": 202} {
		status, _, _ := h.do(t, http.MethodPost, "/api/v2/logs", []byte(logsBody), "DD-API-KEY", key)
		assert.Equal(t, want, status, "key %q", key)
	}
	assert.Equal(t, 4, sink.LogRecordCount())
}

func TestIngestionKeyAuthenticatorMustExist(t *testing.T) {
	enableGate(t)
	id := component.MustNewID("observability_api")
	cfg := createDefaultConfig().(*Config)
	cfg.NetAddr.Endpoint = "127.0.0.1:0"
	cfg.IngestionKeyAuthenticator = &id
	r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	require.NoError(t, err)
	err = r.Start(context.Background(), componenttest.NewNopHost())
	require.ErrorContains(t, err, "is not an extension of this collector")
	require.NoError(t, r.Shutdown(context.Background()))
}

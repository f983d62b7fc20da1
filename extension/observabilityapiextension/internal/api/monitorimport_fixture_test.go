package api

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// monitorImport is where an imported Datadog monitor is run by the
// scheduler: an API whose metric source reads a fresh gauge table of
// the exporter's shape, and a webhook that records what alerts send.
type monitorImport struct {
	fx   fixture
	db   *sql.DB
	hook *receiver
	// url imports a monitor with that webhook and metric source.
	url string
	// sender delivers the scheduler's notifications to the hook.
	sender *webhook.Sender
}

// setupMonitorImport makes table (in api_alerts, emptied) and the source
// and webhook over it.
func setupMonitorImport(t *testing.T, table string) monitorImport {
	t.Helper()
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	db := chtest.DB(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_alerts",
		`CREATE TABLE IF NOT EXISTS api_alerts.` + table + ` (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9), Value Float64) ENGINE = MergeTree ORDER BY TimeUnix`,
		"TRUNCATE TABLE api_alerts." + table,
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	metrics := call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": table, "kind": "metric",
		"database": "api_alerts", "table": table, "timestampColumn": "TimeUnix", "serviceColumn": "ServiceName",
		"attributesMap": "Attributes", "resourceMap": "ResourceAttributes", "metricType": "gauge",
	})
	require.Equal(t, http.StatusOK, metrics.status, metrics.body)
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	wh := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "hook", "url": hook.URL}))["id"].(string)
	return monitorImport{
		fx: fx, db: db, hook: rc,
		url:    fx.url + "/api/v2/alerts/import?webhookId=" + wh + "&metricsSourceId=" + url.QueryEscape(item(metrics)["id"].(string)),
		sender: webhook.New(webhook.Options{Attempts: 1, Timeout: 5 * time.Second, AllowPrivate: true}),
	}
}

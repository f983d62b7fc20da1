package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// post sends a body with the e2e ingestion key (as the Datadog Agent's
// DD-API-KEY and as OTLP's bearer token) unless headers carry their own.
func post(t *testing.T, url, contentType, body string, headers ...string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("DD-API-KEY", ingestKey)
	req.Header.Set("Authorization", "Bearer "+ingestKey)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

const (
	otlpTraceID = "5b8efff798038103d269b633813fc60c"
	ddTraceHigh = "640cfd8d00000000"
)

func otlpLogs(now int64) string {
	return fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"otlp-svc"}}]},
	"scopeLogs":[{"logRecords":[{"timeUnixNano":"%d","severityNumber":13,"severityText":"WARN","body":{"stringValue":"otlp-log"},"traceId":"%s","spanId":"eee19b7ec3c1b174"}]}]}]}`, now, otlpTraceID)
}

func otlpTraces(now int64) string {
	return fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"otlp-svc"}}]},
	"scopeSpans":[{"spans":[
	 {"traceId":"%[2]s","spanId":"eee19b7ec3c1b174","name":"root","kind":2,"startTimeUnixNano":"%[1]d","endTimeUnixNano":"%[1]d"},
	 {"traceId":"%[2]s","spanId":"eee19b7ec3c1b175","parentSpanId":"eee19b7ec3c1b174","name":"child","kind":3,"startTimeUnixNano":"%[1]d","endTimeUnixNano":"%[1]d"}]}]}]}`, now, otlpTraceID)
}

func otlpMetrics(now int64) string {
	return fmt.Sprintf(`{"resourceMetrics":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"otlp-svc"}}]},
	"scopeMetrics":[{"metrics":[{"name":"otlp.gauge","gauge":{"dataPoints":[{"timeUnixNano":"%d","asDouble":42.5}]}}]}]}]}`, now)
}

func ddTraces(now int64) string {
	return fmt.Sprintf(`[[{"service":"dd-svc","name":"web.request","resource":"GET /","trace_id":4242,"span_id":1,"parent_id":0,"start":%[1]d,"duration":1000,"meta":{"_dd.p.tid":"%[2]s","env":"e2e"}},
	  {"service":"dd-svc","name":"db.query","resource":"SELECT","trace_id":4242,"span_id":2,"parent_id":1,"start":%[1]d,"duration":500,"error":1,"meta":{"error.message":"boom"}},
	  {"service":"dd-svc","name":"cache","resource":"GET k","trace_id":4242,"span_id":3,"parent_id":1,"start":%[1]d,"duration":100}]]`, now, ddTraceHigh)
}

func TestStoredEndToEnd(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	now := time.Now().UnixNano()
	otlp := fmt.Sprintf("http://127.0.0.1:%d", c.otlpHTTP)
	dd := fmt.Sprintf("http://127.0.0.1:%d", c.datadog)

	require.Equal(t, 200, post(t, otlp+"/v1/logs", "application/json", otlpLogs(now)))
	// No timestamps at all: the shipped config stamps the arrival time.
	require.Equal(t, 200, post(t, otlp+"/v1/logs", "application/json",
		`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"otlp-undated"}}]},"scopeLogs":[{"logRecords":[{"body":{"stringValue":"undated"}}]}]}]}`))
	require.Equal(t, 200, post(t, otlp+"/v1/traces", "application/json", otlpTraces(now)))
	require.Equal(t, 200, post(t, otlp+"/v1/metrics", "application/json", otlpMetrics(now)))
	require.Equal(t, 200, post(t, dd+"/v0.4/traces", "application/json", ddTraces(now)))
	require.Equal(t, 202, post(t, dd+"/api/v2/logs", "application/json",
		`[{"message":"dd-log","status":"error","service":"dd-svc","hostname":"dd-host","ddtags":"env:e2e","dd.trace_id":"4242","dd.span_id":"2"},
		  {"message":"dd-log-2","status":"info","service":"dd-svc","hostname":"dd-host"}]`))
	require.Equal(t, 202, post(t, dd+"/api/v2/series", "application/json",
		fmt.Sprintf(`{"series":[{"metric":"dd.series","type":3,"points":[{"timestamp":%d,"value":7}],"resources":[{"type":"host","name":"dd-host"}]}]}`, now/1e9)))

	ddTrace := ddTraceHigh + "0000000000001092"
	checks := map[string]string{
		// OTLP
		"SELECT count(), any(SeverityText), any(TraceId) FROM otel.otel_logs WHERE ServiceName = 'otlp-svc'":                                   "1\tWARN\t" + otlpTraceID,
		"SELECT count(), countIf(ParentSpanId = 'eee19b7ec3c1b174') FROM otel.otel_traces WHERE ServiceName = 'otlp-svc'":                      "2\t1",
		fmt.Sprintf("SELECT count() FROM otel.otel_logs WHERE ServiceName = 'otlp-undated' AND Timestamp >= fromUnixTimestamp64Nano(%d)", now): "1",
		"SELECT Value FROM otel.otel_metrics_gauge WHERE MetricName = 'otlp.gauge'":                                                            "42.5",
		// Datadog
		"SELECT count(), uniqExact(TraceId), any(TraceId), countIf(ParentSpanId = '0000000000000001') FROM otel.otel_traces WHERE ServiceName = 'dd-svc'":                      "3\t1\t" + ddTrace + "\t2",
		"SELECT StatusCode, StatusMessage FROM otel.otel_traces WHERE ServiceName = 'dd-svc' AND SpanName = 'db.query'":                                                        "Error\tboom",
		"SELECT ResourceAttributes['deployment.environment.name'] FROM otel.otel_traces WHERE SpanName = 'web.request'":                                                        "e2e",
		"SELECT count(), countIf(SeverityNumber = 17), anyIf(TraceId, Body = 'dd-log'), any(ResourceAttributes['host.name']) FROM otel.otel_logs WHERE ServiceName = 'dd-svc'": "2\t1\t00000000000000000000000000001092\tdd-host",
		"SELECT Value, ResourceAttributes['host.name'] FROM otel.otel_metrics_gauge WHERE MetricName = 'dd.series'":                                                            "7\tdd-host",
	}
	assert.Eventually(t, func() bool {
		for q, want := range checks {
			if c.sql(t, q) != want {
				return false
			}
		}
		return true
	}, 30*time.Second, 250*time.Millisecond)
	for q, want := range checks {
		assert.Equal(t, want, c.sql(t, q), q)
	}
}

func TestOTLPAuthFromEnv(t *testing.T) {
	c := run(t, []string{"OTLP_AUTH_TOKEN=tok-otlp"}, shippedConfig(t))
	c.waitHealthy(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/v1/logs", c.otlpHTTP)
	now := time.Now().UnixNano()
	assert.Equal(t, http.StatusUnauthorized, post(t, url, "application/json", otlpLogs(now)))
	assert.Equal(t, http.StatusUnauthorized, post(t, url, "application/json", otlpLogs(now), "Authorization", "Bearer wrong"))
	assert.Equal(t, http.StatusOK, post(t, url, "application/json", otlpLogs(now), "Authorization", "Bearer tok-otlp"))
	assert.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_logs WHERE ServiceName = 'otlp-svc'") == "1"
	}, 20*time.Second, 200*time.Millisecond)

	// gRPC too, through otlp_budget's codec and interceptor, which run
	// before the authenticator.
	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", c.otlpGRPC), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := plogotlp.NewGRPCClient(conn)
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "otlp-grpc-svc")
	rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("over gRPC")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = client.Export(ctx, plogotlp.NewExportRequestFromLogs(ld))
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	_, err = client.Export(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer tok-otlp"), plogotlp.NewExportRequestFromLogs(ld))
	require.NoError(t, err)
	assert.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_logs WHERE ServiceName = 'otlp-grpc-svc'") == "1"
	}, 20*time.Second, 200*time.Millisecond)
}

func TestAPIFromTheShippedConfig(t *testing.T) {
	dataDir := t.TempDir()
	c := run(t, []string{"OTELHOUSE_DATA_DIR=" + dataDir}, shippedConfig(t))
	c.waitHealthy(t)
	key := generatedKey(t, dataDir, "personal_api_access_key")
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/api/v2/sources", c.api), nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"from":{"databaseName":"otel","tableName":"otel_logs"}`)
	assert.NotContains(t, c.out.String(), key, "keys are never logged")
}

// TestIngestionKeyThroughTheAPI: with no OTLP_AUTH_TOKEN, the shipped
// configuration still requires a key on the Datadog receiver and OTLP,
// checked by the observability_api authenticator: the generated ingestion
// key works for both, with no key copied into their configuration.
func TestIngestionKeyThroughTheAPI(t *testing.T) {
	dataDir := t.TempDir()
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true", "OTELHOUSE_DATA_DIR=" + dataDir, "OTLP_AUTH_TOKEN="}, shippedConfig(t))
	c.waitHealthy(t)
	key := generatedKey(t, dataDir, "ingestion_api_key")

	dd := fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", c.datadog)
	assert.Equal(t, http.StatusForbidden, post(t, dd, "application/json", `[{"message":"x"}]`))
	assert.Equal(t, http.StatusAccepted, post(t, dd, "application/json", `[{"message":"x"}]`, "DD-API-KEY", key))
	otlp := fmt.Sprintf("http://127.0.0.1:%d/v1/logs", c.otlpHTTP)
	now := time.Now().UnixNano()
	assert.Equal(t, http.StatusUnauthorized, post(t, otlp, "application/json", otlpLogs(now)))
	assert.Equal(t, http.StatusOK, post(t, otlp, "application/json", otlpLogs(now), "Authorization", "Bearer "+key))
}

// generatedKey is a key the collector generated at its first start, from
// the keys file in its data directory (name: personal_api_access_key or
// ingestion_api_key), once the file is written.
func generatedKey(t *testing.T, dataDir, name string) string {
	t.Helper()
	var key string
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(filepath.Join(dataDir, "api-keys.txt"))
		for _, l := range strings.Split(string(b), "\n") {
			if k, ok := strings.CutPrefix(l, name+"="); ok {
				key = k
			}
		}
		return key != ""
	}, 30*time.Second, 100*time.Millisecond, "first start writes the generated keys")
	return key
}

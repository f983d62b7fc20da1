package apiclient

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed client is what the generator makes of the document the
// API serves today: a change to the document regenerates it.
func TestClientIsGeneratedFromTheServedDocument(t *testing.T) {
	out := filepath.Join(t.TempDir(), "client.gen.go")
	cmd := exec.Command("go", "tool", "oapi-codegen", "-generate", "types,client", "-package", "apiclient", "-o", out,
		"../../extension/observabilityapiextension/internal/api/openapi.yaml")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	got, err := os.ReadFile("client.gen.go")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "client.gen.go is stale: run go generate ./e2e/apiclient")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// startOtelhouse runs the binary with the shipped configuration on free
// loopback ports and returns the API's base URL and the personal key of
// the first start.
func startOtelhouse(t *testing.T) (string, string) {
	t.Helper()
	bin := os.Getenv("OTELHOUSE_BIN")
	if bin == "" {
		// This module does not require the root one (internal/testenv):
		// the same rule, inline.
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and OTELHOUSE_BIN is not set: `make test` builds bin/otelhouse first")
		}
		t.Skip("OTELHOUSE_BIN not set: run through `make test`, which builds bin/otelhouse first")
	}
	config, err := filepath.Abs("../../otelcol-config.yaml")
	require.NoError(t, err)
	api, health, ch := freePort(t), freePort(t), freePort(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--config", config,
		"--set", fmt.Sprintf("receivers::otlp::protocols::grpc::endpoint=127.0.0.1:%d", freePort(t)),
		"--set", fmt.Sprintf("receivers::otlp::protocols::http::endpoint=127.0.0.1:%d", freePort(t)),
		"--set", fmt.Sprintf("extensions::health_check::endpoint=127.0.0.1:%d", health),
		"--set", fmt.Sprintf("extensions::embedded_clickhouse::endpoint=127.0.0.1:%d", ch),
		"--set", fmt.Sprintf("exporters::clickhouse::endpoint=http://127.0.0.1:%d", ch),
		"--set", fmt.Sprintf("extensions::observability_api::clickhouse::endpoint=http://127.0.0.1:%d", ch),
		"--set", fmt.Sprintf("extensions::observability_api::endpoint=127.0.0.1:%d", api),
		"--set", fmt.Sprintf("extensions::webui::endpoint=127.0.0.1:%d", freePort(t)),
		"--set", "service::telemetry::metrics::level=none")
	cmd.Env = append(os.Environ(), "OTELHOUSE_DATA_DIR="+dir)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("otelhouse log:\n%s", logs.String())
		}
	})
	var key string
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "api-keys.txt"))
		for _, line := range strings.Split(string(b), "\n") {
			if k, ok := strings.CutPrefix(line, "personal_api_access_key="); ok && err == nil {
				key = k
			}
		}
		return key != ""
	}, 60*time.Second, 200*time.Millisecond, "the first start writes the keys")
	return fmt.Sprintf("http://127.0.0.1:%d", api), key
}

// The generated client calls the running API: who the key is, the
// default sources, a dashboard created in HyperDX's shape and read back,
// a refusal in the API's error shape.
func TestGeneratedClientCallsTheAPI(t *testing.T) {
	base, key := startOtelhouse(t)
	bearer := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
	c, err := NewClientWithResponses(base, WithRequestEditorFn(bearer))
	require.NoError(t, err)
	ctx := context.Background()

	var owner *GetKeyOwnerResponse
	require.Eventually(t, func() bool {
		owner, err = c.GetKeyOwnerWithResponse(ctx)
		return err == nil && owner.StatusCode() == http.StatusOK
	}, 30*time.Second, 200*time.Millisecond, "the API answers once its store is up")
	require.NotNil(t, owner.JSON200)
	assert.Equal(t, "v2", string(owner.JSON200.Version))
	assert.NotEmpty(t, owner.JSON200.User.Team)

	srcs, err := c.ListSourcesWithResponse(ctx, &ListSourcesParams{})
	require.NoError(t, err)
	require.NotNil(t, srcs.JSON200, "%s", srcs.Body)
	var ids []string
	for _, s := range srcs.JSON200.Data {
		ids = append(ids, s.Id)
	}
	assert.Subset(t, ids, []string{"logs", "traces"})

	created, err := c.CreateDashboardWithBodyWithResponse(ctx, "application/json", strings.NewReader(`{"name":"From the generated client",
	  "tiles":[{"name":"errors","x":0,"y":0,"w":12,"h":4,"config":{"displayType":"line","sourceId":"logs","select":[{"aggFn":"count","where":"level:error"}]}}]}`))
	require.NoError(t, err)
	require.NotNil(t, created.JSON200, "%d %s", created.StatusCode(), created.Body)
	got, err := c.GetDashboardWithResponse(ctx, created.JSON200.Data.Id)
	require.NoError(t, err)
	require.NotNil(t, got.JSON200)
	assert.Equal(t, "From the generated client", got.JSON200.Data.Name)
	require.Len(t, got.JSON200.Data.Tiles, 1)

	missing, err := c.GetDashboardWithResponse(ctx, "no-such-dashboard")
	require.NoError(t, err)
	require.NotNil(t, missing.JSON4XX)
	assert.Equal(t, http.StatusNotFound, missing.StatusCode())
	assert.Equal(t, "Dashboard not found", missing.JSON4XX.Message)
}

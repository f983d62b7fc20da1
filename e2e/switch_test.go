package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

func binary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("OTELHOUSE_BIN")
	if bin == "" {
		testenv.Missing(t, "OTELHOUSE_BIN not set: run through `make test`, which builds bin/otelhouse first")
	}
	return bin
}

var (
	portsMu sync.Mutex
	given   = map[int]bool{}
)

// freePort returns a free loopback port that no other call in this
// process returned. It is drawn below the kernel's ephemeral range
// (ip_local_port_range, 32768 and up by default): a port the kernel
// handed out for listening could, between this call and the collector's
// bind, become the source port of some outgoing connection (a browser's,
// the engine client's), and the collector then failed to start with
// "address already in use".
func freePort(t *testing.T) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		port := 20000 + rand.IntN(12000)
		if given[port] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // in use
		}
		require.NoError(t, l.Close())
		given[port] = true
		return port
	}
	t.Fatal("no free port below the ephemeral range")
	return 0
}

// syncBuffer collects a process's output while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type collector struct {
	cmd                         *exec.Cmd
	out                         *syncBuffer
	datadog, health, clickhouse int
	otlpHTTP, otlpGRPC, api     int
	ui                          int
	dataDir                     string
	done                        chan error
}

// ingestKey is the ingestion key every collector a test starts accepts
// (as OTLP_AUTH_TOKEN; a test's env may set another): ingestion requires
// a key by default.
const ingestKey = "e2e-ingestion-key"

// run starts the binary with the shipped config, every port moved to a free
// one so the test never clashes with a running instance.
func run(t *testing.T, env []string, config string, extra ...string) *collector {
	t.Helper()
	return runWith(t, env, config, 0, extra...)
}

// runWith is run with the embedded ClickHouse on a given port (0: a free
// one); later --set flags override earlier ones.
func runWith(t *testing.T, env []string, config string, chPort int, extra ...string) *collector {
	t.Helper()
	if chPort == 0 {
		chPort = freePort(t)
	}
	c := &collector{
		out: &syncBuffer{}, datadog: freePort(t), health: freePort(t), clickhouse: chPort, otlpHTTP: freePort(t), otlpGRPC: freePort(t),
		api: freePort(t), ui: freePort(t), done: make(chan error, 1),
	}
	args := []string{
		"--config", config,
		"--set", fmt.Sprintf("receivers::otlp::protocols::grpc::endpoint=127.0.0.1:%d", c.otlpGRPC),
		"--set", fmt.Sprintf("receivers::otlp::protocols::http::endpoint=127.0.0.1:%d", c.otlpHTTP),
		"--set", fmt.Sprintf("extensions::health_check::endpoint=127.0.0.1:%d", c.health),
		"--set", fmt.Sprintf("receivers::datadog::endpoint=127.0.0.1:%d", c.datadog),
		"--set", fmt.Sprintf("extensions::embedded_clickhouse::endpoint=127.0.0.1:%d", c.clickhouse),
		"--set", fmt.Sprintf("exporters::clickhouse::endpoint=http://127.0.0.1:%d", c.clickhouse),
		"--set", fmt.Sprintf("extensions::observability_api::clickhouse::endpoint=http://127.0.0.1:%d", c.clickhouse),
		"--set", fmt.Sprintf("extensions::observability_api::endpoint=127.0.0.1:%d", c.api),
		"--set", fmt.Sprintf("extensions::webui::endpoint=127.0.0.1:%d", c.ui),
		// Several collectors run at once here: no fixed :8888 telemetry port.
		"--set", "service::telemetry::metrics::level=none",
	}
	c.cmd = exec.Command(binary(t), append(args, extra...)...)
	// Each collector owns its engine data and queue (env may override).
	c.dataDir = t.TempDir()
	for _, e := range env {
		if d, ok := strings.CutPrefix(e, "OTELHOUSE_DATA_DIR="); ok {
			c.dataDir = d
		}
	}
	c.cmd.Env = append(os.Environ(), append([]string{"OTELHOUSE_DATA_DIR=" + c.dataDir, "OTLP_AUTH_TOKEN=" + ingestKey}, env...)...)
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	require.NoError(t, c.cmd.Start())
	go func() { c.done <- c.cmd.Wait() }()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Signal(os.Interrupt)
			select {
			case <-c.done:
			case <-time.After(10 * time.Second):
				_ = c.cmd.Process.Kill()
			}
		}
		// A failed assertion is explained by what the collector said
		// around it, which the test cannot otherwise show.
		if t.Failed() {
			out := c.out.String()
			t.Logf("collector log (last 16 KiB of %d B):\n%s", len(out), out[max(0, len(out)-16<<10):])
		}
	})
	return c
}

func (c *collector) waitHealthy(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", c.health))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-c.done:
			t.Fatalf("collector exited: %v\n%s", err, c.out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("collector not healthy in time\n%s", c.out.String())
}

func shippedConfig(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "otelcol-config.yaml"))
	require.NoError(t, err)
	return p
}

func TestShippedConfigKeepsReceiverOffByDefault(t *testing.T) {
	for _, v := range []string{"", "false", "1"} {
		c := run(t, []string{"ENABLE_DATADOG_RECEIVER=" + v}, shippedConfig(t))
		c.waitHealthy(t)
		_, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.datadog), time.Second)
		assert.Error(t, err, "ENABLE_DATADOG_RECEIVER=%q must leave the port closed", v)
	}
}

func TestShippedConfigWithReceiverOn(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", c.datadog)
	resp, err := http.Get(base + "/info")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	body := `[[{"service":"e2e","name":"op","resource":"r","trace_id":1,"span_id":2,"start":1700000000000000000,"duration":10}]]`
	resp, err = http.Post(base+"/v0.4/traces", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, http.StatusForbidden, postWithKey(t, base+"/api/v2/logs", "X-No-Key", "", "application/json", `[{"message":"hello","service":"e2e"}]`),
		"an agent path needs the ingestion key")
	assert.Equal(t, http.StatusAccepted, post(t, base+"/api/v2/logs", "application/json", `[{"message":"hello","service":"e2e"}]`))

	// The shipped pipelines store in the embedded ClickHouse.
	assert.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() FROM otel.otel_traces WHERE ServiceName = 'e2e'") == "1" &&
			c.sql(t, "SELECT count() FROM otel.otel_logs WHERE ServiceName = 'e2e' AND Body = 'hello'") == "1"
	}, 30*time.Second, 200*time.Millisecond, c.out.String())
}

// enginePassword is the password the collector generated for its
// embedded ClickHouse, from its data directory.
func (c *collector) enginePassword(t *testing.T) string {
	t.Helper()
	var pw []byte
	require.Eventually(t, func() bool {
		var err error
		pw, err = os.ReadFile(filepath.Join(c.dataDir, "clickhouse-password"))
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "no generated engine password")
	return strings.TrimSpace(string(pw))
}

// engineRequest is a request to the embedded ClickHouse with the
// generated credentials.
func (c *collector) engineRequest(t *testing.T, method, query string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d/", c.clickhouse), strings.NewReader(query))
	require.NoError(t, err)
	req.SetBasicAuth("default", c.enginePassword(t))
	return req
}

// sql asks the collector's embedded ClickHouse.
func (c *collector) sql(t *testing.T, query string) string {
	t.Helper()
	resp, err := http.DefaultClient.Do(c.engineRequest(t, http.MethodPost, query))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b))
}

func TestIngestionKeyFromEnv(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true", "OTLP_AUTH_TOKEN=tok-123"}, shippedConfig(t))
	c.waitHealthy(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", c.datadog)
	resp, err := http.Post(url, "application/json", strings.NewReader(`[{"message":"x"}]`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "OTLP_AUTH_TOKEN is the agent's api_key")
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`[{"message":"x"}]`))
	req.Header.Set("DD-API-KEY", "tok-123")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
}

func TestGateOffRefusesToStart(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "dd.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
receivers:
  datadog:
    endpoint: 127.0.0.1:0
exporters:
  nop: {}
service:
  pipelines:
    traces:
      receivers: [datadog]
      exporters: [nop]
`), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary(t), "--config", cfg).CombinedOutput()
	require.Error(t, err, "must not start")
	assert.Contains(t, string(out), `feature gate "receiver.datadog" is off`)
	assert.Contains(t, string(out), "ENABLE_DATADOG_RECEIVER=true")
}

// The engine's merge_tree entries reach its tables, and one it does not
// know stops the start with the engine's own message.
func TestEngineMergeTreeSettings(t *testing.T) {
	c := run(t, nil, shippedConfig(t), "--set", "extensions::embedded_clickhouse::merge_tree::min_bytes_for_wide_part=0")
	c.waitHealthy(t)
	assert.Equal(t, "merge_selector_base\t30\nmin_bytes_for_wide_part\t0", c.sql(t,
		"SELECT name, value FROM system.merge_tree_settings WHERE changed ORDER BY name"))

	bad := run(t, nil, shippedConfig(t), "--set", "extensions::embedded_clickhouse::merge_tree::no_such_setting=1")
	select {
	case err := <-bad.done:
		require.Error(t, err, "must not start")
		assert.Contains(t, bad.out.String(), "embedded ClickHouse merge_tree settings")
		assert.Contains(t, bad.out.String(), "Unknown setting 'no_such_setting'")
	case <-time.After(60 * time.Second):
		t.Fatal("started with an unknown merge_tree setting")
	}

	// The engine itself ignores an unknown server setting: the extension
	// stops the start.
	bad = run(t, nil, shippedConfig(t), "--set", "extensions::embedded_clickhouse::server::no_such_server_setting=1")
	select {
	case err := <-bad.done:
		require.Error(t, err, "must not start")
		assert.Contains(t, bad.out.String(), "embedded ClickHouse server settings: unknown setting no_such_server_setting")
	case <-time.After(60 * time.Second):
		t.Fatal("started with an unknown server setting")
	}
}

// The engine keeps time in UTC whatever the host's timezone, so text times
// in queries and inserts mean the same instant on any machine; a profile
// entry gives it another one.
func TestEngineTimeIsUTCWhateverTheHost(t *testing.T) {
	const q = "SELECT timezone(), toUnixTimestamp(toDateTime('2026-01-01 00:00:00'))"
	c := run(t, []string{"TZ=Asia/Kolkata"}, shippedConfig(t))
	c.waitHealthy(t)
	assert.Equal(t, "UTC\t1767225600", c.sql(t, q))
	resp, err := http.DefaultClient.Do(c.engineRequest(t, http.MethodPost, "SELECT 1"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "UTC", resp.Header.Get("X-ClickHouse-Timezone"))

	local := run(t, []string{"TZ=Asia/Kolkata"}, shippedConfig(t), "--set", "extensions::embedded_clickhouse::profile::session_timezone=Asia/Kolkata")
	local.waitHealthy(t)
	assert.Equal(t, "Asia/Kolkata\t1767205800", local.sql(t, q))
}

// The shipped engine answers only the password it generated on first
// start (0600 in the data directory), which the exporter and the API use
// without configuration: a neighbour process, or a page in a browser,
// gets 401, and cannot reach file() and the process's environment.
func TestEngineAnswersOnlyItsGeneratedPassword(t *testing.T) {
	c := run(t, nil, shippedConfig(t))
	c.waitHealthy(t)
	pw := c.enginePassword(t)
	fi, err := os.Stat(filepath.Join(c.dataDir, "clickhouse-password"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.NotContains(t, c.out.String(), pw, "never logged")
	endpoint := fmt.Sprintf("http://127.0.0.1:%d/", c.clickhouse)
	status := func(method, query string, auth ...string) int {
		req, _ := http.NewRequest(method, endpoint, strings.NewReader(query))
		if method == http.MethodGet {
			req, _ = http.NewRequest(method, endpoint+"?query="+url.QueryEscape(query), nil)
		}
		if len(auth) == 2 {
			req.SetBasicAuth(auth[0], auth[1])
		}
		req.Header.Set("Origin", "https://example.com")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusUnauthorized, status(http.MethodPost, "SELECT file('/proc/self/environ', 'RawBLOB')"))
	assert.Equal(t, http.StatusUnauthorized, status(http.MethodPost, "CREATE TABLE default.from_page (a UInt8) ENGINE = Memory"))
	assert.Equal(t, http.StatusUnauthorized, status(http.MethodGet, "SELECT 1"))
	assert.Equal(t, http.StatusUnauthorized, status(http.MethodPost, "SELECT 1", "default", "wrong"))
	assert.Equal(t, http.StatusOK, status(http.MethodPost, "SELECT 1", "default", pw))
	assert.Equal(t, "0", c.sql(t, "SELECT count() FROM system.tables WHERE name = 'from_page'"))
	// The exporter and the API reached the engine with it.
	assert.Eventually(t, func() bool {
		return c.sql(t, "EXISTS TABLE otel.otel_logs") == "1" && c.sql(t, "EXISTS TABLE otelhouse.api_keys") == "1"
	},
		30*time.Second, 100*time.Millisecond)
}

// Opening ingestion takes OTELHOUSE_OPEN_INGESTION=true, and every start
// says so.
func TestOpenIngestionIsExplicitAndWarned(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true", "OTLP_AUTH_TOKEN=", "OTELHOUSE_OPEN_INGESTION=true"}, shippedConfig(t))
	c.waitHealthy(t)
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", c.datadog), "application/json", strings.NewReader(`[{"message":"open"}]`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	resp, err = http.Post(fmt.Sprintf("http://127.0.0.1:%d/v1/logs", c.otlpHTTP), "application/json", strings.NewReader(`{"resourceLogs":[]}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Eventually(t, func() bool { return strings.Contains(c.out.String(), "ingestion is open") }, 10*time.Second, 100*time.Millisecond)
}

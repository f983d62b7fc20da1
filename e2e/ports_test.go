package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	"google.golang.org/grpc/status"
)

// listeningPorts reads the TCP ports a process listens on from /proc: its
// socket inodes, then the kernel's socket tables.
func listeningPorts(t *testing.T, pid int) []int {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	require.NoError(t, err)
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var ports []int
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local_address rem_address st … inode
			if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			p, err := strconv.ParseInt(hexPort, 16, 32)
			require.NoError(t, err)
			if !slices.Contains(ports, int(p)) {
				ports = append(ports, int(p))
			}
		}
		f.Close()
	}
	slices.Sort(ports)
	return ports
}

// The shipped configuration listens on its documented ports and no
// other, and every one of them that takes data refuses a write without
// credentials.
func TestOnlyDocumentedPortsAndNoUnauthenticatedWrites(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true", "OTLP_AUTH_TOKEN="}, shippedConfig(t))
	c.waitHealthy(t)
	want := []int{c.otlpGRPC, c.otlpHTTP, c.api, c.ui, c.health, c.clickhouse, c.datadog}
	slices.Sort(want)
	require.Eventually(t, func() bool { return slices.Equal(want, listeningPorts(t, c.cmd.Process.Pid)) }, 20*time.Second, 200*time.Millisecond,
		"listening on %v, documented %v", listeningPorts(t, c.cmd.Process.Pid), want)

	base := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }
	// The API and the UI answer 503 until the API has reached its state.
	require.Eventually(t, func() bool {
		resp, err := http.Get(base(c.ui) + "/api/status")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 100*time.Millisecond)
	for _, tc := range []struct {
		what, url, body string
		headers         []string
		want            int
	}{
		{"OTLP/HTTP", base(c.otlpHTTP) + "/v1/logs", `{"resourceLogs":[]}`, nil, http.StatusUnauthorized},
		{"Datadog agent logs", base(c.datadog) + "/api/v2/logs", `[{"message":"x"}]`, nil, http.StatusForbidden},
		{"Datadog series", base(c.datadog) + "/api/v2/series", `{"series":[]}`, nil, http.StatusForbidden},
		{"REST API", base(c.api) + "/api/v2/dashboards", `{"name":"d","tiles":[]}`, nil, http.StatusUnauthorized},
		{"managed REST API", base(c.api) + "/v1/organizations/local/services/local/observability/alerts", `{}`, nil, http.StatusUnauthorized},
		{"ClickStack REST API", base(c.api) + "/v1/organizations/local/services/local/clickstack/webhooks", `{}`, nil, http.StatusUnauthorized},
		{"web UI", base(c.ui) + "/api/v2/keys/personal/rotate", `{}`, []string{"X-Otelhouse-Request", "1"}, http.StatusUnauthorized},
		{"web UI without the CSRF header", base(c.ui) + "/api/v2/team/invitation", `{"email":""}`, nil, http.StatusForbidden},
	} {
		t.Run(tc.what, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, tc.url, strings.NewReader(tc.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(tc.headers); i += 2 {
				req.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err, tc.what)
			resp.Body.Close()
			assert.Equal(t, tc.want, resp.StatusCode, tc.what)
		})
	}

	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", c.otlpGRPC), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("x")
	_, err = plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(ld))
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "OTLP/gRPC: %v", err)

	// Nothing reached storage.
	assert.Equal(t, "0", c.sql(t, "SELECT count() FROM system.tables WHERE database = 'otel' AND name = 'otel_logs' AND total_rows > 0"))
}

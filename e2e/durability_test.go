package e2e

import (
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// outage is a TCP proxy between the exporter and ClickHouse that the test
// can cut and restore, as a network or server failure would.
type outage struct {
	mu     sync.Mutex
	addr   string
	target string
	ln     net.Listener
	conns  []net.Conn
}

func newOutage(t *testing.T, target string) *outage {
	t.Helper()
	o := &outage{addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), target: target}
	o.up(t)
	t.Cleanup(o.down)
	return o
}

func (o *outage) up(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", o.addr)
	require.NoError(t, err)
	o.mu.Lock()
	o.ln = ln
	o.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", o.target)
			if err != nil {
				c.Close()
				continue
			}
			o.mu.Lock()
			o.conns = append(o.conns, c, s)
			o.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
}

func (o *outage) down() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ln != nil {
		o.ln.Close()
		o.ln = nil
	}
	for _, c := range o.conns {
		c.Close()
	}
	o.conns = nil
}

// sendLogs posts n Datadog logs tagged with batch, one request each, and
// returns how many were acknowledged (2xx).
func sendLogs(t *testing.T, c *collector, batch string, n int) int {
	t.Helper()
	acked := 0
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`[{"message":"durable %s %d","service":"durable","ddtags":"batch:%s"}]`, batch, i, batch)
		if code := post(t, fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", c.datadog), "application/json", body); code/100 == 2 {
			acked++
		}
	}
	return acked
}

// proxied returns how to start the shipped collector with its exporter
// reaching the embedded ClickHouse through a proxy the test can cut; the
// engine keeps its port across restarts, so the proxy stays valid.
func proxied(t *testing.T, env []string) (func() *collector, *outage) {
	t.Helper()
	chPort := freePort(t)
	proxy := newOutage(t, fmt.Sprintf("127.0.0.1:%d", chPort))
	return func() *collector {
		c := runWith(t, env, shippedConfig(t), chPort,
			"--set", fmt.Sprintf("extensions::embedded_clickhouse::endpoint=127.0.0.1:%d", chPort),
			"--set", "exporters::clickhouse::endpoint=http://"+proxy.addr)
		c.waitHealthy(t)
		return c
	}, proxy
}

func TestNothingAcknowledgedIsLost(t *testing.T) {
	start, proxy := proxied(t, []string{"ENABLE_DATADOG_RECEIVER=true", "OTELHOUSE_DATA_DIR=" + t.TempDir()})
	c := start()
	count := func(batch string) int {
		n, _ := strconv.Atoi(c.sql(t, fmt.Sprintf("SELECT count() FROM otel.otel_logs WHERE LogAttributes['batch'] = '%s'", batch)))
		return n
	}

	// 1. ClickHouse unreachable while agents keep sending.
	proxy.down()
	acked := sendLogs(t, c, "outage", 40)
	require.Equal(t, 40, acked, "the persistent queue keeps accepting")
	time.Sleep(3 * time.Second)
	proxy.up(t)
	require.Eventually(t, func() bool { return count("outage") >= acked }, 60*time.Second, 500*time.Millisecond)

	// 2. Unreachable, then the collector ends and starts again. The queue
	// on disk survives a clean stop, and a kill (no shutdown, no flush)
	// too: a request is on disk before it is acknowledged.
	for _, end := range []struct {
		batch string
		stop  func(*collector, *testing.T)
	}{{"restart", (*collector).stop}, {"crash", (*collector).kill}} {
		proxy.down()
		acked = sendLogs(t, c, end.batch, 40)
		require.Equal(t, 40, acked)
		end.stop(c, t)
		proxy.up(t)
		c = start()
		assert.Eventually(t, func() bool { return count(end.batch) >= acked }, 60*time.Second, 500*time.Millisecond)
		require.GreaterOrEqual(t, count(end.batch), acked, "%s: acknowledged logs lost", end.batch)
	}

	for _, b := range []string{"outage", "restart", "crash"} {
		got := count(b)
		assert.GreaterOrEqual(t, got, 40, b)
		t.Logf("batch %s: 40 acknowledged, %d stored, %d duplicates", b, got, got-40)
	}
}

// TestQueueFileShrinksAfterBacklog: while ClickHouse is away, the queue
// file grows past the shipped compaction threshold (100 MiB); once the
// backlog is stored, the file is compacted back, which also returns the
// memory it was mapped into.
func TestQueueFileShrinksAfterBacklog(t *testing.T) {
	dataDir := t.TempDir()
	start, proxy := proxied(t, []string{"ENABLE_DATADOG_RECEIVER=true", "OTELHOUSE_DATA_DIR=" + dataDir})
	c := start()
	queue := filepath.Join(dataDir, "queue")
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", c.datadog)

	var sb strings.Builder
	sb.WriteByte('[')
	const perRequest = 2000
	for i := range perRequest {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"message":"backlog record %d: GET /api/v1/orders/%d took %d ms for user u-%06d","service":"backlog","ddtags":"batch:backlog,pod_name:web-%d"}`,
			i, i*31, i%500, i*13, i%20)
	}
	sb.WriteByte(']')
	body := sb.String()

	proxy.down()
	acked := 0
	for dirSize(t, queue) < 120<<20 {
		require.Less(t, acked, 5_000_000, "the queue file should have grown past 120 MiB by now")
		require.Equal(t, http.StatusAccepted, post(t, url, "application/json", body))
		acked += perRequest
	}
	grown := dirSize(t, queue)
	proxy.up(t)
	require.Eventually(t, func() bool {
		n, _ := strconv.Atoi(c.sql(t, "SELECT count() FROM otel.otel_logs WHERE LogAttributes['batch'] = 'backlog'"))
		return n >= acked
	}, 3*time.Minute, time.Second, "the backlog of %d records is stored", acked)
	// The 5 s check may find the data anywhere under the 10 MiB trigger,
	// even before the last batches are deleted; bbolt then writes the
	// compacted file in steps up to 16 MiB, and it stays so (its total is
	// now under the 100 MiB that calls for another compaction). The log
	// line is awaited too: the file is replaced before it is written.
	assert.Eventually(t, func() bool {
		return dirSize(t, queue) <= 17<<20 && strings.Contains(c.out.String(), "finished compaction")
	}, time.Minute, time.Second, "the queue file, %d MiB with the backlog, is compacted once it drained", grown>>20)
}

// dirSize is the size of the files in dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// otlpBackend is another OTLP/HTTP backend, as a second collector or a
// vendor would be: it counts the log records it receives per "batch"
// attribute.
type otlpBackend struct {
	mu   sync.Mutex
	seen map[string]int
}

func (b *otlpBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	req := plogotlp.NewExportRequest()
	if err == nil {
		err = req.UnmarshalProto(raw)
	}
	if err != nil || r.URL.Path != "/v1/logs" {
		http.Error(w, fmt.Sprintf("%s: %v", r.URL.Path, err), http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	for _, rl := range req.Logs().ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				v, _ := lr.Attributes().Get("batch")
				b.seen[v.AsString()]++
			}
		}
	}
	b.mu.Unlock()
	resp, _ := plogotlp.NewExportResponse().MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(resp)
}

func (b *otlpBackend) count(batch string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seen[batch]
}

// TestFanOut sends the same logs to the embedded ClickHouse and, through
// the distribution's otlp_http exporter, to another OTLP backend.
func TestFanOut(t *testing.T) {
	backend := &otlpBackend{seen: map[string]int{}}
	srv := httptest.NewServer(backend)
	t.Cleanup(srv.Close)
	c := runWith(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t), 0,
		"--set", "exporters::otlp_http::endpoint="+srv.URL,
		"--set", "service::pipelines::logs::exporters=[clickhouse,otlp_http]")
	c.waitHealthy(t)
	acked := sendLogs(t, c, "fanout", 5)
	require.Equal(t, 5, acked)
	assert.Eventually(t, func() bool {
		return backend.count("fanout") == 5 &&
			c.sql(t, "SELECT count() FROM otel.otel_logs WHERE LogAttributes['batch'] = 'fanout'") == "5"
	}, 30*time.Second, 250*time.Millisecond, "both exporters get all five records")
}

// kill ends the collector at once, as a crash or the OOM killer would.
func (c *collector) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Kill())
	<-c.done
}

// stop ends the collector gracefully and waits for it.
func (c *collector) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(os.Interrupt))
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		t.Fatal("collector did not stop")
	}
}

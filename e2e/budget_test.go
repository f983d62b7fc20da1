package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/otelhouse/otelhouse/internal/runtime/memlimit"
)

// budgetMargin is what the resident set may pass OTELHOUSE_MEMORY_LIMIT
// by in a cgroup of that limit (docs/memory.md): the code pages the
// process maps but another group was charged for, having read them first
// (libchdb's, about 190 MiB, and the binary's, about 40 MiB), with room
// for the shared libraries and the sampling.
const budgetMargin = 320 << 20

// floodLogs is one OTLP/HTTP protobuf body of n log records shaped like an
// instrumented service's: a message, a severity, a trace context and a
// few attributes, under one resource.
func floodLogs(t *testing.T, sender, n int) []byte {
	t.Helper()
	logs := plog.NewLogs()
	rl := logs.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "flood")
	rl.Resource().Attributes().PutStr("host.name", fmt.Sprintf("host-%d", sender))
	records := rl.ScopeLogs().AppendEmpty().LogRecords()
	now := time.Now()
	for i := range n {
		r := records.AppendEmpty()
		r.SetTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i) * time.Microsecond)))
		r.SetSeverityNumber(plog.SeverityNumberInfo)
		r.SetSeverityText("INFO")
		r.Body().SetStr(fmt.Sprintf("GET /api/v1/users/%d/orders completed status=200 duration_ms=%d sender=%d", i*7, i%500, sender))
		r.SetTraceID(pcommon.TraceID{byte(sender), byte(i >> 8), byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
		r.SetSpanID(pcommon.SpanID{byte(i), 1, 2, 3, 4, 5, 6, 7})
		r.Attributes().PutStr("http.route", "/api/v1/users/{id}/orders")
		r.Attributes().PutInt("http.status_code", 200)
		r.Attributes().PutStr("user.id", strconv.Itoa(i))
	}
	body, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	require.NoError(t, err)
	return body
}

// TestMemoryBudgetHoldsUnderFlood starts the shipped configuration with
// OTELHOUSE_MEMORY_LIMIT=1GiB, in a memory cgroup of that limit as a 1 GiB
// container would be (where the test may make one), and
// floods OTLP/HTTP from 16 senders for 20 seconds with 2,000-record
// batches, more than the embedded engine can store at once: they wait in
// the persistent queue. The process's anonymous memory (what the kernel
// cannot reclaim) stays within the budget; in the cgroup the whole
// resident set stays under the limit plus the margin (libchdb's code
// pages are charged to whoever read them first) and nothing is killed: the
// queue file's mapped pages are page cache the kernel takes back. Every refusal
// says when to retry, and once the queue has drained every acknowledged
// record is stored.
func TestMemoryBudgetHoldsUnderFlood(t *testing.T) {
	const limit = 1 << 30
	const senders, batch = 16, 2000
	flood := 20 * time.Second
	if testing.Short() {
		flood = 5 * time.Second
	}
	group := newMemoryGroup(t, limit)
	c := run(t, []string{"OTELHOUSE_MEMORY_LIMIT=1GiB"}, shippedConfig(t))
	confined := group.add(t, c.cmd.Process.Pid)
	c.waitHealthy(t)
	// The engine took its half of the budget, and a query half of that.
	assert.Equal(t, "536870912\t268435456", c.sql(t, "SELECT (SELECT value FROM system.server_settings WHERE name = 'max_server_memory_usage'), "+
		"(SELECT value FROM system.settings WHERE name = 'max_memory_usage')"))
	url := fmt.Sprintf("http://127.0.0.1:%d/v1/logs", c.otlpHTTP)
	high := watchRSS(t, c.cmd.Process.Pid)

	var acked, noRetryAfter atomic.Int64
	var mu sync.Mutex
	codes := map[int]int{}
	stop := time.Now().Add(flood)
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 2 * time.Minute}
	for s := range senders {
		body := floodLogs(t, s, batch)
		wg.Go(func() {
			for time.Now().Before(stop) {
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				if !assert.NoError(t, err) { //nolint:testifylint // a sender goroutine: require may not stop the test from it
					return
				}
				req.Header.Set("Content-Type", "application/x-protobuf")
				req.Header.Set("Authorization", "Bearer "+ingestKey)
				code := -1
				if resp, err := client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					code = resp.StatusCode
					switch code {
					case http.StatusOK:
						acked.Add(batch)
					case http.StatusTooManyRequests, http.StatusServiceUnavailable:
						if resp.Header.Get("Retry-After") == "" {
							noRetryAfter.Add(1)
						}
						time.Sleep(100 * time.Millisecond)
					}
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
		})
	}
	queries := chartQueries(t, c, stop)
	wg.Wait()
	charts := queries()
	peak := peakRSS(t, c.cmd.Process.Pid)
	t.Logf("answers %v: %d records acknowledged; peak RSS %d MiB (limit %d MiB); charts %v", codes, acked.Load(), peak>>20, limit>>20, charts)
	assert.Positive(t, charts["light 200"], "charts are answered during the flood")
	assert.Positive(t, charts["heavy 422"], "a query past its share is told so")
	for answer, n := range charts {
		assert.Contains(t, []string{"light 200", "light 503", "heavy 422", "heavy 503"}, answer, "%d chart answers", n)
	}
	assert.Positive(t, acked.Load())
	assert.Equal(t, int64(0), noRetryAfter.Load(), "every 429 and 503 carries Retry-After")
	for code, n := range codes {
		assert.Contains(t, []int{http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable}, code,
			"%d answers %d: each request is stored or told to retry", n, code)
	}

	// Drained, the store holds exactly what was acknowledged.
	want := strconv.FormatInt(acked.Load(), 10)
	var got string
	assert.Eventually(t, func() bool {
		got = c.sql(t, "SELECT count() FROM otel.otel_logs WHERE ServiceName = 'flood'")
		return got == want
	}, 5*time.Minute, time.Second)
	assert.Equal(t, want, got, "stored of acknowledged")
	peak = peakRSS(t, c.cmd.Process.Pid)
	anon, file := high()
	t.Logf("drained: peak RSS %d MiB, of it at most %d MiB anonymous and %d MiB mapped files; in a %d MiB cgroup: %v",
		peak>>20, anon>>20, file>>20, limit>>20, confined)
	assert.Less(t, anon, int64(limit), "anonymous memory within OTELHOUSE_MEMORY_LIMIT")
	if confined {
		assert.Less(t, peak, int64(limit+budgetMargin), "resident high-water under OTELHOUSE_MEMORY_LIMIT plus %d MiB", budgetMargin>>20)
		assert.Zero(t, group.oomKills(t), "nothing in the group was killed for want of memory")
	}

	// It recovers by itself: a new request is taken at once.
	assert.Equal(t, http.StatusOK, post(t, url, "application/x-protobuf", string(floodLogs(t, 99, 10))))
}

// chartQueries runs chart queries through the REST API until stop, two at
// a time: a light one (errors per minute and service) and one that needs
// more memory than a query may take (each row expanded into a million
// strings). It returns a function that waits for them and counts their
// answers by weight and status; a 503 must say when to retry.
func chartQueries(t *testing.T, c *collector, stop time.Time) func() map[string]int {
	t.Helper()
	key := generatedKey(t, c.dataDir, "personal_api_access_key")
	// The heavy chart needs rows to expand: it starts once some are stored.
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT count() > 0 FROM otel.otel_logs WHERE ServiceName = 'flood'") == "1"
	}, 30*time.Second, 100*time.Millisecond)
	series := map[string]string{
		"light": `{"sourceId":"logs","aggFn":"count","groupBy":["service"]}`,
		"heavy": `{"sourceId":"logs","aggFn":"count","whereLanguage":"sql","where":"arrayUniq(arrayMap(x -> concat(Body, toString(x)), range(1000000))) > 0"}`,
	}
	var mu sync.Mutex
	answers := map[string]int{}
	var wg sync.WaitGroup
	for weight, s := range series {
		wg.Go(func() {
			for time.Now().Before(stop) {
				now := time.Now().UnixMilli()
				body := fmt.Sprintf(`{"startTime":%d,"endTime":%d,"granularity":"1m","series":[%s]}`, now-3600_000, now+60_000, s)
				req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/api/v2/charts/series", c.api), strings.NewReader(body))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := http.DefaultClient.Do(req)
				if !assert.NoError(t, err) { //nolint:testifylint // a sender goroutine: require may not stop the test from it
					return
				}
				msg, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusServiceUnavailable {
					assert.NotEmpty(t, resp.Header.Get("Retry-After"), "503 %s", msg)
				}
				if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusUnprocessableEntity {
					t.Logf("%s chart: %d %s", weight, resp.StatusCode, msg)
				}
				mu.Lock()
				answers[fmt.Sprintf("%s %d", weight, resp.StatusCode)]++
				mu.Unlock()
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
	return func() map[string]int {
		wg.Wait()
		return answers
	}
}

// watchRSS samples a process's anonymous and file-backed resident memory
// every 100 ms until the test ends, and returns the highest of each so far.
func watchRSS(t *testing.T, pid int) func() (anon, file int64) {
	t.Helper()
	var mu sync.Mutex
	high := map[string]int64{}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			status, err := procStatus(pid)
			if err != nil {
				return
			}
			mu.Lock()
			for _, name := range []string{"RssAnon", "RssFile"} {
				high[name] = max(high[name], status[name])
			}
			mu.Unlock()
		}
	}()
	return func() (int64, int64) {
		mu.Lock()
		defer mu.Unlock()
		return high["RssAnon"], high["RssFile"]
	}
}

// memoryGroup is a memory cgroup made for one collector, a child of the
// test's own, as a container's limit would be.
type memoryGroup struct {
	group memlimit.Group
	ok    bool
}

// newMemoryGroup makes a child group limited to limit bytes, removed when
// the test ends (after the collector it holds has stopped: cleanups run
// last-registered first, so this is made before the collector starts).
// Where groups cannot be made (no cgroup, no permission) it says why and
// the test runs unconfined.
func newMemoryGroup(t *testing.T, limit int64) *memoryGroup {
	t.Helper()
	own, ok := memlimit.OwnGroup()
	if !ok {
		t.Log("no memory cgroup: the collector runs unconfined")
		return &memoryGroup{}
	}
	g := memlimit.Group{Dir: filepath.Join(own.Dir, fmt.Sprintf("otelhouse-e2e-%d", os.Getpid())), V1: own.V1}
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		t.Logf("cannot make a memory cgroup (%v): the collector runs unconfined", err)
		return &memoryGroup{}
	}
	t.Cleanup(func() {
		// The group empties once its process has been reaped.
		for range 50 {
			if os.Remove(g.Dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := os.WriteFile(g.LimitFile(), []byte(strconv.FormatInt(limit, 10)), 0o600); err != nil {
		t.Logf("cannot limit the memory cgroup (%v): the collector runs unconfined", err)
		return &memoryGroup{}
	}
	if g.V1 {
		// What the process had charged before it moved goes with it.
		_ = os.WriteFile(filepath.Join(g.Dir, "memory.move_charge_at_immigrate"), []byte("3"), 0o600)
	}
	return &memoryGroup{group: g, ok: true}
}

// add moves a process into the group; it reports whether it is confined.
func (m *memoryGroup) add(t *testing.T, pid int) bool {
	t.Helper()
	if !m.ok {
		return false
	}
	if err := os.WriteFile(filepath.Join(m.group.Dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o600); err != nil {
		t.Logf("cannot move the collector into the memory cgroup (%v): it runs unconfined", err)
		return false
	}
	return true
}

// oomKills is how many processes of the group the kernel killed for want
// of memory.
func (m *memoryGroup) oomKills(t *testing.T) int {
	t.Helper()
	name := "memory.events"
	if m.group.V1 {
		name = "memory.oom_control"
	}
	b, err := os.ReadFile(filepath.Join(m.group.Dir, name))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			require.NoError(t, err)
			return n
		}
	}
	return 0
}

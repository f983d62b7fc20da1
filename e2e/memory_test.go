package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peakRSS is a process's VmHWM in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// TestConcurrentBombsStayBounded: many senders post at once zstd bodies
// that decompress 60-fold into 30 MiB of logs each. The receiver decodes
// max_concurrent_requests of them at a time, so the collector's peak RSS
// stays far below what every body at once would take (3.4 GB for 32 of
// them with no bound); the rest wait, then succeed or get a 429 to retry.
func TestConcurrentBombsStayBounded(t *testing.T) {
	const senders, perSender, limit = 24, 2, 2
	const maxRSS = 1 << 30
	port := freePort(t)
	config, err := filepath.Abs(filepath.Join("..", "testdata", "perf", "nop.yaml"))
	require.NoError(t, err)
	cmd := exec.Command(binary(t), "--config", config, "--feature-gates=receiver.datadog",
		"--set", fmt.Sprintf("receivers::datadog::endpoint=127.0.0.1:%d", port),
		"--set", fmt.Sprintf("receivers::datadog::max_concurrent_requests=%d", limit))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "receiver did not listen\n%s", out)

	var raw bytes.Buffer
	raw.WriteByte('[')
	for i := 0; raw.Len() < 30<<20; i++ {
		if i > 0 {
			raw.WriteByte(',')
		}
		fmt.Fprintf(&raw, `{"message":"request %d done path=/api/v1/users/%d/orders status=200","service":"svc-%d","hostname":"h%d","status":"info","ddtags":"env:prod,pod_name:p-%d"}`,
			i, i*7, i%20, i%10, i%40)
	}
	raw.WriteByte(']')
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	body := enc.EncodeAll(raw.Bytes(), nil)
	t.Logf("each body: %d KiB zstd, %d MiB decompressed", len(body)>>10, raw.Len()>>20)

	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	client := &http.Client{Timeout: time.Minute}
	for range senders {
		wg.Go(func() {
			for range perSender {
				req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", port), bytes.NewReader(body))
				if !assert.NoError(t, err) {
					return
				}
				req.Header.Set("Content-Encoding", "zstd")
				req.Header.Set("Content-Type", "application/json")
				code := -1
				if resp, err := client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					code = resp.StatusCode
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("answers %v, peak RSS %d MiB", codes, peak>>20)
	assert.Positive(t, codes[http.StatusAccepted])
	assert.Equal(t, senders*perSender, codes[http.StatusAccepted]+codes[http.StatusTooManyRequests],
		"every request is accepted or told to retry")
	assert.Less(t, peak, int64(maxRSS), "peak RSS with %d bodies decoded at a time", limit)
}

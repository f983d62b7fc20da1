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
	"google.golang.org/protobuf/encoding/protowire"
)

// peakRSS is a process's VmHWM in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := procStatus(pid)
	require.NoError(t, err)
	hwm, ok := status["VmHWM"]
	require.True(t, ok, "no VmHWM in /proc status")
	return hwm
}

// procStatus is a process's memory figures from /proc/<pid>/status
// (VmHWM, VmRSS, RssAnon, RssFile…), in bytes.
func procStatus(pid int) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if kb, isKB := strings.CutSuffix(strings.TrimSpace(v), " kB"); ok && isKB {
			if n, err := strconv.ParseInt(kb, 10, 64); err == nil {
				out[name] = n << 10
			}
		}
	}
	return out, nil
}

// startCollector runs the built binary with args and waits until port
// listens; the process is killed when the test ends.
func startCollector(t *testing.T, port int, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
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
	return cmd
}

// postAll has senders post perSender requests each, all at once, and
// counts the answers by status (-1: none).
func postAll(t *testing.T, senders, perSender int, newRequest func() (*http.Request, error)) map[int]int {
	t.Helper()
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	client := &http.Client{Timeout: time.Minute}
	for range senders {
		wg.Go(func() {
			for range perSender {
				req, err := newRequest()
				if !assert.NoError(t, err) { //nolint:testifylint // a sender goroutine: require may not stop the test from it
					return
				}
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
	return codes
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
	cmd := startCollector(t, port, "--config", config, "--feature-gates=receiver.datadog",
		"--set", fmt.Sprintf("receivers::datadog::endpoint=127.0.0.1:%d", port),
		"--set", fmt.Sprintf("receivers::datadog::max_concurrent_requests=%d", limit),
		"--set", "extensions::pprof::endpoint=127.0.0.1:0") // the config's fixed port may be taken

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

	codes := postAll(t, senders, perSender, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/api/v2/logs", port), bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Encoding", "zstd")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("DD-API-KEY", ingestKey)
		}
		return req, err
	})
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("answers %v, peak RSS %d MiB", codes, peak>>20)
	assert.Positive(t, codes[http.StatusAccepted])
	assert.Equal(t, senders*perSender, codes[http.StatusAccepted]+codes[http.StatusTooManyRequests],
		"every request is accepted or told to retry")
	assert.Less(t, peak, int64(maxRSS), "peak RSS with %d bodies decoded at a time", limit)
}

// startBudgeted runs testdata/otlp-budget.yaml with OTLP/HTTP on port and
// the given otlp_budget settings (name=value).
func startBudgeted(t *testing.T, port int, settings ...string) *exec.Cmd {
	t.Helper()
	config, err := filepath.Abs(filepath.Join("..", "testdata", "otlp-budget.yaml"))
	require.NoError(t, err)
	args := []string{
		"--config", config,
		"--set", fmt.Sprintf("receivers::otlp::protocols::http::endpoint=127.0.0.1:%d", port),
		"--set", fmt.Sprintf("receivers::otlp::protocols::grpc::endpoint=127.0.0.1:%d", freePort(t)),
	}
	for _, s := range settings {
		args = append(args, "--set", "extensions::otlp_budget::"+s)
	}
	return startCollector(t, port, args...)
}

// TestConcurrentOTLPBodiesStayBounded: each body is 2 MB of empty log
// records, about 230 MB decoded, under otlp_budget's max_decoded_size, so
// only max_decoded_in_flight bounds what they take together. Without it 12
// at once took the collector to 1.7 GB; with it set to 300 MiB they are
// decoded one at a time (about 350 MB) and the rest wait, then pass or get
// a 429.
func TestConcurrentOTLPBodiesStayBounded(t *testing.T) {
	const senders = 12
	const maxRSS = 1 << 30
	port := freePort(t)
	cmd := startBudgeted(t, port, "max_decoded_in_flight=314572800")

	// ExportLogsServiceRequest{resource_logs: {scope_logs: {log_records: {} × 1M}}}
	records := bytes.Repeat([]byte{0x12, 0x00}, 1_000_000)
	scope := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), records)
	body := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), scope)

	codes := postAll(t, senders, 1, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/v1/logs", port), bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-protobuf")
		}
		return req, err
	})
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("answers %v, peak RSS %d MiB", codes, peak>>20)
	assert.Positive(t, codes[http.StatusOK])
	assert.Equal(t, senders, codes[http.StatusOK]+codes[http.StatusTooManyRequests], "every request is accepted or told to retry")
	assert.Less(t, peak, int64(maxRSS), "peak RSS with the bodies decoded within max_decoded_in_flight")
}

// TestSlowOTLPBodiesStayBounded: senders on slow links keep their bodies
// open. 120 senders each stop one byte short of a 7 MB body; a body
// declared with Content-Length takes its room in max_decoded_in_flight
// (100 MiB here) before it is read, so those past it are answered 429
// before anything of theirs is in memory. Without the bound the collector
// held all 120 (867 MiB peak); with it 156 MiB, also on a loaded host.
// When each request made its 7 MB buffer before taking room, the refused
// ones took it to 0.26-0.86 GB.
func TestSlowOTLPBodiesStayBounded(t *testing.T) {
	const senders = 120
	const maxRSS = 320 << 20
	port := freePort(t)
	cmd := startBudgeted(t, port, "max_decoded_size=104857600", "max_decoded_in_flight=104857600")

	// ExportLogsServiceRequest{resource_logs: {scope_logs: {log_records: {body: "x…"}}}}
	value := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), bytes.Repeat([]byte{'x'}, 7_000_000))
	record := protowire.AppendBytes(protowire.AppendTag(nil, 5, protowire.BytesType), value)
	scope := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), record)
	body := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), scope)
	head := fmt.Sprintf("POST /v1/logs HTTP/1.1\r\nHost: otlp\r\nContent-Type: application/x-protobuf\r\nContent-Length: %d\r\n\r\n", len(body))

	release := make(chan struct{})
	var written, answered sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range senders {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		written.Add(1)
		go func() {
			_, err := io.WriteString(conn, head)
			if err == nil {
				_, err = conn.Write(body[:len(body)-1])
			}
			written.Done()
			if err == nil {
				<-release
				_, _ = conn.Write(body[len(body)-1:])
			}
		}()
		answered.Go(func() {
			code := -1
			_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
			if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
				resp.Body.Close()
				code = resp.StatusCode
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	written.Wait()
	time.Sleep(500 * time.Millisecond) // the collector reads what the sockets still buffer
	held := peakRSS(t, cmd.Process.Pid)
	close(release)
	answered.Wait()
	t.Logf("answers %v, peak RSS %d MiB while the bodies were open", codes, held>>20)
	assert.Positive(t, codes[http.StatusOK])
	assert.Positive(t, codes[http.StatusTooManyRequests])
	assert.Equal(t, senders, codes[http.StatusOK]+codes[http.StatusTooManyRequests], "every request is accepted or told to retry")
	assert.Less(t, held, int64(maxRSS), "peak RSS with the bodies being read within max_decoded_in_flight")
}

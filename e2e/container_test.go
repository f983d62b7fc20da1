package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

// podman runs rootful with runc and explicit ulimits, as scripts/image.sh
// explains.
var podmanRun = []string{"--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4096:4096"}

func podman(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("podman", append([]string{"--runtime", "runc"}, args...)...).CombinedOutput()
	require.NoError(t, err, "podman %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// The all-in-one image as a user runs it: built by scripts/image.sh (what
// `make image` runs), started with every port published and a named
// volume, fed a Datadog log and an OTLP span with the generated ingestion
// key, read back through the REST API on the published 8000, then stopped,
// removed and run again as a new container on the same volume, with the
// data and the keys still there.
func TestContainerImage(t *testing.T) {
	binary(t)
	if _, err := exec.LookPath("podman"); err != nil {
		testenv.Missing(t, "podman is not installed: `make test` installs it; this machine cannot run the image test without it")
	}
	if out, err := exec.Command("podman", "--runtime", "runc", "info").CombinedOutput(); err != nil {
		testenv.Missing(t, "podman cannot run here: %s", bytes.TrimSpace(out))
	}
	const image = "localhost/otelhouse:e2e"
	build := exec.Command("./scripts/image.sh")
	build.Dir = ".."
	build.Env = append(os.Environ(), "IMAGE="+image)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("%s", bytes.TrimSpace(out))

	name := fmt.Sprintf("otelhouse-e2e-%d", os.Getpid())
	volume := name + "-data"
	t.Cleanup(func() {
		_ = exec.Command("podman", "--runtime", "runc", "rm", "-f", "-t", "5", name).Run()
		_ = exec.Command("podman", "volume", "rm", "-f", volume).Run()
	})
	ports := map[int]int{}
	args := []string{"run", "-d", "--name", name, "-v", volume + ":/data", "-e", "ENABLE_DATADOG_RECEIVER=true"}
	for _, p := range []int{4317, 4318, 8000, 8080, 8126} {
		ports[p] = freePort(t)
		args = append(args, "-p", fmt.Sprintf("127.0.0.1:%d:%d", ports[p], p))
	}
	podman(t, append(append(args, podmanRun...), image)...)
	waitContainerHealthy(t, name)

	keys := map[string]string{}
	for _, line := range strings.Split(podman(t, "exec", name, "cat", "/data/api-keys.txt"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(k, "#") {
			keys[k] = v
		}
	}
	ingest, personal := keys["ingestion_api_key"], keys["personal_api_access_key"]
	require.NotEmpty(t, ingest)
	require.NotEmpty(t, personal)
	dd := fmt.Sprintf("http://127.0.0.1:%d", ports[8126])
	otlp := fmt.Sprintf("http://127.0.0.1:%d", ports[4318])
	api := fmt.Sprintf("http://127.0.0.1:%d", ports[8000])
	now := time.Now()
	assert.Equal(t, http.StatusForbidden, postWithKey(t, dd+"/api/v2/logs", "DD-API-KEY", "wrong", "application/json", `[{"message":"x"}]`))
	require.Equal(t, http.StatusAccepted, postWithKey(t, dd+"/api/v2/logs", "DD-API-KEY", ingest, "application/json",
		`[{"message":"from the container test","status":"error","service":"boxed","hostname":"box-1"}]`))
	require.Equal(t, http.StatusOK, postWithKey(t, otlp+"/v1/traces", "Authorization", "Bearer "+ingest, "application/json",
		otlpTraces(now.UnixNano())))

	stored := func() bool {
		return len(searchAPI(t, api, personal, "logs", "service:boxed", now)) == 1 &&
			len(searchAPI(t, api, personal, "traces", "SpanName:child", now)) == 1
	}
	require.Eventually(t, stored, 60*time.Second, time.Second, "the log and the span read back through the REST API")

	// A new container on the same volume, as after an upgrade.
	podman(t, "stop", "-t", "30", name)
	podman(t, "rm", name)
	podman(t, append(append(args, podmanRun...), image)...)
	waitContainerHealthy(t, name)
	assert.True(t, stored(), "the data is on the volume for the next container")
	assert.Equal(t, http.StatusOK, apiStatus(t, http.MethodGet, api+"/api/v2/sources", personal), "the keys survive a restart too")
	assert.Equal(t, "65532:65532", podman(t, "exec", name, "stat", "-c", "%u:%g", "/data/api-keys.txt"), "the collector runs as a non-root user")
	assert.Equal(t, "600", podman(t, "exec", name, "stat", "-c", "%a", "/data/api-keys.txt"))
}

func waitContainerHealthy(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := exec.Command("podman", "--runtime", "runc", "healthcheck", "run", name).Run()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			logs, _ := exec.Command("podman", "logs", "--tail", "40", name).CombinedOutput()
			t.Fatalf("%s never became healthy: %v\n%s", name, err, logs)
		}
		time.Sleep(time.Second)
	}
}

// searchAPI runs POST /api/v2/search over the last hour before now.
func searchAPI(t *testing.T, api, key, source, where string, now time.Time) []any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"sourceId": source, "where": where,
		"startTime": now.Add(-time.Hour).UTC().Format(time.RFC3339), "endTime": now.Add(time.Hour).UTC().Format(time.RFC3339),
	})
	req, _ := http.NewRequest(http.MethodPost, api+"/api/v2/search", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var out struct{ Data []any }
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return nil
	}
	return out.Data
}

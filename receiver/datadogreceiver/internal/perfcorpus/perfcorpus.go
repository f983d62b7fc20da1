// Package perfcorpus reads the payloads that the load tool (cmd/otelhouse-load)
// generates, for benchmarks that measure the receiver on them rather than
// on their own synthetic payloads. PERF_CORPUS names the corpus directory
// (the tool's default: /tmp/otelhouse-load/corpus); unset, benchmarks use
// their own payloads.
package perfcorpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Payloads returns the bodies of one kind (logs_zstd, series_v2_zstd, …)
// as the load tool sends them, compressed; nil when PERF_CORPUS is unset.
func Payloads(tb testing.TB, kind string) [][]byte {
	tb.Helper()
	dir := os.Getenv("PERF_CORPUS")
	if dir == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, kind, "*.bin"))
	require.NoError(tb, err)
	require.NotEmpty(tb, files, "no %s payloads under %s", kind, dir)
	bodies := make([][]byte, 0, len(files))
	for _, f := range files {
		body, err := os.ReadFile(f) //nolint:gosec // benchmarks read the corpus the developer pointed PERF_CORPUS at
		require.NoError(tb, err)
		bodies = append(bodies, body)
	}
	return bodies
}

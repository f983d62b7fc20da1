package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

// runMainEnv makes the test binary run the distribution's main with the
// arguments in it (space separated), then print what the process state
// became, instead of running the tests.
const runMainEnv = "OTELHOUSE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if args := os.Getenv(runMainEnv); args != "" {
		before := debug.SetMemoryLimit(-1)
		os.Args = append([]string{"otelhouse"}, strings.Fields(args)...)
		main() // exits 1 on a failure
		fmt.Printf("gate=%v memory_limit_changed=%v\n", datadogreceiver.Gate.IsEnabled(), debug.SetMemoryLimit(-1) != before)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// `otelhouse validate` on the shipped configuration, with every switch
// the converters read turned on, resolves and checks the configuration
// and changes nothing: no file in the data directory (the embedded
// engine's password is written by the engine's Start), and the Go memory
// limit as it was (otlp_budget's Start sets it). The Datadog gate is on
// because the environment asks for it (the distribution's main sets it),
// which the receiver built by validate needs.
func TestValidateTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$") //nolint:gosec // the test binary itself
	cmd.Env = append(withoutEnv(os.Environ(), "CLICKHOUSE_", "GOMEMLIMIT", "OTELHOUSE_", "ENABLE_DATADOG_RECEIVER", "OTLP_AUTH_TOKEN"),
		runMainEnv+"=validate --config "+filepath.Join("..", "otelcol-config.yaml"),
		"OTELHOUSE_DATA_DIR="+filepath.Join(dir, "data"),
		"OTELHOUSE_MEMORY_LIMIT=1GiB",
		"ENABLE_DATADOG_RECEIVER=true",
	)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "gate=true memory_limit_changed=false")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "validate wrote into the data directory")
}

func withoutEnv(env []string, prefixes ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

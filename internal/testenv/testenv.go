// Package testenv decides what a test does when something it needs from
// the machine (libchdb, a built binary, chromium, podman, curl) is
// missing: a developer's plain `go test ./...` skips it, CI fails it.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// CI reports whether the tests run in CI (CI=true, as CI services set it),
// where every dependency is installed by `make test`.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing skips tb, or fails it under CI=true, saying what is missing.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		tb.Fatal("CI=true and a test dependency is missing: " + msg)
		return
	}
	tb.Skip(msg)
}

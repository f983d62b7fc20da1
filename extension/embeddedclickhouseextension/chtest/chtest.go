// Package chtest gives tests in any package a real embedded ClickHouse,
// started as the distribution starts it (the embedded_clickhouse extension):
// one engine per test process (the engine allows one data path per
// process) behind the HTTP interface on loopback. Tests skip when
// OTELHOUSE_LIBCHDB is not set (`make test` sets it).
package chtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/extensiontest"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension"
	"github.com/otelhouse/otelhouse/internal/testenv"
)

var (
	once     sync.Once
	endpoint string
	startErr error
	// stop ends the engine started by Endpoint, if any.
	stop func()
)

// Main is a package's TestMain: it runs the tests, stops the engine if one
// was started, and ends the process with syscall.Exit, not os.Exit. In a
// race build, os.Exit(0) runs ThreadSanitizer's finalizer, which calls
// libc's exit, which runs libchdb's static destructors while the engine's
// background threads still run; they never all stop (chdb_shutdown
// declines once MergeTree tables were written), and the binary crashed
// after PASS. syscall.Exit ends the process as a build without cgo always
// does; a test that raced has already failed.
func Main(m *testing.M) {
	code := m.Run()
	if stop != nil {
		stop()
	}
	syscall.Exit(code)
}

// Endpoint returns host:port of the process's embedded ClickHouse, starting
// it on first use; its data lives under the OS temp dir until the process
// exits.
func Endpoint(tb testing.TB) string {
	tb.Helper()
	lib := os.Getenv("OTELHOUSE_LIBCHDB")
	if lib == "" {
		testenv.Missing(tb, "OTELHOUSE_LIBCHDB not set: run through `make test`, which fetches libchdb")
	}
	once.Do(func() {
		// The distribution's own extension, as a collector starts it: tests
		// see the engine as users do (confined, in UTC whatever the host's
		// timezone), on a free loopback port, without a password.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			startErr = err
			return
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("otelhouse-chtest-%d", os.Getpid()))
		f := embeddedclickhouseextension.NewFactory()
		cfg := f.CreateDefaultConfig().(*embeddedclickhouseextension.Config)
		cfg.NetAddr.Endpoint = addr
		cfg.DataDir = dir
		cfg.LibraryPath = lib
		cfg.MaxRequestBodySize = 256 << 20
		ctx := context.Background()
		ext, err := f.Create(ctx, extensiontest.NewNopSettings(f.Type()), cfg)
		if err != nil {
			startErr = err
			return
		}
		if startErr = ext.Start(ctx, componenttest.NewNopHost()); startErr != nil {
			return
		}
		endpoint = addr
		stop = func() {
			_ = ext.Shutdown(ctx)
			_ = os.RemoveAll(dir)
		}
	})
	if startErr != nil {
		tb.Fatal(startErr)
	}
	return endpoint
}

// FreshDatabase drops db, for a test that expects to start without it: one
// engine serves the whole test process, so a test run again (go test
// -count=N) would otherwise find what its first run wrote.
func FreshDatabase(tb testing.TB, db string) {
	tb.Helper()
	if _, err := DB(tb).Exec("DROP DATABASE IF EXISTS `" + db + "` SYNC"); err != nil {
		tb.Fatal(err)
	}
}

// DB opens clickhouse-go over HTTP to the embedded ClickHouse.
func DB(tb testing.TB) *sql.DB {
	tb.Helper()
	db := clickhouse.OpenDB(&clickhouse.Options{Addr: []string{Endpoint(tb)}, Protocol: clickhouse.HTTP})
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

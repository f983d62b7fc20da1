package chhttp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

// Statements the engine makes slow: one row a block, half a second a row
// (function_sleep_max_microseconds_per_block lifts the engine's 3 s cap
// on a block's sleep). numbers(6) takes 3 s.
const sleepy = "WHERE sleepEachRow(0.5) = 0 SETTINGS max_block_size = 1, function_sleep_max_microseconds_per_block = 0"

// serveWithTimeouts serves the package's server behind an http.Server as
// the extension's (confighttp's), with its whole-request timeouts at one
// second instead of write_timeout's 30 s default: a 3 s statement outlasts
// them three times over, as a 10-minute one outlasts the defaults.
func serveWithTimeouts(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{
		Handler: srv, ReadTimeout: time.Second, ReadHeaderTimeout: time.Second,
		WriteTimeout: time.Second, IdleTimeout: time.Minute,
	}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// post sends sql to addr as a plain HTTP client does; reused reports
// whether the request went over a kept-alive connection.
func post(ctx context.Context, client *http.Client, addr, params, sql string) (status int, body string, reused bool, err error) {
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/?"+params, strings.NewReader(sql))
	if err != nil {
		return 0, "", false, err
	}
	req.SetBasicAuth("otel", "s3cret")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", reused, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), reused, err
}

// A statement that runs longer than the server's read and write timeouts
// answers, and its connection stays open for the next one: through a
// plain HTTP client (with and without progress headers asked for),
// clickhouse-go's database/sql and native API, and curl. Before, the
// answer went into a connection whose write deadline had passed (an empty
// reply; clickhouse-go: "driver: bad connection"), and the read timeout
// killed the statement as if its client had gone.
func TestLongStatementsOutliveServerTimeouts(t *testing.T) {
	need(t)
	addr := serveWithTimeouts(t)
	status, body, _ := do(t, http.MethodPost, "", strings.NewReader("CREATE OR REPLACE TABLE long_t (n UInt64) ENGINE = MergeTree ORDER BY n"))
	require.Equal(t, 200, status, body)
	ctx := context.Background()

	t.Run("plain HTTP, one kept-alive connection", func(t *testing.T) {
		t.Parallel()
		client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
		defer client.CloseIdleConnections()
		for i, c := range []struct{ name, params, sql, want string }{
			{"streamed, output at the end", "", "SELECT count() FROM numbers(6) " + sleepy, "6\n"},
			{"whole (wait_end_of_query)", "wait_end_of_query=1", "SELECT count() FROM numbers(6) " + sleepy, "6\n"},
			{"no output (INSERT SELECT)", "", "INSERT INTO long_t SELECT number FROM numbers(6) " + sleepy, ""},
			{
				"progress headers asked for", "send_progress_in_http_headers=1&http_headers_progress_interval_ms=100",
				"SELECT count() FROM numbers(6) " + sleepy, "6\n",
			},
		} {
			t.Run(c.name, func(t *testing.T) {
				t0 := time.Now()
				status, body, reused, err := post(ctx, client, addr, c.params, c.sql)
				require.NoError(t, err, c.name)
				assert.Equal(t, 200, status, c.name)
				assert.Equal(t, c.want, body, c.name)
				assert.Greater(t, time.Since(t0), 2*time.Second, "%s: the engine makes the statement outlast the timeouts", c.name)
				assert.Equal(t, i > 0, reused, "%s: the connection stays open between statements", c.name)
			})
		}
	})

	t.Run("clickhouse-go", func(t *testing.T) {
		t.Parallel()
		opts := &clickhouse.Options{
			Addr: []string{addr}, Protocol: clickhouse.HTTP,
			Auth: clickhouse.Auth{Username: "otel", Password: "s3cret"}, MaxOpenConns: 1,
		}
		db := clickhouse.OpenDB(opts)
		defer db.Close()
		_, err := db.ExecContext(ctx, "INSERT INTO long_t SELECT number + 100 FROM numbers(6) "+sleepy)
		require.NoError(t, err, "database/sql")
		var n uint64
		require.NoError(t, db.QueryRowContext(ctx, "SELECT count() FROM numbers(6) "+sleepy).Scan(&n), "database/sql")
		assert.Equal(t, uint64(6), n)

		conn, err := clickhouse.Open(opts)
		require.NoError(t, err)
		defer conn.Close()
		require.NoError(t, conn.Exec(ctx, "INSERT INTO long_t SELECT number + 200 FROM numbers(6) "+sleepy), "native API")
		require.NoError(t, conn.QueryRow(ctx, "SELECT count() FROM numbers(6) "+sleepy).Scan(&n), "native API")
		assert.Equal(t, uint64(6), n)
	})

	t.Run("curl", func(t *testing.T) {
		t.Parallel()
		curl, err := exec.LookPath("curl")
		if err != nil {
			testenv.Missing(t, "no curl on this machine")
		}
		for _, params := range []string{"", "send_progress_in_http_headers=1"} {
			out, err := exec.Command(curl, "-sS", "--fail-with-body", "-u", "otel:s3cret", "--data-binary",
				"SELECT count() FROM numbers(6) "+sleepy, "http://"+addr+"/?"+params).CombinedOutput()
			require.NoError(t, err, "%s: %s", params, out)
			assert.Equal(t, "6\n", string(out), params)
		}
	})

	t.Cleanup(func() {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT count() FROM long_t"))
		assert.Equal(t, "18\n", body, "each INSERT SELECT ran once")
	})
}

// A client that goes away cancels its own statement and no other, even
// one of the same text (which is all a match on the text could go by):
// the other runs on and answers.
func TestDisconnectCancelsOnlyItsOwnStatement(t *testing.T) {
	need(t)
	sql := "SELECT count() FROM numbers(600) " + sleepy // 5 minutes
	running := func() int {
		// Not a SELECT, which would wait for one of the two readers.
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SHOW PROCESSLIST"))
		return strings.Count(body, "numbers(600)")
	}
	client := &http.Client{}
	addr := strings.TrimPrefix(srvURL, "http://")
	gone, cancel := context.WithCancel(context.Background())
	defer cancel()
	goneErr := make(chan error, 1)
	go func() {
		_, _, _, err := post(gone, client, addr, "", sql)
		goneErr <- err
	}()
	type answer struct {
		status int
		body   string
		err    error
	}
	stays := make(chan answer, 1)
	t0 := time.Now()
	go func() {
		// The same statement, which reads 8 rows (4 s) and answers.
		status, body, _, err := post(context.Background(), client, addr, q("max_rows_to_read", "8", "read_overflow_mode", "break"), sql)
		stays <- answer{status, body, err}
	}()
	require.Eventually(t, func() bool { return running() == 2 }, 3*time.Second, 20*time.Millisecond, "both statements run")
	cancel()
	require.ErrorIs(t, <-goneErr, context.Canceled)
	require.Eventually(t, func() bool { return running() == 1 }, 2*time.Second, 20*time.Millisecond,
		"the statement of the client that went away stops")
	a := <-stays
	require.NoError(t, a.err)
	assert.Equal(t, 200, a.status, a.body)
	assert.Regexp(t, `^[1-9][0-9]*\n$`, a.body, "the other statement answers")
	assert.Greater(t, time.Since(t0), 3*time.Second, "after running its course")
	assert.Equal(t, 0, running())
}

// Long statements (an INSERT SELECT, a streamed SELECT) and short ones
// (chart-like SELECTs, inserts by plain HTTP and by clickhouse-go) run
// side by side: the short ones answer promptly and in full while the
// long ones run, and the long ones answer in full after.
func TestLongAndShortStatementsTogether(t *testing.T) {
	need(t)
	addr := serveWithTimeouts(t)
	for _, ddl := range []string{
		"CREATE OR REPLACE TABLE mix_long (n UInt64) ENGINE = MergeTree ORDER BY n",
		"CREATE OR REPLACE TABLE mix_short (n UInt64, s String) ENGINE = MergeTree ORDER BY n",
	} {
		status, body, _ := do(t, http.MethodPost, "", strings.NewReader(ddl))
		require.Equal(t, 200, status, body)
	}
	ctx := context.Background()
	client := &http.Client{}
	var long sync.WaitGroup
	longErrs := make(chan error, 2)
	long.Go(func() {
		status, body, _, err := post(ctx, client, addr, "", "INSERT INTO mix_long SELECT number FROM numbers(8) "+sleepy)
		if err == nil && status != 200 {
			err = fmt.Errorf("INSERT SELECT: %d %s", status, body)
		}
		longErrs <- err
	})
	long.Go(func() {
		status, body, _, err := post(ctx, client, addr, "", "SELECT count() FROM numbers(8) "+sleepy)
		if err == nil && (status != 200 || body != "8\n") {
			err = fmt.Errorf("long SELECT: %d %q", status, body)
		}
		longErrs <- err
	})

	db := clickhouse.OpenDB(&clickhouse.Options{
		Addr: []string{addr}, Protocol: clickhouse.HTTP,
		Auth: clickhouse.Auth{Username: "otel", Password: "s3cret"},
	})
	defer db.Close()
	// The long ones run for seconds (sleepEachRow), however busy the
	// machine: rounds that end before they do did not wait for them.
	var longDone atomic.Bool
	go func() { long.Wait(); longDone.Store(true) }()
	inserted, during := 0, 0
	deadline := time.Now().Add(3 * time.Second) // while both long ones run
	for i := 0; time.Now().Before(deadline); i++ {
		status, body, _, err := post(ctx, client, addr, "", fmt.Sprintf("INSERT INTO mix_short VALUES (%d, 'http')", i))
		require.NoError(t, err)
		require.Equal(t, 200, status, body)

		tx, err := db.Begin()
		require.NoError(t, err)
		batch, err := tx.Prepare("INSERT INTO mix_short (n, s)")
		require.NoError(t, err)
		_, err = batch.Exec(uint64(i), "clickhouse-go")
		require.NoError(t, err)
		require.NoError(t, tx.Commit())
		inserted += 2

		var n uint64
		require.NoError(t, db.QueryRowContext(ctx, "SELECT count() FROM mix_short WHERE s IN ('http', 'clickhouse-go')").Scan(&n))
		assert.Equal(t, uint64(inserted), n)
		_, body, _, err = post(ctx, client, addr, "default_format=JSONEachRow",
			"SELECT s, count() AS c FROM mix_short GROUP BY s ORDER BY s")
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("{\"s\":\"clickhouse-go\",\"c\":%d}\n{\"s\":\"http\",\"c\":%d}\n", inserted/2, inserted/2), body) //nolint:testifylint // the exact text, not only the same JSON
		if !longDone.Load() {
			during++
		}
	}
	assert.Greater(t, inserted, 4)
	assert.GreaterOrEqual(t, during, 2, "short statements answer while the long ones run, not after them")
	long.Wait()
	close(longErrs)
	for err := range longErrs {
		require.NoError(t, err)
	}
	_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT count(), sum(n) FROM mix_long"))
	assert.Equal(t, "8\t28\n", body)
}

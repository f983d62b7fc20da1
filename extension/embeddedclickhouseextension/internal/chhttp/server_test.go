package chhttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
	"github.com/otelhouse/otelhouse/internal/testenv"
)

var (
	srvURL string
	// srv is the handler behind srvURL, for tests that serve it otherwise.
	srv *Server
	// spare is a session no server holds, for tests of New itself.
	spare *chdb.Conn
)

// TestMain opens one engine for the package (one data path per process)
// behind one server with credentials.
func TestMain(m *testing.M) {
	path := os.Getenv("OTELHOUSE_LIBCHDB")
	if path == "" {
		os.Exit(m.Run()) // each test skips
	}
	lib, err := chdb.Load(path)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "chhttp-test-")
	if err != nil {
		panic(err)
	}
	var conns []*chdb.Conn
	for i := 0; i < 5; i++ {
		c, err := lib.Connect(dir)
		if err != nil {
			panic(err)
		}
		conns = append(conns, c)
	}
	spare = conns[4]
	s, err := New(conns[:3], conns[3], Options{
		User: "otel", Password: "s3cret", MaxBody: 64 << 20,
		Profile: map[string]string{"max_block_size": "12345"}, Logger: zap.NewNop(),
	})
	if err != nil {
		panic(err)
	}
	srv = s
	ts := httptest.NewServer(s)
	srvURL = ts.URL
	code := m.Run()
	ts.Close()
	s.Close()
	spare.Close()
	_ = os.RemoveAll(dir)
	// Not os.Exit: a race build's os.Exit(0) runs libchdb's static
	// destructors under the engine's still running threads, which crashed
	// the binary after PASS (chtest.Main says more).
	syscall.Exit(code)
}

func need(t *testing.T) {
	t.Helper()
	if srvURL == "" {
		testenv.Missing(t, "OTELHOUSE_LIBCHDB not set: run through `make test`, which fetches libchdb")
	}
}

func do(t *testing.T, method, params string, body io.Reader, headers ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, srvURL+"/?"+params, body)
	require.NoError(t, err)
	req.SetBasicAuth("otel", "s3cret")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func q(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v.Encode()
}

func TestPingAndQueries(t *testing.T) {
	need(t)
	for _, path := range []string{"/ping", "/replicas_status"} {
		resp, err := http.Get(srvURL + path)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, "Ok.\n", string(b), path)
	}

	status, body, h := do(t, http.MethodPost, "", strings.NewReader("SELECT 1 + 1"))
	assert.Equal(t, 200, status)
	assert.Equal(t, "2\n", body)
	assert.Equal(t, "TabSeparated", h.Get("X-ClickHouse-Format"))

	status, body, _ = do(t, http.MethodGet, q("query", "SELECT number FROM numbers(2)", "default_format", "JSONEachRow"), nil)
	assert.Equal(t, 200, status)
	assert.Equal(t, "{\"number\":0}\n{\"number\":1}\n", body)

	status, body, _ = do(t, http.MethodPost, q("param_name", "x'; DROP TABLE y --", "param_n", "5"),
		strings.NewReader("SELECT {name:String}, {n:UInt8} * 2 FORMAT CSV"))
	assert.Equal(t, 200, status)
	assert.Equal(t, "\"x'; DROP TABLE y --\",10\n", body)
}

func TestSettingsApplyToOneRequest(t *testing.T) {
	need(t)
	for i := 0; i < 3; i++ { // every session of the pool
		_, body, _ := do(t, http.MethodPost, q("max_threads", "3"), strings.NewReader("SELECT getSetting('max_threads')"))
		assert.Equal(t, "3\n", body)
	}
	for i := 0; i < 3; i++ {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT getSetting('max_threads')"))
		assert.NotEqual(t, "3\n", body, "a setting must not outlive its request")
	}
	status, body, _ := do(t, http.MethodPost, q("bad name", "1"), strings.NewReader("SELECT 1"))
	assert.Equal(t, 400, status, body)

	// A setting the engine itself starts sessions with goes back to the
	// engine's value, not to the setting's default.
	_, start, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT name, value FROM system.settings WHERE changed AND name = 'storage_file_read_method'"))
	require.NotEmpty(t, start, "the engine changes storage_file_read_method")
	for i := 0; i < 3; i++ {
		do(t, http.MethodPost, q("storage_file_read_method", "pread"), strings.NewReader("SELECT 1"))
	}
	for i := 0; i < 3; i++ {
		_, body, _ = do(t, http.MethodPost, "", strings.NewReader("SELECT name, value FROM system.settings WHERE changed AND name = 'storage_file_read_method'"))
		assert.Equal(t, start, body)
	}
}

// A GET request only reads (and may change settings), as on ClickHouse,
// whatever readonly it asks for; the next POST writes as before.
func TestGetOnlyReads(t *testing.T) {
	need(t)
	for _, params := range []string{
		q("query", "CREATE TABLE get_made (a UInt8) ENGINE = Memory"),
		q("query", "CREATE TABLE get_made (a UInt8) ENGINE = Memory", "readonly", "0"),
	} {
		status, body, h := do(t, http.MethodGet, params, nil)
		assert.Equal(t, 403, status, body)
		assert.Equal(t, "164", h.Get("X-ClickHouse-Exception-Code"))
	}
	_, body, _ := do(t, http.MethodGet, q("query", "SELECT getSetting('readonly'), getSetting('max_threads')", "max_threads", "3", "readonly", "1"), nil)
	assert.Equal(t, "1\t3\n", body)
	for i := 0; i < 3; i++ {
		_, body, _ = do(t, http.MethodPost, "", strings.NewReader("EXISTS TABLE get_made"))
		assert.Equal(t, "0\n", body)
		status, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT getSetting('readonly')"))
		assert.Equal(t, 200, status)
		assert.Equal(t, "0\n", body)
	}
}

// X-ClickHouse-Timezone tells the timezone the statement ran in: the
// sessions' own, or the request's session_timezone.
func TestTimezoneHeaderIsTheStatements(t *testing.T) {
	need(t)
	_, own, h := do(t, http.MethodPost, "", strings.NewReader("SELECT timezone()"))
	own = strings.TrimSpace(own)
	assert.Equal(t, own, h.Get("X-ClickHouse-Timezone"))
	other := "Asia/Kolkata"
	if own == other {
		other = "America/New_York"
	}
	_, tz, h := do(t, http.MethodPost, q("session_timezone", other), strings.NewReader("SELECT timezone()"))
	assert.Equal(t, other+"\n", tz)
	assert.Equal(t, other, h.Get("X-ClickHouse-Timezone"))
	_, _, h = do(t, http.MethodPost, "", strings.NewReader("SELECT 1"))
	assert.Equal(t, own, h.Get("X-ClickHouse-Timezone"))
}

// The profile is where every statement starts, on every session, and
// where a request's own value of one of its settings goes back to.
func TestProfileIsWhereEveryStatementStarts(t *testing.T) {
	need(t)
	for i := 0; i < 3; i++ {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT getSetting('max_block_size')"))
		assert.Equal(t, "12345\n", body)
	}
	for i := 0; i < 3; i++ {
		_, body, _ := do(t, http.MethodPost, q("max_block_size", "100"), strings.NewReader("SELECT getSetting('max_block_size')"))
		assert.Equal(t, "100\n", body)
	}
	for i := 0; i < 3; i++ {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT getSetting('max_block_size')"))
		assert.Equal(t, "12345\n", body, "back to the profile, not to the engine's default")
	}
}

// What a statement leaves on its engine session (SET, USE, a temporary
// table) ends with its request, as ClickHouse gives each request without
// a session_id a fresh context; several statements in one request are
// refused, as by ClickHouse.
func TestStatementsLeaveNothingBehind(t *testing.T) {
	need(t)
	// Four statements over three pooled sessions: each session gets each.
	for i := 0; i < 3; i++ {
		for _, stmt := range []string{
			"SET max_execution_time = 42, max_block_size = 7", "USE system",
			"CREATE TEMPORARY TABLE leak (x UInt8)", "SELECT 1",
		} {
			status, body, _ := do(t, http.MethodPost, "", strings.NewReader(stmt))
			require.Equal(t, 200, status, body)
		}
	}
	for i := 0; i < 3; i++ {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT getSetting('max_execution_time'), "+
			"getSetting('max_block_size'), currentDatabase(), (SELECT count() FROM system.tables WHERE is_temporary)"))
		assert.Equal(t, "0\t12345\tdefault\t0\n", body)
	}
	status, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT 1; SET readonly = 1"))
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "Multi-statements are not allowed")
}

func TestProfileIsCheckedByTheEngine(t *testing.T) {
	need(t)
	_, err := New([]*chdb.Conn{spare}, nil, Options{Profile: map[string]string{"no_such_setting": "1"}, Logger: zap.NewNop()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profile setting no_such_setting")
	assert.Contains(t, err.Error(), "Unknown setting", "the engine's own message")
	// A YAML bool reaches the engine as true/false, which it takes.
	_, err = New([]*chdb.Conn{spare}, nil, Options{Profile: map[string]string{"materialize_skip_indexes_on_insert": "false"}, Logger: zap.NewNop()})
	require.NoError(t, err)
	_, err = New([]*chdb.Conn{spare}, nil, Options{Profile: map[string]string{"x = 1; DROP": "1"}, Logger: zap.NewNop()})
	assert.ErrorContains(t, err, "is not a setting name")
}

func TestInsertsAndDatabase(t *testing.T) {
	need(t)
	status, body, _ := do(t, http.MethodPost, "", strings.NewReader("CREATE DATABASE IF NOT EXISTS otel"))
	require.Equal(t, 200, status, body)
	status, body, _ = do(t, http.MethodPost, "", strings.NewReader("DROP TABLE IF EXISTS otel.t SYNC")) // from an earlier run (-count)
	require.Equal(t, 200, status, body)
	status, body, _ = do(t, http.MethodPost, q("database", "otel"),
		strings.NewReader("CREATE TABLE IF NOT EXISTS t (id UInt64, msg String) ENGINE = MergeTree ORDER BY id"))
	require.Equal(t, 200, status, body)

	rows := "{\"id\":1,\"msg\":\"a\"}\n\n{\"id\":2,\"msg\":\"with\\n\\nblank lines\"}\n"
	status, body, _ = do(t, http.MethodPost, q("query", "INSERT INTO otel.t FORMAT JSONEachRow"), strings.NewReader(rows))
	require.Equal(t, 200, status, body)

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("3,\"csv, quoted\"\n4,plain\n"))
	_ = zw.Close()
	status, body, h := do(t, http.MethodPost, q("query", "INSERT INTO t FORMAT CSV", "database", "otel"), &gz, "Content-Encoding", "gzip")
	require.Equal(t, 200, status, body)
	assert.Contains(t, h.Get("X-ClickHouse-Summary"), `"written_rows":"2"`)

	// TSV, and RowBinary (id UInt64 little-endian, msg as length-prefixed bytes) in a zstd body.
	status, body, _ = do(t, http.MethodPost, q("query", "INSERT INTO otel.t FORMAT TSV"), strings.NewReader("5\ttab\\tsep\n"))
	require.Equal(t, 200, status, body)
	rb := []byte{6, 0, 0, 0, 0, 0, 0, 0, 3, 'b', 'i', 'n'}
	zw2, _ := zstd.NewWriter(nil)
	status, body, _ = do(t, http.MethodPost, q("query", "INSERT INTO otel.t FORMAT RowBinary"), bytes.NewReader(zw2.EncodeAll(rb, nil)),
		"Content-Encoding", "zstd")
	require.Equal(t, 200, status, body)

	_, body, _ = do(t, http.MethodPost, q("database", "otel"), strings.NewReader("SELECT count(), sum(id), anyIf(msg, id=2), anyIf(msg, id=6) FROM t"))
	assert.Equal(t, "6\t21\twith\\n\\nblank lines\tbin\n", body)
	_, body, _ = do(t, http.MethodPost, "", strings.NewReader("SELECT currentDatabase()"))
	assert.Equal(t, "default\n", body, "database applies to its request only")

	// The headers clients such as APISIX's clickhouse-logger send instead
	// of the URL parameters; the header wins, as in ClickHouse.
	_, body, h = do(t, http.MethodPost, q("database", "system"), strings.NewReader("SELECT count() FROM t"),
		"X-ClickHouse-Database", "otel", "X-ClickHouse-Format", "JSONEachRow")
	assert.Equal(t, "{\"count()\":6}\n", body)
	assert.Equal(t, "JSONEachRow", h.Get("X-ClickHouse-Format"))
}

func TestErrorsAndAuth(t *testing.T) {
	need(t)
	status, body, h := do(t, http.MethodPost, "", strings.NewReader("SELECT * FROM nowhere_table"))
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "60", h.Get("X-ClickHouse-Exception-Code"))
	assert.Contains(t, body, "Code: 60")
	status, _, h = do(t, http.MethodPost, "", strings.NewReader("SELEC 1"))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "62", h.Get("X-ClickHouse-Exception-Code"))

	resp, err := http.Post(srvURL+"/", "text/plain", strings.NewReader("SELECT 1"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	req, _ := http.NewRequest(http.MethodPost, srvURL+"/", strings.NewReader("SELECT 1"))
	req.Header.Set("X-ClickHouse-User", "otel")
	req.Header.Set("X-ClickHouse-Key", "s3cret")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestClickHouseGoOverHTTP(t *testing.T) {
	need(t)
	u, _ := url.Parse(srvURL)
	for _, method := range []clickhouse.CompressionMethod{clickhouse.CompressionNone, clickhouse.CompressionLZ4, clickhouse.CompressionZSTD} {
		db := clickhouse.OpenDB(&clickhouse.Options{
			Addr: []string{u.Host}, Protocol: clickhouse.HTTP,
			Auth:        clickhouse.Auth{Database: "default", Username: "otel", Password: "s3cret"},
			Compression: &clickhouse.Compression{Method: method},
			DialTimeout: 5 * time.Second,
		})
		ctx := context.Background()
		require.NoError(t, db.PingContext(ctx), method)
		_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS chgo (ts DateTime64(9), name LowCardinality(String),
			attrs Map(LowCardinality(String), String), vals Array(Float64), n Nullable(UInt32)) ENGINE = MergeTree ORDER BY ts`)
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, "TRUNCATE TABLE chgo")
		require.NoError(t, err)

		tx, err := db.Begin()
		require.NoError(t, err)
		stmt, err := tx.Prepare("INSERT INTO chgo (ts, name, attrs, vals, n)")
		require.NoError(t, err)
		now := time.Unix(1_700_000_000, 123).UTC()
		for i := 0; i < 100; i++ {
			var n *uint32
			if i%2 == 0 {
				v := uint32(i)
				n = &v
			}
			_, err = stmt.Exec(now.Add(time.Duration(i)), "span", map[string]string{"k": "v", "i": strings.Repeat("x", i%3)}, []float64{1.5, float64(i)}, n)
			require.NoError(t, err)
		}
		require.NoError(t, tx.Commit())

		var count uint64
		var sum float64
		require.NoError(t, db.QueryRowContext(ctx, "SELECT count(), sum(vals[2]) FROM chgo WHERE attrs['k'] = ?", "v").Scan(&count, &sum))
		assert.Equal(t, uint64(100), count, method)
		assert.Equal(t, 4950.0, sum)
		var ts time.Time
		var name string
		var nulls uint64
		require.NoError(t, db.QueryRowContext(ctx, "SELECT min(ts), any(name), countIf(n IS NULL) FROM chgo").Scan(&ts, &name, &nulls))
		assert.Equal(t, now, ts.UTC())
		assert.Equal(t, "span", name)
		assert.Equal(t, uint64(50), nulls)
		// Whole rows, as search reads them: maps with LowCardinality keys
		// and arrays of them (span events) re-encode for the client too.
		var attrs map[string]string
		var events []map[string]string
		require.NoError(t, db.QueryRowContext(ctx, `SELECT attrs, CAST([map('event.key', 'v')] AS Array(Map(LowCardinality(String), String)))
			FROM chgo ORDER BY ts LIMIT 1`).Scan(&attrs, &events))
		assert.Equal(t, map[string]string{"k": "v", "i": ""}, attrs)
		assert.Equal(t, []map[string]string{{"event.key": "v"}}, events)
		require.NoError(t, db.Close())
	}
}

// A SELECT's output goes out as the engine produces it, as from
// ClickHouse: an endless one starts answering at once, and a client that
// stops reading cancels it and frees its session.
func TestResultsStream(t *testing.T) {
	need(t)
	for i := 0; i < 4; i++ { // more than the pool's sessions: each comes back
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srvURL+"/?"+q("default_format", "RowBinary"),
			strings.NewReader("SELECT number FROM system.numbers"))
		req.SetBasicAuth("otel", "s3cret")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, "an endless result must start before it ends")
		n, err := io.CopyN(io.Discard, resp.Body, 8<<20)
		require.NoError(t, err)
		assert.Equal(t, int64(8<<20), n)
		resp.Body.Close()
		cancel()
	}
	_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SELECT 1"))
	assert.Equal(t, "1\n", body)
}

// A client that stops reading loses its statement after http_send_timeout
// (ClickHouse's 30 s by default), instead of holding an engine session
// while it stalls.
func TestStalledReaderLosesItsStatement(t *testing.T) {
	need(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srvURL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	query := "SELECT number FROM system.numbers /* stalled */"
	running := "SELECT count() FROM system.processes WHERE query LIKE '%/* stalled */%' AND query NOT LIKE '%processes%'"
	_, err = fmt.Fprintf(conn, "POST /?http_send_timeout=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Basic b3RlbDpzM2NyZXQ=\r\nContent-Length: %d\r\n\r\n%s", len(query), query)
	require.NoError(t, err)
	buf := make([]byte, 1024)
	_, err = conn.Read(buf) // the answer has begun; now read nothing more
	require.NoError(t, err)
	// Polled, not read once: in one loaded clean-clone run the first
	// check came back "killed in pending state" (QUERY_WAS_CANCELLED),
	// cause not found yet; it is the stalled statement's state that this
	// test is about.
	var body string
	assert.Eventually(t, func() bool {
		_, body, _ = do(t, http.MethodPost, "", strings.NewReader(running))
		return body == "1\n"
	}, 3*time.Second, 50*time.Millisecond, "the statement runs while its client reads: %s", body)
	assert.Eventually(t, func() bool {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader(running))
		return body == "0\n"
	}, 10*time.Second, 200*time.Millisecond, "the stalled statement must be cancelled")
}

// SELECTs hold at most all pooled sessions but one, however long their
// results stream: a write still finds a session, a further SELECT waits.
func TestReadsLeaveASessionForWrites(t *testing.T) {
	need(t)
	do(t, http.MethodPost, "", strings.NewReader("CREATE OR REPLACE TABLE lane (x UInt8) ENGINE = Memory"))
	// Two readers (the pool has three sessions) that stop reading.
	var stalled []net.Conn
	for i := 0; i < 2; i++ {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srvURL, "http://"))
		require.NoError(t, err)
		query := "SELECT number FROM system.numbers /* lane */"
		_, err = fmt.Fprintf(conn, "POST /?http_send_timeout=60 HTTP/1.1\r\nHost: x\r\nAuthorization: Basic b3RlbDpzM2NyZXQ=\r\nContent-Length: %d\r\n\r\n%s", len(query), query)
		require.NoError(t, err)
		_, err = conn.Read(make([]byte, 1024))
		require.NoError(t, err)
		stalled = append(stalled, conn)
	}
	lanes := func() int {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader("SHOW PROCESSLIST")) // not a SELECT: it may run
		return strings.Count(body, "/* lane */")
	}
	require.Equal(t, 2, lanes())

	status, body, _ := do(t, http.MethodPost, "", strings.NewReader("INSERT INTO lane VALUES (1)"))
	assert.Equal(t, 200, status, body)

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srvURL+"/", strings.NewReader("SELECT 1"))
	req.SetBasicAuth("otel", "s3cret")
	_, err := http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded, "a third SELECT waits for a reader to finish")

	for _, c := range stalled {
		c.Close()
	}
	assert.Eventually(t, func() bool { return lanes() == 0 }, 10*time.Second, 100*time.Millisecond)
	_, body, _ = do(t, http.MethodPost, "", strings.NewReader("SELECT count() FROM lane"))
	assert.Equal(t, "1\n", body)
}

// An error after output has started goes into the body between tagged
// markers (the tag is in X-ClickHouse-Exception-Tag), and the response is
// cut short, so no client takes the rows before it for the whole result.
func TestErrorMidStream(t *testing.T) {
	need(t)
	req, _ := http.NewRequest(http.MethodPost, srvURL+"/", strings.NewReader("SELECT number, throwIf(number = 300000) FROM numbers(400000)"))
	req.SetBasicAuth("otel", "s3cret")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	tag := resp.Header.Get("X-ClickHouse-Exception-Tag")
	require.Len(t, tag, 16)
	b, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the response must not end as a whole one")
	tail := string(b[max(0, len(b)-1000):])
	assert.Contains(t, tail, "\r\n__exception__\r\n"+tag+"\r\nCode: 395. DB::Exception: Value passed to 'throwIf'")
	assert.True(t, strings.HasSuffix(tail, " "+tag+"\r\n__exception__\r\n"), tail)
	assert.True(t, strings.HasPrefix(string(b), "0\t0\n1\t0\n"))

	// wait_end_of_query=1: the result whole first, and a proper status.
	status, body, h := do(t, http.MethodPost, q("wait_end_of_query", "1"), strings.NewReader("SELECT number, throwIf(number = 300000) FROM numbers(400000)"))
	assert.Equal(t, 500, status)
	assert.Equal(t, "395", h.Get("X-ClickHouse-Exception-Code"))
	assert.Contains(t, body, "Value passed to 'throwIf'")

	// clickhouse-go reads the rows before it, then the engine's error.
	u, _ := url.Parse(srvURL)
	for _, method := range []clickhouse.CompressionMethod{clickhouse.CompressionNone, clickhouse.CompressionLZ4, clickhouse.CompressionZSTD} {
		db := clickhouse.OpenDB(&clickhouse.Options{
			Addr: []string{u.Host}, Protocol: clickhouse.HTTP,
			Auth: clickhouse.Auth{Username: "otel", Password: "s3cret"}, Compression: &clickhouse.Compression{Method: method},
		})
		rows, err := db.Query("SELECT number, throwIf(number = 300000) FROM numbers(400000)")
		require.NoError(t, err, method)
		n := 0
		for rows.Next() {
			n++
		}
		require.ErrorContains(t, rows.Err(), "Value passed to 'throwIf'", method)
		assert.Less(t, n, 300000, method)
		rows.Close()

		// A result of many blocks, re-encoded block by block for the
		// client's protocol revision.
		var count, sum uint64
		rows, err = db.Query("SELECT number, toString(number) FROM numbers(500000)")
		require.NoError(t, err, method)
		for rows.Next() {
			var v uint64
			var str string
			require.NoError(t, rows.Scan(&v, &str))
			count, sum = count+1, sum+v
		}
		require.NoError(t, rows.Err(), method)
		rows.Close()
		assert.Equal(t, uint64(500000), count, method)
		assert.Equal(t, uint64(124999750000), sum, method)
		require.NoError(t, db.Close())
	}
}

func TestDisconnectedClientCancelsItsQuery(t *testing.T) {
	need(t)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srvURL+"/", strings.NewReader("SELECT count() FROM numbers(100000000000) WHERE sleepEachRow(0) = 0 AND number % 7 = 3"))
	req.SetBasicAuth("otel", "s3cret")
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	running := func() string {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader(
			"SELECT count() FROM system.processes WHERE query LIKE '%numbers(100000000000)%' AND query NOT LIKE '%system.processes%'"))
		return strings.TrimSpace(body)
	}
	require.Eventually(t, func() bool { return running() == "1" }, 10*time.Second, 50*time.Millisecond, "the long query runs")
	cancel()
	<-done
	assert.Eventually(t, func() bool { return running() == "0" }, 10*time.Second, 100*time.Millisecond, "and stops when its client goes away")
}

// A SELECT killed while its client still waits (a kill that was not its
// client's) runs again, and its client gets its answer; killed again, it
// answers the engine's error.
func TestSelectKilledUnaskedRunsAgain(t *testing.T) {
	need(t)
	kill := func() {
		do(t, http.MethodPost, "", strings.NewReader("KILL QUERY WHERE query LIKE '%/* unasked */%' AND query NOT LIKE '%KILL%' ASYNC"))
	}
	running := func() bool {
		_, body, _ := do(t, http.MethodPost, "", strings.NewReader(
			"SELECT count() FROM system.processes WHERE query LIKE '%/* unasked */%' AND query NOT LIKE '%system.processes%' AND query NOT LIKE '%KILL%'"))
		return strings.TrimSpace(body) == "1"
	}
	before := srv.rerun.Load()
	type answer struct {
		status int
		body   string
	}
	got := make(chan answer, 1)
	// ask runs the statement on a goroutine of its own (no assertions
	// there) and answers on got.
	ask := func() {
		go func() {
			req, _ := http.NewRequest(http.MethodPost, srvURL+"/", strings.NewReader("SELECT /* unasked */ count() FROM numbers(40) WHERE sleepEachRow(0.05) = 0"))
			req.SetBasicAuth("otel", "s3cret")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				got <- answer{0, err.Error()}
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			got <- answer{resp.StatusCode, string(b)}
		}()
	}
	ask()
	require.Eventually(t, running, 10*time.Second, 20*time.Millisecond, "the statement runs")
	kill()
	a := <-got
	assert.Equal(t, http.StatusOK, a.status, a.body)
	assert.Equal(t, "40\n", a.body, "the second run answers")
	assert.Equal(t, before+1, srv.rerun.Load())

	ask()
	require.Eventually(t, running, 10*time.Second, 20*time.Millisecond, "the statement runs")
	kill()
	require.Eventually(t, func() bool { return srv.rerun.Load() == before+2 }, 10*time.Second, 20*time.Millisecond, "run again")
	require.Eventually(t, running, 10*time.Second, 20*time.Millisecond, "the second run")
	kill()
	a = <-got
	assert.NotEqual(t, http.StatusOK, a.status)
	assert.Contains(t, a.body, "QUERY_WAS_CANCELLED", "once only")
}

// A session_id keeps its engine session between its requests: SET, USE
// and temporary tables stay for it and for nobody else; a concurrent
// request in the session is refused; session_check finds only open
// sessions; one pooled session stays out of sessions' reach; a session
// that times out goes back to the pool as it was taken.
func TestSessions(t *testing.T) {
	need(t)
	post := func(id, timeout, sql string, kv ...string) (int, string) {
		status, body, _ := do(t, http.MethodPost, q(append([]string{"session_id", id, "session_timeout", timeout}, kv...)...),
			strings.NewReader(sql))
		return status, body
	}
	for _, stmt := range []string{
		"SET max_execution_time = 42", "CREATE TEMPORARY TABLE tmp (x UInt8)",
		"INSERT INTO tmp VALUES (7)", "USE system",
	} {
		status, body := post("s1", "1", stmt)
		require.Equal(t, 200, status, body)
	}
	_, body := post("s1", "1", "SELECT getSetting('max_execution_time'), currentDatabase(), (SELECT sum(x) FROM tmp)")
	assert.Equal(t, "42\tsystem\t7\n", body)
	clean := "SELECT getSetting('max_execution_time'), currentDatabase(), (SELECT count() FROM system.tables WHERE is_temporary)"
	for i := 0; i < 3; i++ {
		_, body, _ = do(t, http.MethodPost, "", strings.NewReader(clean))
		assert.Equal(t, "0\tdefault\t0\n", body, "a session's state is its own")
	}

	status, body := post("unknown", "1", "SELECT 1", "session_check", "1")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Contains(t, body, "not found")
	status, _ = post("s2", "-1", "SELECT 1")
	assert.Equal(t, http.StatusBadRequest, status)

	// Three pooled sessions here: s1 and s2 may hold two, not a third.
	status, body = post("s2", "1", "SELECT 1")
	require.Equal(t, 200, status, body)
	status, body = post("s3", "1", "SELECT 1")
	assert.Equal(t, http.StatusServiceUnavailable, status, body)

	statuses := make(chan int, 2)
	for range 2 {
		go func() {
			status, _ := post("s1", "1", "SELECT sleep(0.5)")
			statuses <- status
		}()
	}
	got := []int{<-statuses, <-statuses}
	assert.ElementsMatch(t, []int{200, http.StatusConflict}, got, "one request at a time per session")

	// Both time out after a second idle (a check is a use, so checks are
	// further apart); their engine sessions return clean.
	require.Eventually(t, func() bool {
		s1, _ := post("s1", "1", "SELECT 1", "session_check", "1")
		s2, _ := post("s2", "1", "SELECT 1", "session_check", "1")
		return s1 == http.StatusNotFound && s2 == http.StatusNotFound
	}, 15*time.Second, 1500*time.Millisecond)
	for i := 0; i < 3; i++ {
		_, body, _ = do(t, http.MethodPost, "", strings.NewReader(clean))
		assert.Equal(t, "0\tdefault\t0\n", body)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:8123": true, "127.0.0.1": true, "127.1.2.3:8123": true, "localhost:8123": true, "LOCALHOST": true,
		"app.localhost:8123": true, "[::1]:8123": true, "::1": true, "": true,
		"rebound.example:8123": false, "10.0.0.5:8123": false, "0.0.0.0:8123": false, "localhost.example.com": false,
		"[::ffff:10.0.0.1]:8123": false, "127.0.0.1.nip.io:8123": false,
	} {
		assert.Equal(t, want, loopbackHost(host), host)
	}
}

package chdb

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

// lib loads the engine that `make test` fetched (OTELHOUSE_LIBCHDB).
func lib(t *testing.T) *Lib {
	t.Helper()
	path := os.Getenv("OTELHOUSE_LIBCHDB")
	if path == "" {
		testenv.Missing(t, "OTELHOUSE_LIBCHDB not set: run through `make test`, which fetches libchdb")
	}
	l, err := Load(path)
	require.NoError(t, err)
	return l
}

// The engine allows one data path per process, so the package's tests share
// one directory and one set of sessions.
var (
	dirOnce sync.Once
	dataDir string
)

// TestMain removes the shared directory once every test has closed its
// sessions. It ends with syscall.Exit, not os.Exit: a race build's
// os.Exit(0) runs libchdb's static destructors under the engine's still
// running threads (chtest.Main says more).
func TestMain(m *testing.M) {
	code := m.Run()
	if dataDir != "" {
		_ = os.RemoveAll(dataDir)
	}
	syscall.Exit(code)
}

func connect(t *testing.T) *Conn {
	t.Helper()
	l := lib(t)
	dirOnce.Do(func() {
		var err error
		dataDir, err = os.MkdirTemp("", "chdb-test-")
		require.NoError(t, err)
	})
	c, err := l.Connect(dataDir)
	require.NoError(t, err)
	return c
}

func TestQueryAndFormats(t *testing.T) {
	c := connect(t)
	defer c.Close()
	assert.True(t, strings.HasPrefix(c.lib.Version(), "26."), c.lib.Version())
	r, err := c.Query("SELECT 1 + 1 AS x, 'a\tb' AS s", "TSV")
	require.NoError(t, err)
	assert.Equal(t, "2\ta\\tb\n", string(r.Data))
	r, err = c.Query("SELECT number FROM system.numbers LIMIT 3", "JSONEachRow")
	require.NoError(t, err)
	assert.Equal(t, "{\"number\":0}\n{\"number\":1}\n{\"number\":2}\n", string(r.Data))
	assert.Equal(t, uint64(3), r.RowsRead)
	r, err = c.Query("SELECT toUInt8(7) AS v", "Native")
	require.NoError(t, err)
	assert.NotEmpty(t, r.Data)
}

func TestParamsAreBoundNotPasted(t *testing.T) {
	c := connect(t)
	defer c.Close()
	r, err := c.QueryParams("SELECT {s:String} AS s, {n:UInt32} * 2 AS n", "TSV",
		map[string]string{"s": "x'); DROP TABLE t; --", "n": "21"})
	require.NoError(t, err)
	assert.Equal(t, "x\\'); DROP TABLE t; --\t42\n", string(r.Data))
}

func TestErrorsCarryTheCode(t *testing.T) {
	c := connect(t)
	defer c.Close()
	_, err := c.Query("SELECT * FROM no_such_table_here", "TSV")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 60, e.Code, e.Message) // UNKNOWN_TABLE
	_, err = c.Query("SELEC 1", "TSV")
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 62, e.Code) // SYNTAX_ERROR
}

func TestStreamInsertAndPersistence(t *testing.T) {
	c := connect(t)
	_, err := c.Query("CREATE TABLE IF NOT EXISTS default.events (id UInt64, msg String) ENGINE = MergeTree ORDER BY id", "TSV")
	require.NoError(t, err)
	_, err = c.Query("TRUNCATE TABLE default.events", "TSV")
	require.NoError(t, err)

	// Data with blank lines, tabs and quotes goes through the stream, never SQL.
	r, err := c.Insert("INSERT INTO default.events (id, msg)", "JSONEachRow", func(appendChunk func([]byte) error) error {
		for i := 0; i < 10; i++ {
			line := fmt.Sprintf("{\"id\":%d,\"msg\":\"line\\n\\nwith 'quotes' %d\"}\n", i, i)
			if err := appendChunk([]byte(line)); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, uint64(10), r.RowsWritten)
	_, err = c.Insert("INSERT INTO default.events (id, msg)", "CSV", func(appendChunk func([]byte) error) error {
		return appendChunk([]byte("100,\"csv, row\"\n101,second\n"))
	})
	require.NoError(t, err)

	_, err = c.Insert("INSERT INTO default.events (id, msg)", "JSONEachRow", func(appendChunk func([]byte) error) error {
		return appendChunk([]byte("{\"id\":\"not a number\"}\n"))
	})
	require.Error(t, err, "bad rows are refused with the engine's message")
	c.Close()

	// A new session on the same path sees the committed rows.
	c2 := connect(t)
	defer c2.Close()
	got, err := c2.Query("SELECT count(), sum(id), anyIf(msg, id = 3) FROM default.events", "TSV")
	require.NoError(t, err)
	assert.Equal(t, "12\t246\tline\\n\\nwith \\'quotes\\' 3\n", string(got.Data))
}

func TestParallelSessions(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := connect(t) //nolint:testifylint // connect fails the test only when the engine cannot open at all
			defer c.Close()
			r, err := c.QueryParams("SELECT sum(number) FROM numbers({n:UInt64})", "TSV", map[string]string{"n": "1000000"})
			if err == nil && string(r.Data) != "499999500000\n" {
				err = fmt.Errorf("session %d got %q", i, r.Data)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestClosedConnection(t *testing.T) {
	c := connect(t)
	c.Close()
	c.Close() // idempotent
	_, err := c.Query("SELECT 1", "TSV")
	assert.ErrorIs(t, err, errClosed)
}

// A statement that fails after it produced output leaves none of it to the
// connection's next statement.
func TestFailedStatementLeavesNoOutput(t *testing.T) {
	c := connect(t)
	defer c.Close()
	const failing = "SELECT number, throwIf(number = 300000) FROM numbers(400000)"
	_, err := c.Query(failing, "TSV")
	require.Error(t, err)
	r, err := c.Query("SELECT 42 AS x", "JSONEachRow")
	require.NoError(t, err)
	assert.Equal(t, "{\"x\":42}\n", string(r.Data))
}

// A streamed result comes in chunks, each freed once used; a failure
// mid-way is an error of the chunk, and the connection is clean after.
func TestQueryStream(t *testing.T) {
	c := connect(t)
	defer c.Close()
	read := func(sql string) (chunks, size int, err error) {
		st, err := c.QueryStream(sql, "TSV", map[string]string{"n": "400000"})
		if err != nil {
			return 0, 0, err
		}
		defer st.Close()
		for {
			more, err := st.Next(func(b []byte) error { chunks, size = chunks+1, size+len(b); return nil })
			if err != nil || !more {
				return chunks, size, err
			}
		}
	}
	chunks, size, err := read("SELECT number FROM numbers({n:UInt32})")
	require.NoError(t, err)
	assert.Greater(t, chunks, 1)
	assert.Equal(t, 2_688_890, size) // the digits and newlines of 0…399999

	chunks, _, err = read("SELECT number, throwIf(number = 300000) FROM numbers({n:UInt32})")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 395, e.Code)
	assert.Positive(t, chunks, "output came before the failure")

	_, _, err = read("SELECT * FROM no_such_table_here")
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 60, e.Code)

	// A stream left unread is cancelled by Close.
	st, err := c.QueryStream("SELECT number FROM system.numbers", "TSV", nil)
	require.NoError(t, err)
	_, err = st.Next(func([]byte) error { return nil })
	require.NoError(t, err)
	st.Close()

	r, err := c.Query("SELECT 42 AS x", "JSONEachRow")
	require.NoError(t, err)
	assert.Equal(t, "{\"x\":42}\n", string(r.Data))
}

// Package chdb binds the embedded ClickHouse engine (libchdb's C API)
// through purego, so the distribution builds with CGO off. It exposes
// connections that run queries, with server-side parameters, and streaming
// inserts; everything is copied into Go memory before the C result is freed.
package chdb

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Lib is the loaded engine. A process loads it once.
type Lib struct {
	version string

	setSignalHandlers  func(int32)
	connect            func(int32, **byte) unsafe.Pointer
	closeConn          func(unsafe.Pointer)
	queryN             queryFunc
	queryParamsN       queryParamsFunc
	streamQueryN       queryFunc
	streamQueryParamsN queryParamsFunc
	streamFetch        func(conn uintptr, stream uintptr) uintptr
	streamCancel       func(conn uintptr, stream uintptr)
	streamInsertN      func(conn uintptr, q *byte, qn uintptr, f *byte, fn uintptr) uintptr
	streamAppend       func(stream uintptr, data *byte, n uintptr) int32
	streamDone         func(stream uintptr) uintptr
	streamError        func(stream uintptr) *byte
	destroyStream      func(stream uintptr)
	resultBuffer       func(uintptr) *byte
	resultLength       func(uintptr) uintptr
	resultError        func(uintptr) *byte
	resultElapsed      func(uintptr) float64
	resultRowsRead     func(uintptr) uint64
	resultBytesRead    func(uintptr) uint64
	resultRowsWritten  func(uintptr) uint64
	resultBytesWrote   func(uintptr) uint64
	destroyResult      func(uintptr)
	versionFn          func() *byte
}

var (
	loadMu sync.Mutex
	loaded = map[string]*Lib{}
)

// Load opens libchdb at path (once per process and path) and turns off
// its signal handlers, so Go keeps its own.
func Load(path string) (*Lib, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if l, ok := loaded[path]; ok {
		return l, nil
	}
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("loading libchdb from %s: %w", path, err)
	}
	l := &Lib{}
	for name, fn := range map[string]any{
		"chdb_set_signal_handlers_enabled": &l.setSignalHandlers,
		"chdb_connect":                     &l.connect,
		"chdb_close_conn":                  &l.closeConn,
		"chdb_query_n":                     &l.queryN,
		"chdb_query_with_params_n":         &l.queryParamsN,
		"chdb_stream_query_n":              &l.streamQueryN,
		"chdb_stream_query_with_params_n":  &l.streamQueryParamsN,
		"chdb_stream_fetch_result":         &l.streamFetch,
		"chdb_stream_cancel_query":         &l.streamCancel,
		"chdb_stream_insert_n":             &l.streamInsertN,
		"chdb_stream_append":               &l.streamAppend,
		"chdb_stream_done":                 &l.streamDone,
		"chdb_stream_insert_error":         &l.streamError,
		"chdb_destroy_insert_stream":       &l.destroyStream,
		"chdb_result_buffer":               &l.resultBuffer,
		"chdb_result_length":               &l.resultLength,
		"chdb_result_error":                &l.resultError,
		"chdb_result_elapsed":              &l.resultElapsed,
		"chdb_result_rows_read":            &l.resultRowsRead,
		"chdb_result_bytes_read":           &l.resultBytesRead,
		"chdb_result_rows_written":         &l.resultRowsWritten,
		"chdb_result_bytes_written":        &l.resultBytesWrote,
		"chdb_destroy_query_result":        &l.destroyResult,
		"chdb_version":                     &l.versionFn,
	} {
		sym, err := purego.Dlsym(h, name)
		if err != nil {
			return nil, fmt.Errorf("libchdb at %s lacks %s (need 26.7 or newer): %w", path, name, err)
		}
		purego.RegisterFunc(fn, sym)
	}
	l.setSignalHandlers(0)
	l.version = goString(l.versionFn())
	loaded[path] = l
	return l, nil
}

// Version is the libchdb version string.
func (l *Lib) Version() string { return l.version }

// Conn is one engine session. Settings made with SET persist on it, so
// callers pass per-query settings in the query instead. A Conn runs one
// statement at a time; use several for parallel queries.
type Conn struct {
	lib  *Lib
	mu   sync.Mutex
	pptr unsafe.Pointer // chdb_connection*
	conn uintptr        // chdb_connection, opaque
}

// Connect opens a session on the data directory path ("" for in memory).
// extra are further clickhouse-local options, such as --config-file. The
// first connection of a process sets up the engine: every later one must
// use the same path and options.
func (l *Lib) Connect(path string, extra ...string) (*Conn, error) {
	args := []string{"clickhouse"}
	if path != "" {
		args = append(args, "--path="+path)
	}
	args = append(args, extra...)
	cargs := make([]*byte, len(args))
	keep := make([][]byte, len(args))
	for i, a := range args {
		keep[i] = append([]byte(a), 0)
		cargs[i] = &keep[i][0]
	}
	p := l.connect(int32(len(cargs)), &cargs[0])
	runtime.KeepAlive(keep)
	if p == nil {
		return nil, fmt.Errorf("chdb: cannot open a session on %q (is another process using it?)", path)
	}
	return &Conn{lib: l, pptr: p, conn: *(*uintptr)(p)}, nil
}

// Close ends the session.
func (c *Conn) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pptr != nil {
		c.lib.closeConn(c.pptr)
		c.pptr, c.conn = nil, 0
	}
}

// Result is a finished statement's output and statistics.
type Result struct {
	Data         []byte
	Elapsed      float64
	RowsRead     uint64
	BytesRead    uint64
	RowsWritten  uint64
	BytesWritten uint64
}

// Error is an engine exception, with ClickHouse's error code when the
// message carries one ("Code: 60. DB::Exception: …").
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

var codeRE = regexp.MustCompile(`Code: (\d+)`)

func newError(msg string) *Error {
	e := &Error{Message: msg}
	if m := codeRE.FindStringSubmatch(msg); m != nil {
		e.Code, _ = strconv.Atoi(m[1])
	}
	return e
}

var errClosed = errors.New("chdb: connection closed")

// Query runs one statement and returns its output in format.
func (c *Conn) Query(query, format string) (*Result, error) {
	return c.QueryParams(query, format, nil)
}

// QueryParams runs one statement whose {name:Type} placeholders the engine
// binds from params: values are never pasted into SQL.
func (c *Conn) QueryParams(query, format string, params map[string]string) (*Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == 0 {
		return nil, errClosed
	}
	res, err := c.lib.take(c.call(query, format, params, c.lib.queryN, c.lib.queryParamsN))
	if err != nil {
		// libchdb hands the output a statement made before it failed to the
		// connection's next statement, ahead of that one's own: a
		// throwaway statement takes it.
		c.lib.destroyResult(c.call("SELECT 1", "TSV", nil, c.lib.queryN, c.lib.queryParamsN))
	}
	return res, err
}

type (
	queryFunc       func(conn uintptr, q *byte, qn uintptr, f *byte, fn uintptr) uintptr
	queryParamsFunc func(conn uintptr, q *byte, qn uintptr, f *byte, fn uintptr, names **byte, nameLens *uintptr, values **byte, valueLens *uintptr, n uintptr) uintptr
)

// call starts a statement through one of the engine's pairs of entry
// points: plain, or binding params.
func (c *Conn) call(query, format string, params map[string]string, plain queryFunc, withParams queryParamsFunc) uintptr {
	q, f := cbytes(query), cbytes(format)
	defer runtime.KeepAlive(f)
	defer runtime.KeepAlive(q)
	if len(params) == 0 {
		return plain(c.conn, q, uintptr(len(query)), f, uintptr(len(format)))
	}
	names, nameLens, values, valueLens, keep := paramArrays(params)
	defer runtime.KeepAlive(keep)
	return withParams(c.conn, q, uintptr(len(query)), f, uintptr(len(format)),
		&names[0], &nameLens[0], &values[0], &valueLens[0], uintptr(len(names)))
}

// Stream runs one statement whose output is read block by block rather
// than whole: a large result never sits in memory at once. The connection
// runs nothing else until Close.
type Stream struct {
	c *Conn
	h uintptr // chdb_result* of the stream
	// Totals over the chunks read so far.
	Stats Result
	done  bool
}

// QueryStream starts query; params bind its {name:Type} placeholders.
func (c *Conn) QueryStream(query, format string, params map[string]string) (*Stream, error) {
	c.mu.Lock()
	if c.conn == 0 {
		c.mu.Unlock()
		return nil, errClosed
	}
	h := c.call(query, format, params, c.lib.streamQueryN, c.lib.streamQueryParamsN)
	if h == 0 {
		c.mu.Unlock()
		return nil, errors.New("chdb: no result")
	}
	if e := c.lib.resultError(h); e != nil {
		err := newError(goString(e))
		c.lib.destroyResult(h)
		c.mu.Unlock()
		return nil, err
	}
	return &Stream{c: c, h: h}, nil
}

// Next reads the next chunk of output and hands it to use, which must not
// keep it: it is the engine's memory. It reports false at the end.
func (s *Stream) Next(use func([]byte) error) (bool, error) {
	if s.done {
		return false, nil
	}
	l := s.c.lib
	r := l.streamFetch(s.c.conn, s.h)
	if r == 0 {
		return false, errors.New("chdb: no result")
	}
	defer l.destroyResult(r)
	if e := l.resultError(r); e != nil {
		s.done = true
		return false, newError(goString(e))
	}
	s.Stats.Elapsed += l.resultElapsed(r)
	s.Stats.RowsRead += l.resultRowsRead(r)
	s.Stats.BytesRead += l.resultBytesRead(r)
	n := l.resultLength(r)
	if n == 0 {
		s.done = true
		return false, nil
	}
	return true, use(unsafe.Slice(l.resultBuffer(r), n)) //nolint:gosec // the engine's result buffer, n bytes long, read before it is freed
}

// Close ends the statement, cancelling it when its output was not read
// to the end, and frees the connection.
func (s *Stream) Close() {
	if s.c == nil {
		return
	}
	if !s.done {
		s.c.lib.streamCancel(s.c.conn, s.h)
	}
	s.c.lib.destroyResult(s.h)
	s.c.mu.Unlock()
	s.c = nil
}

// Insert streams data in format into an INSERT statement given without its
// FORMAT clause ("INSERT INTO t (a, b)"): write is called with a function
// that appends one chunk. The data never passes through SQL text.
func (c *Conn) Insert(query, format string, write func(appendChunk func([]byte) error) error) (*Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == 0 {
		return nil, errClosed
	}
	q, f := cbytes(query), cbytes(format)
	s := c.lib.streamInsertN(c.conn, q, uintptr(len(query)), f, uintptr(len(format)))
	runtime.KeepAlive(q)
	runtime.KeepAlive(f)
	defer c.lib.destroyStream(s)
	if e := c.lib.streamError(s); e != nil {
		return nil, newError(goString(e))
	}
	err := write(func(chunk []byte) error {
		if len(chunk) == 0 {
			return nil
		}
		if c.lib.streamAppend(s, &chunk[0], uintptr(len(chunk))) != 0 {
			msg := "insert stream failed"
			if e := c.lib.streamError(s); e != nil {
				msg = goString(e)
			}
			return newError(msg)
		}
		return nil
	})
	if err != nil {
		return nil, err // destroyStream cancels an unfinished stream
	}
	return c.lib.take(c.lib.streamDone(s))
}

// take copies a result into Go memory and frees it.
func (l *Lib) take(r uintptr) (*Result, error) {
	if r == 0 {
		return nil, errors.New("chdb: no result")
	}
	defer l.destroyResult(r)
	if e := l.resultError(r); e != nil {
		return nil, newError(goString(e))
	}
	res := &Result{
		Elapsed: l.resultElapsed(r), RowsRead: l.resultRowsRead(r), BytesRead: l.resultBytesRead(r),
		RowsWritten: l.resultRowsWritten(r), BytesWritten: l.resultBytesWrote(r),
	}
	if n := l.resultLength(r); n > 0 {
		res.Data = append([]byte(nil), unsafe.Slice(l.resultBuffer(r), n)...) //nolint:gosec // copied out of the engine's n-byte buffer before it is freed
	}
	return res, nil
}

func paramArrays(params map[string]string) (names []*byte, nameLens []uintptr, values []*byte, valueLens []uintptr, keep [][]byte) {
	for k, v := range params {
		kb, vb := append([]byte(k), 0), append([]byte(v), 0)
		keep = append(keep, kb, vb)
		names = append(names, &kb[0])
		nameLens = append(nameLens, uintptr(len(k)))
		values = append(values, &vb[0])
		valueLens = append(valueLens, uintptr(len(v)))
	}
	return
}

// cbytes is s NUL-terminated, kept alive by the caller.
func cbytes(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 { //nolint:gosec // a C string from the engine, read up to its NUL
		n++
	}
	return string(unsafe.Slice(p, n)) //nolint:gosec // copied: the n bytes before the NUL
}

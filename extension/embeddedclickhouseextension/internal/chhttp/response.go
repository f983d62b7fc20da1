package chhttp

// Writing a result: whole or streamed, in the client's format and framing,
// with the engine's summary headers; an error after the first byte is
// reported in the body, as ClickHouse does.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/ch-go/compress"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// response writes a statement's output as ClickHouse does: the result's
// headers, then its bytes, reframed for the client's Native revision,
// in ClickHouse's compressed frames (compress=1) or a Content-Encoding.
type response struct {
	w        http.ResponseWriter
	r        *http.Request
	q        url.Values
	format   string
	timezone string
	// started: headers are out, an error can only go into the body.
	started bool
	out     io.Writer
	// closer ends the Content-Encoding's stream, when there is one.
	closer io.Closer
	tag    string
	// sendTimeout bounds how long one write may wait for the client
	// (http_send_timeout): a client that reads nothing for this long
	// loses its statement, which would otherwise hold an engine session
	// while it stalls.
	sendTimeout time.Duration
}

// start sends the headers and sets up the body's encoders.
func (rw *response) start(res *chdb.Result, resultBytes int, streamed bool) {
	summary, _ := json.Marshal(map[string]string{
		"read_rows": strconv.FormatUint(res.RowsRead, 10), "read_bytes": strconv.FormatUint(res.BytesRead, 10),
		"written_rows": strconv.FormatUint(res.RowsWritten, 10), "written_bytes": strconv.FormatUint(res.BytesWritten, 10),
		"total_rows_to_read": "0", "result_rows": strconv.FormatUint(res.RowsRead, 10), "result_bytes": strconv.Itoa(resultBytes),
		"elapsed_ns": strconv.FormatInt(int64(res.Elapsed*1e9), 10),
	})
	h := rw.w.Header()
	h.Set("X-ClickHouse-Summary", string(summary))
	h.Set("X-ClickHouse-Format", rw.format)
	h.Set("X-ClickHouse-Timezone", rw.timezone)
	h.Set("X-ClickHouse-Server-Display-Name", "otelhouse-embedded")
	if id := rw.q.Get("query_id"); id != "" {
		h.Set("X-ClickHouse-Query-Id", id)
	}
	if streamed {
		// An error after the headers can only be told in the body: the
		// tag marks it there, as ClickHouse 25.11 does, for clients.
		rw.tag = randomTag() // 16 characters, as ClickHouse's
		h.Set("X-ClickHouse-Exception-Tag", rw.tag)
	}
	rw.out = clientWriter{w: rw.w, rc: http.NewResponseController(rw.w), timeout: rw.sendTimeout}
	if rw.q.Get("enable_http_compression") == "1" {
		accept := rw.r.Header.Get("Accept-Encoding")
		switch {
		case strings.Contains(accept, "zstd"):
			h.Set("Content-Encoding", "zstd")
			zw, _ := zstd.NewWriter(rw.out)
			rw.out, rw.closer = zw, zw
		case strings.Contains(accept, "gzip"):
			h.Set("Content-Encoding", "gzip")
			gw := gzip.NewWriter(rw.out)
			rw.out, rw.closer = gw, gw
		}
	}
	if rw.q.Get("compress") == "1" {
		// The client asked for ClickHouse's own compressed frames.
		rw.out = &framer{w: rw.out}
	}
	rw.started = true
}

// reframe rewrites whole Native blocks for the client's revision.
func (rw *response) reframe(b []byte) ([]byte, error) {
	if !strings.EqualFold(rw.format, "Native") {
		return b, nil
	}
	v, _ := strconv.Atoi(rw.q.Get("client_protocol_version"))
	return reframeNative(b, v)
}

func (rw *response) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := rw.out.Write(b)
	return err
}

func (rw *response) finish() {
	if rw.closer != nil {
		_ = rw.closer.Close()
	}
}

// whole answers with a result read at once.
func (rw *response) whole(res *chdb.Result) {
	out, err := rw.reframe(res.Data)
	if err != nil {
		httpError(rw.w, http.StatusInternalServerError, 0, err.Error())
		return
	}
	rw.start(res, len(res.Data), false)
	if rw.write(out) == nil {
		rw.finish()
	}
}

// stream answers with the statement's output as the engine produces it.
// An error before the first output is the caller's to answer; after it,
// the exception goes into the body between tagged markers and the
// response is cut short, so no client takes it for a whole result.
func (rw *response) stream(c *chdb.Conn, sql string, params map[string]string) error {
	st, err := c.QueryStream(sql, rw.format, params)
	if err != nil {
		return err
	}
	defer st.Close()
	for {
		more, err := st.Next(func(b []byte) error {
			out, err := rw.reframe(b)
			if err != nil {
				return err
			}
			if !rw.started {
				rw.start(&st.Stats, len(b), true)
			}
			return rw.write(out)
		})
		switch {
		case err != nil && !rw.started:
			return err
		case errors.Is(err, errWrite):
			return err // the client went away; Close cancels the statement
		case err != nil:
			rw.exception(err)
			panic(http.ErrAbortHandler)
		case !more:
			if !rw.started {
				rw.start(&st.Stats, 0, true)
			}
			rw.finish()
			return nil
		}
	}
}

// errWrite marks a failed write to the client, which no answer can reach.
var errWrite = errors.New("writing the response")

// clientWriter writes to the client, each write within the send timeout.
type clientWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	timeout time.Duration
}

func (c clientWriter) Write(b []byte) (int, error) {
	_ = c.rc.SetWriteDeadline(time.Now().Add(c.timeout))
	n, err := c.w.Write(b)
	if err != nil {
		err = fmt.Errorf("%w: %w", errWrite, err)
	}
	return n, err
}

// framer puts each write into one ClickHouse compressed (LZ4) frame.
type framer struct {
	w  io.Writer
	cw *compress.Writer
}

func (f *framer) Write(b []byte) (int, error) {
	if f.cw == nil {
		f.cw = compress.NewWriter(compress.LevelZero, compress.LZ4)
	}
	if err := f.cw.Compress(b); err != nil {
		return 0, err
	}
	if _, err := f.w.Write(f.cw.Data); err != nil {
		return 0, err
	}
	return len(b), nil
}

// exception writes an error into a body already under way.
func (rw *response) exception(err error) {
	code := 0
	var e *chdb.Error
	if errors.As(err, &e) {
		code = e.Code
	}
	msg := exceptionText(code, err.Error())
	_, _ = fmt.Fprintf(rw.out, "\r\n__exception__\r\n%s\r\n%s%d %s\r\n__exception__\r\n", rw.tag, msg, len(msg), rw.tag)
	rw.finish()
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// newResponse writes req's result to w: in the request's format, in the
// session's time zone unless the request sets one, each write within
// send.
func newResponse(w http.ResponseWriter, r *http.Request, req *request, timezone string, send time.Duration) *response {
	rw := &response{w: w, r: r, q: req.q, format: req.format, timezone: timezone, sendTimeout: send}
	for _, kv := range req.settings {
		if kv[0] == "session_timezone" && kv[1] != "" {
			rw.timezone = kv[1]
		}
	}
	return rw
}

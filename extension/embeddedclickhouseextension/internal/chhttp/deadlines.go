package chhttp

// Deadlines on the client's connection: per read and per write, never
// over a statement's run time.
//
// net/http's Server.ReadTimeout and WriteTimeout (confighttp's
// read_timeout and write_timeout, the latter 30 s by default) count from
// the start of a request. A statement that ran longer than write_timeout
// answered into a connection whose deadline had passed: the write failed,
// net/http closed the connection under the request, and the client read
// an empty reply (clickhouse-go: "driver: bad connection", after which
// database/sql ran the statement twice more). A read_timeout shorter than
// a statement was worse: net/http's watch for a disconnected client reads
// the connection after the body, that read timed out, the request's
// context was cancelled, and the statement killed as if its client had
// gone. ClickHouse bounds each send and each receive instead
// (http_send_timeout, http_receive_timeout, 30 s each): a client that
// stalls loses its statement, a statement that runs for an hour keeps it.

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ClickHouse's defaults for http_send_timeout and http_receive_timeout.
const (
	defaultSendTimeout    = 30 * time.Second
	defaultReceiveTimeout = 30 * time.Second
)

// timeouts bound one send to and one receive from a client.
type timeouts struct{ send, receive time.Duration }

// with is t overridden by the http_send_timeout and http_receive_timeout
// of settings (seconds, as ClickHouse takes them); others are ignored.
func (t timeouts) with(settings map[string]string) timeouts {
	if d, ok := seconds(settings["http_send_timeout"]); ok {
		t.send = d
	}
	if d, ok := seconds(settings["http_receive_timeout"]); ok {
		t.receive = d
	}
	return t
}

// requestTimeouts are t as a request's URL parameters set them.
func (t timeouts) request(q url.Values) timeouts {
	return t.with(map[string]string{"http_send_timeout": q.Get("http_send_timeout"), "http_receive_timeout": q.Get("http_receive_timeout")})
}

func seconds(v string) (time.Duration, bool) {
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || secs <= 0 || secs > 1e6 {
		return 0, false
	}
	return time.Duration(secs * float64(time.Second)), true
}

// liftServerDeadlines takes the connection's read and write deadlines
// away from net/http's whole-request timeouts; from here on each read of
// the body and each write of the answer sets its own.
func liftServerDeadlines(rc *http.ResponseController) {
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// receivingBody reads a request body with a deadline per read. Once the
// body has ended it lifts the deadline: net/http then reads the
// connection to learn whether the client goes away, and that read must
// wait as long as the statement runs.
type receivingBody struct {
	r       io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
}

func (b *receivingBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	n, err := b.r.Read(p)
	if err != nil {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

func (b *receivingBody) Close() error { return b.r.Close() }

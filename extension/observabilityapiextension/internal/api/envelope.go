// Package api serves the management REST API in its forms, which share
// one implementation: self-hosted (/api/v2/…, Bearer personal key, bodies
// {"data": …} and {"message": …}, as HyperDX), and the two managed forms
// of ClickHouse Cloud, /v1/organizations/{org}/services/{svc}/observability/…
// and its successor …/clickstack/…, both with Basic key id:secret and
// bodies {status, requestId, result} and {status, error, requestId}.
package api

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

type form int

const (
	selfHosted form = iota
	// managed is …/observability/…, the managed specification the API was
	// first written to.
	managed
	// clickstack is …/clickstack/…, where ClickHouse Cloud's API serves
	// the same resources today.
	clickstack
)

// cloud reports a form of ClickHouse Cloud's API: an organization and
// service in the path, Basic key id:secret, the {status, requestId,
// result} envelope.
func (f form) cloud() bool { return f == managed || f == clickstack }

// created is the status of a create: HyperDX and ClickHouse Cloud answer
// 200, the /observability/ specification 201.
func (f form) created() int {
	if f == managed {
		return http.StatusCreated
	}
	return http.StatusOK
}

// page is a list's default and largest page: ClickHouse Cloud's
// /clickstack/ pages as HyperDX does.
func (f form) page() (def, most int) {
	if f == managed {
		return 50, 500
	}
	return 1000, 1000
}

// requestID names a request in a cloud form's envelope; ClickHouse Cloud
// answers a UUID in /clickstack/.
func requestID(f form) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	if f != clickstack {
		return hex.EncodeToString(b[:8])
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// reply writes a success in the form's envelope; list extras (total,
// limit, offset) sit beside the data.
func reply(w http.ResponseWriter, f form, status int, data any, extra map[string]any) {
	writeJSON(w, status, envelope(f, status, data, extra))
}

func envelope(f form, status int, data any, extra map[string]any) map[string]any {
	var body map[string]any
	if f.cloud() {
		body = map[string]any{"status": status, "requestId": requestID(f), "result": data}
	} else {
		body = map[string]any{"data": data}
	}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

// listWriter streams a list answer an item at a time, so that a page of
// large documents is never whole in memory; the bytes are those reply
// would write.
type listWriter struct {
	w    http.ResponseWriter
	bw   *bufio.Writer // set once the answer has begun
	head []byte
	tail []byte
	n    int
}

// listSlot marks where the items go in the envelope; no other value of an
// envelope (numbers, hex ids) can contain it.
var listSlot = []byte(`["list slot"]`)

func newListWriter(w http.ResponseWriter, f form, extra map[string]any) *listWriter {
	b, _ := json.Marshal(envelope(f, http.StatusOK, json.RawMessage(listSlot), extra))
	i := bytes.Index(b, listSlot)
	return &listWriter{w: w, head: append(b[:i:i], '['), tail: append([]byte("]"), append(b[i+len(listSlot):], '\n')...)}
}

// add writes an item, answering 200 with the first.
func (l *listWriter) add(item any) error {
	b, err := json.Marshal(item)
	if err != nil {
		return err
	}
	l.begin()
	if l.n > 0 {
		_ = l.bw.WriteByte(',')
	}
	l.n++
	_, err = l.bw.Write(b)
	return err
}

func (l *listWriter) begun() bool { return l.bw != nil }

func (l *listWriter) begin() {
	if l.begun() {
		return
	}
	l.w.Header().Set("Content-Type", "application/json")
	l.w.WriteHeader(http.StatusOK)
	l.bw = bufio.NewWriterSize(l.w, 64<<10)
	_, _ = l.bw.Write(l.head)
}

// end closes the list and the envelope.
func (l *listWriter) end() {
	l.begin()
	_, _ = l.bw.Write(l.tail)
	_ = l.bw.Flush()
}

// writeFail writes an error in the form's envelope; endpoints return one
// (fail) instead, and only the guard, before an endpoint runs, writes it.
func writeFail(w http.ResponseWriter, f form, status int, msg string) {
	if f.cloud() {
		writeJSON(w, status, map[string]any{"status": status, "error": msg, "requestId": requestID(f)})
		return
	}
	writeJSON(w, status, map[string]any{"message": msg})
}

// endpoint answers one request of either form; answer writes what it
// returns, so the envelope, the status of an error and the log of an
// internal one live in one place.
type endpoint func(r *http.Request) result

// result is an endpoint's answer: data (with extras beside it in the
// envelope) or an error, or a stream that writes itself.
type result struct {
	status int            // 0: 200
	data   any            // the envelope's data (result, managed)
	extra  map[string]any // beside it: total, limit, offset, nextCursor…
	raw    bool           // data is the whole body (GET /api/v2, as HyperDX answers it)
	err    error
	kind   string // what a store error is about ("dashboard not found")
	// stream writes a list a part at a time; it has begun the answer
	// once it returns, whatever happened.
	stream func(w http.ResponseWriter, f form)
}

// ok answers data with status (and extras, for lists).
func ok(status int, data any, extra map[string]any) result {
	return result{status: status, data: data, extra: extra}
}

// apiError is an error answered with its own status and message, and a
// Retry-After (seconds) when it may pass.
type apiError struct {
	status     int
	msg        string
	retryAfter int
}

func (e *apiError) Error() string { return e.msg }

// fail answers status with msg.
func fail(status int, msg string) result { return result{err: &apiError{status: status, msg: msg}} }

// failed answers err: a store's not-found about kind is 404, a
// validationError 400, an apiError its own status, errGone nothing (the
// client left), anything else 500, logged.
func failed(kind string, err error) result { return result{err: err, kind: kind} }

// errGone: the client went away and its query was cancelled; nobody is
// left to answer.
var errGone = errors.New("client went away")

// answer writes an endpoint's result in the form's envelope. An error
// that no case below classifies is the server's, unless the client left
// first: then it is the cancelled query's error, with nobody to answer.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, f form, res result) {
	var ae *apiError
	var ve validationError
	switch {
	case res.stream != nil:
		res.stream(w, f)
	case res.err == nil && res.raw:
		writeJSON(w, cmp.Or(res.status, http.StatusOK), res.data)
	case res.err == nil:
		status := cmp.Or(res.status, http.StatusOK)
		if status == http.StatusCreated {
			status = f.created()
		}
		reply(w, f, status, res.data, res.extra)
	case errors.Is(res.err, errGone):
	case errors.As(res.err, &ae):
		if ae.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(ae.retryAfter))
		}
		writeFail(w, f, ae.status, ae.msg)
	case errors.Is(res.err, store.ErrNotFound):
		writeFail(w, f, http.StatusNotFound, kindTitle(res.kind)+" not found")
	case errors.As(res.err, &ve):
		writeFail(w, f, http.StatusBadRequest, "invalid "+strings.ReplaceAll(res.kind, "_", " ")+": "+ve.Error())
	case r.Context().Err() != nil:
		s.opts.Logger.Debug("observability API request ended by its client", zap.Error(res.err))
	default:
		s.opts.Logger.Error("observability API request failed", zap.Error(res.err))
		writeFail(w, f, http.StatusInternalServerError, "internal error")
	}
}

// kindTitle names a kind as HyperDX's messages do ("Alert not found",
// "Saved search not found").
func kindTitle(kind string) string {
	if kind == "" {
		return "Resource"
	}
	t := strings.ReplaceAll(kind, "_", " ")
	return strings.ToUpper(t[:1]) + t[1:]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

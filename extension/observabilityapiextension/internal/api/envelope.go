// Package api serves the management REST API in its two forms, which share
// one implementation: self-hosted (/api/v2/…, Bearer personal key, bodies
// {"data": …} and {"message": …}) and managed
// (/v1/organizations/{org}/services/{svc}/observability/…, Basic key
// id:secret, bodies {status, requestId, result} and {status, error,
// requestId}).
package api

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
)

type form int

const (
	selfHosted form = iota
	managed
)

func requestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// reply writes a success in the form's envelope; list extras (total,
// limit, offset) sit beside the data.
func reply(w http.ResponseWriter, f form, status int, data any, extra map[string]any) {
	writeJSON(w, status, envelope(f, status, data, extra))
}

func envelope(f form, status int, data any, extra map[string]any) map[string]any {
	var body map[string]any
	if f == managed {
		body = map[string]any{"status": status, "requestId": requestID(), "result": data}
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

// fail writes an error in the form's envelope.
func fail(w http.ResponseWriter, f form, status int, msg string) {
	if f == managed {
		writeJSON(w, status, map[string]any{"status": status, "error": msg, "requestId": requestID()})
		return
	}
	writeJSON(w, status, map[string]any{"message": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

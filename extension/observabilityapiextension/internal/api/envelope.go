// Package api serves the management REST API in its two forms, which share
// one implementation: self-hosted (/api/v2/…, Bearer personal key, bodies
// {"data": …} and {"message": …}) and managed
// (/v1/organizations/{org}/services/{svc}/observability/…, Basic key
// id:secret, bodies {status, requestId, result} and {status, error,
// requestId}).
package api

import (
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
	var body map[string]any
	if f == managed {
		body = map[string]any{"status": status, "requestId": requestID(), "result": data}
	} else {
		body = map[string]any{"data": data}
	}
	for k, v := range extra {
		body[k] = v
	}
	writeJSON(w, status, body)
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

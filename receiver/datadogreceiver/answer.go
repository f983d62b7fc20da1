package datadogreceiver

// How the receiver answers: the JSON bodies of accepted requests, and
// refusals as one logged line with a status agents understand.

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// refuseDecoded answers a body that could not be translated: 413 for one
// that would take more than max_decoded_size, else 400.
func (r *datadogReceiver) refuseDecoded(w http.ResponseWriter, req *http.Request, err error) {
	status := http.StatusBadRequest
	if isOverBudget(err) {
		status = http.StatusRequestEntityTooLarge
	}
	r.refuse(w, req, status, err.Error())
}

func isOverBudget(err error) bool {
	var over *budget.ExceededError
	return errors.As(err, &over)
}

// consumeError maps a pipeline refusal to what agents understand: a
// permanent error is the payload's fault (400, not retried); anything else
// may pass, so 503 with Retry-After makes the agent keep the payload and retry.
func (r *datadogReceiver) consumeError(w http.ResponseWriter, req *http.Request, err error) {
	if consumererror.IsPermanent(err) {
		r.refuse(w, req, http.StatusBadRequest, "pipeline refused the payload: "+err.Error())
		return
	}
	r.retryLater(w, req, http.StatusServiceUnavailable, "pipeline busy, retry later: "+err.Error())
}

// retryLater refuses a request the sender should send again, after the
// configured Retry-After.
func (r *datadogReceiver) retryLater(w http.ResponseWriter, req *http.Request, status int, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(r.cfg.RetryAfterSeconds))
	r.refuse(w, req, status, msg)
}

// maxReason bounds a refusal's text: decoder errors may quote the payload.
const maxReason = 512

// refuse answers an error with a one-line reason and logs it once.
func (r *datadogReceiver) refuse(w http.ResponseWriter, req *http.Request, status int, msg string) {
	msg = oneLine(msg)
	r.set.Logger.Warn("datadog receiver refused a request",
		zap.String("path", req.URL.Path), zap.Int("status", status), zap.String("reason", msg),
		zap.String("remote", remoteHost(req)), zap.String("user_agent", req.UserAgent()))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n") //nolint:gosec // text/plain with nosniff: read by agents, never rendered
}

// oneLine flattens and bounds a reason so it is one log line and one
// response line.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
	if len(s) > maxReason {
		s = strings.ToValidUTF8(s[:maxReason], "") + "…"
	}
	return s
}

func remoteHost(req *http.Request) string {
	h, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return h
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

package chhttp

// Errors in ClickHouse's own form: X-ClickHouse-Exception-Code and a
// "Code: N. DB::Exception: …" body.

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// writeEngineError answers as ClickHouse does: the exception text, its
// code in X-ClickHouse-Exception-Code, and a status derived from the code.
func writeEngineError(w http.ResponseWriter, err error) {
	var e *chdb.Error
	if !errors.As(err, &e) {
		httpError(w, http.StatusInternalServerError, 0, err.Error())
		return
	}
	status := http.StatusInternalServerError
	switch e.Code {
	case 60, 81, 16, 47: // unknown table, database, column, identifier
		status = http.StatusNotFound
	case 62, 27, 26, 33, 41, 53, 117, 115, 6, 69, 130: // syntax, parse and bad-argument errors
		status = http.StatusBadRequest
	case 516:
		status = http.StatusUnauthorized
	case 497, 164: // access denied, read-only
		status = http.StatusForbidden
	}
	httpError(w, status, e.Code, e.Message)
}

func httpError(w http.ResponseWriter, status, code int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=UTF-8")
	if code != 0 {
		h.Set("X-ClickHouse-Exception-Code", strconv.Itoa(code))
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, exceptionText(code, msg)) //nolint:gosec // text/plain, as ClickHouse answers; clients read it, browsers do not render it
}

// exceptionText is an error as ClickHouse writes it: "Code: N.
// DB::Exception: …", one trailing newline.
func exceptionText(code int, msg string) string {
	if code != 0 && !strings.HasPrefix(msg, "Code:") {
		msg = fmt.Sprintf("Code: %d. DB::Exception: %s", code, msg)
	}
	return strings.TrimRight(msg, "\n") + "\n"
}

// writeRequestError answers a request that cannot run: with its own status
// and code, or 503 for a session that could not be had.
func writeRequestError(w http.ResponseWriter, err error) {
	var re *requestError
	if errors.As(err, &re) {
		httpError(w, re.status, re.code, re.msg)
		return
	}
	httpError(w, http.StatusServiceUnavailable, 0, err.Error())
}

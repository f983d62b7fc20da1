package query

import (
	"errors"
	"net/http"
)

// Refusal is how a chart or search query the engine did not run is
// answered over HTTP, the same by the REST API and the web UI.
type Refusal struct {
	Status int
	// Message says what to do; it carries the engine's text only for the
	// caller's own mistakes.
	Message string
	// RetryAfter is seconds to wait before trying again (0: retrying as is
	// will not help).
	RetryAfter int
}

// engineMemoryRetry is the wait for a query refused while the engine was
// at its memory limit: merges and inserts free it in seconds.
const engineMemoryRetry = 5

// Refuse classifies err: the caller's query mistake (400), a query
// needing more memory than one may take (422, theirs to narrow), the
// engine at its memory limit (503, to retry), a timeout (504). ok is false
// for anything else: a server fault, or a cancelled request.
func Refuse(err error) (r Refusal, ok bool) {
	var qe Error
	switch {
	case errors.As(err, &qe):
		return Refusal{Status: http.StatusBadRequest, Message: err.Error()}, true
	case errors.Is(err, ErrTimeout):
		return Refusal{Status: http.StatusGatewayTimeout, Message: "the query exceeded query_timeout; narrow the time range or the filter"}, true
	case errors.Is(err, ErrQueryMemory):
		return Refusal{Status: http.StatusUnprocessableEntity, Message: ErrQueryMemory.Error()}, true
	case errors.Is(err, ErrEngineMemory):
		return Refusal{Status: http.StatusServiceUnavailable, Message: ErrEngineMemory.Error(), RetryAfter: engineMemoryRetry}, true
	}
	return Refusal{}, false
}

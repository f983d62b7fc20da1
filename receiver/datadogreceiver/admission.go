package datadogreceiver

import (
	"fmt"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/runtime/admission"
)

// admit bounds the requests with a body in progress at once
// (max_concurrent_requests): each may hold a decompressed body and its
// translation, so their number, not only their size, bounds the memory. It
// wraps confighttp's handlers, so a waiting request has no decompressor and
// no body in memory yet. One that waits max_request_wait is answered 429
// with Retry-After, which Agents retry.
func (r *datadogReceiver) admit(next http.Handler) http.Handler {
	room := admission.New(int64(r.cfg.MaxConcurrentRequests), r.cfg.MaxRequestWait)
	if room == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost && req.Method != http.MethodPut {
			next.ServeHTTP(w, req)
			return
		}
		taken, err := room.Enter(req.Context(), 1, 0)
		if err != nil {
			if req.Context().Err() != nil {
				return // the sender gave up: nobody to answer
			}
			_, pattern := r.mux.Handler(req) // not routed yet
			r.telemetry.ReceiverDatadogThrottledRequests.Add(req.Context(), 1, byPath(pattern))
			r.retryLater(w, req, http.StatusTooManyRequests, fmt.Sprintf(
				"%d requests in progress for %s (max_concurrent_requests, max_request_wait), retry later",
				r.cfg.MaxConcurrentRequests, r.cfg.MaxRequestWait))
			return
		}
		defer room.Leave(taken)
		next.ServeHTTP(w, req)
	})
}

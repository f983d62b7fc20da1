package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// webhookTest is POST /api/v2/webhooks/{id}/test: a sample notification
// delivered once, as an alert's would go, and what the receiver answered
// and how long it took. A receiver that refuses or cannot be reached is
// an answer too (delivered false, with why), not the API's failure.
func (s *Server) webhookTest(r *http.Request) result {
	if s.opts.SendTest == nil {
		return fail(http.StatusNotImplemented, "test deliveries are not available on this server")
	}
	start := time.Now()
	res := s.opts.SendTest(r.Context(), teamOf(r.Context()), r.PathValue("id"))
	took := time.Since(start)
	if errors.Is(res.Err, store.ErrNotFound) {
		return failed(kindWebhook, res.Err)
	}
	out := map[string]any{
		"delivered": res.Err == nil, "status": res.Status, "attempts": res.Attempts,
		"durationMs": took.Milliseconds(),
	}
	if res.Err != nil {
		out["error"] = res.Err.Error()
	}
	return ok(http.StatusOK, out, nil)
}

package api

import (
	"context"
	"net/http"
	"time"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// Alert states, as the scheduler sets them.
const (
	StateOK     = alerting.StateOK
	StateAlert  = alerting.StateAlert
	StateNoData = alerting.StateNoData
)

// Notification is what a webhook receives (alerting.Notification).
type Notification = alerting.Notification

// EvaluateDue runs the alert scheduler once (the extension calls it every
// check interval; tests call it with the time they need).
func (s *Server) EvaluateDue(ctx context.Context, now time.Time, sender *webhook.Sender) error {
	return s.scheduler.EvaluateDue(ctx, now, sender)
}

func (s *Server) queryTimeout() time.Duration {
	if s.opts.QueryTimeout > 0 {
		return s.opts.QueryTimeout
	}
	return time.Minute
}

// historyHandler answers GET /api/v2/alerts/{id}/history: evaluations and
// delivery outcomes, newest first.
func (s *Server) historyHandler(r *http.Request) result {
	ctx, team, id := r.Context(), teamOf(r.Context()), r.PathValue("id")
	if _, err := s.opts.Store.Get(ctx, team, kindAlert, id); err != nil {
		return failed(kindAlert, err)
	}
	limit, offset, err := paging(r, 50, 500)
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	evs, err := s.opts.Store.History(ctx, team, id, limit, offset)
	if err != nil {
		return failed(kindAlert, err)
	}
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		out = append(out, map[string]any{"windowStart": e.WindowStart.UnixMilli(), "windowEnd": e.WindowEnd.UnixMilli(),
			"state": e.State, "previousState": e.PreviousState, "value": e.Value, "group": e.Group, "notified": e.Notified,
			"deliveryAttempts": e.DeliveryAttempts, "deliveryError": e.DeliveryError, "idempotencyKey": e.IdempotencyKey,
			"evaluatedAt": e.EvaluatedAt.UnixMilli()})
	}
	return ok(http.StatusOK, out, map[string]any{"limit": limit, "offset": offset})
}

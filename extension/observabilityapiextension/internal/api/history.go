package api

import "net/http"

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
		out = append(out, map[string]any{
			"windowStart": e.WindowStart.UnixMilli(), "windowEnd": e.WindowEnd.UnixMilli(),
			"state": e.State, "previousState": e.PreviousState, "value": e.Value, "group": e.Group, "notified": e.Notified,
			"deliveryAttempts": e.DeliveryAttempts, "deliveryError": e.DeliveryError, "idempotencyKey": e.IdempotencyKey,
			"evaluatedAt": e.EvaluatedAt.UnixMilli(),
		})
	}
	return ok(http.StatusOK, out, map[string]any{"limit": limit, "offset": offset})
}

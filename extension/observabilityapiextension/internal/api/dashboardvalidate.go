package api

import (
	"net/http"
	"time"
)

// validateDashboard is POST /api/v2/dashboards/validate: the body is
// checked by every rule a create applies (its sources, its onClick
// targets, its containers) and never stored, so a client (a Terraform
// plan) learns whether the create would pass. It answers 200 with the
// dashboard as a create would store it, or the create's 400.
func (s *Server) validateDashboard(r *http.Request) result {
	body, err := readJSON(r, maxBodyOf(kindDashboard))
	if err != nil {
		return failed(kindDashboard, err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc, err := s.decodeValidate(r.Context(), kindDashboard, body, stamp{id: newID(), created: now, updated: now})
	if err != nil {
		return failed(kindDashboard, err)
	}
	return ok(http.StatusOK, doc.value, nil)
}

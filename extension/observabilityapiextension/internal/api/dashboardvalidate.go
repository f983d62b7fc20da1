package api

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// validateDashboard is POST /dashboards/validate in the ClickStack form:
// the body is checked by every rule a create applies (its sources, its
// onClick targets, its containers) and never stored, so a client (a
// Terraform plan) learns whether the create would pass. It answers 200
// with the dashboard as a create would store it, or the create's 400.
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

// validation is HyperDX's answer to POST /api/v2/dashboards/validate:
// whether a create would take the body, its problems, and the dashboard
// a create would store (defaults filled) when it would.
type validation struct {
	Valid      bool              `json:"valid"`
	Errors     []validationIssue `json:"errors"`
	Normalized any               `json:"normalized,omitempty"`
}

type validationIssue struct {
	Message string `json:"message"`
}

// validateDashboardV2 is POST /api/v2/dashboards/validate, as HyperDX
// answers it: the same checks, and a body a create would refuse (400) is
// answered 200 {valid: false, errors}; what is not the body's fault (the
// size, the content type, a store that fails) is answered as any
// request's.
func (s *Server) validateDashboardV2(r *http.Request) result {
	body, err := readJSON(r, maxBodyOf(kindDashboard))
	if err != nil {
		return failed(kindDashboard, err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc, err := s.decodeValidate(r.Context(), kindDashboard, body, stamp{id: newID(), created: now, updated: now})
	var ae *apiError
	var ve validationError
	switch {
	case err == nil:
		return result{raw: true, data: validation{Valid: true, Errors: []validationIssue{}, Normalized: doc.value}}
	case errors.As(err, &ve), errors.As(err, &ae) && ae.status == http.StatusBadRequest:
		v := validation{Errors: []validationIssue{}}
		for _, m := range strings.Split(err.Error(), "; ") {
			v.Errors = append(v.Errors, validationIssue{Message: m})
		}
		return result{raw: true, data: v}
	}
	return failed(kindDashboard, err)
}

package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// maxMute is the longest an alert may be muted: longer is forgetting it,
// which deleting says better.
const maxMute = 30 * 24 * time.Hour

// silenceAlert is POST /api/v2/alerts/{id}/silenced {"mutedUntil": …},
// HyperDX's mute: the alert is still evaluated and its history kept, but
// no notification goes until then.
func (s *Server) silenceAlert(r *http.Request) result {
	body, err := readJSON(r, maxSmallBody)
	if err != nil {
		return failed(kindAlert, err)
	}
	var in struct {
		MutedUntil json.RawMessage `json:"mutedUntil"`
	}
	if err := decodeStrict(body, &in); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	until, err := instant(in.MutedUntil, "mutedUntil")
	now := time.Now().UTC().Truncate(time.Millisecond)
	switch {
	case err != nil:
		return fail(http.StatusBadRequest, "invalid mute: "+err.Error())
	case !until.After(now):
		return fail(http.StatusBadRequest, "invalid mute: mutedUntil must be in the future")
	case until.Sub(now) > maxMute:
		return fail(http.StatusBadRequest, "invalid mute: at most 30 days; delete the alert instead")
	}
	caller, _ := r.Context().Value(callerKey{}).(store.Key)
	by := caller.UserID
	if by == "" {
		by = caller.KeyID
	}
	return s.setSilenced(r, &alerting.Silenced{By: by, At: now, Until: until.UTC()})
}

// unsilenceAlert is DELETE /api/v2/alerts/{id}/silenced: notifications
// go again from the next change of state.
func (s *Server) unsilenceAlert(r *http.Request) result { return s.setSilenced(r, nil) }

func (s *Server) setSilenced(r *http.Request, to *alerting.Silenced) result {
	team, id := teamOf(r.Context()), r.PathValue("id")
	old, err := s.opts.Store.Get(r.Context(), team, kindAlert, id)
	if err != nil {
		return failed(kindAlert, err)
	}
	var a Alert
	if err := json.Unmarshal(old.Doc, &a); err != nil {
		return failed(kindAlert, err)
	}
	a.Silenced = to
	b, _ := json.Marshal(&a)
	if err := s.opts.Store.Put(r.Context(), team, kindAlert, id, b, old.CreatedAt, time.Now()); err != nil {
		return failed(kindAlert, err)
	}
	pub, err := publicOne(team, kindAlert, b)
	if err != nil {
		return failed(kindAlert, err)
	}
	return ok(http.StatusOK, pub, nil)
}

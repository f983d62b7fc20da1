package alerting

// The rules that bind an alert to what it watches and where it delivers.
// They live beside the Alert type, not in a handler, so every door that
// deletes a dashboard, a tile, a saved search or a webhook applies the
// same ones.

import (
	"context"
	"encoding/json"

	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// OfTeam is the team's alerts; a document that does not decode is left
// out.
func OfTeam(ctx context.Context, st *store.Store, team string) ([]Alert, error) {
	items, err := st.OfTeam(ctx, team, store.KindAlert)
	if err != nil {
		return nil, err
	}
	out := make([]Alert, 0, len(items))
	for _, it := range items {
		var a Alert
		if json.Unmarshal(it.Doc, &a) == nil {
			out = append(out, a)
		}
	}
	return out, nil
}

// InUseError refuses deleting a webhook an alert still delivers to.
type InUseError struct{ AlertID string }

func (e *InUseError) Error() string {
	return "alerts still reference this webhook (alert " + e.AlertID + "); delete or repoint them first"
}

// Unbind applies, before a team's resource of kind is deleted, the rule
// for the alerts bound to it: the alerts of a dashboard or a saved search
// are deleted (they could never be evaluated again); a webhook an alert
// delivers to is kept, with an *InUseError. Other kinds bind no alert.
func Unbind(ctx context.Context, st *store.Store, team, kind, id string) error {
	if kind != store.KindDashboard && kind != store.KindSavedSearch && kind != store.KindWebhook {
		return nil
	}
	alerts, err := OfTeam(ctx, st, team)
	if err != nil {
		return err
	}
	for _, a := range alerts {
		switch {
		case kind == store.KindDashboard && a.DashboardID == id, kind == store.KindSavedSearch && a.SavedSearchID == id:
			if err := st.Delete(ctx, team, store.KindAlert, a.ID); err != nil {
				return err
			}
		case kind == store.KindWebhook && delivers(a, id):
			return &InUseError{AlertID: a.ID}
		}
	}
	return nil
}

// DropOrphans deletes the alerts on tiles of d that d no longer has, or
// that are no longer charts it can evaluate (a tile made raw SQL or
// markdown), as HyperDX's dashboard update does: an update that removes
// a tile, or changes what it is, takes its alerts with it.
func DropOrphans(ctx context.Context, st *store.Store, team string, d *dashboards.Dashboard) error {
	alertable := map[string]bool{}
	for _, t := range d.Tiles {
		_, _, chart := t.Config.Watched()
		alertable[t.ID] = chart
	}
	alerts, err := OfTeam(ctx, st, team)
	if err != nil {
		return err
	}
	for _, a := range alerts {
		if a.Source != "saved_search" && a.DashboardID == d.ID && !alertable[a.TileID] {
			if err := st.Delete(ctx, team, store.KindAlert, a.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// delivers reports whether the alert notifies the webhook.
func delivers(a Alert, webhookID string) bool {
	for _, c := range a.AllChannels() {
		if c.WebhookID == webhookID {
			return true
		}
	}
	return false
}

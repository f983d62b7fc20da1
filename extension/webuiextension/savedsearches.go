package webuiextension

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/savedsearch"
)

// Saved searches are the REST API's documents (/api/v2/saved-searches),
// checked by the same type and kept in the same store.

func (u *webUI) savedSearches(r *http.Request, c *call) (any, error) {
	return u.docs(r, c, savedsearch.Kind)
}

func (u *webUI) saveSearch(r *http.Request, c *call) (any, error) {
	var ss savedsearch.SavedSearch
	if err := decode(r, &ss); err != nil {
		return nil, err
	}
	ctx, team := r.Context(), c.account.TeamID
	err := ss.Validate(func(id string) (bool, error) { return c.st.Sources.Exists(ctx, team, id) })
	var bad savedsearch.Invalid
	if errors.As(err, &bad) {
		return nil, badRequest("%v", err)
	}
	if err != nil {
		return nil, err
	}
	n, err := c.st.Store.Count(ctx, team, savedsearch.Kind)
	if err != nil {
		return nil, err
	}
	if c.st.Limit != nil && n >= c.st.Limit(savedsearch.Kind) {
		return nil, httpError{http.StatusForbidden, fmt.Sprintf("the team has %d saved searches, its limit (team_limits.saved_searches); delete some first", n)}
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	ss.ID, ss.CreatedAt, ss.UpdatedAt = keys.New("")[:24], now, now
	doc, _ := json.Marshal(ss)
	if err := c.st.Store.Put(ctx, team, savedsearch.Kind, ss.ID, doc, now, now); err != nil {
		return nil, err
	}
	return reply{status: http.StatusCreated, data: ss}, nil
}

func (u *webUI) deleteSavedSearch(r *http.Request, c *call) (any, error) {
	if err := c.st.Store.Delete(r.Context(), c.account.TeamID, savedsearch.Kind, r.PathValue("id")); err != nil {
		return nil, err
	}
	return map[string]any{"deleted": true}, nil
}

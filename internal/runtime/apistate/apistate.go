// Package apistate is what the REST API extension shares with the other
// doors into the same rooms (the web UI) within one collector: the one
// store, source catalog, key sealer and query connection. The web UI finds
// the API extension through the collector host, as receivers find their
// authenticator, and reads everything through it: there is no second
// copy of the state and no second query builder.
package apistate

import (
	"context"
	"database/sql"
	"net/http"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// State is the API's live state once its storage is reachable.
type State struct {
	Store   *store.Store
	Sources *sources.Catalog
	Sealer  *keys.Sealer
	// DB runs telemetry queries (charts, search, traces), with QueryTimeout
	// bounding each.
	DB           *sql.DB
	QueryTimeout time.Duration
	// Team is the default team, owned by the first account.
	Team string
	// Limit is how many resources of a kind a team may keep (the API's
	// team_limits), for what the UI creates.
	Limit func(kind string) int
	// API serves the REST API's self-hosted /api/v2 routes to a caller
	// another door has already authenticated (WithCaller): the web UI
	// creates, changes and deletes dashboards, alerts and webhooks through
	// the very handlers scripts call, with their checks and answers.
	API http.Handler
}

type callerKey struct{}

// Caller is who another door authenticated: the team acted for, and an
// identity the API's rate limit counts under.
type Caller struct{ Team, Identity string }

// WithCaller marks a request's context as authenticated for State.API.
// Only code in this process can set it: it never comes from a header.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf is the caller WithCaller set, if any.
func CallerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c.Team != ""
}

// Provider is implemented by the API extension; State is nil until the
// API has reached its storage.
type Provider interface {
	APIState() *State
}

package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// stamp is what the API, not the caller, gives a document: its id and
// times.
type stamp struct {
	id               string
	created, updated time.Time
	old              []byte // the stored document an update replaces (nil: a create)
}

// document is a resource ready to store: its id and the value written.
type document struct {
	id    string
	value any
}

// decoder turns a request body into a document of one kind, checked and
// stamped, or an error (a validationError lists every problem).
type decoder func(s *Server, ctx context.Context, body []byte, st stamp) (document, error)

// decoders is what differs between the kinds the API stores; everything
// else (routes, limits, lists, deletes) is the same for all.
var decoders = map[string]decoder{
	kindDashboard: decodeDashboard,
	kindAlert:     decodeAlert,
	kindSource:    decodeSource,
	kindSaved:     decodeSavedSearch,
	kindWebhook:   decodeWebhook,
	kindConn:      decodeConnection,
}

func (s *Server) decodeValidate(ctx context.Context, kind string, body []byte, st stamp) (document, error) {
	return decoders[kind](s, ctx, body, st)
}

func decodeDashboard(s *Server, ctx context.Context, body []byte, st stamp) (document, error) { //nolint:revive // the kinds' decoders share one type, the server first
	d, err := dashboards.Decode(body)
	if err == nil && st.old == nil && d.FilterIDsGiven() {
		// HyperDX makes a new dashboard's filter ids.
		return document{}, validationError{errors.New("filters: a new dashboard's filters take no id")}
	}
	if err == nil && st.old != nil {
		err = keepFromOld(&d, st.old)
	}
	team := teamOf(ctx)
	if err == nil {
		err = d.Validate(newID, func(id string) (bool, error) { return s.sources.Exists(ctx, team, id) })
	}
	if err == nil {
		d.ID = st.id
		err = s.checkOnClick(ctx, team, &d)
	}
	if err == nil {
		err = s.checkTileSourceKinds(ctx, team, &d, st.old)
	}
	if err == nil {
		err = s.checkTileConnections(ctx, team, &d)
	}
	if missing := (dashboards.MissingSources{}); errors.As(err, &missing) {
		// Answered in HyperDX's words, without this API's prefix.
		return document{}, &apiError{status: http.StatusBadRequest, msg: missing.Error()}
	}
	if bad := (dashboards.Invalid{}); errors.As(err, &bad) {
		return document{}, validationError{err}
	}
	if err != nil {
		return document{}, err
	}
	d.ID, d.CreatedAt, d.UpdatedAt = st.id, st.created, st.updated
	return document{st.id, &d}, nil
}

// alertInput is an alert as sent: HyperDX's external alert, which may
// echo what an answer holds (teamId, executionErrors: the API's to set,
// ignored) and may carry an inline source's chartConfig.
type alertInput struct {
	Alert
	TeamID      string          `json:"teamId"`
	ChartConfig json.RawMessage `json:"chartConfig"`
}

// keepFromOld applies HyperDX's update rules against the dashboard an
// update replaces: a tile or filter id it does not know is replaced by a
// new one (a client cannot pick ids), and filters and containers the
// body leaves out are kept.
func keepFromOld(d *dashboards.Dashboard, oldDoc []byte) error {
	old, err := dashboards.Decode(oldDoc)
	if err != nil {
		return fmt.Errorf("stored dashboard: %w", err)
	}
	// Kept as they read back, so that stored filters with a field of a
	// mode they are not in do not fail the update that keeps them.
	old.Heal()
	forgetNewIDs(old.Tiles, d.Tiles, func(t *dashboards.Tile) *string { return &t.ID })
	if !d.Given.Filters {
		d.Filters = old.Filters
	} else {
		forgetNewIDs(old.Filters, d.Filters, func(f *dashboards.Filter) *string { return &f.ID })
	}
	if !d.Given.Containers {
		d.Containers = old.Containers
	}
	return nil
}

// forgetNewIDs clears the ids in cur that old does not have, so that
// validation makes them anew.
func forgetNewIDs[T any](old, cur []T, id func(*T) *string) {
	known := make(map[string]bool, len(old))
	for i := range old {
		known[*id(&old[i])] = true
	}
	for i := range cur {
		if p := id(&cur[i]); !known[*p] {
			*p = ""
		}
	}
}

// checkTileConnections checks the connections raw SQL tiles name, as
// HyperDX does: each is one of the team's, and a tile that also names a
// source names the source's own connection.
func (s *Server) checkTileConnections(ctx context.Context, team string, d *dashboards.Dashboard) error {
	var missing, mismatched []string
	known := map[string]bool{}
	for _, t := range d.Tiles {
		c := t.Config
		if c.ConfigType == "" || c.ConnectionID == "" {
			continue
		}
		ok, seen := known[c.ConnectionID]
		if !seen {
			ok = c.ConnectionID == sources.DefaultConnectionID(team)
			if !ok {
				_, err := s.opts.Store.Get(ctx, team, kindConn, c.ConnectionID)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				ok = err == nil
			}
			known[c.ConnectionID] = ok
			if !ok {
				missing = append(missing, c.ConnectionID)
			}
		}
		if !ok || c.SourceID == "" || slices.Contains(mismatched, c.SourceID) {
			continue
		}
		res, err := s.opts.Store.Get(ctx, team, kindSource, c.SourceID)
		if err != nil {
			return err // the source was found when the tile was checked
		}
		src, err := sources.Decode(team, res.Doc)
		if err != nil {
			return fmt.Errorf("stored source %s: %w", c.SourceID, err)
		}
		if src.Connection != c.ConnectionID {
			mismatched = append(mismatched, c.SourceID)
		}
	}
	switch {
	case len(missing) > 0:
		return &apiError{status: http.StatusBadRequest, msg: "Could not find the following connection IDs: " + strings.Join(missing, ", ")}
	case len(mismatched) > 0:
		return &apiError{status: http.StatusBadRequest, msg: "The following source IDs do not match the specified connections: " + strings.Join(mismatched, ", ")}
	}
	return nil
}

// checkOnClick checks what the tiles' onClick name by id, as HyperDX
// does: a dashboard of the team, a log or trace source to search.
func (s *Server) checkOnClick(ctx context.Context, team string, d *dashboards.Dashboard) error {
	dashIDs, sourceIDs := d.OnClickTargets()
	var missing, notSearchable, missingDash []string
	for _, id := range sourceIDs {
		if ok, err := s.sources.Exists(ctx, team, id); err != nil {
			return err
		} else if !ok {
			missing = append(missing, id)
			continue
		}
		// Its kind as stored: whether the team may read its database is
		// the search's question, when it runs.
		res, err := s.opts.Store.Get(ctx, team, kindSource, id)
		if err != nil {
			return err
		}
		var src Source
		if err := json.Unmarshal(res.Doc, &src); err != nil {
			return fmt.Errorf("stored source %s: %w", id, err)
		}
		if src.Kind != "log" && src.Kind != "trace" {
			notSearchable = append(notSearchable, id)
		}
	}
	if len(missing) > 0 {
		return dashboards.MissingSources{IDs: missing}
	}
	for _, id := range dashIDs {
		if id == d.ID {
			continue // the dashboard itself, being updated
		}
		_, err := s.opts.Store.Get(ctx, team, kindDashboard, id)
		if errors.Is(err, store.ErrNotFound) {
			missingDash = append(missingDash, id)
		} else if err != nil {
			return err
		}
	}
	switch {
	case len(missingDash) > 0:
		return &apiError{status: http.StatusBadRequest, msg: "Could not find the following onClick dashboard IDs: " + strings.Join(missingDash, ", ")}
	case len(notSearchable) > 0:
		return &apiError{status: http.StatusBadRequest, msg: "The following onClick search source IDs are not log or trace sources: " + strings.Join(notSearchable, ", ")}
	}
	return nil
}

// checkTileSourceKinds refuses, as HyperDX does, a heatmap tile over a
// source that is no trace source (its buckets are of a span's value, a
// duration, which its UI offers on traces only) and a tile with formulas
// over a source that is no metric, log or trace source. Only the tiles an
// update adds or changes are checked: a source whose kind changed since a
// tile was accepted must not wedge every later edit of the dashboard.
func (s *Server) checkTileSourceKinds(ctx context.Context, team string, d *dashboards.Dashboard, oldDoc []byte) error {
	changed, err := changedTiles(d, oldDoc)
	if err != nil {
		return err
	}
	kinds := map[string]string{}
	kindOf := func(id string) (string, error) {
		if k, ok := kinds[id]; ok {
			return k, nil
		}
		k, err := s.sourceKind(ctx, team, id)
		kinds[id] = k
		return k, err
	}
	var notTrace, noFormulas []string
	for _, t := range changed {
		c := t.Config
		if c.ConfigType != "" || c.SourceID == "" {
			continue
		}
		heatmap, formulas := c.DisplayType == dashboards.Heatmap, len(c.Formulas) > 0
		if !heatmap && !formulas {
			continue
		}
		kind, err := kindOf(c.SourceID)
		if err != nil {
			return err
		}
		switch {
		case heatmap && kind != "trace" && !slices.Contains(notTrace, c.SourceID):
			notTrace = append(notTrace, c.SourceID)
		case formulas && kind != "metric" && kind != "log" && kind != "trace" && !slices.Contains(noFormulas, c.SourceID):
			noFormulas = append(noFormulas, c.SourceID)
		}
	}
	switch {
	case len(notTrace) > 0:
		return &apiError{status: http.StatusBadRequest, msg: "Heatmap tiles require a Trace source; not trace sources: " + strings.Join(notTrace, ", ")}
	case len(noFormulas) > 0:
		return &apiError{status: http.StatusBadRequest, msg: "Tiles with formulas require a Metric, Log, or Trace source; not such sources: " + strings.Join(noFormulas, ", ")}
	}
	return nil
}

// changedTiles are the tiles of d that are new to the stored dashboard
// oldDoc (nil on a create) or whose config differs from its tile of the
// same id.
func changedTiles(d *dashboards.Dashboard, oldDoc []byte) ([]dashboards.Tile, error) {
	if oldDoc == nil {
		return d.Tiles, nil
	}
	old, err := dashboards.Decode(oldDoc)
	if err != nil {
		return nil, fmt.Errorf("stored dashboard: %w", err)
	}
	var out []dashboards.Tile
	for _, t := range d.Tiles {
		if o, ok := old.Tile(t.ID); ok && sameConfig(o.Config, t.Config) {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

func sameConfig(a, b dashboards.Config) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// sourceKind is the kind of a team's source as stored (Validate has
// already checked that it exists).
func (s *Server) sourceKind(ctx context.Context, team, id string) (string, error) {
	res, err := s.opts.Store.Get(ctx, team, kindSource, id)
	if err != nil {
		return "", err
	}
	var src Source
	if err := json.Unmarshal(res.Doc, &src); err != nil {
		return "", fmt.Errorf("stored source %s: %w", id, err)
	}
	return src.Kind, nil
}

func decodeAlert(s *Server, ctx context.Context, body []byte, st stamp) (document, error) { //nolint:revive // the kinds' decoders share one type, the server first
	var in alertInput
	if err := decodeStrict(body, &in); err != nil {
		return document{}, validationError{err}
	}
	a := in.Alert
	if len(in.ChartConfig) > 0 && string(in.ChartConfig) != "null" && a.Source != "inline" {
		return document{}, validationError{errors.New(`chartConfig is only supported when source is "inline"`)}
	}
	// Sent in the external dialect; validateAlert stores the internal one.
	a.ChartConfig = nil
	if a.Source == "inline" {
		a.ChartConfig = in.ChartConfig
	}
	if err := validateAlert(ctx, &a, lookups{s: s, team: teamOf(ctx)}, st.updated); err != nil {
		return document{}, err
	}
	a.ID, a.CreatedAt, a.UpdatedAt = st.id, st.created, st.updated
	// The state and the execution errors are the scheduler's: a new
	// alert is OK, an update keeps them.
	a.ExecutionErrors, a.State = nil, alerting.StateOK
	if st.old != nil {
		var old Alert
		if err := json.Unmarshal(st.old, &old); err != nil {
			return document{}, fmt.Errorf("stored alert %s: %w", st.id, err)
		}
		// A mute is set and lifted by its own routes (silence.go); an
		// update that does not carry it keeps it. The execution errors
		// are the scheduler's.
		if a.Silenced == nil {
			a.Silenced = old.Silenced
		}
		a.ExecutionErrors, a.State = old.ExecutionErrors, cmp.Or(old.State, alerting.StateOK)
	}
	return document{st.id, &a}, nil
}

// publicAlert is a stored alert as answered: HyperDX's shape, with the
// team, and channels for a document written before there could be
// several. An inline alert's chartConfig is answered, in the external
// dialect, only for one alert (whole: a GET, a create, an update), as
// HyperDX keeps its lists lean; and not when that dialect cannot say it
// faithfully (externalChartConfig).
func publicAlert(team string, doc []byte, whole bool) (any, error) {
	var a Alert
	if err := json.Unmarshal(doc, &a); err != nil {
		return nil, fmt.Errorf("stored alert: %w", err)
	}
	a.Channels = a.AllChannels()
	if len(a.Channels) > 0 {
		a.Channel = a.Channels[0]
	}
	var chart *externalChart
	if whole && a.Source == "inline" {
		chart, _ = externalChartConfig(a.ChartConfig)
	}
	a.ChartConfig = nil
	return struct {
		*Alert
		TeamID      string         `json:"teamId"`
		ChartConfig *externalChart `json:"chartConfig,omitempty"`
	}{&a, team, chart}, nil
}

func decodeSource(s *Server, ctx context.Context, body []byte, st stamp) (document, error) { //nolint:revive // the kinds' decoders share one type, the server first
	src, err := sources.DecodeBody(body)
	if err != nil {
		return document{}, validationError{fmt.Errorf("invalid JSON body: %w", err)}
	}
	// A source that names no database reads the team's first one (the
	// install's team: the telemetry database).
	team := teamOf(ctx)
	dbs, err := s.opts.Tenancy.Databases(ctx, team)
	if err != nil {
		return document{}, err
	}
	if err := src.Validate(append(dbs, "")[0]); err != nil {
		return document{}, validationError{err}
	}
	if err := s.checkConnection(ctx, team, src.Connection); err != nil {
		return document{}, err
	}
	// Each expression on the engine's parse: what HyperDX's clients and
	// this API write into queries.
	var bad []string
	for _, e := range src.Expressions() {
		err := query.CheckExpression(ctx, s.opts.DB, e.Text, e.Column, e.List)
		if qe := (query.Error{}); errors.As(err, &qe) {
			bad = append(bad, fmt.Sprintf("%s: %v", e.Field, err))
		} else if err != nil {
			return document{}, err
		}
	}
	if len(bad) > 0 {
		return document{}, validationError{errors.New(strings.Join(bad, "; "))}
	}
	// The tenancy rule, as every query of the source checks it again. A
	// promql source's table is never read (HyperDX's clients send a
	// placeholder).
	if src.Kind != "promql" {
		if err := s.opts.Tenancy.Check(ctx, team, src.From.DatabaseName); errors.Is(err, sources.ErrUnreadable) {
			return document{}, validationError{err}
		} else if err != nil {
			return document{}, err
		}
	}
	src.ID = st.id
	src.Stored()
	return document{st.id, &src}, nil
}

func decodeWebhook(s *Server, ctx context.Context, body []byte, st stamp) (document, error) { //nolint:revive // the kinds' decoders share one type, the server first
	var wh Webhook
	if err := decodeStrict(body, &wh); err != nil {
		return document{}, validationError{err}
	}
	if err := wh.validate(); err != nil {
		return document{}, validationError{err}
	}
	if !s.opts.AllowPrivateWebhooks {
		if err := webhook.CheckTarget(ctx, wh.URL); err != nil {
			return document{}, validationError{fmt.Errorf("url: the target is a private or reserved address (%w; set alerts.allow_private_webhooks to allow it)", err)}
		}
	}
	team := teamOf(ctx)
	// HyperDX keeps a team's webhooks unique by service and name.
	others, err := s.opts.Store.OfTeam(ctx, team, kindWebhook)
	if err != nil {
		return document{}, err
	}
	for _, o := range others {
		var e Webhook
		if o.ID != st.id && json.Unmarshal(o.Doc, &e) == nil && e.Name == wh.Name && cmp.Or(e.Service, "generic") == wh.Service {
			return document{}, validationError{fmt.Errorf("a %s webhook named %q already exists", wh.Service, wh.Name)}
		}
	}
	stored := storedWebhook{}
	// The write-only fields cannot be read back, so an update that omits
	// them keeps them while the destination (url and service) is the
	// same; a new destination never inherits them, or repointing the url
	// would send the stored credentials to whoever it now names. An empty
	// object clears them.
	var old storedWebhook
	if st.old != nil && json.Unmarshal(st.old, &old) == nil && old.URL == wh.URL && cmp.Or(old.Service, "generic") == wh.Service {
		if wh.Headers == nil {
			stored.SealedHeaders = old.SealedHeaders
			wh.Headers = old.Headers // in clear only if written before headers were sealed
		}
		if wh.QueryParams == nil {
			stored.SealedQueryParams = old.SealedQueryParams
		}
	}
	wh.ID, wh.CreatedAt, wh.UpdatedAt = st.id, st.created, st.updated
	if wh.Headers != nil {
		if stored.SealedHeaders, err = webhook.SealHeaders(s.opts.Sealer, team, st.id, wh.Headers); err != nil {
			return document{}, err
		}
	}
	if wh.QueryParams != nil {
		if stored.SealedQueryParams, err = webhook.SealHeaders(s.opts.Sealer, team, webhook.QueryParamsID(st.id), wh.QueryParams); err != nil {
			return document{}, err
		}
	}
	wh.Headers, wh.QueryParams = nil, nil
	stored.Webhook = wh
	return document{st.id, &stored}, nil
}

// storedWebhook is a webhook as stored: its headers and query parameters
// sealed, never in clear (webhook.SealHeaders). Callers cannot send the
// sealed fields: the body decodes into Webhook, which has no such field.
type storedWebhook struct {
	Webhook
	SealedHeaders     string `json:"sealedHeaders,omitempty"`
	SealedQueryParams string `json:"sealedQueryParams,omitempty"`
}

package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
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
	if err == nil {
		team := teamOf(ctx)
		err = d.Validate(newID, func(id string) (bool, error) { return s.sources.Exists(ctx, team, id) })
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

func decodeAlert(s *Server, ctx context.Context, body []byte, st stamp) (document, error) { //nolint:revive // the kinds' decoders share one type, the server first
	var a Alert
	if err := decodeStrict(body, &a); err != nil {
		return document{}, validationError{err}
	}
	if err := validateAlert(ctx, &a, lookups{s: s, team: teamOf(ctx)}); err != nil {
		return document{}, err
	}
	a.ID, a.CreatedAt, a.UpdatedAt = st.id, st.created, st.updated
	if a.State == "" {
		a.State = alerting.StateOK
	}
	// A mute is set and lifted by its own routes (silence.go); an update
	// that does not carry it keeps it.
	if a.Silenced == nil && st.old != nil {
		var old Alert
		if err := json.Unmarshal(st.old, &old); err != nil {
			return document{}, fmt.Errorf("stored alert %s: %w", st.id, err)
		}
		a.Silenced = old.Silenced
	}
	return document{st.id, &a}, nil
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

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/http/httpguts"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerttemplate"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/savedsearch"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/problems"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Resource kinds, as stored.
const (
	kindDashboard = store.KindDashboard
	kindAlert     = store.KindAlert
	kindSource    = store.KindSource
	kindWebhook   = store.KindWebhook
	kindSaved     = store.KindSavedSearch
	kindConn      = store.KindConnection
)

// SavedSearch is a named search (shared with the web UI).
type SavedSearch = savedsearch.SavedSearch

// Dashboard is a named grid of chart tiles (shared with the web UI and
// the alert scheduler).
type Dashboard = dashboards.Dashboard

// Alert watches a threshold (the alert scheduler's type, shared).
type Alert = alerting.Alert

// Channel is where an alert is delivered.
type Channel = alerting.Channel

// Source describes a telemetry table a chart can query (shared with the
// web UI).
type Source = sources.Source

// Webhook is an alert delivery target, HyperDX's external shape. Headers
// and query parameters are write-only: they may carry credentials and are
// never returned.
type Webhook struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	URL         string            `json:"url"`
	Service     string            `json:"service"`
	Description string            `json:"description,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	QueryParams map[string]string `json:"queryParams,omitempty"`
	Body        string            `json:"body,omitempty"`
	CreatedAt   time.Time         `json:"createdAt"`
	UpdatedAt   time.Time         `json:"updatedAt"`
}

// The sizes HyperDX's webhook schema allows.
const (
	maxWebhookName        = 1024
	maxWebhookURL         = 2048
	maxWebhookDescription = 2048
	maxWebhookBody        = 16 << 10
	maxWebhookPairs       = 100 // headers, and query parameters
	maxWebhookPairValue   = 4096
)

// templatedServices take a body template, headers and query parameters;
// Slack and incident.io receive their own payload at a URL that carries
// its credential, so those are refused for them ("not supported").
var templatedServices = []string{"generic", "pagerduty"}

// The documented value sets.
var (
	aggFns         = dashboards.AggFns
	intervals      = []string{"1m", "5m", "15m", "30m", "1h", "6h", "12h", "1d"}
	thresholdTypes = alerting.ThresholdTypes
	webhookTypes   = []string{"generic", "slack", "incidentio", "pagerduty"}
)

// maxChannels is how many webhooks one alert may notify (HyperDX's cap).
const maxChannels = 10

// maxNote bounds an alert's note (HyperDX's).
const maxNote = 4096

// validateAlert checks an alert, in HyperDX's words where it has them;
// lookups tell whether the dashboard, tile, saved search and webhooks
// exist in the caller's team. It settles channel and channels: channels
// is canonical, channel mirrors its first entry.
func validateAlert(ctx context.Context, a *Alert, lookup lookups, now time.Time) error {
	var p problems.List
	if strings.TrimSpace(a.Name) == "" && formOf(ctx) == managed {
		p.Add("name is required")
	}
	if a.Note != nil && (*a.Note == "" || len(*a.Note) > maxNote) {
		p.Add("note must be 1 to %d characters", maxNote)
	}
	if a.Threshold == nil {
		p.Add("threshold is required")
	}
	p.OneOf("interval", a.Interval, intervals)
	p.OneOf("thresholdType", a.ThresholdType, thresholdTypes)
	switch {
	case !alerting.IsRange(a.ThresholdType):
		a.ThresholdMax = nil // only a range has a bound (HyperDX drops it)
	case a.ThresholdMax == nil:
		p.Add("thresholdMax is required for between/not_between threshold types")
	case a.Threshold != nil && *a.ThresholdMax < *a.Threshold:
		p.Add("thresholdMax must be greater than or equal to threshold")
	}
	if a.NumConsecutiveWindows != nil && *a.NumConsecutiveWindows < 1 {
		p.Add("numConsecutiveWindows must be at least 1")
	}
	checkSchedule(a, now, &p)
	switch a.Source {
	case "saved_search":
		if err := validateSavedSearchAlert(ctx, a, lookup, &p); err != nil {
			return err
		}
	case "tile":
		if err := validateTileAlert(ctx, a, lookup, &p); err != nil {
			return err
		}
	case "inline":
		if err := validateInlineAlert(ctx, a, lookup, &p); err != nil {
			return err
		}
	default:
		p.Add(`source must be "tile", "saved_search" or "inline", got %q`, a.Source)
	}
	if err := alerttemplate.Check(a.Message); err != nil {
		p.Add("message: %v", err)
	}
	if err := checkChannels(ctx, a, lookup, &p); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return validationError{err}
	}
	return nil
}

// checkChannels applies HyperDX's rules to channel and channels, then
// sets both: channels, channel its first entry.
func checkChannels(ctx context.Context, a *Alert, lookup lookups, p *problems.List) error {
	given := a.Channel != (Channel{})
	chs := a.Channels
	// A problem names the field the caller sent.
	at := func(i int) string { return fmt.Sprintf("channels[%d]", i) }
	if len(chs) == 0 {
		at = func(int) string { return "channel" }
	}
	switch {
	case len(chs) == 0 && !given:
		p.Add("At least one notification channel is required")
		return nil
	case len(chs) == 0:
		chs = []Channel{a.Channel}
	case given && a.Channel != chs[0]:
		p.Add("channel must be the same as channels[0] when both are given")
		return nil
	}
	if len(chs) > maxChannels {
		p.Add("channels takes at most %d entries", maxChannels)
		return nil
	}
	seen := map[Channel]bool{}
	var missing []string
	for i, c := range chs {
		switch {
		case c.Type != "webhook":
			p.Add(`%s.type must be "webhook", got %q`, at(i), c.Type)
			continue
		case c.WebhookID == "":
			p.Add("%s.webhookId is required", at(i))
			continue
		case seen[c]:
			p.Add("%s repeats a channel", at(i))
			continue
		}
		seen[c] = true
		ok, err := lookup.webhook(ctx, c.WebhookID)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, strconv.Quote(c.WebhookID))
		}
	}
	if len(missing) > 0 {
		p.Add("Webhook not found (%s)", strings.Join(missing, ", "))
	}
	a.Channels, a.Channel = chs, chs[0]
	return nil
}

// The bounds of scheduleStartAt (HyperDX's): within a year ahead and ten
// years back.
const (
	maxStartAhead = 365 * 24 * time.Hour
	maxStartBack  = 10 * 365 * 24 * time.Hour
)

// checkSchedule applies HyperDX's rules to an alert's schedule: an
// offset or a start time, not both; the offset within the interval.
func checkSchedule(a *Alert, now time.Time, p *problems.List) {
	if a.ScheduleStartAt != nil {
		if a.ScheduleOffsetMinutes != nil && *a.ScheduleOffsetMinutes != 0 {
			p.Add("scheduleOffsetMinutes must be 0 when scheduleStartAt is provided")
		}
		a.ScheduleOffsetMinutes = nil
		switch {
		case a.ScheduleStartAt.After(now.Add(maxStartAhead)):
			p.Add("scheduleStartAt must be within 1 year from now")
		case a.ScheduleStartAt.Before(now.Add(-maxStartBack)):
			p.Add("scheduleStartAt must be within 10 years in the past")
		}
	}
	if m := a.ScheduleOffsetMinutes; m != nil {
		iv := intervalMinutes[a.Interval]
		switch {
		case *m < 0:
			p.Add("scheduleOffsetMinutes cannot be negative")
		case iv > 0 && *m >= iv:
			p.Add("scheduleOffsetMinutes must be less than %d minutes", iv)
		case *m == 0:
			a.ScheduleOffsetMinutes = nil
		}
	}
}

var intervalMinutes = map[string]int{"1m": 1, "5m": 5, "15m": 15, "30m": 30, "1h": 60, "6h": 360, "12h": 720, "1d": 1440}

func validateTileAlert(ctx context.Context, a *Alert, lookup lookups, p *problems.List) error {
	if a.SavedSearchID != "" || a.GroupBy != "" {
		p.Add("savedSearchId and groupBy are for source saved_search; a tile alert groups as its tile")
	}
	if a.DashboardID == "" || a.TileID == "" {
		p.Add("dashboardId and tileId are required with source tile")
		return nil
	}
	found, err := lookup.dashboard(ctx, a.DashboardID)
	if err != nil {
		return err
	}
	if !found {
		p.Add("Dashboard not found (%q)", a.DashboardID)
		return nil
	}
	tile, ok, err := lookup.tile(ctx, a.DashboardID, a.TileID)
	switch {
	case err != nil:
		return err
	case !ok:
		p.Add("Tile not found (dashboard %q has no tile %q)", a.DashboardID, a.TileID)
	default:
		if !alertable(&tile.Config) {
			p.Add("tile %q is a %s tile; alerts watch chart tiles (line, stacked_bar, table, number, pie, bar)", a.TileID, kindOfTile(&tile.Config))
		} else if tile.Config.Having != "" {
			// An alert judges every group in each window; the having
			// filters groups by their totals over the dashboard's range,
			// which no window has, so the alert would judge groups the
			// table leaves out.
			p.Add("tile %q has a having, which an alert does not apply: alert on a copy of the tile without it, or narrow the items' where", a.TileID)
		}
	}
	return nil
}

// alertable reports whether the scheduler can evaluate an alert on a
// tile: a chart tile. A raw SQL tile is stored, not run, so an alert on
// one could never be evaluated.
func alertable(c *dashboards.Config) bool {
	_, _, chart := c.Watched()
	return chart
}

func validateSavedSearchAlert(ctx context.Context, a *Alert, lookup lookups, p *problems.List) error {
	if a.DashboardID != "" || a.TileID != "" {
		p.Add("dashboardId and tileId are for source tile")
	}
	if a.SavedSearchID == "" {
		p.Add("savedSearchId is required with source saved_search")
		return nil
	}
	ok, err := lookup.savedSearch(ctx, a.SavedSearchID)
	if err != nil {
		return err
	}
	if !ok {
		p.Add("Saved search not found (%q)", a.SavedSearchID)
	}
	if len(query.SplitList(a.GroupBy)) > 5 {
		p.Add("groupBy takes at most 5 fields")
	}
	return nil
}

func (wh *Webhook) validate() error {
	var p problems.List
	if strings.TrimSpace(wh.Name) == "" {
		p.Add("name is required")
	}
	if len(wh.Name) > maxWebhookName {
		p.Add("name is longer than %d characters", maxWebhookName)
	}
	if u, err := url.Parse(wh.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.Add("url must be an absolute http(s) URL")
	} else if len(wh.URL) > maxWebhookURL {
		p.Add("url is longer than %d characters", maxWebhookURL)
	}
	if len(wh.Description) > maxWebhookDescription {
		p.Add("description is longer than %d characters", maxWebhookDescription)
	}
	if wh.Service == "" {
		wh.Service = "generic"
	}
	p.OneOf("service", wh.Service, webhookTypes)
	if slices.Contains(webhookTypes, wh.Service) && !slices.Contains(templatedServices, wh.Service) {
		for _, f := range []struct {
			name string
			set  bool
		}{{"headers", wh.Headers != nil}, {"queryParams", wh.QueryParams != nil}, {"body", wh.Body != ""}} {
			if f.set {
				p.Add("%s is not supported by a %s webhook", f.name, wh.Service)
			}
		}
	}
	if len(wh.Body) > maxWebhookBody {
		p.Add("body is longer than %d bytes", maxWebhookBody)
	}
	if err := alerttemplate.Check(wh.Body); err != nil {
		p.Add("body: %v", err)
	}
	if len(wh.Headers) > maxWebhookPairs {
		p.Add("headers: at most %d", maxWebhookPairs)
	}
	if len(wh.QueryParams) > maxWebhookPairs {
		p.Add("queryParams: at most %d", maxWebhookPairs)
	}
	for _, k := range slices.Sorted(maps.Keys(wh.QueryParams)) {
		v := wh.QueryParams[k]
		switch {
		case k == "" || strings.ContainsFunc(k, unicode.IsControl):
			p.Add("queryParams: %q is not a parameter name", k)
		case strings.ContainsFunc(v, unicode.IsControl):
			p.Add("queryParams: the value of %s holds a control character", k)
		case len(v) > maxWebhookPairValue:
			p.Add("queryParams: the value of %s is longer than %d characters", k, maxWebhookPairValue)
		}
	}
	// Checked here, not found when an alert fires: the client refuses to
	// send such a header, so every delivery would fail.
	for _, k := range slices.Sorted(maps.Keys(wh.Headers)) {
		switch {
		// HyperDX also refuses a name that begins with a digit.
		case !httpguts.ValidHeaderFieldName(k) || (k[0] >= '0' && k[0] <= '9'):
			p.Add("headers: %q is not a header name", k)
		case len(wh.Headers[k]) > maxWebhookPairValue:
			p.Add("headers: the value of %s is longer than %d characters", k, maxWebhookPairValue)
		case !httpguts.ValidHeaderFieldValue(wh.Headers[k]):
			p.Add("headers: the value of %s holds a control character", k)
		case slices.Contains(deliveryHeaders, textproto.CanonicalMIMEHeaderKey(k)):
			p.Add("headers: %s is the delivery's own", k)
		}
	}
	return p.Err()
}

// deliveryHeaders are set by the delivery (framing, connection, the
// Idempotency-Key receivers deduplicate by) and may not be overridden.
var deliveryHeaders = []string{
	"Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Proxy-Connection",
	"Te", "Trailer", "Upgrade", "Idempotency-Key",
}

// SystemDatabase reports whether db is one of the server's own databases.
func SystemDatabase(db string) bool { return sources.SystemDatabase(db) }

type validationError struct{ error }

func kindOfTile(c *dashboards.Config) string {
	if c.ConfigType != "" {
		return "raw SQL"
	}
	return c.DisplayType
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	return nil
}

package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerttemplate"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/charts"
	"github.com/otelhouse/otelhouse/internal/dashboards"
	"github.com/otelhouse/otelhouse/internal/store"
)

// Alert states. NO_DATA: the window had nothing to measure (a null
// aggregate); counts are never NO_DATA, an empty window counts 0.
const (
	StateOK     = "OK"
	StateAlert  = "ALERT"
	StateNoData = "NO_DATA"
)

var intervalDurations = map[string]time.Duration{
	"1m": time.Minute, "5m": 5 * time.Minute, "15m": 15 * time.Minute, "30m": 30 * time.Minute,
	"1h": time.Hour, "6h": 6 * time.Hour, "12h": 12 * time.Hour, "1d": 24 * time.Hour,
}

// Notification is the JSON a webhook receives on OK→ALERT and ALERT→OK;
// a webhook body template is rendered with the same fields.
type Notification struct {
	AlertID        string   `json:"alertId"`
	Name           string   `json:"name"`
	Message        string   `json:"message"`
	State          string   `json:"state"`
	PreviousState  string   `json:"previousState"`
	Value          *float64 `json:"value"`
	Threshold      float64  `json:"threshold"`
	ThresholdType  string   `json:"thresholdType"`
	WindowStart    int64    `json:"windowStart"`
	WindowEnd      int64    `json:"windowEnd"`
	Group          []string `json:"group"`
	DashboardID    string   `json:"dashboardId"`
	TileID         string   `json:"tileId"`
	SavedSearchID  string   `json:"savedSearchId,omitempty"`
	IdempotencyKey string   `json:"idempotencyKey"`
}

// alertRuns are the evaluations under way: a delivery to a slow or dead
// webhook takes up to its attempts × timeout, and must hold up neither
// the other alerts of this pass nor the next passes.
type alertRuns struct {
	mu      sync.Mutex
	running map[string]bool // alert ids
	slots   chan struct{}
}

// claim marks the alert as being evaluated, unless it already is (by an
// earlier pass still delivering).
func (r *alertRuns) claim(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[id] {
		return false
	}
	r.running[id] = true
	return true
}

func (r *alertRuns) release(id string) {
	r.mu.Lock()
	delete(r.running, id)
	r.mu.Unlock()
}

// EvaluateDue evaluates, for every team's alerts, the last complete window
// of each alert's interval that no replica has evaluated yet, AlertWorkers
// at a time; an alert still being evaluated by an earlier call is left to
// it. Replicas racing on a window claim it and one evaluates it
// (store.ClaimWindow); a notification carries an idempotency key (alert id
// and window start) all the same, for receivers that retry.
func (s *Server) EvaluateDue(ctx context.Context, now time.Time, sender *webhook.Sender) error {
	owned, err := s.opts.Store.All(ctx, kindAlert)
	if err != nil {
		return err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	report := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for _, o := range owned {
		var a Alert
		if err := json.Unmarshal(o.Doc, &a); err != nil {
			report(err)
			continue
		}
		if !s.runs.claim(a.ID) {
			continue
		}
		select {
		case s.runs.slots <- struct{}{}:
		case <-ctx.Done():
			s.runs.release(a.ID)
			wg.Wait()
			return ctx.Err()
		}
		wg.Go(func() {
			defer func() { <-s.runs.slots; s.runs.release(a.ID) }()
			if err := s.evaluate(ctx, o.TeamID, &a, now, sender); err != nil {
				report(fmt.Errorf("alert %s: %w", a.ID, err))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *Server) evaluate(ctx context.Context, team string, a *Alert, now time.Time, sender *webhook.Sender) error {
	iv, ok := intervalDurations[a.Interval]
	if !ok || a.Threshold == nil {
		return fmt.Errorf("interval %q or threshold invalid", a.Interval)
	}
	end := now.UTC().Truncate(iv)
	start := end.Add(-iv)
	if done, err := s.opts.Store.Evaluated(ctx, a.ID, start); err != nil || done {
		return err
	}
	// Replicas sharing this state evaluate the window once: the one whose
	// claim is earliest.
	if won, err := s.opts.Store.ClaimWindow(ctx, a.ID, start, s.replica, s.opts.AlertClaimSettle); err != nil || !won {
		return err
	}
	value, group, hasData, breach, err := s.measure(ctx, team, a, start, end, iv)
	if err != nil {
		return err
	}
	state := StateOK
	switch {
	case breach:
		state = StateAlert
	case !hasData:
		state = StateNoData
	}
	prev := a.State
	key := a.ID + ":" + strconv.FormatInt(start.UnixMilli(), 10)
	ev := store.Evaluation{TeamID: team, AlertID: a.ID, WindowStart: start, WindowEnd: end, State: state, PreviousState: prev,
		Value: value, Group: fmt.Sprint(group), IdempotencyKey: key, EvaluatedAt: time.Now().UTC()}
	if (state == StateAlert && prev != StateAlert) || (state == StateOK && prev == StateAlert) {
		n := Notification{AlertID: a.ID, Name: a.Name, State: state, PreviousState: prev, Value: value, Threshold: *a.Threshold,
			ThresholdType: a.ThresholdType, WindowStart: start.UnixMilli(), WindowEnd: end.UnixMilli(), Group: group,
			DashboardID: a.DashboardID, TileID: a.TileID, SavedSearchID: a.SavedSearchID, IdempotencyKey: key}
		n.Message = render(a.Message, n)
		res := s.notify(ctx, team, a, n, sender)
		ev.Notified, ev.DeliveryAttempts = res.Err == nil, res.Attempts
		if res.Err != nil {
			ev.DeliveryError = res.Err.Error()
			s.opts.Logger.Warn("alert notification not delivered", zap.String("alert", a.ID), zap.Int("attempts", res.Attempts), zap.Error(res.Err))
		}
	}
	if err := s.opts.Store.AddEvaluation(ctx, ev); err != nil {
		return err
	}
	if state != prev {
		a.State = state
		b, _ := json.Marshal(a)
		return s.opts.Store.Put(ctx, team, kindAlert, a.ID, b, a.CreatedAt, time.Now())
	}
	return nil
}

// measure runs the alert's query over the window: one bucket, maybe
// several groups. The reported value is the most extreme breaching group's
// (or, with no breach, the most extreme one).
func (s *Server) measure(ctx context.Context, team string, a *Alert, start, end time.Time, iv time.Duration) (*float64, []string, bool, bool, error) {
	watched, err := s.watched(ctx, team, a)
	if err != nil {
		return nil, nil, false, false, err
	}
	series, err := s.seriesFor(ctx, team, watched)
	if err != nil {
		return nil, nil, false, false, err
	}
	points, err := charts.Run(ctx, s.opts.DB, []charts.Series{series}, start, end, iv, s.queryTimeout())
	if err != nil {
		return nil, nil, false, false, err
	}
	above := a.ThresholdType == "above"
	var best *float64
	var bestGroup []string
	breach, hasData := false, false
	for _, p := range points {
		v := p.Values[0]
		if v == nil {
			continue
		}
		hasData = true
		b := (above && *v > *a.Threshold) || (!above && *v < *a.Threshold)
		better := best == nil || (above && *v > *best) || (!above && *v < *best)
		if (b && !breach) || (b == breach && better) {
			best, bestGroup, breach = v, p.Group, b || breach
		}
	}
	return best, bestGroup, hasData, breach, nil
}

// watched is the series an alert measures: its tile's first select item
// grouped as the tile, or the count of its saved search's events grouped
// by the alert's groupBy.
func (s *Server) watched(ctx context.Context, team string, a *Alert) (chartSeries, error) {
	if a.Source == "saved_search" {
		res, err := s.opts.Store.Get(ctx, team, kindSaved, a.SavedSearchID)
		if err != nil {
			return chartSeries{}, fmt.Errorf("saved search %s: %w", a.SavedSearchID, err)
		}
		var ss SavedSearch
		if err := json.Unmarshal(res.Doc, &ss); err != nil {
			return chartSeries{}, err
		}
		return chartSeries{SourceID: ss.Source, AggFn: "count", Where: ss.Where, WhereLanguage: ss.WhereLanguage,
			GroupBy: dashboards.SplitGroupBy(a.GroupBy)}, nil
	}
	d, err := s.opts.Store.Get(ctx, team, kindDashboard, a.DashboardID)
	if err != nil {
		return chartSeries{}, err
	}
	dash, err := dashboards.Decode(d.Doc)
	if err != nil {
		return chartSeries{}, err
	}
	tile, ok := dash.Tile(a.TileID)
	if !ok {
		return chartSeries{}, fmt.Errorf("tile %s is gone", a.TileID)
	}
	sel, groupBy, ok := tile.Config.Watched()
	if !ok {
		return chartSeries{}, fmt.Errorf("tile %s is no longer a chart", a.TileID)
	}
	return chartSeries{SourceID: tile.Config.SourceID, AggFn: sel.AggFn, Field: sel.ValueExpression,
		Level: sel.Level, Where: sel.Where, WhereLanguage: sel.WhereLanguage, GroupBy: groupBy}, nil
}

// notify delivers to the alert's webhook: the Notification as JSON, or
// the webhook's body template rendered with its fields.
func (s *Server) notify(ctx context.Context, team string, a *Alert, n Notification, sender *webhook.Sender) webhook.Result {
	res, err := s.opts.Store.Get(ctx, team, kindWebhook, a.Channel.WebhookID)
	if err != nil {
		return webhook.Result{Err: fmt.Errorf("webhook %s: %w", a.Channel.WebhookID, err)}
	}
	var wh Webhook
	if err := json.Unmarshal(res.Doc, &wh); err != nil {
		return webhook.Result{Err: err}
	}
	body, _ := json.Marshal(n)
	if wh.Body != "" {
		body = []byte(render(wh.Body, n))
	}
	return sender.Send(ctx, wh.URL, wh.Headers, body, n.IdempotencyKey)
}

// render fills an alert's message or a webhook's body with the
// notification's fields (their JSON names: {{.name}}, {{.value}}, …).
func render(text string, n Notification) string {
	var vars map[string]any
	b, _ := json.Marshal(n)
	_ = json.Unmarshal(b, &vars)
	return alerttemplate.Render(text, vars)
}

func (s *Server) queryTimeout() time.Duration {
	if s.opts.QueryTimeout > 0 {
		return s.opts.QueryTimeout
	}
	return time.Minute
}

// historyHandler answers GET /api/v2/alerts/{id}/history: evaluations and
// delivery outcomes, newest first.
func (s *Server) historyHandler(r *http.Request) result {
	ctx, team, id := r.Context(), teamOf(r.Context()), r.PathValue("id")
	if _, err := s.opts.Store.Get(ctx, team, kindAlert, id); err != nil {
		return failed(kindAlert, err)
	}
	limit, offset, err := paging(r)
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	evs, err := s.opts.Store.History(ctx, team, id, limit, offset)
	if err != nil {
		return failed(kindAlert, err)
	}
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		out = append(out, map[string]any{"windowStart": e.WindowStart.UnixMilli(), "windowEnd": e.WindowEnd.UnixMilli(),
			"state": e.State, "previousState": e.PreviousState, "value": e.Value, "group": e.Group, "notified": e.Notified,
			"deliveryAttempts": e.DeliveryAttempts, "deliveryError": e.DeliveryError, "idempotencyKey": e.IdempotencyKey,
			"evaluatedAt": e.EvaluatedAt.UnixMilli()})
	}
	return ok(http.StatusOK, out, map[string]any{"limit": limit, "offset": offset})
}

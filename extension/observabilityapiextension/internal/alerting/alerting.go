// Package alerting is the alert scheduler: it evaluates each alert once
// per its interval over the last complete window (a dashboard tile's first
// series, a saved search's count, or an inline alert's own chart), records the evaluation, and on
// OK→ALERT and ALERT→OK delivers a notification to the alert's webhook.
// Replicas sharing one ClickHouse claim each window so one of them
// evaluates it. The extension builds the scheduler beside the REST API;
// the API stores and validates alerts, and applies the rules binding them
// to their dashboards, saved searches and webhooks (bindings.go), which
// live here beside the Alert type.
package alerting

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerttemplate"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/domain/savedsearch"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Alert watches a threshold: on a chart tile's first series (source
// "tile"), on the count of a saved search's events, grouped by groupBy
// (source "saved_search"), or on its own chart (source "inline",
// ChartConfig), as HyperDX's alerts do. Its JSON is HyperDX's
// external alert; the team (teamId) is the API's to add on the way out.
type Alert struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	Message       string  `json:"message"`
	Note          *string `json:"note"`
	DashboardID   string  `json:"dashboardId,omitempty"`
	TileID        string  `json:"tileId,omitempty"`
	SavedSearchID string  `json:"savedSearchId,omitempty"`
	GroupBy       string  `json:"groupBy,omitempty"`
	// ChartConfig is an inline alert's own chart (source "inline"), in
	// the internal dialect (ChartConfig); kept as stored, so that fields
	// this server does not know survive the scheduler's writes.
	ChartConfig json.RawMessage `json:"chartConfig,omitempty"`
	Threshold   *float64        `json:"threshold"`
	// ThresholdMax is the upper bound of a range (between, not_between);
	// other threshold types have none.
	ThresholdMax  *float64 `json:"thresholdMax,omitempty"`
	Interval      string   `json:"interval"`
	Source        string   `json:"source"`
	ThresholdType string   `json:"thresholdType"`
	// NumConsecutiveWindows: the alert fires only when this many windows
	// in a row breach (null: one).
	NumConsecutiveWindows *int `json:"numConsecutiveWindows"`
	// ScheduleOffsetMinutes and ScheduleStartAt shift the windows'
	// alignment, as HyperDX's; at most one is set.
	ScheduleOffsetMinutes *int       `json:"scheduleOffsetMinutes,omitempty"`
	ScheduleStartAt       *time.Time `json:"scheduleStartAt,omitempty"`
	// Channel mirrors Channels[0], for clients that predate several.
	Channel  Channel   `json:"channel"`
	Channels []Channel `json:"channels,omitempty"`
	State    string    `json:"state"`
	Silenced *Silenced `json:"silenced,omitempty"`
	// ExecutionErrors are the last evaluations' failures (a query that
	// failed, a webhook that refused), newest last.
	ExecutionErrors []ExecutionError `json:"executionErrors,omitempty"`
	CreatedAt       time.Time        `json:"createdAt"`
	UpdatedAt       time.Time        `json:"updatedAt"`

	errorsChanged bool // an evaluation added an execution error, to store
}

// ExecutionError is a failed evaluation or delivery, HyperDX's shape.
type ExecutionError struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"` // QUERY_ERROR, WEBHOOK_ERROR, …
	Message   string    `json:"message"`
}

// MarshalJSON writes the timestamp as JavaScript's toISOString does
// (UTC, milliseconds), as HyperDX answers it.
func (e ExecutionError) MarshalJSON() ([]byte, error) {
	type plain ExecutionError
	return json.Marshal(struct {
		plain
		Timestamp string `json:"timestamp"`
	}{plain(e), e.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z")})
}

// The execution error types (HyperDX's AlertErrorType).
const (
	QueryError   = "QUERY_ERROR"
	WebhookError = "WEBHOOK_ERROR"
)

// maxExecutionErrors bounds the errors an alert keeps.
const maxExecutionErrors = 10

// AllChannels is where the alert delivers: Channels, or, in a document
// written before there could be several, Channel.
func (a *Alert) AllChannels() []Channel {
	if len(a.Channels) > 0 {
		return a.Channels
	}
	if a.Channel.WebhookID != "" {
		return []Channel{a.Channel}
	}
	return nil
}

// ThresholdTypes are HyperDX's comparators: above is "meets or exceeds",
// below "falls below"; between and not_between take thresholdMax.
var ThresholdTypes = []string{"above", "below", "above_exclusive", "below_or_equal", "equal", "not_equal", "between", "not_between"}

// IsRange reports whether a threshold type compares with a range.
func IsRange(thresholdType string) bool {
	return thresholdType == "between" || thresholdType == "not_between"
}

// Breaches reports whether v crosses the alert's threshold.
func (a *Alert) Breaches(v float64) bool {
	t := *a.Threshold
	hi := t
	if a.ThresholdMax != nil {
		hi = *a.ThresholdMax
	}
	switch a.ThresholdType {
	case "above":
		return v >= t
	case "above_exclusive":
		return v > t
	case "below":
		return v < t
	case "below_or_equal":
		return v <= t
	case "equal":
		return v == t
	case "not_equal":
		return v != t
	case "between":
		return v >= t && v <= hi
	case "not_between":
		return v < t || v > hi
	}
	return false
}

// worse reports whether v is further into (or toward) a breach than w,
// to pick the value a notification reports among groups.
func (a *Alert) worse(v, w float64) bool {
	switch a.ThresholdType {
	case "below", "below_or_equal":
		return v < w
	case "equal", "between":
		return false // any breaching group says as much
	}
	return v > w
}

// windows is how many consecutive windows must breach.
func (a *Alert) windows() int {
	if a.NumConsecutiveWindows != nil && *a.NumConsecutiveWindows > 1 {
		return *a.NumConsecutiveWindows
	}
	return 1
}

// Silenced mutes an alert's notifications until a time (HyperDX's
// alert.silenced): it is still evaluated, its state and history kept, so
// the list and the history say what happened while nobody was told.
type Silenced struct {
	By    string    `json:"by"`
	At    time.Time `json:"at"`
	Until time.Time `json:"until"`
}

// Muted reports whether the alert's notifications are held at now.
func (a *Alert) Muted(now time.Time) bool { return a.Silenced != nil && now.Before(a.Silenced.Until) }

// Channel is where an alert is delivered.
type Channel struct {
	Type      string `json:"type"`
	WebhookID string `json:"webhookId"`
}

// Options are the scheduler's settings and the parts it reads through.
type Options struct {
	Store   *store.Store
	Sources *sources.Catalog
	DB      *sql.DB // runs the alerts' queries
	// QueryTimeout bounds each query; Workers bounds the alerts evaluated
	// (and delivered) at once.
	QueryTimeout time.Duration
	Workers      int
	// ClaimSettle is the wait between claiming a window and reading who
	// won (store.ClaimWindow); Replica names this scheduler among those
	// sharing the store (empty: a random name, one per scheduler).
	ClaimSettle time.Duration
	Replica     string
	Logger      *zap.Logger
	// Sealer opens the webhooks' sealed headers.
	Sealer *keys.Sealer
}

// Scheduler evaluates due alerts (EvaluateDue, called every check
// interval). The extension builds it beside the REST API, over the same
// store, sources and connection.
type Scheduler struct {
	o    Options
	runs runs
}

// New returns a scheduler; Workers 0 means 8, QueryTimeout 0 a minute.
func New(o Options) *Scheduler {
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Replica == "" {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		o.Replica = hex.EncodeToString(b)
	}
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = time.Minute
	}
	return &Scheduler{o: o, runs: runs{running: map[string]bool{}, slots: make(chan struct{}, o.Workers)}}
}

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
	ThresholdMax   *float64 `json:"thresholdMax,omitempty"`
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
type runs struct {
	mu      sync.Mutex
	running map[string]bool // alert ids
	slots   chan struct{}
}

// claim marks the alert as being evaluated, unless it already is (by an
// earlier pass still delivering).
func (r *runs) claim(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[id] {
		return false
	}
	r.running[id] = true
	return true
}

func (r *runs) release(id string) {
	r.mu.Lock()
	delete(r.running, id)
	r.mu.Unlock()
}

// EvaluateDue evaluates, for every team's alerts, the last complete window
// of each alert's interval that no replica has evaluated yet, Workers
// at a time; an alert still being evaluated by an earlier call is left to
// it. Replicas racing on a window claim it and one evaluates it
// (store.ClaimWindow); a notification carries an idempotency key (alert id
// and window start) all the same, for receivers that retry.
func (s *Scheduler) EvaluateDue(ctx context.Context, now time.Time, sender *webhook.Sender) error {
	owned, err := s.o.Store.All(ctx, store.KindAlert)
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

func (s *Scheduler) evaluate(ctx context.Context, team string, a *Alert, now time.Time, sender *webhook.Sender) error {
	iv, ok := intervalDurations[a.Interval]
	if !ok || a.Threshold == nil {
		return fmt.Errorf("interval %q or threshold invalid", a.Interval)
	}
	end, due := a.windowEnd(now.UTC(), iv)
	if !due {
		return nil
	}
	start := end.Add(-iv)
	if done, err := s.o.Store.Evaluated(ctx, a.ID, start); err != nil || done {
		return err
	}
	// Replicas sharing this state evaluate the window once: the one whose
	// claim is earliest.
	if won, err := s.o.Store.ClaimWindow(ctx, a.ID, start, s.o.Replica, s.o.ClaimSettle); err != nil || !won {
		return err
	}
	value, group, hasData, breach, err := s.measure(ctx, team, a, start, end, iv)
	if err != nil {
		// Said on the alert, as HyperDX's executionErrors, then returned.
		s.recordError(ctx, team, a, now, QueryError, err)
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
	ev := store.Evaluation{
		TeamID: team, AlertID: a.ID, WindowStart: start, WindowEnd: end, State: state, PreviousState: prev,
		Value: value, Group: fmt.Sprint(group), IdempotencyKey: key, EvaluatedAt: time.Now().UTC(),
	}
	if (state == StateAlert && prev != StateAlert) || (state == StateOK && prev == StateAlert) {
		n := Notification{
			AlertID: a.ID, Name: a.title(), State: state, PreviousState: prev, Value: value, Threshold: *a.Threshold,
			ThresholdType: a.ThresholdType, WindowStart: start.UnixMilli(), WindowEnd: end.UnixMilli(), Group: group,
			DashboardID: a.DashboardID, TileID: a.TileID, SavedSearchID: a.SavedSearchID, IdempotencyKey: key,
		}
		n.Message = render(a.Message, n)
		if a.ThresholdMax != nil {
			n.ThresholdMax = a.ThresholdMax
		}
		if a.Muted(now) {
			// Held by the team's choice: the history says so.
			ev.DeliveryError = "muted until " + a.Silenced.Until.UTC().Format(time.RFC3339)
		} else {
			res := s.notify(ctx, team, a, n, sender)
			ev.Notified, ev.DeliveryAttempts = res.Err == nil, res.Attempts
			if res.Err != nil {
				ev.DeliveryError = res.Err.Error()
				a.addError(now, WebhookError, res.Err)
				s.o.Logger.Warn("alert notification not delivered", zap.String("alert", a.ID), zap.Int("attempts", res.Attempts), zap.Error(res.Err))
			}
		}
	}
	if err := s.o.Store.AddEvaluation(ctx, ev); err != nil {
		return err
	}
	if state != prev || a.errorsChanged {
		a.State = state
		b, _ := json.Marshal(a)
		return s.o.Store.Put(ctx, team, store.KindAlert, a.ID, b, a.CreatedAt, time.Now())
	}
	return nil
}

// measure runs the alert's query over the window and, when the alert
// wants several consecutive windows, the ones before it: one bucket per
// window, maybe several groups. A group breaches when every one of those
// windows does; the reported value is the window's own, of the most
// extreme breaching group (or, with no breach, the most extreme one).
func (s *Scheduler) measure(ctx context.Context, team string, a *Alert, start, end time.Time, iv time.Duration) (*float64, []string, bool, bool, error) {
	m, err := s.watched(ctx, team, a)
	if err != nil {
		return nil, nil, false, false, err
	}
	src, err := s.o.Sources.Get(ctx, team, m.sourceID)
	if err != nil {
		return nil, nil, false, false, err
	}
	series, err := m.series(src)
	if err != nil {
		return nil, nil, false, false, err
	}
	combine := m.combine
	n := a.windows()
	from := start.Add(-time.Duration(n-1) * iv)
	points, err := charts.Run(ctx, s.o.DB, series, from, end, iv, s.o.QueryTimeout)
	if err != nil {
		return nil, nil, false, false, err
	}
	if combine != nil {
		for i := range points {
			points[i].Values = []*float64{combine(points[i].Values)}
		}
	}
	value, group, hasData, breach := a.judge(points, start, iv)
	return value, group, hasData, breach, nil
}

// judge reads a query's points (buckets of iv, the last one starting at
// start) as the alert's verdict on its last window: the value reported,
// its group, whether the window had data, whether it breached.
func (a *Alert) judge(points []charts.Point, start time.Time, iv time.Duration) (*float64, []string, bool, bool) {
	n := a.windows()
	first := start.Add(-time.Duration(n-1) * iv).UnixMilli()
	last := start.UnixMilli()
	type run struct {
		group    []string
		breached int // windows in range that breach
		value    *float64
	}
	runs := map[string]*run{}
	var order []string
	for _, p := range points {
		if p.Bucket < first || p.Bucket > last {
			continue
		}
		k := fmt.Sprint(p.Group)
		r := runs[k]
		if r == nil {
			r = &run{group: p.Group}
			runs[k] = r
			order = append(order, k)
		}
		v := p.Values[0]
		if v == nil {
			continue
		}
		if a.Breaches(*v) {
			r.breached++
		}
		if p.Bucket == last {
			r.value = v
		}
	}
	var best *float64
	var bestGroup []string
	breach, hasData := false, false
	for _, k := range order {
		r := runs[k]
		if r.value == nil {
			continue
		}
		hasData = true
		b := r.breached >= n && a.Breaches(*r.value)
		better := best == nil || a.worse(*r.value, *best)
		if (b && !breach) || (b == breach && better) {
			best, bestGroup, breach = r.value, r.group, b || breach
		}
	}
	return best, bestGroup, hasData, breach
}

// windowEnd is the end of the last complete window at now: windows
// follow one another from the alert's scheduleStartAt, or from the epoch
// shifted by scheduleOffsetMinutes. Before its start, no window is due.
func (a *Alert) windowEnd(now time.Time, iv time.Duration) (time.Time, bool) {
	anchor := time.Unix(0, 0).UTC()
	switch {
	case a.ScheduleStartAt != nil:
		anchor = a.ScheduleStartAt.UTC()
		if now.Before(anchor.Add(iv)) {
			return time.Time{}, false
		}
	case a.ScheduleOffsetMinutes != nil:
		anchor = anchor.Add(time.Duration(*a.ScheduleOffsetMinutes) * time.Minute)
	}
	return anchor.Add(now.Sub(anchor) / iv * iv), true
}

// addError keeps an execution error on the alert, the newest
// maxExecutionErrors.
func (a *Alert) addError(now time.Time, kind string, err error) {
	a.ExecutionErrors = append(a.ExecutionErrors, ExecutionError{Timestamp: now.UTC(), Type: kind, Message: err.Error()})
	if len(a.ExecutionErrors) > maxExecutionErrors {
		a.ExecutionErrors = a.ExecutionErrors[len(a.ExecutionErrors)-maxExecutionErrors:]
	}
	a.errorsChanged = true
}

// recordError stores an execution error on the alert; failing to is
// logged, the evaluation's own error being the one returned.
func (s *Scheduler) recordError(ctx context.Context, team string, a *Alert, now time.Time, kind string, err error) {
	a.addError(now, kind, err)
	b, _ := json.Marshal(a)
	if perr := s.o.Store.Put(ctx, team, store.KindAlert, a.ID, b, a.CreatedAt, time.Now()); perr != nil && s.o.Logger != nil {
		s.o.Logger.Warn("alert execution error not recorded", zap.String("alert", a.ID), zap.Error(perr))
	}
}

// watched is what an alert measures (measured): its tile's chart as the
// tile draws it (tileMeasured), the count of its saved search's events
// grouped by the alert's groupBy, or its inline chart (inlineMeasured).
func (s *Scheduler) watched(ctx context.Context, team string, a *Alert) (measured, error) {
	switch a.Source {
	case "inline":
		return inlineMeasured(a.ChartConfig)
	case "saved_search":
		res, err := s.o.Store.Get(ctx, team, store.KindSavedSearch, a.SavedSearchID)
		if err != nil {
			return measured{}, fmt.Errorf("saved search %s: %w", a.SavedSearchID, err)
		}
		var ss savedsearch.SavedSearch
		if err := json.Unmarshal(res.Doc, &ss); err != nil {
			return measured{}, err
		}
		return measured{sourceID: ss.Source, items: []item{{series: charts.Series{
			AggFn: "count", Where: ss.Where, WhereLanguage: ss.WhereLanguage,
			GroupBy: query.SplitList(a.GroupBy),
		}}}}, nil
	}
	d, err := s.o.Store.Get(ctx, team, store.KindDashboard, a.DashboardID)
	if err != nil {
		return measured{}, err
	}
	dash, err := dashboards.Decode(d.Doc)
	if err != nil {
		return measured{}, err
	}
	tile, ok := dash.Tile(a.TileID)
	if !ok {
		return measured{}, fmt.Errorf("tile %s is gone", a.TileID)
	}
	m, err := tileMeasured(&tile.Config)
	if err != nil {
		return measured{}, fmt.Errorf("tile %s: %w", a.TileID, err)
	}
	return m, nil
}

// notify delivers to each of the alert's webhooks; the result is the
// first failure's (attempts summed), or success.
func (s *Scheduler) notify(ctx context.Context, team string, a *Alert, n Notification, sender *webhook.Sender) webhook.Result {
	var out webhook.Result
	for _, c := range a.AllChannels() {
		res := s.deliver(ctx, team, c.WebhookID, n, sender)
		out.Attempts += res.Attempts
		if res.Err != nil && out.Err == nil {
			out.Err = res.Err
		}
	}
	return out
}

// SendTest delivers a sample notification to one of the team's webhooks
// exactly as an alert's would go (its body template, its sealed headers
// and query parameters), so a team sees its receiver's answer before an
// alert depends on it. A webhook the team does not have is
// store.ErrNotFound, in Result.Err.
func (s *Scheduler) SendTest(ctx context.Context, team, webhookID string, now time.Time, sender *webhook.Sender) webhook.Result {
	value := 42.0
	n := Notification{
		AlertID: "test", Name: "Test notification", Message: "A test of this webhook, sent from otelhouse: no alert fired.",
		State: StateAlert, PreviousState: StateOK, Value: &value, Threshold: 10, ThresholdType: "above",
		WindowStart: now.Add(-time.Minute).UnixMilli(), WindowEnd: now.UnixMilli(), Group: []string{},
		IdempotencyKey: "test-" + strconv.FormatInt(now.UnixNano(), 36),
	}
	return s.deliver(ctx, team, webhookID, n, sender)
}

// deliver posts a notification to a webhook: the Notification as JSON,
// or the webhook's body template rendered with its fields.
func (s *Scheduler) deliver(ctx context.Context, team, webhookID string, n Notification, sender *webhook.Sender) webhook.Result {
	res, err := s.o.Store.Get(ctx, team, store.KindWebhook, webhookID)
	if err != nil {
		return webhook.Result{Err: fmt.Errorf("webhook %s: %w", webhookID, err)}
	}
	var wh struct {
		URL string `json:"url"`
		// Headers are in clear only in a document written before
		// headers were sealed and not yet rewritten (api.SealWebhookHeaders).
		Headers map[string]string `json:"headers"`
		Sealed  string            `json:"sealedHeaders"`
		Query   string            `json:"sealedQueryParams"`
		Body    string            `json:"body"`
	}
	if err := json.Unmarshal(res.Doc, &wh); err != nil {
		return webhook.Result{Err: err}
	}
	if wh.Sealed != "" {
		if wh.Headers, err = webhook.OpenHeaders(s.o.Sealer, team, res.ID, wh.Sealed); err != nil {
			return webhook.Result{Err: err}
		}
	}
	if wh.Query != "" {
		params, err := webhook.OpenHeaders(s.o.Sealer, team, webhook.QueryParamsID(res.ID), wh.Query)
		if err != nil {
			return webhook.Result{Err: err}
		}
		if wh.URL, err = webhook.WithQueryParams(wh.URL, params); err != nil {
			return webhook.Result{Err: err}
		}
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

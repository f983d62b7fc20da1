package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// The scheduler's states and notification, as the tests read them.
const (
	StateOK    = alerting.StateOK
	StateAlert = alerting.StateAlert
)

type Notification = alerting.Notification

// receiver is a real HTTP webhook receiver that can fail on purpose.
type receiver struct {
	mu       sync.Mutex
	got      []Notification
	auth     []string
	failNext atomic.Int32
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rc.failNext.Load() > 0 {
		rc.failNext.Add(-1)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var n Notification
	_ = json.Unmarshal(b, &n)
	rc.mu.Lock()
	rc.got = append(rc.got, n)
	rc.auth = append(rc.auth, r.Header.Get("X-Token")+"|"+r.Header.Get("Idempotency-Key"))
	rc.mu.Unlock()
}

func (rc *receiver) notifications() []Notification {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Notification(nil), rc.got...)
}

// alertTable makes api_alerts.<table> (ts, level, svc), empty; the
// function it returns inserts n events a second apart from the start of
// minute of the hour starting at m0.
func alertTable(t *testing.T, table string, m0 time.Time) func(minute int, level, svc string, n int) {
	t.Helper()
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_alerts",
		"CREATE TABLE IF NOT EXISTS api_alerts." + table + " (ts DateTime64(3), level String, svc String) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_alerts." + table,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	return func(minute int, level, svc string, n int) {
		for i := range n {
			_, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO api_alerts.%s VALUES (fromUnixTimestamp64Milli(%d), '%s', '%s')",
				table, m0.Add(time.Duration(minute)*time.Minute+time.Duration(i)*time.Second).UnixMilli(), level, svc))
			require.NoError(t, err)
		}
	}
}

func TestAlertFiresResolvesAndRetries(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true }) // the receiver is on loopback
	ctx := context.Background()
	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	add := alertTable(t, "logs", m0)
	addErrors := func(minute, n int) { add(minute, "error", "api", n) }
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	defer hook.Close()

	src := item(call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "alert logs", "kind": "log",
		"database": "api_alerts", "table": "logs", "timestampColumn": "ts", "severityColumn": "level", "serviceColumn": "svc",
	}))["id"].(string)
	dash := item(call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), map[string]any{"name": "d", "tiles": []any{
		map[string]any{
			"id": "errors", "name": "errors", "x": 0, "y": 0, "w": 6, "h": 3,
			"config": map[string]any{"source": src, "aggFn": "count", "where": "level:error"},
		},
	}}))["id"].(string)
	wh := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{
		"name": "test", "url": hook.URL,
		"headers": map[string]string{"X-Token": "t0k"},
	}))["id"].(string)
	alert := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
		"name":    "errors spike",
		"message": "{{.state}}: {{.value}} errors", "dashboardId": dash, "tileId": "errors", "threshold": 2, "interval": "1m",
		"source": "tile", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
	})
	require.Equal(t, http.StatusOK, alert.status, alert.body)
	alertID := item(alert)["id"].(string)

	srv := fx.alerts
	sender := webhook.New(webhook.Options{Attempts: 4, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }

	// Minute 0: 3 errors > 2 → exactly one fire, even evaluated twice.
	addErrors(0, 3)
	require.NoError(t, srv.EvaluateDue(ctx, at(0), sender))
	require.NoError(t, srv.EvaluateDue(ctx, at(0), sender))
	got := rc.notifications()
	require.Len(t, got, 1)
	assert.Equal(t, StateAlert, got[0].State)
	assert.Equal(t, 3.0, *got[0].Value)
	assert.Equal(t, "ALERT: 3 errors", got[0].Message)
	assert.Equal(t, m0.UnixMilli(), got[0].WindowStart)
	assert.Equal(t, alertID+":"+fmt.Sprint(m0.UnixMilli()), got[0].IdempotencyKey)
	assert.Equal(t, "t0k|"+got[0].IdempotencyKey, rc.auth[0], "webhook headers and the idempotency key are sent")

	// Minute 1: still above, no new notification.
	addErrors(1, 4)
	require.NoError(t, srv.EvaluateDue(ctx, at(1), sender))
	assert.Len(t, rc.notifications(), 1)

	// Minute 2: back to 1 error → exactly one resolve.
	addErrors(2, 1)
	require.NoError(t, srv.EvaluateDue(ctx, at(2), sender))
	got = rc.notifications()
	require.Len(t, got, 2)
	assert.Equal(t, StateOK, got[1].State)
	assert.Equal(t, StateAlert, got[1].PreviousState)

	// Minute 3: fires while the receiver fails twice → retried, delivered once.
	addErrors(3, 5)
	rc.failNext.Store(2)
	require.NoError(t, srv.EvaluateDue(ctx, at(3), sender))
	got = rc.notifications()
	require.Len(t, got, 3)
	assert.Equal(t, StateAlert, got[2].State)

	h := call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+alertID+"/history", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, h.status, h.body)
	hist := h.body["data"].([]any)
	require.Len(t, hist, 4, "one evaluation per window")
	last := hist[0].(map[string]any)
	assert.Equal(t, "ALERT", last["state"])
	assert.Equal(t, true, last["notified"])
	assert.Equal(t, float64(3), last["deliveryAttempts"], "two failures then success")
	assert.Equal(t, "ALERT", item(call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+alertID, bearer(fx.keyA), nil))["state"])
	assert.True(t, strings.HasPrefix(hist[3].(map[string]any)["idempotencyKey"].(string), alertID+":"))
}

// A webhook that hangs holds up its own alert only: the other alerts of
// the pass are delivered meanwhile, and the next pass evaluates them
// again while the hung one is left in flight. Before, passes were one
// alert after another, so one dead webhook (attempts × timeout, over a
// minute as shipped) delayed every team's alerts and made them skip
// windows.
func TestSlowWebhookHoldsUpOnlyItsAlert(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	db := chtest.DB(t)
	ctx := context.Background()
	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS api_alerts",
		"CREATE TABLE IF NOT EXISTS api_alerts.slow (ts DateTime64(3), level String) ENGINE = MergeTree ORDER BY ts",
		"TRUNCATE TABLE api_alerts.slow",
		fmt.Sprintf("INSERT INTO api_alerts.slow SELECT fromUnixTimestamp64Milli(%d + number * 20000), 'error' FROM numbers(6)", m0.UnixMilli()),
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	release := make(chan struct{})
	var hung atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		hung.Add(1)
		<-release
	}))
	defer slow.Close()
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	rc := &receiver{}
	good := httptest.NewServer(rc)
	defer good.Close()

	src := item(call(t, http.MethodPost, fx.url+"/api/v2/sources", bearer(fx.keyA), map[string]any{
		"name": "slow", "kind": "log",
		"database": "api_alerts", "table": "slow", "timestampColumn": "ts", "severityColumn": "level",
	}))["id"].(string)
	dash := item(call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), map[string]any{"name": "d", "tiles": []any{
		map[string]any{
			"id": "errors", "name": "errors", "x": 0, "y": 0, "w": 6, "h": 3,
			"config": map[string]any{"source": src, "aggFn": "count", "where": "level:error"},
		},
	}}))["id"].(string)
	alertTo := func(name, url string) string {
		wh := item(call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": name, "url": url}))["id"].(string)
		a := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
			"name": name, "dashboardId": dash,
			"tileId": "errors", "threshold": 2, "interval": "1m", "source": "tile", "thresholdType": "above",
			"channel": map[string]any{"type": "webhook", "webhookId": wh},
		})
		require.Equal(t, http.StatusOK, a.status, a.body)
		return item(a)["id"].(string)
	}
	hungID, goodID := alertTo("hung", slow.URL), alertTo("good", good.URL)
	history := func(id string) []any {
		h := call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+id+"/history", bearer(fx.keyA), nil)
		require.Equal(t, http.StatusOK, h.status, h.body)
		return h.body["data"].([]any)
	}

	srv := fx.alerts
	sender := webhook.New(webhook.Options{Timeout: time.Minute, Attempts: 1, AllowPrivate: true})
	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }
	first := make(chan error, 1)
	go func() { first <- srv.EvaluateDue(ctx, at(0), sender) }()
	require.Eventually(t, func() bool { return len(rc.notifications()) == 1 && hung.Load() == 1 }, 20*time.Second, 20*time.Millisecond,
		"the good alert is delivered while the other's webhook hangs")

	// The good alert may still be recording its first window when the
	// next pass looks; a later pass then takes it. None may wait for the
	// hung webhook.
	require.Eventually(t, func() bool {
		next := make(chan error, 1)
		go func() { next <- srv.EvaluateDue(ctx, at(1), sender) }()
		select {
		case err := <-next:
			return err == nil && len(history(goodID)) == 2
		case <-time.After(10 * time.Second):
			return false // the pass waited for the hung webhook
		}
	}, 30*time.Second, 50*time.Millisecond, "the good alert is evaluated in the next window while the other's webhook hangs")
	assert.Empty(t, history(hungID), "the hung alert is still in its first evaluation, not started twice")
	assert.Equal(t, int32(1), hung.Load())

	close(release)
	released = true
	require.NoError(t, <-first)
	h := history(hungID)
	require.Len(t, h, 1)
	assert.Equal(t, true, h[0].(map[string]any)["notified"])
}

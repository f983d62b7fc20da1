package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Two API instances on one ClickHouse, as two collectors behind a load
// balancer: what one writes the other reads, a key rotated through one is
// refused by both within the key caches' refresh, and an alert window
// evaluated by both at once fires once.
func TestTwoReplicasShareState(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.AllowPrivateWebhooks = true })
	ctx := context.Background()
	st2, err := store.Open(ctx, chtest.DB(t), fx.state)
	require.NoError(t, err)
	opts2 := fx.server.opts
	opts2.Store = st2
	second := New(opts2)
	// Each collector runs its own scheduler beside its API.
	schedulers := []*alerting.Scheduler{newScheduler(fx.server.opts, 300*time.Millisecond), newScheduler(opts2, 300*time.Millisecond)}
	ts2 := httptest.NewServer(second)
	t.Cleanup(ts2.Close)

	d := call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), dashboard("written through one"))
	require.Equal(t, http.StatusOK, d.status)
	r := call(t, http.MethodGet, ts2.URL+"/api/v2/dashboards/"+item(d)["id"].(string), bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, r.status, "read through the other")
	assert.Equal(t, "written through one", item(r)["name"])

	// One window, evaluated by both replicas at the same moment.
	m0 := time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)
	add := alertTable(t, "replica_logs", m0)
	rc, ss, wh := errorSearchAndHook(t, fx, "replica_logs")
	a := call(t, http.MethodPost, fx.url+"/api/v2/alerts", bearer(fx.keyA), map[string]any{
		"name": "errors", "source": "saved_search",
		"savedSearchId": ss, "threshold": 1, "interval": "1m", "thresholdType": "above", "channel": map[string]any{"type": "webhook", "webhookId": wh},
	})
	require.Equal(t, http.StatusOK, a.status, a.body)
	sender := webhook.New(webhook.Options{Attempts: 2, Backoff: 5 * time.Millisecond, AllowPrivate: true})
	add(0, "error", "api", 1) // minute 0 breaches, minute 1 does not, minute 2 does: fire, resolve, fire
	add(2, "error", "api", 1)
	for minute := range 3 {
		at := m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second)
		var wg sync.WaitGroup
		for _, s := range schedulers {
			wg.Go(func() { assert.NoError(t, s.EvaluateDue(ctx, at, sender)) })
		}
		wg.Wait()
	}
	got := rc.notifications()
	require.Len(t, got, 3, "fire, resolve, fire: each window once, though both replicas evaluated each")
	assert.Equal(t, []string{StateAlert, StateOK, StateAlert}, []string{got[0].State, got[1].State, got[2].State})
	h := call(t, http.MethodGet, ts2.URL+"/api/v2/alerts/"+item(a)["id"].(string)+"/history", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, h.status)
	assert.Len(t, h.body["data"], 3, "one evaluation per window")

	// A key rotated through one replica is refused by both.
	rot := call(t, http.MethodPost, fx.url+"/api/v2/keys/personal/rotate", bearer(fx.keyA), nil)
	require.Equal(t, http.StatusOK, rot.status, rot.body)
	fresh := item(rot)["key"].(string)
	assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, fx.url+"/api/v2/sources", bearer(fx.keyA), nil).status, "at once on the replica that rotated it")
	assert.Eventually(t, func() bool {
		return call(t, http.MethodGet, ts2.URL+"/api/v2/sources", bearer(fx.keyA), nil).status == http.StatusUnauthorized
	}, 10*time.Second, 100*time.Millisecond, "within the key cache's refresh on the other")
	assert.Eventually(t, func() bool {
		return call(t, http.MethodGet, ts2.URL+"/api/v2/sources", bearer(fresh), nil).status == http.StatusOK
	}, 10*time.Second, 100*time.Millisecond, "and the new key works on both")
}

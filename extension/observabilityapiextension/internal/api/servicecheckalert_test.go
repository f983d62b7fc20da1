package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 45: a Datadog service check monitor, imported, fires on the
// gauge the receiver stores of /api/v1/check_run (the check's name,
// 0 OK … 2 critical, host as host.name, tags as attributes), per group
// of its .by(…) and within its .over(…); its warning threshold is a
// second alert, firing on a warning or worse.
func TestImportedServiceCheckMonitorFires(t *testing.T) {
	mi := setupMonitorImport(t, "checks_gauge")
	fx, db, rc, sender := mi.fx, mi.db, mi.hook, mi.sender
	ctx := context.Background()
	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// run inserts a check run of redis.can_connect as the receiver stores
	// it, at a second of a minute after m0.
	run := func(minute, sec int, host, port string, status int) {
		_, err := db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO api_alerts.checks_gauge VALUES ({'host.name':'%s'},'','redis.can_connect',{'port':'%s','env':'prod'},'%s',%d)`,
			host, port, m0.Add(time.Duration(minute)*time.Minute+time.Duration(sec)*time.Second).Format(time.DateTime), status))
		require.NoError(t, err)
	}
	monitor := map[string]any{
		"type": "service check", "name": "[Redis] cannot connect", "message": "{{#is_alert}}Redis is down{{/is_alert}}",
		"query":   `"redis.can_connect".over("port:6379").by("host").last(2).count_by_status()`,
		"options": map[string]any{"thresholds": map[string]any{"critical": 1, "ok": 1, "warning": 1}},
	}
	r := call(t, http.MethodPost, mi.url, bearer(fx.keyA), monitor)
	require.Equal(t, http.StatusOK, r.status, r.body)
	a := item(r)
	assert.Equal(t, 1.0, a["threshold"])
	assert.Equal(t, "above_exclusive", a["thresholdType"])
	assert.Equal(t, "1m", a["interval"])
	report := r.body["report"].(map[string]any)
	assert.Equal(t, map[string]any{"imported": 1.0, "approximated": 2.0, "skipped": 0.0}, report["summary"], report["items"])
	require.Len(t, r.body["alerts"], 2)
	warning := r.body["alerts"].([]any)[1].(map[string]any)
	assert.Equal(t, "[Redis] cannot connect (warning)", warning["name"])
	assert.Equal(t, 0.0, warning["threshold"])

	at := func(minute int) time.Time { return m0.Add(time.Duration(minute+1)*time.Minute + 5*time.Second) }

	// Minute 0: both hosts OK, and another port's check critical (not
	// watched) → OK, nothing sent.
	for _, sec := range []int{0, 15, 30, 45} {
		run(0, sec, "db-1", "6379", 0)
		run(0, sec, "db-2", "6379", 0)
		run(0, sec, "db-2", "6380", 2)
	}
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(0), sender))
	assert.Empty(t, rc.notifications())
	assert.Equal(t, StateOK, item(call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+a["id"].(string), bearer(fx.keyA), nil))["state"])

	// Minute 1: db-2 fails one run (critical) → ALERT for db-2.
	for _, sec := range []int{0, 15, 30, 45} {
		run(1, sec, "db-1", "6379", 0)
		run(1, sec, "db-2", "6379", map[bool]int{true: 2, false: 0}[sec == 30])
	}
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(1), sender))
	got := named(rc.notifications(), "[Redis] cannot connect")
	require.Len(t, got, 1)
	assert.Equal(t, StateAlert, got[0].State)
	assert.Equal(t, 2.0, *got[0].Value)
	assert.Equal(t, []string{"db-2"}, got[0].Group)
	assert.Equal(t, "Redis is down", got[0].Message)

	for _, sec := range []int{0, 15, 30, 45} {
		run(2, sec, "db-1", "6379", 1)
		run(2, sec, "db-2", "6379", 0)
	}
	warned := named(rc.notifications(), "[Redis] cannot connect (warning)")
	require.Len(t, warned, 1, "critical is worse than a warning")
	assert.Equal(t, []string{"db-2"}, warned[0].Group)

	// Minute 2: a warning is not critical → resolved; the warning's
	// alert keeps firing (db-1 warns).
	require.NoError(t, fx.alerts.EvaluateDue(ctx, at(2), sender))
	got = named(rc.notifications(), "[Redis] cannot connect")
	require.Len(t, got, 2)
	assert.Equal(t, StateOK, got[1].State)
	assert.Len(t, named(rc.notifications(), "[Redis] cannot connect (warning)"), 1)
}

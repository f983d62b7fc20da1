package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// named are the notifications of the alert named name.
func named(ns []Notification, name string) []Notification {
	var out []Notification
	for _, n := range ns {
		if n.Name == name {
			out = append(out, n)
		}
	}
	return out
}

// Issue 45: Datadog anomaly and forecast monitors, imported, fire with
// the scheduler: the anomaly monitor once a host's CPU leaves its band
// for the whole alert window, the forecast monitor (and its warning
// threshold's alert) on a disk filling up within the week.
func TestImportedAlgorithmMonitorsFire(t *testing.T) {
	mi := setupMonitorImport(t, "algo_gauge")
	fx, db, rc, importURL, sender := mi.fx, mi.db, mi.hook, mi.url, mi.sender
	ctx := context.Background()
	m0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// Every minute from two hours before m0 to 15 minutes after: CPU of
	// hosts a and b about 20 (±1), host a at 90 from m0; the disk 0.5
	// rising 0.01 an hour.
	var rows []string
	for i := -120; i < 15; i++ {
		at := m0.Add(time.Duration(i) * time.Minute).Format(time.DateTime)
		a, b := 20+float64((i+300)%3-1), 20+float64((i+301)%3-1)
		if i >= 0 {
			a = 90
		}
		rows = append(rows,
			fmt.Sprintf("({'host.name':'a'},'','system.cpu.user',{},'%s',%v)", at, a),
			fmt.Sprintf("({'host.name':'b'},'','system.cpu.user',{},'%s',%v)", at, b),
			fmt.Sprintf("({'host.name':'a'},'','system.disk.in_use',{'device':'sda'},'%s',%v)", at, 0.5+0.01*float64(i+120)/60))
	}
	_, err := db.ExecContext(ctx, "INSERT INTO api_alerts.algo_gauge VALUES "+strings.Join(rows, ","))
	require.NoError(t, err)
	anomaly := call(t, http.MethodPost, importURL, bearer(fx.keyA), map[string]any{
		"type": "query alert", "name": "[CPU] anomalous", "message": "{{#is_alert}}CPU is anomalous on {{host.name}}{{/is_alert}}",
		"query":   "avg(last_4h):anomalies(avg:system.cpu.user{*} by {host}, 'basic', 2, direction='above', alert_window='last_15m', interval=60, count_default_zero='true') >= 1",
		"options": map[string]any{"thresholds": map[string]any{"critical": 1, "critical_recovery": 0}, "threshold_windows": map[string]any{"trigger_window": "last_15m"}},
	})
	require.Equal(t, http.StatusOK, anomaly.status, anomaly.body)
	a := item(anomaly)
	assert.Equal(t, "15m", a["interval"])
	assert.Equal(t, "above", a["thresholdType"])
	assert.Len(t, anomaly.body["alerts"], 1)

	forecast := call(t, http.MethodPost, importURL, bearer(fx.keyA), map[string]any{
		"type": "query alert", "name": "[Disk] full within the week", "message": "{{#is_alert}}disk full soon{{/is_alert}}{{#is_warning}}disk filling{{/is_warning}}",
		"query":   "max(next_1w):forecast(avg:system.disk.in_use{*} by {host,device}, 'linear', 1, interval='5m', history='2h', model='default') >= 2",
		"options": map[string]any{"thresholds": map[string]any{"critical": 2, "warning": 1.5}, "threshold_windows": map[string]any{"trigger_window": "last_15m"}},
	})
	require.Equal(t, http.StatusOK, forecast.status, forecast.body)
	alerts := forecast.body["alerts"].([]any)
	require.Len(t, alerts, 2, "the critical and the warning threshold's alerts")
	assert.Equal(t, 2.0, alerts[0].(map[string]any)["threshold"])
	assert.Equal(t, "[Disk] full within the week (warning)", alerts[1].(map[string]any)["name"])
	assert.Equal(t, 1.5, alerts[1].(map[string]any)["threshold"])
	assert.Equal(t, alerts[0].(map[string]any)["dashboardId"], alerts[1].(map[string]any)["dashboardId"], "one tile watched")
	report := forecast.body["report"].(map[string]any)
	assert.Contains(t, fmt.Sprint(report["items"]), "warning 1.5 is a second alert")

	// The window before m0: the CPU is steady (nothing sent); the disk,
	// at about 0.52 and rising 0.01 an hour, reaches about 2.2 in a week,
	// its upper bound above both thresholds.
	require.NoError(t, fx.alerts.EvaluateDue(ctx, m0.Add(5*time.Second), sender))
	got := rc.notifications()
	assert.Empty(t, named(got, "[CPU] anomalous"))
	assert.Equal(t, StateOK, item(call(t, http.MethodGet, fx.url+"/api/v2/alerts/"+a["id"].(string), bearer(fx.keyA), nil))["state"])
	crit, warn := named(got, "[Disk] full within the week"), named(got, "[Disk] full within the week (warning)")
	require.Len(t, crit, 1)
	require.Len(t, warn, 1)
	assert.Equal(t, "disk full soon", crit[0].Message)
	assert.Equal(t, "disk filling", warn[0].Message)
	assert.InDelta(t, 2.2, *crit[0].Value, 0.05)
	assert.Equal(t, []string{"a", "sda"}, crit[0].Group)

	// The 15 minutes after m0: host a outside its band throughout.
	require.NoError(t, fx.alerts.EvaluateDue(ctx, m0.Add(15*time.Minute+5*time.Second), sender))
	cpu := named(rc.notifications(), "[CPU] anomalous")
	require.Len(t, cpu, 1)
	assert.Equal(t, StateAlert, cpu[0].State)
	assert.Equal(t, 1.0, *cpu[0].Value)
	assert.Equal(t, []string{"a"}, cpu[0].Group)
	assert.Equal(t, "CPU is anomalous on a", cpu[0].Message)
}

package logs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
)

func TestEventsRecords(t *testing.T) {
	b := NewEvents(now)
	b.Add(&Event{
		ID: "7", Title: "Deploy", Text: "v2", Host: "ci-1", Tags: []string{"env:prod", "team:core"},
		AlertType: "user_update", Priority: "normal", RelatedEventID: 3, DeviceName: "sda", Category: "change",
		IntegrationID: "custom-events", Payload: []KeyValue{{"changed_resource.name", "checkout"}},
	})
	b.Add(&Event{Title: "Second on the same resource", Host: "ci-1", Tags: []string{"env:prod", "team:core"}, Time: time.Unix(1_700_000_000, 0)})
	b.Add(&Event{Text: "Other host", Host: "ci-2", AlertType: "error"})
	ld := b.Logs()
	require.Equal(t, 2, ld.ResourceLogs().Len())
	first := ld.ResourceLogs().At(0)
	assert.Equal(t, map[string]any{"host.name": "ci-1", "deployment.environment.name": "prod"}, first.Resource().Attributes().AsRaw())
	records := first.ScopeLogs().At(0).LogRecords()
	require.Equal(t, 2, records.Len())
	lr := records.At(0)
	assert.Equal(t, "Deploy\nv2", lr.Body().Str())
	assert.Equal(t, now.UnixNano(), lr.Timestamp().AsTime().UnixNano(), "no time of its own: received now")
	assert.Equal(t, "user_update", lr.SeverityText())
	assert.Equal(t, plog.SeverityNumberInfo, lr.SeverityNumber(), "alert types with no severity are info")
	assert.Equal(t, map[string]any{
		"event.name": EventName, "datadog.event.id": "7", "datadog.event.title": "Deploy",
		"datadog.event.alert_type": "user_update", "datadog.event.priority": "normal",
		"datadog.event.related_event_id": "3", "datadog.event.device_name": "sda",
		"datadog.event.category": "change", "datadog.event.integration_id": "custom-events",
		"datadog.event.changed_resource.name": "checkout", "team": "core",
	}, lr.Attributes().AsRaw())
	second := records.At(1)
	assert.Equal(t, int64(1_700_000_000), second.Timestamp().AsTime().Unix())
	assert.Equal(t, "info", second.SeverityText())
	third := ld.ResourceLogs().At(1).ScopeLogs().At(0).LogRecords().At(0)
	assert.Equal(t, "Other host", third.Body().Str())
	assert.Equal(t, plog.SeverityNumberError, third.SeverityNumber())
}

package logs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
)

func TestIntakeEvents(t *testing.T) {
	body := `{"apiKey":"","internalHostname":"agent-host","events":{"api":[
	  {"msg_title":"Deploy","msg_text":"v1.2 rolled out","timestamp":1700000000,"priority":"normal","tags":["env:prod","team:core"],"alert_type":"success","aggregation_key":"deploy-1","source_type_name":"jenkins"},
	  {"msg_title":"Disk full","host":"db-1","alert_type":"error"}]}}`
	ld, err := IntakeEvents([]byte(body), now, nil)
	require.NoError(t, err)
	require.Equal(t, 2, ld.LogRecordCount())
	first := ld.ResourceLogs().At(0)
	assert.Equal(t, map[string]any{"host.name": "agent-host", "deployment.environment.name": "prod"}, first.Resource().Attributes().AsRaw())
	lr := first.ScopeLogs().At(0).LogRecords().At(0)
	assert.Equal(t, "Deploy\nv1.2 rolled out", lr.Body().Str())
	assert.Equal(t, int64(1_700_000_000_000_000_000), int64(lr.Timestamp()))
	assert.Equal(t, plog.SeverityNumberInfo, lr.SeverityNumber())
	assert.Equal(t, map[string]any{
		"event.name": EventName, "datadog.event.title": "Deploy", "datadog.event.priority": "normal",
		"datadog.event.alert_type": "success", "datadog.event.aggregation_key": "deploy-1", "datadog.event.source_type_name": "jenkins", "team": "core",
	}, lr.Attributes().AsRaw())
	second := ld.ResourceLogs().At(1)
	assert.Equal(t, "db-1", second.Resource().Attributes().AsRaw()["host.name"])
	assert.Equal(t, plog.SeverityNumberError, second.ScopeLogs().At(0).LogRecords().At(0).SeverityNumber())

	// Host metadata rides the same path and has no events.
	ld, err = IntakeEvents([]byte(`{"internalHostname":"h","systemStats":{"cpuCores":2},"meta":{}}`), now, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, ld.LogRecordCount())
	_, err = IntakeEvents([]byte(`{"events":{"api":[1]}}`), now, nil)
	require.Error(t, err)
	_, err = IntakeEvents([]byte(`{`), now, nil)
	assert.Error(t, err)
}

package datadogreceiver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/consumer/consumertest"
)

func TestEventsAPI(t *testing.T) {
	h := start(t, func(c *Config) { c.APIKeys = []configopaque.String{"k"} }, nil, new(consumertest.LogsSink))

	status, body, _ := h.do(t, http.MethodPost, "/api/v1/events",
		[]byte(`{"title":"Deploy","text":"v1.2","tags":["env:prod"],"alert_type":"success","host":"ci-1"}`), "DD-API-KEY", "k")
	require.Equal(t, http.StatusAccepted, status, body)
	var v1 struct {
		Status string `json:"status"`
		Event  struct {
			ID           int64    `json:"id"`
			IDStr        string   `json:"id_str"`
			Title        string   `json:"title"`
			DateHappened int64    `json:"date_happened"`
			Tags         []string `json:"tags"`
			AlertType    string   `json:"alert_type"`
		} `json:"event"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v1))
	assert.Equal(t, "ok", v1.Status)
	assert.NotZero(t, v1.Event.ID)
	assert.Equal(t, v1.Event.IDStr, json.Number(v1.Event.IDStr).String())
	assert.Equal(t, "Deploy", v1.Event.Title)
	assert.NotZero(t, v1.Event.DateHappened, "an event with no date happened when it was received")
	assert.Equal(t, "success", v1.Event.AlertType)

	status, body, _ = h.do(t, http.MethodPost, "/api/v2/events",
		[]byte(`{"data":{"type":"event","attributes":{"title":"CPU high","category":"alert","attributes":{"status":"error"}}}}`), "DD-API-KEY", "k")
	require.Equal(t, http.StatusAccepted, status, body)
	var v2 struct {
		Data struct {
			Type       string `json:"type"`
			Attributes struct {
				Attributes struct {
					Evt struct{ ID, UID string } `json:"evt"`
				} `json:"attributes"`
			} `json:"attributes"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v2))
	assert.Equal(t, "event", v2.Data.Type)
	assert.NotEmpty(t, v2.Data.Attributes.Attributes.Evt.ID)
	assert.Len(t, v2.Data.Attributes.Attributes.Evt.UID, 36)

	require.Equal(t, 2, h.logs.LogRecordCount())
	first := h.logs.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	id, _ := first.Attributes().Get("datadog.event.id")
	assert.Equal(t, v1.Event.IDStr, id.Str(), "the stored record carries the id the client was given")
	second := h.logs.AllLogs()[1].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	assert.Equal(t, "error", second.SeverityText())

	for _, tc := range []struct{ path, body, key string }{
		{"/api/v1/events", `{"title":"t","text":"x"}`, ""},
		{"/api/v2/events", `{}`, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, _, _ := h.do(t, http.MethodPost, tc.path, []byte(tc.body))
			assert.Equal(t, http.StatusForbidden, status, "%s needs the key", tc.path)
		})
	}
	status, body, _ = h.do(t, http.MethodPost, "/api/v1/events", []byte(`{"text":"no title"}`), "DD-API-KEY", "k")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, body, "event title is required")
	status, body, _ = h.do(t, http.MethodPost, "/api/v2/events", []byte(`{"data":{"type":"event","attributes":{"title":"t","category":"other","attributes":{}}}}`), "DD-API-KEY", "k")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, body, `category "other" is not one of change, alert`)
	assert.Equal(t, 2, h.logs.LogRecordCount(), "refused events are not stored")

	status, body, _ = h.do(t, http.MethodGet, "/api/v1/events", nil, "DD-API-KEY", "k")
	assert.Equal(t, http.StatusMethodNotAllowed, status, "events are written here, not read: %s", body)
}

func TestEventsNeedALogsPipeline(t *testing.T) {
	h := start(t, nil, new(consumertest.TracesSink), nil)
	for _, p := range []string{"/api/v1/events", "/api/v2/events"} {
		status, _, _ := h.do(t, http.MethodPost, p, []byte(`{"title":"t","text":"x"}`))
		assert.Equal(t, http.StatusNotFound, status, p)
	}
}

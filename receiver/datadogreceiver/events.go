package datadogreceiver

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/logs"
)

// eventsHandler serves the events APIs (datadog-api-client's
// EventsApi.CreateEvent, CI integrations, deploy markers): one event per
// request becomes one log record, and the client gets back the id it
// was given, in the version's own answer.
func (r *datadogReceiver) eventsHandler(format string, parse func([]byte, *budget.Budget) (logs.Event, error), answer func(*logs.Event, time.Time) any) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		buf, ok := r.readBody(w, req)
		if !ok {
			return
		}
		defer releaseBody(buf)
		bud := r.budget()
		e, err := parse(buf.Bytes(), bud)
		if err == nil && !bud.Entries(e.EntryCount()) {
			err = bud.Err()
		}
		if err != nil {
			r.refuseDecoded(w, req, err)
			return
		}
		now := time.Now()
		e.ID = strconv.FormatInt(rand.Int64(), 10) //nolint:gosec // an event id, not a secret
		out := logs.NewEvents(now)
		out.Add(&e)
		if !r.consumeLogs(w, req, format, out.Logs()) {
			return
		}
		b, _ := json.Marshal(answer(&e, now))
		writeJSON(w, http.StatusAccepted, b)
	}
}

// eventV1Answer is datadogV1.EventCreateResponse.
func eventV1Answer(e *logs.Event, now time.Time) any {
	id, _ := strconv.ParseInt(e.ID, 10, 64)
	happened := e.Time
	if happened.IsZero() {
		happened = now
	}
	ev := map[string]any{
		"id": id, "id_str": e.ID, "title": e.Title, "text": e.Text,
		"date_happened": happened.Unix(), "tags": e.Tags,
	}
	for k, v := range map[string]string{
		"host": e.Host, "alert_type": e.AlertType, "priority": e.Priority,
		"device_name": e.DeviceName, "source_type_name": e.SourceTypeName,
	} {
		if v != "" {
			ev[k] = v
		}
	}
	return map[string]any{"status": "ok", "event": ev}
}

// eventV2Answer is datadogV2.EventCreateResponsePayload.
func eventV2Answer(e *logs.Event, _ time.Time) any {
	evt := map[string]string{"id": e.ID, "uid": uuid.NewString()}
	return map[string]any{"data": map[string]any{
		"type":       "event",
		"attributes": map[string]any{"attributes": map[string]any{"evt": evt}},
	}}
}

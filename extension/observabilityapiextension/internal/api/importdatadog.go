package api

// The Datadog importers (routes.go): a Datadog dashboard, monitor or
// saved view in, the otelhouse resource out, created through the same
// decode, validation, team limits and store as a POST of it, with the
// importer's report (what was imported as is, approximated or skipped,
// widget by widget) beside it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/otelhouse/otelhouse/internal/domain/importers/datadog"
)

// importSources are the sources imported items read: the team's default
// ones unless the query names others (metricsSourceId, logsSourceId,
// tracesSourceId).
func importSources(r *http.Request) datadog.Sources {
	src := datadog.DefaultSources
	q := r.URL.Query()
	for _, p := range []struct {
		key string
		dst *string
	}{{"metricsSourceId", &src.Metrics}, {"logsSourceId", &src.Logs}, {"tracesSourceId", &src.Traces}} {
		if v := q.Get(p.key); v != "" {
			*p.dst = v
		}
	}
	return src
}

func importFailed(kind string, err error) result {
	if bad := (datadog.Invalid{}); errors.As(err, &bad) {
		return failed(kind, validationError{err})
	}
	return failed(kind, err)
}

// createAs creates v as a POST of kind would, under the caller's team.
func (s *Server) createAs(r *http.Request, kind string, v any) result {
	b, err := json.Marshal(v)
	if err != nil {
		return failed(kind, err)
	}
	r2 := r.Clone(r.Context())
	r2.Body, r2.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	r2.Header.Set("Content-Type", "application/json")
	return s.create(kind)(r2)
}

// idOf reads the id of a created resource from its answer.
func idOf(data any) string {
	b, _ := json.Marshal(data)
	var m struct {
		ID    string `json:"id"`
		OldID string `json:"_id"`
	}
	_ = json.Unmarshal(b, &m)
	if m.ID != "" {
		return m.ID
	}
	return m.OldID
}

func report(items []datadog.Item) map[string]any {
	return map[string]any{"report": map[string]any{"summary": datadog.Summary(items), "items": items}}
}

func (s *Server) importDashboard(r *http.Request) result {
	body, err := readJSON(r, MaxBody)
	if err != nil {
		return failed(kindDashboard, err)
	}
	d, items, err := datadog.ImportDashboard(body, importSources(r))
	if err != nil {
		return importFailed(kindDashboard, err)
	}
	res := s.createAs(r, kindDashboard, d)
	if res.err == nil {
		res.extra = report(items)
	}
	return res
}

func (s *Server) importSavedView(r *http.Request) result {
	body, err := readJSON(r, maxSmallBody)
	if err != nil {
		return failed(kindSaved, err)
	}
	ss, items, err := datadog.ImportSavedView(body, importSources(r))
	if err != nil {
		return importFailed(kindSaved, err)
	}
	res := s.createAs(r, kindSaved, ss)
	if res.err == nil {
		res.extra = report(items)
	}
	return res
}

// importMonitor creates what the monitor watches (a one-tile dashboard or
// a saved search), then the alert on it, delivered to the webhook the
// query names (webhookId, required: an alert is delivered somewhere),
// and a second one for a warning threshold; alerts lists them all. If
// an alert is refused, what was created for it is deleted again.
func (s *Server) importMonitor(r *http.Request) result {
	body, err := readJSON(r, maxSmallBody)
	if err != nil {
		return failed(kindAlert, err)
	}
	webhookID := r.URL.Query().Get("webhookId")
	if webhookID == "" {
		return fail(http.StatusBadRequest, "webhookId is required (as a query parameter): the webhook the imported alert is delivered to")
	}
	m, items, err := datadog.ImportMonitor(body, importSources(r))
	if err != nil {
		return importFailed(kindAlert, err)
	}
	alertBody := func(a datadog.Alert) map[string]any {
		return map[string]any{
			"name": a.Name, "message": a.Message, "threshold": a.Threshold,
			"thresholdType": a.ThresholdType, "interval": a.Interval, "source": a.Source,
			"channel": map[string]any{"type": "webhook", "webhookId": webhookID},
		}
	}
	alerts := []map[string]any{alertBody(m.Alert)}
	if m.Warning != nil {
		alerts = append(alerts, alertBody(*m.Warning))
	}
	var kind string
	var watched result
	if m.Dashboard != nil {
		kind, watched = kindDashboard, s.createAs(r, kindDashboard, m.Dashboard)
		for _, a := range alerts {
			a["dashboardId"], a["tileId"] = idOf(watched.data), m.Alert.TileID
		}
	} else {
		kind, watched = kindSaved, s.createAs(r, kindSaved, m.SavedSearch)
		for _, a := range alerts {
			a["savedSearchId"] = idOf(watched.data)
			if m.Alert.GroupBy != "" {
				a["groupBy"] = m.Alert.GroupBy
			}
		}
	}
	if watched.err != nil {
		return watched
	}
	// The warning threshold's alert, when there is one, after the
	// critical one's; a refusal undoes what was created.
	var first result
	var created []any
	for i, a := range alerts {
		res := s.createAs(r, kindAlert, a)
		if i == 0 {
			first = res
		}
		if res.err != nil {
			team := teamOf(r.Context())
			for _, c := range created {
				_ = s.opts.Store.Delete(r.Context(), team, kindAlert, idOf(c))
			}
			_ = s.opts.Store.Delete(r.Context(), team, kind, idOf(watched.data))
			return res
		}
		created = append(created, res.data)
	}
	res := first
	res.extra = report(items)
	res.extra[map[string]string{kindDashboard: "dashboard", kindSaved: "savedSearch"}[kind]] = watched.data
	res.extra["alerts"] = created
	return res
}

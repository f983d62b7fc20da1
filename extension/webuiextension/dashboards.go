package webuiextension

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Dashboards and alerts are the REST API's documents, read from the same
// store and passed on as the API answers them; their tiles' series run
// through the same chart code as the API's /charts/series and alerts.

func (u *webUI) docs(r *http.Request, c *call, kind string) ([]json.RawMessage, error) {
	items, err := c.st.Store.OfTeam(r.Context(), c.account.TeamID, kind)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
		out = append(out, it.Doc)
	}
	return out, nil
}

// Dashboards are answered as the API answers them: one stored in an
// older shape reads in today's.
func (u *webUI) dashboards(r *http.Request, c *call) (any, error) {
	docs, err := u.docs(r, c, dashboards.Kind)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(docs))
	for i, doc := range docs {
		out[i] = current(doc)
	}
	return out, nil
}

func (u *webUI) dashboard(r *http.Request, c *call) (any, error) {
	res, err := c.st.Store.Get(r.Context(), c.account.TeamID, dashboards.Kind, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return current(res.Doc), nil
}

func current(doc []byte) any {
	if d, err := dashboards.Decode(doc); err == nil {
		return d
	}
	return json.RawMessage(doc)
}

func (u *webUI) alerts(r *http.Request, c *call) (any, error) {
	return u.docs(r, c, store.KindAlert)
}

// alertHistory is an alert's last evaluations, newest first.
func (u *webUI) alertHistory(r *http.Request, c *call) (any, error) {
	id := r.PathValue("id")
	if _, err := c.st.Store.Get(r.Context(), c.account.TeamID, store.KindAlert, id); err != nil {
		return nil, err
	}
	evs, err := c.st.Store.History(r.Context(), c.account.TeamID, id, 50, 0)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		out = append(out, map[string]any{"windowStart": e.WindowStart, "windowEnd": e.WindowEnd, "state": e.State, "value": e.Value,
			"group": e.Group, "notified": e.Notified, "deliveryError": e.DeliveryError})
	}
	return out, nil
}

// series runs one chart series (a tile's) over a range: one line per
// group, every bucket present.
func (u *webUI) series(r *http.Request, c *call) (any, error) {
	var in struct {
		window
		AggFn       string            `json:"aggFn"`
		Field       string            `json:"field"`
		Level       float64           `json:"level"`
		GroupBy     dashboards.Fields `json:"groupBy"`
		Granularity string            `json:"granularity"`
	}
	src, err := u.readWindow(r, c, &in)
	if err != nil {
		return nil, err
	}
	if len(in.GroupBy) > 5 {
		return nil, badRequest("groupBy takes at most 5 fields")
	}
	start, end := time.UnixMilli(in.StartTime).UTC(), time.UnixMilli(in.EndTime).UTC()
	step, err := charts.Bucket(in.Granularity, start, end)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	if end.Sub(start)/step > 10000 {
		return nil, badRequest("the range holds more than 10000 buckets of %s", step)
	}
	ctx, cancel := withTimeout(r, c.st)
	defer cancel()
	points, err := charts.Run(ctx, c.st.DB, []charts.Series{{Source: src.Chart(), AggFn: in.AggFn, Field: in.Field, Level: in.Level,
		Where: in.Where, WhereLanguage: in.WhereLanguage, GroupBy: in.GroupBy}}, start, end, step, c.st.QueryTimeout)
	if err != nil {
		return nil, err
	}
	type line struct {
		Group  []string      `json:"group"`
		Points [][2]*float64 `json:"points"`
	}
	var lines []*line
	byGroup := map[string]*line{}
	for _, p := range points {
		key := ""
		for _, g := range p.Group {
			key += g + "\x00"
		}
		l := byGroup[key]
		if l == nil {
			l = &line{Group: p.Group}
			byGroup[key] = l
			lines = append(lines, l)
		}
		ts := float64(p.Bucket)
		l.Points = append(l.Points, [2]*float64{&ts, p.Values[0]})
	}
	return map[string]any{"stepMs": step.Milliseconds(), "granularity": strconv.FormatInt(int64(step/time.Second), 10) + "s", "lines": lines}, nil
}

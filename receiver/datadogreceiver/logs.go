package datadogreceiver

import (
	"net/http"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/logs"
)

func (r *datadogReceiver) logsHandler(w http.ResponseWriter, req *http.Request) {
	buf, ok := r.readBody(w, req)
	if !ok {
		return
	}
	defer releaseBody(buf)
	q := req.URL.Query()
	ld, err := r.logs.Translate(buf.Bytes(), logs.Defaults{
		Tags:     q.Get("ddtags"),
		Source:   q.Get("ddsource"),
		Service:  q.Get("service"),
		Hostname: q.Get("hostname"),
	}, time.Now(), r.budget())
	if err != nil {
		r.refuseDecoded(w, req, err)
		return
	}
	if r.consumeLogs(w, req, "datadog_logs_v2", ld) {
		writeJSON(w, http.StatusAccepted, []byte("{}"))
	}
}

// intakeHandler turns the Agent's events on /intake/ into logs; what else
// rides that path (host metadata) is dropped on purpose and counted.
func (r *datadogReceiver) intakeHandler(w http.ResponseWriter, req *http.Request) {
	buf, ok := r.readBody(w, req)
	if !ok {
		return
	}
	defer releaseBody(buf)
	ld, err := logs.IntakeEvents(buf.Bytes(), time.Now(), r.budget())
	if isOverBudget(err) {
		r.refuseDecoded(w, req, err)
		return
	}
	if err != nil || ld.LogRecordCount() == 0 || r.nextLogs == nil {
		r.countDiscarded(req)
		writeJSON(w, http.StatusAccepted, []byte("{}"))
		return
	}
	if r.consumeLogs(w, req, "datadog_intake_events", ld) {
		writeJSON(w, http.StatusAccepted, []byte("{}"))
	}
}

// consumeLogs hands records to the pipeline and answers a refusal itself;
// it reports whether the caller should write its success.
func (r *datadogReceiver) consumeLogs(w http.ResponseWriter, req *http.Request, format string, ld plog.Logs) bool {
	n := ld.LogRecordCount()
	if n == 0 {
		return true
	}
	ctx := r.obs.StartLogsOp(req.Context())
	err := r.nextLogs.ConsumeLogs(ctx, ld)
	r.obs.EndLogsOp(ctx, format, n, err)
	if err != nil {
		r.consumeError(w, req, err)
		return false
	}
	return true
}

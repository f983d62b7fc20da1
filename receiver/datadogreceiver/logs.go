package datadogreceiver

import (
	"net/http"
	"time"

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
	}, time.Now())
	if err != nil {
		r.refuse(w, req, http.StatusBadRequest, err.Error())
		return
	}
	if n := ld.LogRecordCount(); n > 0 {
		ctx := r.obs.StartLogsOp(req.Context())
		err = r.nextLogs.ConsumeLogs(ctx, ld)
		r.obs.EndLogsOp(ctx, "datadog_logs_v2", n, err)
		if err != nil {
			r.consumeError(w, req, err)
			return
		}
	}
	writeJSON(w, http.StatusAccepted, []byte("{}"))
}

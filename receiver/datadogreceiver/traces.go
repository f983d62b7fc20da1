package datadogreceiver

import (
	"net/http"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/traces"
)

// Tracers parse this to update their samplers; the receiver does no
// sampling, so every service keeps everything (rate 1).
var rateByService = []byte(`{"rate_by_service":{"service:,env:":1}}`)

// tracerTracesHandler serves a tracer's /<version>/traces.
func (r *datadogReceiver) tracerTracesHandler(version string) http.HandlerFunc {
	format := "datadog_" + version
	return func(w http.ResponseWriter, req *http.Request) {
		buf, ok := r.readBody(w, req)
		if !ok {
			return
		}
		defer releaseBody(buf)
		td, err := traces.TranslateTracer(version, req.Header.Get("Content-Type"), buf.Bytes(), traces.Tracer{
			Lang:          req.Header.Get("Datadog-Meta-Lang"),
			LangVersion:   req.Header.Get("Datadog-Meta-Lang-Version"),
			TracerVersion: req.Header.Get("Datadog-Meta-Tracer-Version"),
			ContainerID:   req.Header.Get("Datadog-Container-ID"),
		}, r.budget())
		if err != nil {
			r.refuseDecoded(w, req, err)
			return
		}
		if !r.consumeTraces(w, req, format, td) {
			return
		}
		if version == "v0.3" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("OK\n"))
			return
		}
		writeJSON(w, http.StatusOK, rateByService)
	}
}

func (r *datadogReceiver) agentTracesHandler(w http.ResponseWriter, req *http.Request) {
	buf, ok := r.readBody(w, req)
	if !ok {
		return
	}
	defer releaseBody(buf)
	td, err := traces.TranslateAgent(buf.Bytes(), r.budget())
	if err != nil {
		r.refuseDecoded(w, req, err)
		return
	}
	if !r.consumeTraces(w, req, "datadog_agent_v0.2", td) {
		return
	}
	writeJSON(w, http.StatusAccepted, []byte("{}"))
}

// consumeTraces hands the translated spans to the pipeline and answers the
// error itself; it reports whether the caller should write its success.
func (r *datadogReceiver) consumeTraces(w http.ResponseWriter, req *http.Request, format string, td ptrace.Traces) bool {
	n := td.SpanCount()
	if n == 0 {
		return true
	}
	ctx := r.obs.StartTracesOp(req.Context())
	err := r.nextTraces.ConsumeTraces(ctx, td)
	r.obs.EndTracesOp(ctx, format, n, err)
	if err != nil {
		r.consumeError(w, req, err)
		return false
	}
	return true
}

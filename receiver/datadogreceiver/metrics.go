package datadogreceiver

import (
	"errors"
	"mime"
	"net/http"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/metrics"
)

// translateMetrics turns one request body into metrics within a budget.
type translateMetrics func(req *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error)

func seriesV1(_ *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	return metrics.SeriesV1(body, bud)
}

// seriesV2 takes the Agent's protobuf and the API clients' JSON, told
// apart by Content-Type as Datadog's intake does.
func seriesV2(req *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt == "application/json" || mt == "text/json" {
		return metrics.SeriesV2JSON(body, bud)
	}
	return metrics.SeriesV2(body, bud)
}

func distributionPoints(_ *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	return metrics.DistributionPoints(body, bud)
}

func sketches(_ *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	return metrics.Sketches(body, bud)
}

func checkRuns(_ *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	return metrics.CheckRuns(body, bud)
}

func clientStats(_ *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	return metrics.ClientStats(body, bud)
}

func agentStats(_ *http.Request, body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	return metrics.AgentStats(body, bud)
}

// metricsHandler decodes, hands the metrics to the pipeline and answers
// what the sender expects on success.
func (r *datadogReceiver) metricsHandler(format string, status int, okBody []byte, translate translateMetrics) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		buf, ok := r.readBody(w, req)
		if !ok {
			return
		}
		defer releaseBody(buf)
		md, err := translate(req, buf.Bytes(), r.budget())
		if err = r.leftOut(req, md, err); err != nil {
			r.refuseDecoded(w, req, err)
			return
		}
		if r.consumeMetrics(w, req, format, md) {
			writeJSON(w, status, okBody)
		}
	}
}

// dogStatsDHandler converts DogStatsD lines posted by tracers. Like the
// DogStatsD server it skips malformed lines and keeps the rest; events have
// no metrics form and are counted as dropped on purpose.
func (r *datadogReceiver) dogStatsDHandler(w http.ResponseWriter, req *http.Request) {
	buf, ok := r.readBody(w, req)
	if !ok {
		return
	}
	defer releaseBody(buf)
	md, res, err := metrics.DogStatsD(buf.Bytes(), time.Now(), r.budget())
	if err = r.leftOut(req, md, err); err != nil {
		r.refuseDecoded(w, req, err)
		return
	}
	if res.Malformed > 0 {
		r.set.Logger.Warn("datadog receiver skipped malformed DogStatsD lines",
			zap.Int("lines", res.Malformed), zap.String("first", oneLine(res.FirstError)))
	}
	if res.Events > 0 {
		r.countDiscarded(req)
	}
	if r.consumeMetrics(w, req, "datadog_dogstatsd", md) {
		w.WriteHeader(http.StatusOK)
	}
}

// leftOut counts and logs the points a translation left out because the
// store cannot hold their time (otelcol_receiver_datadog_unstorable_points)
// and lets the others through; with none left, the payload is refused
// with the reason. Any other error is returned as it is.
func (r *datadogReceiver) leftOut(req *http.Request, md pmetric.Metrics, err error) error {
	var ue *metrics.UnstorableError
	if !errors.As(err, &ue) {
		return err
	}
	r.telemetry.ReceiverDatadogUnstorablePoints.Add(req.Context(), int64(ue.Points), byPath(req.Pattern))
	if md.DataPointCount() == 0 {
		return ue
	}
	r.set.Logger.Warn("datadog receiver left out metric points it cannot store",
		zap.String("path", req.Pattern), zap.Int("points", ue.Points), zap.String("first_timestamp", ue.First))
	return nil
}

// seriesV3Handler refuses the v3 series intake loudly: accepting and
// dropping it would lose every metric of an Agent that defaults to it.
func (r *datadogReceiver) seriesV3Handler(w http.ResponseWriter, _ *http.Request) {
	msg := "the v3 series intake is not supported: set use_v3_api.series.enabled: false in datadog.yaml (DD_USE_V3_API_SERIES_ENABLED=false) so the Agent sends /api/v2/series"
	r.v3Once.Do(func() {
		r.set.Logger.Error("a Datadog Agent is sending v3 series, which are refused", zap.String("fix", msg))
	})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(msg + "\n"))
}

// discard accepts and drops on purpose what has no OpenTelemetry home
// (Agent host metadata, legacy intake, tracer telemetry), answering 202
// as the Agent's intake does; every request is
// counted by path in otelcol_receiver_datadog_discarded_requests.
func (r *datadogReceiver) discard(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		buf, ok := r.readBody(w, req)
		if !ok {
			return
		}
		releaseBody(buf)
		r.countDiscarded(req)
		if body == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, http.StatusAccepted, body)
	}
}

func (r *datadogReceiver) countDiscarded(req *http.Request) {
	r.telemetry.ReceiverDatadogDiscardedRequests.Add(req.Context(), 1, byPath(req.Pattern))
}

// consumeMetrics hands points to the pipeline and answers a refusal itself;
// it reports whether the caller should write its success.
func (r *datadogReceiver) consumeMetrics(w http.ResponseWriter, req *http.Request, format string, md pmetric.Metrics) bool {
	n := md.DataPointCount()
	if n == 0 {
		return true
	}
	ctx := r.obs.StartMetricsOp(req.Context())
	err := r.nextMetrics.ConsumeMetrics(ctx, md)
	r.obs.EndMetricsOp(ctx, format, n, err)
	if err != nil {
		r.consumeError(w, req, err)
		return false
	}
	return true
}

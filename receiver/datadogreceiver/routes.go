package datadogreceiver

import (
	"fmt"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/logs"
)

// route is one path served: the methods it takes, its handler, and who may
// call it without a key.
type route struct {
	path    string
	methods []string
	handler http.HandlerFunc
	// tracer paths (tracers talk to a local agent and send no key) take
	// requests without one from the tracer networks; every other path
	// needs the ingestion key.
	tracer bool
	// unlisted paths are served but not in /info: tracers that do not
	// see them there send the same data by a path whose data is stored.
	unlisted bool
}

var (
	post    = []string{http.MethodPost}
	postPut = []string{http.MethodPost, http.MethodPut}
	get     = []string{http.MethodGet}
)

// Success bodies, as the Agent's intake answers them.
var (
	accepted = []byte("{}")
	statusOK = []byte(`{"status":"ok"}`)
)

// routes is the single table of what is served: the router registers it
// and /info advertises it, so the two cannot disagree. Paths of a signal
// with no pipeline are left out, so a sender gets a 404 instead of a
// silent drop.
func (r *datadogReceiver) routes() []route {
	rs := []route{
		{path: "/info", methods: get, handler: r.infoHandler, tracer: true},
		{path: "/api/v1/validate", methods: get, handler: validateHandler},
		// Tracers send instrumentation telemetry through the agent to
		// Datadog's backend; there is none, so it is accepted and dropped
		// on purpose (counted).
		{path: "/telemetry/proxy/api/v2/apmtelemetry", methods: post, handler: r.discard(nil), tracer: true},
		// Profiles from tracers with profiling on have no OpenTelemetry
		// home in this distribution yet; accepted and dropped on purpose
		// (counted) so the profiler runs quietly, as behind an Agent.
		{path: "/profiling/v1/input", methods: post, handler: r.discard(nil), tracer: true},
		// Dynamic instrumentation snapshots, logs and probe diagnostics
		// have no home here either; accepted and dropped on purpose
		// (counted), so a tracer with the debugger on stops retrying.
		{path: "/debugger/v1/input", methods: post, handler: r.discard(nil), tracer: true},
		{path: "/debugger/v2/input", methods: post, handler: r.discard(nil), tracer: true},
		{path: "/debugger/v1/diagnostics", methods: post, handler: r.discard(nil), tracer: true},
		// Remote configuration: there is nothing to configure, and an
		// empty answer is what an Agent gives when nothing changed, so a
		// tracer polls quietly instead of logging errors.
		{path: "/v0.7/config", methods: post, handler: r.remoteConfigHandler, tracer: true},
	}
	// The EVP proxy forwards CI Visibility, LLM Observability and other
	// product payloads to intakes that do not exist here. A tracer that
	// sends anyway is answered and the payload dropped (counted), but it
	// is not advertised: tracers that do not see it fall back to sending
	// test spans through /v0.4/traces, where they are stored.
	for _, v := range []string{"v1", "v2", "v3", "v4"} {
		rs = append(rs, route{path: "/evp_proxy/" + v + "/", methods: post, handler: r.discard(accepted), tracer: true, unlisted: true})
	}
	if r.nextTraces != nil {
		for _, v := range []string{"v0.3", "v0.4", "v0.5", "v0.7", "v1.0"} {
			rs = append(rs, route{path: "/" + v + "/traces", methods: postPut, handler: r.tracerTracesHandler(v), tracer: true})
		}
		rs = append(rs, route{path: "/api/v0.2/traces", methods: post, handler: r.agentTracesHandler})
	}
	if r.nextLogs != nil {
		rs = append(rs,
			route{path: "/api/v2/logs", methods: post, handler: r.logsHandler},
			route{path: "/api/v1/events", methods: post, handler: r.eventsHandler("datadog_events_v1", logs.EventV1, eventV1Answer)},
			route{path: "/api/v2/events", methods: post, handler: r.eventsHandler("datadog_events_v2", logs.EventV2, eventV2Answer)},
		)
	}
	if r.nextMetrics != nil {
		rs = append(rs,
			route{path: "/api/v1/series", methods: post, handler: r.metricsHandler("datadog_series_v1", http.StatusAccepted, statusOK, seriesV1)},
			route{path: "/api/v2/series", methods: post, handler: r.metricsHandler("datadog_series_v2", http.StatusAccepted, []byte(`{"errors":[]}`), seriesV2)},
			route{path: "/api/intake/metrics/v3/series", methods: post, handler: r.seriesV3Handler},
			route{path: "/api/v1/distribution_points", methods: post, handler: r.metricsHandler("datadog_distribution_points", http.StatusAccepted, statusOK, distributionPoints)},
			route{path: "/api/beta/sketches", methods: post, handler: r.metricsHandler("datadog_sketches", http.StatusAccepted, accepted, sketches)},
			route{path: "/api/v1/sketches", methods: post, handler: r.metricsHandler("datadog_sketches", http.StatusAccepted, accepted, sketches)},
			route{path: "/api/v1/check_run", methods: post, handler: r.metricsHandler("datadog_check_run", http.StatusAccepted, statusOK, checkRuns)},
			route{path: "/v0.6/stats", methods: postPut, handler: r.metricsHandler("datadog_stats_v0.6", http.StatusOK, []byte(`"OK"`), clientStats), tracer: true},
			route{path: "/api/v0.2/stats", methods: post, handler: r.metricsHandler("datadog_stats_agent_v0.2", http.StatusAccepted, accepted, agentStats)},
			route{path: "/dogstatsd/v1/proxy", methods: post, handler: r.dogStatsDHandler, tracer: true},
			route{path: "/dogstatsd/v2/proxy", methods: post, handler: r.dogStatsDHandler, tracer: true},
		)
	}
	// What an Agent sends besides telemetry: host and inventory metadata
	// are not signals; accepted and dropped on purpose, counted by path.
	for _, p := range []string{"/api/v1/metadata", "/api/v2/host_metadata"} {
		rs = append(rs, route{path: p, methods: post, handler: r.discard(accepted)})
	}
	// /intake/ also carries the Agent's events, which become logs.
	return append(rs, route{path: "/intake/", methods: post, handler: r.intakeHandler})
}

// router serves the routes. ServeMux answers 405 (with Allow) for a known
// path with another method, and 404 for any other path.
func (r *datadogReceiver) router() http.Handler {
	mux := http.NewServeMux()
	r.mux = mux
	r.endpoints = nil
	for _, rt := range r.routes() {
		if !rt.unlisted {
			r.endpoints = append(r.endpoints, rt.path)
		}
		h := r.authorize(rt.tracer, rt.handler)
		if rt.tracer {
			h = r.refuseBrowsers(h)
		}
		for _, m := range rt.methods {
			mux.Handle(m+" "+rt.path, h)
		}
	}
	return mux
}

// refuseBrowsers answers 403 to a request on a tracer path that carries an
// Origin header. Tracers never send one; browsers send it with every POST
// and PUT, and a "simple" cross-origin POST (text/plain, no preflight)
// reaches the handler even though the page cannot read the answer. Tracer
// paths take keyless requests from loopback and private networks, so
// without this any web page a developer opens could post spans, stats and
// DogStatsD lines to the collector on their machine. The check comes
// before the key check and holds with open ingestion too: a key in a web
// page is not a tracer either.
func (r *datadogReceiver) refuseBrowsers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if _, browser := req.Header["Origin"]; !browser {
			next.ServeHTTP(w, req)
			return
		}
		_, pattern := r.mux.Handler(req)
		r.telemetry.ReceiverDatadogBrowserRequests.Add(req.Context(), 1, byPath(pattern))
		r.refuse(w, req, http.StatusForbidden, fmt.Sprintf(
			"tracer paths refuse requests from web pages (Origin %q): tracers send no Origin header", req.Header.Get("Origin")))
	})
}

// byPath attributes a request counter to the served path the request
// is for (the prefix for a subtree such as /evp_proxy/v2/, "other" for a
// path not served), so senders cannot grow the metric's series.
// pattern is the ServeMux pattern that matched ("POST /v0.4/traces").
func byPath(pattern string) metric.AddOption {
	path := "other"
	if _, p, ok := strings.Cut(pattern, " "); ok {
		path = p
	}
	return metric.WithAttributeSet(attribute.NewSet(attribute.String("path", path)))
}

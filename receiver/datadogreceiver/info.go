package datadogreceiver

import (
	"encoding/json"
	"net/http"
	"strconv"
)

type pathKind int

const (
	pathTraces      pathKind = iota // tracer → local agent, msgpack/JSON spans
	pathAgentTraces                 // trace-agent → intake, AgentPayload protobuf
	pathLogs
	pathInfo
	pathValidate
	pathTelemetry
	pathDiscard
	pathSeriesV1
	pathSeriesV2
	pathSeriesV3
	pathSketches
	pathCheckRun
	pathClientStats
	pathAgentStats
	pathIntake
	pathDogStatsD
	pathEventsV1
	pathEventsV2
	pathDistributionPoints
	pathRemoteConfig
)

type servedPath struct {
	path    string
	kind    pathKind
	version string // trace format for pathTraces
	// unlisted paths are served but not in /info: tracers that do not
	// see them there send the same data by a path whose data is stored.
	unlisted bool
}

// paths is the single list of what is served: routes() registers it and
// /info advertises it, so the two can never disagree.
func (r *datadogReceiver) paths() []servedPath {
	ps := []servedPath{
		{path: "/info", kind: pathInfo},
		{path: "/api/v1/validate", kind: pathValidate},
		// Tracers send instrumentation telemetry through the agent to
		// Datadog's backend; there is none, so it is accepted and dropped
		// on purpose (counted in the receiver's log at debug level).
		{path: "/telemetry/proxy/api/v2/apmtelemetry", kind: pathTelemetry},
		// Profiles from tracers with profiling on have no OpenTelemetry
		// home in this distribution yet; accepted and dropped on purpose
		// (counted) so the profiler runs quietly, as behind an Agent.
		{path: "/profiling/v1/input", kind: pathTelemetry},
		// Dynamic instrumentation snapshots, logs and probe diagnostics
		// have no home here either; accepted and dropped on purpose
		// (counted), so a tracer with the debugger on stops retrying.
		{path: "/debugger/v1/input", kind: pathTelemetry},
		{path: "/debugger/v2/input", kind: pathTelemetry},
		{path: "/debugger/v1/diagnostics", kind: pathTelemetry},
		// Remote configuration: there is nothing to configure, and an
		// empty answer is what an Agent gives when nothing changed, so a
		// tracer polls quietly instead of logging errors.
		{path: "/v0.7/config", kind: pathRemoteConfig},
	}
	// The EVP proxy forwards CI Visibility, LLM Observability and other
	// product payloads to intakes that do not exist here. A tracer that
	// sends anyway is answered and the payload dropped (counted), but it
	// is not advertised: tracers that do not see it fall back to sending
	// test spans through /v0.4/traces, where they are stored.
	for _, v := range []string{"v1", "v2", "v3", "v4"} {
		ps = append(ps, servedPath{path: "/evp_proxy/" + v + "/", kind: pathTelemetry, unlisted: true})
	}
	if r.nextTraces != nil {
		ps = append(ps,
			servedPath{path: "/v0.3/traces", kind: pathTraces, version: "v0.3"},
			servedPath{path: "/v0.4/traces", kind: pathTraces, version: "v0.4"},
			servedPath{path: "/v0.5/traces", kind: pathTraces, version: "v0.5"},
			servedPath{path: "/v0.7/traces", kind: pathTraces, version: "v0.7"},
			servedPath{path: "/v1.0/traces", kind: pathTraces, version: "v1.0"},
			servedPath{path: "/api/v0.2/traces", kind: pathAgentTraces},
		)
	}
	if r.nextLogs != nil {
		ps = append(ps,
			servedPath{path: "/api/v2/logs", kind: pathLogs},
			servedPath{path: "/api/v1/events", kind: pathEventsV1},
			servedPath{path: "/api/v2/events", kind: pathEventsV2},
		)
	}
	if r.nextMetrics != nil {
		ps = append(ps,
			servedPath{path: "/api/v1/series", kind: pathSeriesV1},
			servedPath{path: "/api/v2/series", kind: pathSeriesV2},
			servedPath{path: "/api/intake/metrics/v3/series", kind: pathSeriesV3},
			servedPath{path: "/api/v1/distribution_points", kind: pathDistributionPoints},
			servedPath{path: "/api/beta/sketches", kind: pathSketches},
			servedPath{path: "/api/v1/sketches", kind: pathSketches},
			servedPath{path: "/api/v1/check_run", kind: pathCheckRun},
			servedPath{path: "/v0.6/stats", kind: pathClientStats},
			servedPath{path: "/api/v0.2/stats", kind: pathAgentStats},
			servedPath{path: "/dogstatsd/v1/proxy", kind: pathDogStatsD},
			servedPath{path: "/dogstatsd/v2/proxy", kind: pathDogStatsD},
		)
	}
	// What an Agent sends besides telemetry: host and inventory metadata
	// are not signals; accepted and dropped on purpose, counted by path.
	// /intake/ also carries the Agent's events, which become logs.
	for _, p := range []string{"/api/v1/metadata", "/api/v2/host_metadata"} {
		ps = append(ps, servedPath{path: p, kind: pathDiscard})
	}
	ps = append(ps, servedPath{path: "/intake/", kind: pathIntake})
	return ps
}

// agentVersion is what /info reports; tracers gate features on the
// endpoints and flags, not on this string.
const agentVersion = "7.60.0-otelhouse"

func (r *datadogReceiver) infoHandler(w http.ResponseWriter, _ *http.Request) {
	var endpoints []string
	for _, p := range r.paths() {
		if !p.unlisted {
			endpoints = append(endpoints, p.path)
		}
	}
	info := map[string]any{
		"version":    agentVersion,
		"git_commit": "",
		"endpoints":  endpoints,
		// As a real Agent: tracers that compute stats (/v0.6/stats, which
		// become metrics) may drop priority-0 traces. rate_by_service
		// keeps every trace, so only traces the user's own sampling rules
		// reject are dropped.
		"client_drop_p0s":           true,
		"span_meta_structs":         false,
		"long_running_spans":        false,
		"span_events":               true,
		"evp_proxy_allowed_headers": []string{},
		"feature_flags":             []string{},
		"config": map[string]any{
			"default_env":       "none",
			"receiver_port":     portOf(r.cfg.NetAddr.Endpoint),
			"max_request_bytes": r.cfg.MaxRequestBodySize,
			"statsd_port":       0,
		},
	}
	b, _ := json.Marshal(info)
	writeJSON(w, http.StatusOK, b)
}

func portOf(endpoint string) int {
	for i := len(endpoint) - 1; i >= 0; i-- {
		if endpoint[i] == ':' {
			p, _ := strconv.Atoi(endpoint[i+1:])
			return p
		}
	}
	return 0
}

// validateHandler answers the Agent's API-key check; authorize has already
// rejected a wrong key when keys are configured.
func validateHandler(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, []byte(`{"valid":true}`))
}

// remoteConfigHandler answers a tracer's remote configuration poll as an
// Agent does when nothing changed: an empty ClientGetConfigsResponse.
func (r *datadogReceiver) remoteConfigHandler(w http.ResponseWriter, req *http.Request) {
	buf, ok := r.readBody(w, req)
	if !ok {
		return
	}
	releaseBody(buf)
	writeJSON(w, http.StatusOK, []byte("{}"))
}

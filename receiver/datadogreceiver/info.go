package datadogreceiver

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// agentVersion is what /info reports; tracers gate features on the
// endpoints and flags, not on this string.
const agentVersion = "7.60.0-otelhouse"

func (r *datadogReceiver) infoHandler(w http.ResponseWriter, _ *http.Request) {
	info := map[string]any{
		"version":    agentVersion,
		"git_commit": "",
		"endpoints":  r.endpoints,
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

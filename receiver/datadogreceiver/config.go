package datadogreceiver

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/internal/runtime/httpconfig"
)

// Config is the receiver's configuration. Every confighttp server setting
// (TLS, auth, CORS, max_request_body_size, keep-alives, timeouts) applies.
type Config struct {
	confighttp.ServerConfig `mapstructure:",squash"`
	Settings                `mapstructure:",squash"`
}

// Settings are the receiver's own settings beside the HTTP server's.
type Settings struct {
	// APIKeys are the ingestion keys an agent may send as its api_key (the
	// DD-API-KEY header or the api_key query parameter). Empty entries are
	// ignored, so `${env:OTLP_AUTH_TOKEN}` can be listed unconditionally.
	// With no key configured, nothing is checked.
	APIKeys []configopaque.String `mapstructure:"api_keys"`

	// IngestionKeyAuthenticator names a collector server authenticator
	// extension (such as observability_api, which holds the ingestion keys)
	// that also decides whether an agent's key is valid; with it, keys are
	// not copied into this configuration.
	IngestionKeyAuthenticator *component.ID `mapstructure:"ingestion_key_authenticator"`

	// RequireKeyOnTracerPaths makes the local tracer paths (/v0.x/traces,
	// /info, telemetry) demand a key too. Tracers never send one, so this is
	// only for a receiver exposed beyond the host or pod.
	RequireKeyOnTracerPaths bool `mapstructure:"require_key_on_tracer_paths"`

	// TracerNetworks are the client networks (CIDRs) whose tracers may use
	// the tracer paths without a key while keys are checked: tracers talk
	// to a local agent and their protocol carries none. A client elsewhere
	// must send a key there too. Default: loopback and the private ranges
	// (10/8, 172.16/12, 192.168/16, fc00::/7), where a host's containers
	// and a cluster's pods are.
	TracerNetworks []string `mapstructure:"tracer_networks"`

	// RetryAfterSeconds is the Retry-After hint sent with a 503 when the
	// pipeline refuses data for a reason that may pass, and with a 429.
	RetryAfterSeconds int `mapstructure:"retry_after_seconds"`

	// MaxConcurrentRequests bounds the requests with a body that are read,
	// decompressed, decoded and handed to the pipeline at once. Each holds
	// its body and what that decodes to, so this times
	// (max_request_body_size + max_decoded_size) bounds the receiver's
	// memory, however many agents post at once. 0 sets no bound.
	MaxConcurrentRequests int `mapstructure:"max_concurrent_requests"`

	// MaxDecodedSize bounds the memory one request may take once decoded,
	// estimated from what its body becomes (spans, records, points and
	// their attributes; a series' tags count once per point). A body's
	// bytes can stand for hundreds of times their size in memory, so
	// max_request_body_size alone does not bound it. Past it: 413. 0 sets
	// no bound.
	MaxDecodedSize int64 `mapstructure:"max_decoded_size"`

	// MaxRequestWait is how long a request may wait for one of those slots
	// before it is answered 429 with Retry-After, for the sender to retry.
	// Waiting requests hold no body in memory: it stays in the socket.
	MaxRequestWait time.Duration `mapstructure:"max_request_wait"`

	Logs LogsConfig `mapstructure:"logs"`
}

// LogsConfig tunes the /api/v2/logs translation.
type LogsConfig struct {
	// DecodeJSONMessage parses a message that is a JSON object and lifts its
	// body, timestamp, severity, trace ids and resource fields.
	DecodeJSONMessage bool `mapstructure:"decode_json_message"`
	// TraceIDs maps dd.trace_id/dd.span_id to the record's TraceId/SpanId.
	TraceIDs bool `mapstructure:"trace_ids"`
}

// Unmarshal decodes the server and receiver settings (see httpconfig).
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	return httpconfig.Unmarshal(conf, &c.ServerConfig, &c.Settings)
}

// Validate checks the configuration before the receiver is built.
func (c *Config) Validate() error {
	var errs []error
	if c.MaxRequestBodySize < 0 {
		errs = append(errs, fmt.Errorf("max_request_body_size must not be negative, got %d", c.MaxRequestBodySize))
	}
	if c.RetryAfterSeconds < 0 {
		errs = append(errs, fmt.Errorf("retry_after_seconds must not be negative, got %d", c.RetryAfterSeconds))
	}
	if c.MaxConcurrentRequests < 0 {
		errs = append(errs, fmt.Errorf("max_concurrent_requests must not be negative (0: no bound), got %d", c.MaxConcurrentRequests))
	}
	if c.MaxDecodedSize < 0 {
		errs = append(errs, fmt.Errorf("max_decoded_size must not be negative (0: no bound), got %d", c.MaxDecodedSize))
	}
	if c.MaxRequestWait < 0 {
		errs = append(errs, fmt.Errorf("max_request_wait must not be negative, got %s", c.MaxRequestWait))
	}
	if _, err := c.tracerNetworks(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// tracerNetworks parses TracerNetworks.
func (c *Config) tracerNetworks() ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(c.TracerNetworks))
	for _, n := range c.TracerNetworks {
		p, err := netip.ParsePrefix(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("tracer_networks: %q is not a CIDR (such as 10.0.0.0/8)", n)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// keys returns the configured non-empty ingestion keys.
func (c *Config) keys() [][]byte {
	var out [][]byte
	for _, k := range c.APIKeys {
		if k != "" {
			out = append(out, []byte(k))
		}
	}
	return out
}

package observabilityapiextension

// Refused credentials, from either door (ingestion keys, the REST API's
// keys): counted, and logged at most once a minute per client address.

import (
	"context"
	"net"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// authFailed counts and (rate-limited) logs a refused credential.
func (e *apiExtension) authFailed(ctx context.Context, door, addr, reason string) {
	e.telemetry.ObservabilityAPIAuthFailures.Add(ctx, 1, metric.WithAttributes(attribute.String("door", door)))
	e.authLog.Failed(door, addr, reason)
}

// clientHost is an address without its port (one client, many ports).
func clientHost(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// Package ddtracego runs Datadog's real Go tracer (dd-trace-go v2) against
// the receiver. It is its own module so the tracer's dependency tree stays
// out of the distribution's go.mod; `make test` runs it.
package ddtracego

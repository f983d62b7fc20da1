// Package datadogreceiver receives what Datadog Agents and tracer SDKs send
// (traces, logs, and later metrics) on the trace-agent port and converts it to
// the OpenTelemetry data model.
//
//go:generate go tool mdatagen metadata.yaml
package datadogreceiver

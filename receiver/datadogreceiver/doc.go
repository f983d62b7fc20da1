// Package datadogreceiver receives what Datadog Agents and tracer SDKs send
// (traces, logs, metrics, events) on the trace-agent port and converts it
// to the OpenTelemetry data model.
//
// One job per file: receiver.go (lifecycle), routes.go (the path table),
// admission.go (requests in progress at once), auth.go (ingestion keys and
// tracer networks), encoding.go and decompress.go (Content-Encoding and the
// pooled decoders), body.go (reading a body, its decode budget), answer.go
// (accepted answers and refusals), and a file per signal (traces.go,
// logs.go, metrics.go, events.go, info.go); the translation is under
// internal/.
//
//go:generate go tool mdatagen metadata.yaml
package datadogreceiver

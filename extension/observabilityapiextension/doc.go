// Package observabilityapiextension runs the management side of otelhouse,
// one job per room:
//
//   - the REST API in its self-hosted and managed forms (internal/api),
//     with its state in ClickHouse (internal/runtime/store at the repository root);
//   - the alert scheduler (internal/alerting), ticked by scheduler.go;
//   - the ingestion-key authenticator OTLP and the Datadog receiver use
//     (ingestionauth.go), and the counting of refused credentials
//     (authfailures.go);
//   - the first start's team, sources and keys (bootstrap.go).
//
// extension.go connects these to the collector: configuration, start,
// shutdown, and the state the web UI shares (APIState).
//
//go:generate go tool mdatagen metadata.yaml
package observabilityapiextension

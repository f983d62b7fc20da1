// Package observabilityapiextension runs the management side of otelhouse,
// one job per room, composed side by side once the state is reachable
// (extension.go):
//
//   - the state store in ClickHouse (internal/runtime/store at the repository
//     root) and the one sources catalog over it, which the API, the
//     scheduler and the web UI all read;
//   - the REST API in its self-hosted and managed forms (internal/api):
//     it stores and validates resources and answers HTTP, nothing more;
//   - the alert scheduler (internal/alerting), built here beside the API
//     and ticked by scheduler.go; internal/alerting also holds the rules
//     binding alerts to their dashboards, saved searches and webhooks,
//     which the API's handlers apply;
//   - the ingestion-key authenticator OTLP and the Datadog receiver use
//     (ingestionauth.go), and the counting of refused credentials
//     (authfailures.go);
//   - the first start's team, sources and keys file (bootstrap.go).
//
// extension.go connects these to the collector: configuration, start,
// shutdown, and the state the web UI shares (APIState).
//
//go:generate go tool mdatagen metadata.yaml
package observabilityapiextension

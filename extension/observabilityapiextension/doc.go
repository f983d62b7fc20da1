// Package observabilityapiextension serves the management REST API
// (dashboards, alerts, sources, webhooks) in its self-hosted and managed
// forms, keeping its state in ClickHouse.
//
//go:generate go tool mdatagen metadata.yaml
package observabilityapiextension

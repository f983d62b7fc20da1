// Package embeddedclickhouseextension runs the ClickHouse engine (libchdb)
// inside the collector and serves it over the ClickHouse HTTP interface on
// loopback, so the clickhouse exporter and the API use it exactly as a
// server. It is what stores telemetry when no CLICKHOUSE_ENDPOINT is set.
//
//go:generate go tool mdatagen metadata.yaml
package embeddedclickhouseextension

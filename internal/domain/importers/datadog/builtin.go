package datadog

import _ "embed"

// HostDashboard is the dashboard of the Datadog Agent's system metrics
// (cpu, load, memory, disk, network) by host, as a Datadog dashboard
// JSON: otelhouse makes it on first start through ImportDashboard, the
// path every imported dashboard takes.
//
//go:embed builtin/hosts.json
var HostDashboard []byte

// Package webuiextension serves otelhouse's web UI: the browser app
// (accounts, Team Settings → API Keys, log and trace search, the trace
// waterfall) and its same-origin JSON endpoints. Everything it reads or
// changes goes through the observability_api extension's state (found
// through the collector host): the same store, sources, where translator,
// chart and search code, and key checks as the REST API.
//
//go:generate go tool mdatagen metadata.yaml
package webuiextension

// Package e2e runs the built bin/otelhouse binary (OTELHOUSE_BIN, set by
// `make test`) with the shipped configuration and checks what a user sees.
package e2e

// Package ddapiclient submits logs and v1/v2 series with Datadog's real API
// client (datadog-api-client-go) to the receiver. It is its own module:
// the client is large and slow to build, and stays out of the main go.mod.
package ddapiclient

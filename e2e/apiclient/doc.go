// Package apiclient is a Go client generated from the REST API's OpenAPI
// document (client.gen.go, by oapi-codegen, pinned as this module's tool),
// and the test that it compiles against the document the API serves and
// calls a running otelhouse. A module of its own, so the generator's
// dependencies stay out of the distribution's go.mod.
//
//go:generate go tool oapi-codegen -generate types,client -package apiclient -o client.gen.go ../../extension/observabilityapiextension/internal/api/openapi.yaml
package apiclient

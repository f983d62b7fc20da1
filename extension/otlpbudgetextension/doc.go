// Package otlpbudgetextension is a server middleware that bounds what an
// OTLP/HTTP request or OTLP/gRPC message may become in memory. An empty
// log record or span is two bytes of protobuf and a hundred times that
// decoded, so a body within max_request_body_size can decode into
// gigabytes before any processor sees it (docs/storage.md). The
// middleware first counts the body by the OTLP schema against a memory
// budget, as the Datadog receiver does its own, and answers 413 past it;
// the requests decoded at once share a second bound, past which they wait
// and are then refused as retryable.
//
//go:generate go tool mdatagen metadata.yaml
package otlpbudgetextension

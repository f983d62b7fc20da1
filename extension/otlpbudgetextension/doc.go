// Package otlpbudgetextension is a server middleware that bounds what an
// OTLP/HTTP request or OTLP/gRPC message may become in memory. An empty log record or span is
// two bytes of protobuf and about 160 to 250 bytes decoded, so a 20 MiB
// body can decode into gigabytes before any processor sees it. The
// middleware first counts the body by the OTLP schema against a memory
// budget, as the Datadog receiver does its own, and answers 413 past it;
// the requests decoded at once share a second bound, past which they wait
// and are then refused as retryable.
//
//go:generate go tool mdatagen metadata.yaml
package otlpbudgetextension

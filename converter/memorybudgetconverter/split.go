package memorybudgetconverter

import (
	"fmt"

	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

const mib = 1 << 20

// Smallest budgets that run: the embedded engine alone is about 300 MiB
// resident (its code, about 180 MiB, and its caches at rest), the
// collector about 60 MiB.
const (
	minWithEngine = 512 * mib
	minCollector  = 128 * mib
)

// maxDecodedSize is the receivers' own default bound on one request once
// decoded; a budget only lowers it.
const maxDecodedSize = 256 * mib

// Plan is how a budget is split.
type Plan struct {
	// Engine is the embedded engine's share: half the budget, none without
	// the engine.
	Engine uint64
	// Collector is the rest: the Go heap and everything the receivers,
	// processors and exporters hold.
	Collector uint64
}

// Split divides a budget between the embedded engine (when embedded) and
// the collector.
func Split(budget uint64, embedded bool) (Plan, error) {
	if !embedded {
		if budget < minCollector {
			return Plan{}, fmt.Errorf("a budget under %d MiB cannot run the collector", minCollector/mib)
		}
		return Plan{Collector: budget}, nil
	}
	if budget < minWithEngine {
		return Plan{}, fmt.Errorf("a budget under %d MiB cannot run the collector and the embedded engine", minWithEngine/mib)
	}
	return Plan{Engine: budget / 2, Collector: budget - budget/2}, nil
}

// GoLimit is the Go runtime's soft limit (GOMEMLIMIT): nine tenths of the
// collector's share, the rest for what the runtime does not count (the
// engine's threads started from Go, cgo buffers).
func (p Plan) GoLimit() uint64 { return p.Collector / 10 * 9 }

// Settings are the configuration keys the plan fills in, for the engines
// (embedded_clickhouse ids) and the components the configuration defines.
func (p Plan) Settings(conf *confmap.Conf, engines []string) map[string]any {
	out := map[string]any{}
	e := p.Engine
	for _, id := range engines {
		base := "extensions::" + id
		// The engine's memory tracker refuses an allocation past this; a
		// query fails with MEMORY_LIMIT_EXCEEDED, an insert is retried by
		// the exporter.
		out[base+"::server::max_server_memory_usage"] = e
		// One query (a chart, a search) may take half; past it the query,
		// not the server, fails.
		out[base+"::profile::max_memory_usage"] = e / 2
		// Merges yield past this (they are picked again later).
		out[base+"::server::merges_mutations_memory_usage_soft_limit"] = e / 2
		// Caches live inside the engine's share; the defaults (GiBs each)
		// assume a server of its own.
		out[base+"::server::mark_cache_size"] = e / 8
		out[base+"::server::index_mark_cache_size"] = e / 16
		out[base+"::server::primary_index_cache_size"] = e / 16
		for _, cache := range []string{
			"query_condition_cache_size", "compiled_expression_cache_size",
			"text_index_tokens_cache_size", "text_index_header_cache_size", "text_index_postings_cache_size",
			"vector_similarity_index_cache_size",
		} {
			out[base+"::server::"+cache] = e / 64
		}
	}

	c := p.Collector
	// memory_limiter refuses data while the heap is past limit - spike:
	// six tenths of the share, so what is in flight then fits below the
	// Go limit.
	for _, id := range configured(conf, "processors", "memory_limiter") {
		base := "processors::" + id
		if conf.IsSet(base+"::limit_mib") || conf.IsSet(base+"::limit_percentage") {
			continue
		}
		out[base+"::limit_mib"] = c / 10 * 9 / mib
		out[base+"::spike_limit_mib"] = c / 10 * 3 / mib
	}
	// OTLP requests decoded at once share half the collector's share; one
	// may decode into a quarter of it.
	for _, id := range configured(conf, "extensions", "otlp_budget") {
		base := "extensions::" + id
		out[base+"::max_decoded_in_flight"] = c / 2
		out[base+"::max_decoded_size"] = min(maxDecodedSize, c/4)
	}
	// The Datadog receiver holds a body and what it decodes into for
	// each request it serves at once: as many as fit in half the share.
	defaults := datadogreceiver.NewFactory().CreateDefaultConfig().(*datadogreceiver.Config)
	for _, id := range configured(conf, "receivers", "datadog") {
		base := "receivers::" + id
		decoded := min(maxDecodedSize, c/8)
		body := uint64(defaults.MaxRequestBodySize) //nolint:gosec // a positive default
		if v, ok := conf.Get(base + "::max_request_body_size").(int); ok && v > 0 {
			body = uint64(v)
		}
		out[base+"::max_decoded_size"] = decoded
		out[base+"::max_concurrent_requests"] = max(1, min(uint64(defaults.MaxConcurrentRequests), c/2/(body+decoded))) //nolint:gosec // a positive default
	}
	return out
}

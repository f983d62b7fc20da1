package otlpbudgetextension

import (
	"errors"
	"fmt"
	"time"
)

// Config bounds what the OTLP requests the middleware sees may take in
// memory once decoded: each one, and all of them at once.
type Config struct {
	// MaxDecodedSize is the estimated memory one request's body may take
	// once decoded (messages, attributes); past it the request is refused
	// (HTTP 413, gRPC RESOURCE_EXHAUSTED) before it is decoded. 0 sets no
	// bound.
	MaxDecodedSize int64 `mapstructure:"max_decoded_size"`

	// MaxDecodedInFlight bounds the sum of those estimates, plus the
	// bodies themselves, over the requests being decoded and consumed at
	// once: each request is within max_decoded_size, but nothing else
	// bounds how many arrive together. A request that does not fit waits,
	// in arrival order, up to max_request_wait. 0 sets no bound.
	MaxDecodedInFlight int64 `mapstructure:"max_decoded_in_flight"`

	// MaxRequestWait is how long a request may wait for room in
	// max_decoded_in_flight; past it, it is refused as retryable (HTTP 429
	// with Retry-After, gRPC UNAVAILABLE with RetryInfo), which SDKs and
	// exporters retry. Requests that would make the waiting bodies exceed
	// max_decoded_in_flight are refused so at once.
	MaxRequestWait time.Duration `mapstructure:"max_request_wait"`

	// RetryAfterSeconds is the delay those refusals suggest, as the
	// Datadog receiver's setting of the same name.
	RetryAfterSeconds int `mapstructure:"retry_after_seconds"`

	// GoMemoryLimit is the Go runtime's soft memory limit (what GOMEMLIMIT
	// sets) while the extension runs; 0 leaves the runtime's own. The
	// distribution's memory budget fills it in (docs/memory.md): the
	// budget is resolved with the configuration, and the process limit is
	// set by a component's Start, so `otelcol validate` sets nothing.
	GoMemoryLimit int64 `mapstructure:"go_memory_limit"`
}

// Validate refuses negative bounds and an in-flight bound below one request's.
func (c *Config) Validate() error {
	var errs []error
	if c.MaxDecodedSize < 0 {
		errs = append(errs, fmt.Errorf("max_decoded_size must not be negative (0: no bound), got %d", c.MaxDecodedSize))
	}
	if c.MaxDecodedInFlight < 0 {
		errs = append(errs, fmt.Errorf("max_decoded_in_flight must not be negative (0: no bound), got %d", c.MaxDecodedInFlight))
	}
	if c.MaxDecodedInFlight > 0 && c.MaxDecodedInFlight < c.MaxDecodedSize {
		errs = append(errs, fmt.Errorf("max_decoded_in_flight (%d) must be at least max_decoded_size (%d), or a request within one bound would never pass the other",
			c.MaxDecodedInFlight, c.MaxDecodedSize))
	}
	if c.MaxRequestWait < 0 {
		errs = append(errs, fmt.Errorf("max_request_wait must not be negative, got %s", c.MaxRequestWait))
	}
	if c.GoMemoryLimit < 0 {
		errs = append(errs, fmt.Errorf("go_memory_limit must not be negative (0: the runtime's own), got %d", c.GoMemoryLimit))
	}
	if c.RetryAfterSeconds < 0 {
		errs = append(errs, fmt.Errorf("retry_after_seconds must not be negative, got %d", c.RetryAfterSeconds))
	}
	return errors.Join(errs...)
}

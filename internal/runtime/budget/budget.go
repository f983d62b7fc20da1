// Package budget bounds the memory one request may take once decoded.
//
// max_request_body_size bounds a body's bytes, not what they become: an
// empty msgpack span is one byte and hundreds in memory, and a series'
// tags are copied to each of its points, so a small body can become
// gigabytes (docs/datadog-receiver.md). Decoders and translators take an
// estimate of what they are about to build from a per-request Budget and
// stop once it is spent; the Datadog receiver and the otlp_budget
// middleware then answer 413.
package budget

import (
	"fmt"
	"math"
)

// Estimated bytes of what decoding builds, measured on the pdata and
// Datadog types in use (live heap after GC): a span is about 230 bytes, a
// log record or data point less, an attribute or map entry about 70.
const (
	// Item is a span, log record, data point, event, link, resource or
	// decoded message.
	Item = 256
	// Value is an attribute, tag, map entry, array element or nested value.
	Value = 80
	// Slot is an element of a decoded list or a scalar field (a slice slot,
	// a string header, a number), and what re-reading a tag costs: work that
	// repeats per item is taken too, so it cannot grow with the square of a
	// body's size.
	Slot = 16
)

// Budget is the estimated memory one request may still take. A nil Budget
// is unbounded. It is not safe for concurrent use: one request, one Budget.
type Budget struct {
	limit, used int64
	setting     string
}

// New returns a budget of limit bytes; limit <= 0 is unbounded (nil).
func New(limit int64) *Budget {
	if limit <= 0 {
		return nil
	}
	return &Budget{limit: limit, setting: "max_decoded_size"}
}

// For names the setting that sets the limit, for the refusal to cite.
func (b *Budget) For(setting string) *Budget {
	if b != nil {
		b.setting = setting
	}
	return b
}

// Take reports whether n more bytes fit. Once one Take fails, every later
// one does too, so a translator may keep looping without building more.
func (b *Budget) Take(n int64) bool {
	if b == nil {
		return true
	}
	if n < 0 || n > math.MaxInt64-b.used {
		n = math.MaxInt64 - b.used
	}
	b.used += n
	return b.used <= b.limit
}

// Used is what has been taken so far (0 for an unbounded budget, which
// counts nothing).
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used
}

// Values takes n values.
func (b *Budget) Values(n int) bool { return b.Take(mul(n, Value)) }

// Entries takes one item with n values: a span, record or point and its
// attributes.
func (b *Budget) Entries(n int) bool { return b.Take(Item + mul(n, Value)) }

func mul(n int, each int64) int64 {
	if n == 0 || each == 0 {
		return 0
	}
	if n < 0 || each < 0 || int64(n) > math.MaxInt64/each {
		return math.MaxInt64
	}
	return int64(n) * each
}

// Err is an *ExceededError once a Take has failed, else nil.
func (b *Budget) Err() error {
	if b == nil || b.used <= b.limit {
		return nil
	}
	return &ExceededError{Limit: b.limit, Setting: b.setting}
}

// ExceededError says a request would take more than the budget.
type ExceededError struct {
	Limit   int64
	Setting string
}

func (e *ExceededError) Error() string {
	return "the payload would take more than " + Size(e.Limit) + " of memory once decoded (" + e.Setting + "); send it in smaller payloads"
}

// Size says a bound in memory as refusals do: whole MiB from 1 MiB up,
// else bytes.
func Size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

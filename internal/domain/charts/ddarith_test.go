package charts

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

func TestParseDatadogArithmetic(t *testing.T) {
	for _, tc := range []struct {
		q, fn string
	}{
		{"abs(avg:cpu{*})", "abs"},
		{"log2(avg:cpu{*} by {host})", "log2"},
		{"log10( sum:a{*} / sum:b{*} )", "log10"},
		{"cumsum(sum:a{*}.as_count())", "cumsum"},
		{"integral(avg:cpu{*})", "integral"},
		{"diff(avg:cpu{*})", "diff"},
		{"monotonic_diff(avg:es.query.time{*})", "monotonic_diff"},
		{"derivative(avg:cpu{*})", "derivative"},
		{"rate(avg:varnish.n_expired{host:a})", "rate"},
		{"per_second(sum:requests{*})", "per_second"},
		{"per_minute(avg:cpu{*} by {host})", "per_minute"},
		{"per_hour(top(avg:cpu{*} by {host}, 3))", "per_hour"},
		{"abs(day_before(avg:cpu{*}))", "abs"},
	} {
		e, err := ParseDatadogMetric(tc.q)
		require.NoError(t, err, tc.q)
		assert.Equal(t, byte('f'), e.op, tc.q)
		assert.Equal(t, tc.fn, arithName(e), tc.q)
		assert.NotNil(t, e.left, tc.q)
	}

	// A function inside a formula is one of its operands; functions nest.
	e, err := ParseDatadogMetric("monotonic_diff(avg:a{*}) / monotonic_diff(avg:b{*})")
	require.NoError(t, err)
	assert.Equal(t, byte('/'), e.op)
	assert.Equal(t, "monotonic_diff", arithName(e.left))
	assert.Equal(t, "monotonic_diff", arithName(e.right))
	e, err = ParseDatadogMetric("cumsum(abs(diff(avg:a{*})))")
	require.NoError(t, err)
	assert.Equal(t, "abs", arithName(e.left))
	assert.Equal(t, "diff", arithName(e.left.left))

	// A metric may be named like a function: only a parenthesis makes one.
	e, err = ParseDatadogMetric("avg:rate{*}")
	require.NoError(t, err)
	assert.Equal(t, "rate", e.q.metric)

	for q, why := range map[string]string{
		"diff(avg:cpu{*}, 60)":  "diff takes only a query",
		"abs(avg:cpu{*}":        "abs: expected ')'",
		"cumsum()":              "expected a metric name",
		"per_hour(avg:cpu)":     "needs a tag filter",
		"ewma_3(avg:cpu{*})":    "needs a tag filter",
		"derivative avg:cpu{*}": "needs a tag filter",
	} {
		_, err := ParseDatadogMetric(q)
		if assert.Error(t, err, q) {
			assert.Contains(t, err.Error(), why, q)
		}
	}
}

func TestDatadogArithmeticOnTheEngine(t *testing.T) {
	src := seedDatadogMetrics(t)
	db := chtest.DB(t)
	seeded := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	run := func(q string, start time.Time) map[string][]any { return threeMinutes(t, db, src, q, start) }
	cpu := "avg:system.cpu.user{*}" // 38, 40 at 12:00 and 12:01
	// Variables, so that the divisions round as at run time.
	two, minute := 2.0, 60.0
	perSec := two / minute
	reqs, reqs2 := 12.0, 3.0 // requests.count's increments at 12:00 and 12:01
	for _, tc := range []struct {
		q     string
		start time.Time
		want  map[string][]any
	}{
		{"abs(-" + cpu + ")", seeded, map[string][]any{"": {38.0, 40.0, nil}}},
		{"log10(avg:system.cpu.user{host:web-2})", seeded, map[string][]any{"": {2.0, nil, nil}}},
		{"log2(avg:system.cpu.user{host:web-2} - 92)", seeded, map[string][]any{"": {3.0, nil, nil}}},
		// The logarithm of zero or less has no point.
		{"log2(" + cpu + " - 40)", seeded, map[string][]any{"": {nil, nil, nil}}},
		{"cumsum(" + cpu + ")", seeded, map[string][]any{"": {38.0, 78.0, nil}}},
		{"integral(" + cpu + ")", seeded, map[string][]any{"": {38.0 * 60, 78.0 * 60, nil}}},
		// Nothing before 12:00: the first bucket has no delta.
		{"diff(" + cpu + ")", seeded, map[string][]any{"": {nil, 2.0, nil}}},
		// From 12:01 the bucket before the range gives the first delta.
		{"diff(" + cpu + ")", seeded.Add(time.Minute), map[string][]any{"": {2.0, nil, nil}}},
		{"diff(sum:system.cpu.user{host:web-1} by {host})", seeded, map[string][]any{"web-1": {nil, 35.0, nil}}},
		{"monotonic_diff(" + cpu + ")", seeded, map[string][]any{"": {nil, 2.0, nil}}},
		// A decrease is a reset: no point.
		{"monotonic_diff(-" + cpu + ")", seeded, map[string][]any{"": {nil, nil, nil}}},
		{"diff(-" + cpu + ")", seeded, map[string][]any{"": {nil, -2.0, nil}}},
		{"derivative(" + cpu + ")", seeded, map[string][]any{"": {nil, perSec, nil}}},
		{"derivative(-" + cpu + ")", seeded, map[string][]any{"": {nil, -perSec, nil}}},
		{"rate(" + cpu + ")", seeded, map[string][]any{"": {nil, perSec, nil}}},
		{"per_second(" + cpu + ")", seeded, map[string][]any{"": {nil, perSec, nil}}},
		{"per_minute(" + cpu + ")", seeded, map[string][]any{"": {nil, perSec * 60, nil}}},
		{"per_hour(" + cpu + ")", seeded, map[string][]any{"": {nil, perSec * 3600, nil}}},
		// A count's points are increments: its rate is each over its
		// bucket, not their difference.
		{"per_second(sum:requests.count{*})", seeded, map[string][]any{"": {reqs / minute, reqs2 / minute, nil}}},
		{"per_minute(sum:requests.count{*})", seeded, map[string][]any{"": {reqs / minute * 60, reqs2 / minute * 60, nil}}},
		// Inside a formula, and nested.
		{cpu + " - diff(" + cpu + ")", seeded, map[string][]any{"": {nil, 38.0, nil}}},
		{"cumsum(abs(diff(-" + cpu + ")))", seeded, map[string][]any{"": {nil, 2.0, nil}}},
	} {
		assert.Equal(t, tc.want, run(tc.q, tc.start), tc.q)
	}
}

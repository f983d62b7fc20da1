package charts

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

func TestParseDatadogTimeshift(t *testing.T) {
	for _, tc := range []struct {
		q       string
		seconds float64
	}{
		{"hour_before(avg:cpu{*})", 3600},
		{"day_before(avg:cpu{*} by {host})", 86400},
		{"week_before( sum:a{*} / sum:b{*} )", 7 * 86400},
		{"month_before(avg:cpu{*})", 28 * 86400},
		{"timeshift(avg:cpu{*}, -1209600)", 1209600},
		{"timeshift(top(avg:cpu{*} by {host}, 3), -60)", 60},
	} {
		e, err := ParseDatadogMetric(tc.q)
		require.NoError(t, err, tc.q)
		assert.Equal(t, byte('s'), e.op, tc.q)
		assert.Equal(t, tc.seconds, e.num, tc.q)
		assert.NotNil(t, e.left, tc.q)
	}

	// A shift inside a formula is one of its operands.
	e, err := ParseDatadogMetric("avg:cpu{*} - day_before(avg:cpu{*})")
	require.NoError(t, err)
	assert.Equal(t, byte('-'), e.op)
	assert.Equal(t, byte('s'), e.right.op)

	for q, why := range map[string]string{
		"timeshift(avg:cpu{*})":              "a query and a shift in seconds",
		"timeshift(avg:cpu{*}, 3600)":        "negative number of seconds",
		"timeshift(avg:cpu{*}, -1h)":         "negative number of seconds",
		"timeshift(avg:cpu{*}, -9999999999)": "up to a year",
		"day_before(avg:cpu{*}, -60)":        "takes only a query",
		"hour_before(avg:cpu{*}":             "hour_before: expected ')'",
		"week_before()":                      "expected a metric name",
	} {
		_, err := ParseDatadogMetric(q)
		if assert.Error(t, err, q) {
			assert.Contains(t, err.Error(), why, q)
		}
	}
}

func TestDatadogTimeshiftOnTheEngine(t *testing.T) {
	src := seedDatadogMetrics(t)
	db := chtest.DB(t)
	seeded := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	run := func(q string, start time.Time) map[string][]any { return threeMinutes(t, db, src, q, start) }
	cpu := "avg:system.cpu.user{*}" // 38, 40 at 12:00 and 12:01
	diff, before := 2.0, 38.0       // variables: the division rounds as at run time
	rel := diff / before * 100
	for _, tc := range []struct {
		q     string
		start time.Time
		want  map[string][]any
	}{
		{"hour_before(" + cpu + ")", seeded.Add(time.Hour), map[string][]any{"": {38.0, 40.0, nil}}},
		{"day_before(" + cpu + ")", seeded.Add(24 * time.Hour), map[string][]any{"": {38.0, 40.0, nil}}},
		{"week_before(" + cpu + ")", seeded.Add(7 * 24 * time.Hour), map[string][]any{"": {38.0, 40.0, nil}}},
		{"month_before(" + cpu + ")", seeded.Add(28 * 24 * time.Hour), map[string][]any{"": {38.0, 40.0, nil}}},
		{"timeshift(" + cpu + ", -60)", seeded, map[string][]any{"": {nil, 38.0, 40.0}}},
		// A shift of a bucket and a half lands in the bucket it falls in.
		{"timeshift(" + cpu + ", -90)", seeded, map[string][]any{"": {nil, 38.0, 40.0}}},
		// The change from a minute before, absolute and relative.
		{cpu + " - timeshift(" + cpu + ", -60)", seeded, map[string][]any{"": {nil, 2.0, nil}}},
		{"(" + cpu + " - timeshift(" + cpu + ", -60)) / timeshift(" + cpu + ", -60) * 100", seeded, map[string][]any{"": {nil, rel, nil}}},
		{
			"sum:system.cpu.user{host:web-1} by {host} - timeshift(sum:system.cpu.user{host:web-1} by {host}, -60)", seeded,
			map[string][]any{"web-1": {nil, 35.0, nil}},
		},
		// A count (in the sum table) shifts as well.
		{"hour_before(sum:requests.count{*}.as_count())", seeded.Add(time.Hour), map[string][]any{"": {12.0, 3.0, nil}}},
		// Before the data: nothing.
		{"hour_before(" + cpu + ")", seeded, map[string][]any{"": {nil, nil, nil}}},
	} {
		assert.Equal(t, tc.want, run(tc.q, tc.start), tc.q)
	}
}

// threeMinutes runs a Datadog query over three minutes from start and
// answers group → its value each minute.
func threeMinutes(t *testing.T, db *sql.DB, src query.Source, q string, start time.Time) map[string][]any {
	t.Helper()
	points, err := Run(context.Background(), db, []Series{{Source: src, Query: q}}, start, start.Add(3*time.Minute), time.Minute, time.Minute)
	require.NoError(t, err, q)
	out := map[string][]any{}
	for _, p := range points {
		k := strings.Join(p.Group, ",")
		if p.Values[0] == nil {
			out[k] = append(out[k], nil)
		} else {
			out[k] = append(out[k], *p.Values[0])
		}
	}
	return out
}

package charts

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// TestSQLWhereOnTheEngine runs sql wheres through the chart engine with
// the engine's own function catalogue: what users write works, and what
// reads beyond the source (files, other tables) is refused before it runs.
func TestSQLWhereOnTheEngine(t *testing.T) {
	db := chtest.DB(t)
	rows, src := seed(t, db)
	ctx := context.Background()
	run := func(cond string) (float64, error) {
		points, err := Run(ctx, db, []Series{{Source: src, AggFn: "count", WhereLanguage: "sql", Where: cond}},
			t0, t0.Add(10*time.Minute), 10*time.Minute, time.Minute)
		if err != nil {
			return 0, err
		}
		require.Len(t, points, 1)
		return *points[0].Values[0], nil
	}
	timeouts := 0
	for _, r := range rows {
		if r.service == "api" && r.level == "error" && (r.team == "x" || r.team == "y") {
			timeouts++
		}
	}
	got, err := run("ServiceName = 'api' AND lower(SeverityText) = 'error' AND LogAttributes['team'] IN ('x', 'y')" +
		" AND toUInt32OrZero(LogAttributes['latency']) BETWEEN 1 AND 1000 AND arrayExists(k -> k = 'team', mapKeys(LogAttributes))" +
		" AND CAST(ResourceAttributes['region'] AS String) != '' AND toStartOfHour(Timestamp) <= Timestamp")
	require.NoError(t, err)
	assert.Equal(t, float64(timeouts), got)

	for _, cond := range []string{
		"position(file('/etc/passwd'), 'root') = 1",
		"('a', 'b', 0, 'c', now()) IN otelhouse.api_teams",
		"LogAttributes['team'] IN (api_teams)",
		"hasColumnInTable('otelhouse', 'api_keys', 'hash')",
		"getSetting('max_threads') > 0",
		"sleepEachRow(1) = 0",
	} {
		_, err := run(cond)
		assert.ErrorContains(t, err, "sql where", cond)
	}
}

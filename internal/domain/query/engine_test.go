package query

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// The engine reports its timeout only as text over HTTP; the API turns it
// into a 504, so the text this engine really sends must be recognised.
func TestEngineTimeoutIsRecognised(t *testing.T) {
	db := chtest.DB(t)
	ctx := clickhouse.Context(context.Background(), clickhouse.WithSettings(clickhouse.Settings{"max_execution_time": 1}))
	err := queryErr(db.QueryContext(ctx, "SELECT count() FROM numbers(100000000000) WHERE sleepEachRow(0) = 0"))
	require.Error(t, err)
	require.ErrorIs(t, engineError(err), ErrTimeout)
	assert.NotErrorIs(t, engineError(fmt.Errorf("Code: 62. DB::Exception: Syntax error (SYNTAX_ERROR)")), ErrTimeout)
}

// A query past max_memory_usage is the query's to narrow; the engine at
// its own limit is to retry. Both come from the engine only as text.
func TestEngineMemoryRefusalsAreRecognised(t *testing.T) {
	db := chtest.DB(t)
	ctx := clickhouse.Context(context.Background(), clickhouse.WithSettings(clickhouse.Settings{"max_memory_usage": 16 << 20}))
	err := queryErr(db.QueryContext(ctx, "SELECT uniqExact(number) FROM numbers(50000000)"))
	require.Error(t, err)
	require.ErrorIs(t, engineError(err), ErrQueryMemory)
	total := fmt.Errorf("Code: 241. DB::Exception: Memory limit (total) exceeded: would use 1.00 GiB (attempt to allocate chunk of 4.00 MiB bytes), current RSS: 990.00 MiB, maximum: 1.00 GiB. (MEMORY_LIMIT_EXCEEDED)")
	require.ErrorIs(t, engineError(total), ErrEngineMemory)
	assert.NotErrorIs(t, engineError(total), ErrQueryMemory)
}

// queryErr is the error of a query, from the start or from reading its rows.
func queryErr(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

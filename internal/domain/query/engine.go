package query

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Error is a request the query engine cannot express (unknown field,
// bad where, wrong function): the caller's mistake, not the database's.
type Error struct{ error }

// Mistake marks err as the caller's to fix (an Error).
func Mistake(err error) error { return Error{err} }

// EngineError classifies an engine error: a timeout, a memory refusal,
// the caller's query mistake (an Error), or a server fault (err as is).
func EngineError(err error) error { return engineError(err) }

// ErrTimeout is a query the engine stopped at max_execution_time.
var ErrTimeout = errors.New("query exceeded query_timeout")

// ErrQueryMemory is a query that needed more memory than one query may
// take (the engine's max_memory_usage, a share of the memory budget):
// the query must ask for less, retrying it will not help.
var ErrQueryMemory = errors.New("the query needs more memory than one query may take; narrow the time range or the filter, or group by fewer values")

// ErrEngineMemory is a query refused because the engine as a whole was at
// its memory limit (max_server_memory_usage): it may pass once the load
// does.
var ErrEngineMemory = errors.New("the engine is at its memory limit; retry shortly")

// engineError recognises the engine's timeout and memory refusals, which
// clickhouse-go over HTTP reports only as text.
func engineError(err error) error {
	// The engine's error is kept as text (%v), not wrapped: a wrapped
	// context error inside it would be read as the client having left.
	msg := err.Error()
	if strings.Contains(msg, "(TIMEOUT_EXCEEDED)") {
		return fmt.Errorf("%w: %v", ErrTimeout, err) //nolint:errorlint // see above
	}
	if strings.Contains(msg, "(MEMORY_LIMIT_EXCEEDED)") {
		// "Memory limit (for query) exceeded" or "(total)"; the text
		// names the limit, which the caller's message need not.
		if strings.Contains(msg, "(total)") {
			return fmt.Errorf("%w: %v", ErrEngineMemory, err) //nolint:errorlint // see above
		}
		return fmt.Errorf("%w: %v", ErrQueryMemory, err) //nolint:errorlint // see above
	}
	for _, name := range queryFaults {
		if strings.Contains(msg, "("+name+")") {
			return Error{err}
		}
	}
	return err
}

// queryFaults are the engine's errors that the query's text causes (a
// sql where that does not parse or mixes types, a field of the wrong
// type): the caller's to fix, not the server's.
var queryFaults = []string{
	"SYNTAX_ERROR", "UNKNOWN_IDENTIFIER", "UNKNOWN_FUNCTION", "ILLEGAL_TYPE_OF_ARGUMENT", "NUMBER_OF_ARGUMENTS_DOESNT_MATCH",
	"TYPE_MISMATCH", "NO_COMMON_TYPE", "CANNOT_CONVERT_TYPE", "CANNOT_PARSE_TEXT", "CANNOT_PARSE_NUMBER",
	"CANNOT_PARSE_DATE", "CANNOT_PARSE_DATETIME", "BAD_ARGUMENTS", "ARGUMENT_OUT_OF_BOUND", "ILLEGAL_COLUMN",
	"ILLEGAL_AGGREGATION", "NOT_AN_AGGREGATE", "TOO_DEEP_AST", "TOO_BIG_AST", "TOO_DEEP_RECURSION",
}

// UserQuerySettings are the settings of every query that carries a
// user's text (a where, a field name). readonly=2 is the engine's own
// guarantee behind the where check: such a query writes nothing, creates
// nothing and changes no server state, whatever got past the check.
// (readonly=1 would also refuse the request's own settings below.)
func UserQuerySettings(timeout time.Duration) clickhouse.Settings {
	return clickhouse.Settings{
		"readonly":           2,
		"max_execution_time": int(math.Ceil(timeout.Seconds())),
		// A ClickHouse server keeps running an HTTP query whose client
		// hung up unless told otherwise.
		"cancel_http_readonly_queries_on_client_close": 1,
	}
}

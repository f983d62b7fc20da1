package chhttp

// Cancelling the statement of a client that went away, and no other.
//
// The engine's call cannot be interrupted from the goroutine that made it,
// so the control session kills the statement with KILL QUERY, by its
// query_id. libchdb gives every statement a fresh query_id and takes none
// from its caller (query_id is no setting, and a connection cannot name
// its next statement), so the statement is found first: it runs with a
// log_comment unique to the request, which system.processes lists among
// its Settings, and the one process whose log_comment equals that mark is
// the one killed. Matching the statement's text (query LIKE '%tag%', as
// before) also matched any statement that quoted the tag, such as a
// lookup in system.processes.

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// markPrefix starts the log_comment that marks a request's statement.
const markPrefix = "otelhouse-statement-"

// pollKill is how often a disconnected client's statement is looked for
// until it is found: it may not have reached the process list yet.
const pollKill = 100 * time.Millisecond

// markStatement gives the statement c runs next the log_comment mark,
// unless a comment of the client's own is in force (mark then returns
// false: the client's comment stays in the query log, and the statement
// runs to its end if its client goes away). The returned func puts the
// comment back.
func (s *Server) markStatement(c *chdb.Conn, held bool, settings [][2]string, mark string) (func(), bool) {
	for _, kv := range settings {
		if kv[0] == "log_comment" {
			return func() {}, false
		}
	}
	comment := s.baseline["log_comment"]
	if held {
		// A session_id's own SET log_comment stays for its later requests.
		res, err := c.Query("SELECT getSetting('log_comment')", "TSV")
		if err != nil {
			return func() {}, false
		}
		comment = trimNewline(string(res.Data))
	}
	if comment != "" {
		return func() {}, false
	}
	if _, err := c.Query("SET log_comment = "+quoteString(mark), "TSV"); err != nil {
		s.logger.Warn("cannot mark a statement for cancellation", zap.Error(err))
		return func() {}, false
	}
	return func() {
		if err := s.setBack(c, "log_comment"); err != nil {
			s.logger.Warn("cannot reset an engine session's log_comment", zap.Error(err))
		}
	}, true
}

func trimNewline(v string) string {
	for len(v) > 0 && (v[len(v)-1] == '\n' || v[len(v)-1] == '\r') {
		v = v[:len(v)-1]
	}
	return v
}

// cancelOnDisconnect kills the statement marked mark if ctx ends (the
// client went away) before the returned func is called (the statement
// ended). marked reports whether the statement carries the mark yet; a
// statement that never does is left to run.
func (s *Server) cancelOnDisconnect(ctx context.Context, mark string, marked func() bool) func() {
	if s.control == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		tick := time.NewTicker(pollKill)
		defer tick.Stop()
		for {
			if marked() {
				killed, err := s.killMarked(mark)
				if err != nil {
					s.logger.Warn("cannot cancel the statement of a client that went away", zap.Error(err))
					return
				}
				if killed {
					return
				}
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done) }
}

// killMarked kills the running statement marked mark, by its query_id,
// and reports whether there was one.
func (s *Server) killMarked(mark string) (bool, error) {
	rows, err := queryRows[struct {
		QueryID string `json:"query_id"`
	}](s.control, "SELECT query_id FROM system.processes WHERE Settings['log_comment'] = "+quoteString(mark))
	if err != nil || len(rows) != 1 {
		// Marks are unique: more than one match would be a statement
		// that set the mark itself, and is not killed for it.
		return len(rows) > 1, err
	}
	_, err = s.control.Query("KILL QUERY WHERE query_id = "+quoteString(rows[0].QueryID)+" ASYNC", "TSV")
	return err == nil, err
}

// cancelledUnasked reports whether err is the engine's QUERY_WAS_CANCELLED,
// which only a KILL QUERY gives.
func cancelledUnasked(err error) bool {
	var e *chdb.Error
	return errors.As(err, &e) && e.Code == queryWasCancelled
}

// queryWasCancelled is the engine's error code for a killed statement.
const queryWasCancelled = 394

package chhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// ClickHouse's session parameters: session_timeout is in seconds, 60 by
// default, at most the server's max_session_timeout (3600 by default).
const (
	defaultSessionTimeout = 60 * time.Second
	maxSessionTimeout     = 3600 * time.Second
)

// httpSession is an engine session held for one session_id between its
// requests: what a SET, USE or temporary table leaves stays for the next
// request of the same session, as in ClickHouse.
type httpSession struct {
	sess *session
	// busy is held while a request runs: ClickHouse refuses a second
	// concurrent request in one session rather than queueing it.
	busy  sync.Mutex
	timer *time.Timer
}

// requestError is a refusal with its HTTP status and ClickHouse code.
type requestError struct {
	status, code int
	msg          string
}

func (e *requestError) Error() string { return e.msg }

// sessionFor returns the engine session of session_id id, taking one from
// the pool for a new id, and the func that ends the request's use of it.
// One pooled session always stays out of reach of session_ids, so they
// cannot starve the exporter's inserts.
func (s *Server) sessionFor(ctx context.Context, id, timeoutParam string, check bool) (*session, func(), error) {
	timeout := defaultSessionTimeout
	if timeoutParam != "" {
		secs, err := strconv.ParseFloat(timeoutParam, 64)
		timeout = time.Duration(secs * float64(time.Second))
		if err != nil || timeout <= 0 || timeout > maxSessionTimeout {
			return nil, nil, &requestError{
				http.StatusBadRequest, 374,
				fmt.Sprintf("Invalid session timeout: '%s', it must be between 0 and %d seconds", timeoutParam, int(maxSessionTimeout.Seconds())),
			}
		}
	}
	s.held.Lock()
	hs := s.byID[id]
	if hs == nil {
		if check {
			s.held.Unlock()
			return nil, nil, &requestError{http.StatusNotFound, 372, "Session " + id + " not found"}
		}
		if len(s.byID) >= cap(s.sessions)-1 {
			s.held.Unlock()
			return nil, nil, &requestError{http.StatusServiceUnavailable, 202, fmt.Sprintf(
				"all %d engine sessions that sessions may hold are held by open session_ids; retry when one times out", cap(s.sessions)-1)}
		}
		// Reserved before the wait for a pooled session, so concurrent
		// new ids cannot take more than their share.
		hs = &httpSession{}
		hs.busy.Lock()
		s.byID[id] = hs
		s.held.Unlock()
		sess, err := s.acquire(ctx)
		if err != nil {
			s.held.Lock()
			delete(s.byID, id)
			s.held.Unlock()
			hs.busy.Unlock()
			return nil, nil, err
		}
		hs.sess = sess
	} else {
		if !hs.busy.TryLock() {
			s.held.Unlock()
			return nil, nil, &requestError{http.StatusConflict, 373, "Session " + id + " is locked by a concurrent client"}
		}
		hs.timer.Stop()
		s.held.Unlock()
	}
	return hs.sess, func() {
		s.held.Lock()
		hs.timer = time.AfterFunc(timeout, func() { s.expire(id, hs) })
		s.held.Unlock()
		hs.busy.Unlock()
	}, nil
}

// expire gives a session's engine session back to the pool, as it was
// before the session took it; a session in use is left to its request,
// which sets a new timer when it ends.
func (s *Server) expire(id string, hs *httpSession) {
	s.held.Lock()
	if s.byID[id] != hs || !hs.busy.TryLock() {
		s.held.Unlock()
		return
	}
	delete(s.byID, id)
	s.held.Unlock()
	s.release(hs.sess)
}

// release resets what a session left on an engine session and pools it.
func (s *Server) release(sess *session) {
	for _, eff := range []effect{effectSettings, effectTemporary, effectDatabase} {
		s.undo(sess, eff)
	}
	s.sessions <- sess
}

// closeSessions ends every session once its request, if any, is done.
func (s *Server) closeSessions() {
	s.held.Lock()
	all := s.byID
	s.byID = map[string]*httpSession{}
	s.held.Unlock()
	for _, hs := range all {
		hs.busy.Lock()
		if hs.timer != nil {
			hs.timer.Stop()
		}
		s.sessions <- hs.sess
	}
}

func (s *Server) acquire(ctx context.Context) (*session, error) {
	select {
	case sess := <-s.sessions:
		return sess, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// sessionOf is the engine session a request runs on: its session_id's,
// else any pooled one; done ends the request's use of it.
// A streamed read (reads) waits for a readers slot first.
func (s *Server) sessionOf(ctx context.Context, id string, q url.Values, reads bool) (*session, func(), error) {
	if id != "" {
		return s.sessionFor(ctx, id, q.Get("session_timeout"), q.Get("session_check") == "1")
	}
	if reads {
		select {
		case s.readers <- struct{}{}:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	leave := func() {
		if reads {
			<-s.readers
		}
	}
	sess, err := s.acquire(ctx)
	if err != nil {
		leave()
		return nil, nil, err
	}
	return sess, func() { s.sessions <- sess; leave() }, nil
}

// run applies the request's database and settings to the session for this
// statement only: the engine keeps SET and USE on a session, so they are
// undone afterwards, as is what the statement itself left (eff), unless
// the request belongs to a session_id (held), whose later requests see it.
// A held session's database changes only by USE or by the database
// parameter, which then stays for the session's next requests; it starts
// in the default one, as any session whose database is unknown.
func (s *Server) run(sess *session, held bool, database string, settings [][2]string, eff effect, f func(*chdb.Conn) (*chdb.Result, error)) (*chdb.Result, error) {
	if database == "" && (!held || sess.database == "") {
		database = "default"
	}
	if database != "" && database != sess.database {
		if _, err := sess.conn.Query("USE "+quoteIdent(database), "TSV"); err != nil {
			return nil, err
		}
		sess.database = database
	}
	for i, kv := range settings {
		if _, err := sess.conn.Query("SET "+kv[0]+" = "+quoteString(kv[1]), "TSV"); err != nil {
			s.restore(sess.conn, settings[:i])
			return nil, err
		}
	}
	defer s.restore(sess.conn, settings)
	if held {
		if eff == effectDatabase {
			defer s.trackDatabase(sess)
		}
	} else {
		defer s.undo(sess, eff)
	}
	return f(sess.conn)
}

// undo takes back what a SET, USE or CREATE TEMPORARY TABLE left on the
// session, so the next request starts as the profile says.
func (s *Server) undo(sess *session, eff effect) {
	var err error
	switch eff {
	case effectDatabase:
		sess.database = "" // unknown: the next request says USE again
	case effectSettings:
		err = s.resetSettings(sess.conn)
	case effectTemporary:
		err = dropTemporary(sess.conn)
	}
	if err != nil {
		s.logger.Warn("cannot reset an engine session after a statement that changed it", zap.Error(err))
	}
}

// trackDatabase learns where a held session's USE moved it.
func (s *Server) trackDatabase(sess *session) {
	sess.database = ""
	if res, err := sess.conn.Query("SELECT currentDatabase()", "TSV"); err == nil {
		sess.database = strings.TrimSpace(string(res.Data))
	}
}

// resetSettings puts every setting back to what the session started with.
func (s *Server) resetSettings(c *chdb.Conn) error {
	now, err := changedSettings(c)
	if err != nil {
		return err
	}
	for name, v := range now {
		if base, ok := s.baseline[name]; !ok || base != v {
			if err := s.setBack(c, name); err != nil {
				return err
			}
		}
	}
	for name := range s.baseline {
		if _, ok := now[name]; !ok {
			if err := s.setBack(c, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// changedSettings lists the settings that differ from the engine's
// defaults, with their values.
func changedSettings(c *chdb.Conn) (map[string]string, error) {
	rows, err := queryRows[struct{ Name, Value string }](c, "SELECT name, value FROM system.settings WHERE changed")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, row := range rows {
		if IsSettingName(row.Name) {
			out[row.Name] = row.Value
		}
	}
	return out, nil
}

// dropTemporary drops the session's temporary tables.
func dropTemporary(c *chdb.Conn) error {
	rows, err := queryRows[struct{ Name string }](c, "SELECT name FROM system.tables WHERE is_temporary")
	if err != nil {
		return err
	}
	for _, row := range rows {
		if _, err := c.Query("DROP TEMPORARY TABLE IF EXISTS "+quoteIdent(row.Name), "TSV"); err != nil {
			return err
		}
	}
	return nil
}

// queryRows runs a query of the server's own on a session and decodes its
// rows (JSONEachRow) into T.
func queryRows[T any](c *chdb.Conn, sql string) ([]T, error) {
	res, err := c.Query(sql, "JSONEachRow")
	if err != nil {
		return nil, err
	}
	var rows []T
	dec := json.NewDecoder(bytes.NewReader(res.Data))
	for dec.More() {
		var row T
		if err := dec.Decode(&row); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// restore puts the given settings back to where every session starts.
func (s *Server) restore(c *chdb.Conn, settings [][2]string) {
	for _, kv := range settings {
		_ = s.setBack(c, kv[0])
	}
}

// setBack puts one setting back to where every session starts: its
// baseline value (the profile's or the engine's own), else the default.
func (s *Server) setBack(c *chdb.Conn, name string) error {
	value := "DEFAULT"
	if v, ok := s.baseline[name]; ok {
		value = quoteString(v)
	}
	_, err := c.Query("SET "+name+" = "+value, "TSV")
	return err
}

package chhttp

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// Server answers the ClickHouse HTTP interface from a pool of engine
// sessions; a request holds one session for its whole statement.
type Server struct {
	sessions chan *session
	// control kills the statements of clients that went away; it runs
	// nothing else, so it is free when a request session is busy.
	control  *chdb.Conn
	user     string
	password string
	logger   *zap.Logger
	// maxBody bounds a request body after decompression.
	maxBody int64
	// baseline is every setting a session starts with that differs from
	// the engine's defaults: the profile and the engine's own choices.
	baseline map[string]string
	// timezone is the one sessions start in, reported to clients as a
	// server reports its own.
	timezone string
	// timeouts bound each read from and write to a client, unless a
	// request sets its own (deadlines.go).
	timeouts timeouts
	// readers bounds the pooled sessions that SELECTs hold at once to one
	// fewer than the pool: a result streams for as long as its client
	// reads, and writes (the exporter's inserts) must always find one.
	readers chan struct{}
	// byID holds the engine sessions of open session_ids.
	held sync.Mutex
	byID map[string]*httpSession
	// rerun counts the SELECTs run again after a kill their client did
	// not ask for.
	rerun atomic.Int64
}

type session struct {
	conn     *chdb.Conn
	database string
}

// Options are the server's settings beside its sessions.
type Options struct {
	// User and Password are the credentials required; with an empty
	// User, any are accepted.
	User, Password string
	// MaxBody bounds a request body after decompression.
	MaxBody int64
	// Profile holds settings every statement starts with, as a server's
	// default settings profile; a request's URL parameters override them
	// for that request only.
	Profile map[string]string
	Logger  *zap.Logger
}

// New serves from conns (one per concurrent statement); control, when
// not nil, is an extra connection used only to kill the statements of
// clients that disconnect. It fails when the engine refuses a profile
// setting.
func New(conns []*chdb.Conn, control *chdb.Conn, o Options) (*Server, error) {
	s := &Server{
		sessions: make(chan *session, len(conns)), readers: make(chan struct{}, max(1, len(conns)-1)),
		byID: map[string]*httpSession{}, control: control, user: o.User, password: o.Password,
		logger: o.Logger, maxBody: o.MaxBody,
		timeouts: timeouts{send: defaultSendTimeout, receive: defaultReceiveTimeout}.with(o.Profile),
	}
	names := slices.Sorted(maps.Keys(o.Profile))
	for _, name := range names {
		if !IsSettingName(name) {
			return nil, fmt.Errorf("profile: %q is not a setting name", name)
		}
	}
	for _, c := range conns {
		// The engine keeps SET on a session, and URL parameters are
		// undone back to these values after each statement.
		for _, name := range names {
			if _, err := c.Query("SET "+name+" = "+quoteString(o.Profile[name]), "TSV"); err != nil {
				return nil, fmt.Errorf("profile setting %s: %w", name, err)
			}
		}
		s.sessions <- &session{conn: c, database: "default"}
	}
	if len(conns) > 0 {
		var err error
		if s.baseline, err = changedSettings(conns[0]); err != nil {
			return nil, fmt.Errorf("reading the engine's settings: %w", err)
		}
		tz, err := queryRows[struct{ TZ string }](conns[0], "SELECT timezone() AS TZ")
		if err != nil {
			return nil, fmt.Errorf("reading the engine's timezone: %w", err)
		}
		if len(tz) != 1 {
			return nil, fmt.Errorf("reading the engine's timezone: %d rows", len(tz))
		}
		s.timezone = tz[0].TZ
	}
	return s, nil
}

// Close ends every session once no request holds one.
func (s *Server) Close() {
	s.closeSessions()
	for i := 0; i < cap(s.sessions); i++ {
		(<-s.sessions).conn.Close()
	}
	if s.control != nil {
		s.control.Close()
	}
}

// ServeHTTP answers one request: the guard, then the request read into a
// statement, then the statement run on a session and its result written.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Deadlines per read and per write, never over the statement's run
	// time (deadlines.go says why): writes before the statement, and the
	// flush net/http makes after ServeHTTP returns, within one send's time.
	rc := http.NewResponseController(w)
	liftServerDeadlines(rc)
	tm := s.timeouts.request(r.URL.Query())
	answering := func() { _ = rc.SetWriteDeadline(time.Now().Add(tm.send)) }
	answering()
	defer answering()
	r.Body = &receivingBody{r: r.Body, rc: rc, timeout: tm.receive}
	if !s.guard(w, r) {
		return
	}
	body, err := s.requestBody(r, r.URL.Query().Get("decompress") == "1")
	if err != nil {
		httpError(w, http.StatusBadRequest, 0, err.Error())
		return
	}
	defer func() { _ = body.Close() }()
	req, err := s.readRequest(r, body)
	// Reading the body, and then waiting for a session, may take long:
	// an answer after either gets a send's time from then.
	answering()
	if err != nil {
		writeRequestError(w, err)
		return
	}
	sess, done, err := s.sessionOf(r.Context(), req.sessionID, req.q, req.stream)
	if err != nil {
		answering()
		writeRequestError(w, err)
		return
	}
	defer done()
	// A client that disconnects cancels its statement, and only its own
	// (cancel.go): the statement carries a mark to be found by.
	mark := markPrefix + randomTag()
	var marked atomic.Bool
	stop := s.cancelOnDisconnect(r.Context(), mark, marked.Load)
	defer stop()
	rw := newResponse(w, r, req, s.timezone, tm.send)
	sql := req.st.sql
	// No write is due while the statement runs; a streamed result's
	// writes each set their own deadline.
	_ = rc.SetWriteDeadline(time.Time{})
	statement := func(c *chdb.Conn) (*chdb.Result, error) {
		if !req.st.insert && req.st.effect != effectSettings {
			// An INSERT's data comes from its client: one that goes away
			// ends the data, and the statement with it. A SET is quick,
			// and what it sets must outlast the mark.
			unmark, ok := s.markStatement(c, req.sessionID != "", req.settings, mark)
			defer unmark()
			marked.Store(ok)
		}
		switch {
		case req.st.insert:
			return c.Insert(req.st.sql, req.st.format, func(appendChunk func([]byte) error) error {
				return copyChunks(req.data, appendChunk)
			})
		case req.stream:
			err := rw.stream(c, sql, req.params)
			var e *chdb.Error
			if errors.As(err, &e) && !rw.started && strings.Contains(e.Message, "Streaming query is not supported") {
				break // a WITH … INSERT, say: read whole
			}
			return nil, err
		}
		return c.QueryParams(sql, req.format, req.params)
	}
	database := headerOr(r, "X-ClickHouse-Database", req.q.Get("database"))
	res, err := s.run(sess, req.sessionID != "", database, req.settings, req.st.effect, statement)
	if cancelledUnasked(err) && r.Context().Err() == nil && req.st.streams && !rw.started {
		// Only a client's leaving kills its statement (cancel.go), yet
		// under load a SELECT is now and then killed while its client
		// still waits: the kill was meant for another request. Nothing
		// of it was sent and a SELECT changes nothing, so it runs
		// again, once.
		s.logger.Warn("a statement was cancelled while its client waited; running it again", zap.Error(err))
		s.rerun.Add(1)
		res, err = s.run(sess, req.sessionID != "", database, req.settings, req.st.effect, statement)
	}
	answering()
	if err != nil {
		if !rw.started {
			writeEngineError(w, err)
		}
		return
	}
	if res != nil {
		rw.whole(res)
	}
}

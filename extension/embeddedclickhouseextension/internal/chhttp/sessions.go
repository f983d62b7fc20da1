package chhttp

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
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
			return nil, nil, &requestError{http.StatusBadRequest, 374,
				fmt.Sprintf("Invalid session timeout: '%s', it must be between 0 and %d seconds", timeoutParam, int(maxSessionTimeout.Seconds()))}
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

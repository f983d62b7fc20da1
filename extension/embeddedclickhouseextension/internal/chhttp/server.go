package chhttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/ch-go/compress"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
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
	// readers bounds the pooled sessions that SELECTs hold at once to one
	// fewer than the pool: a result streams for as long as its client
	// reads, and writes (the exporter's inserts) must always find one.
	readers chan struct{}
	// byID holds the engine sessions of open session_ids.
	held sync.Mutex
	byID map[string]*httpSession
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
	s := &Server{sessions: make(chan *session, len(conns)), readers: make(chan struct{}, max(1, len(conns)-1)),
		byID: map[string]*httpSession{}, control: control, user: o.User, password: o.Password,
		logger: o.Logger, maxBody: o.MaxBody}
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
		if err != nil || len(tz) != 1 {
			return nil, fmt.Errorf("reading the engine's timezone: %v", err)
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

// cancelOnDisconnect kills the tagged statement if the client goes away
// before it finishes; the returned func ends the watch.
func (s *Server) cancelOnDisconnect(ctx context.Context, tag string) func() {
	if s.control == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-ctx.Done():
			// tag is ours (hex), never user input.
			if _, err := s.control.Query("KILL QUERY WHERE query LIKE '%"+tag+"%' AND query NOT LIKE '%KILL QUERY%' ASYNC", "TSV"); err != nil {
				s.logger.Warn("cannot cancel the query of a client that went away", zap.Error(err))
			}
		}
	}()
	return func() { close(done) }
}

// URL parameters that are part of the protocol, not engine settings.
var protocolParams = map[string]bool{
	"query": true, "database": true, "default_format": true, "user": true, "password": true,
	"compress": true, "decompress": true, "client_protocol_version": true, "query_id": true,
	"session_id": true, "session_timeout": true, "session_check": true, "buffer_size": true,
	"wait_end_of_query": true, "enable_http_compression": true, "http_zlib_compression_level": true,
	"http_native_compression_disable_checksumming_on_decompress": true, "default_format_settings": true,
	"role": true, "quota_key": true, "stacktrace": true,
}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// IsSettingName reports whether name can stand as it is in a SET statement
// or as an element of the engine's configuration file.
func IsSettingName(name string) bool { return settingName.MatchString(name) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A single server has no replicas to lag: /replicas_status answers Ok.
	// as a server without replicated tables does, for health checks.
	if r.URL.Path == "/ping" || r.URL.Path == "/replicas_status" ||
		(r.URL.Path == "/" && r.Method == http.MethodGet && r.URL.Query().Get("query") == "") {
		_, _ = io.WriteString(w, "Ok.\n")
		return
	}
	if r.URL.Path != "/" {
		httpError(w, http.StatusNotFound, 0, "There is no handle "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		httpError(w, http.StatusMethodNotAllowed, 0, "method "+r.Method+" not allowed")
		return
	}
	if s.user == "" && !loopbackHost(r.Host) {
		// A page whose name the attacker re-points at 127.0.0.1 (DNS
		// rebinding) is same-origin with this port: its GETs carry no
		// Origin and it reads the answers. They still name its host.
		httpError(w, http.StatusForbidden, 0, "an engine without credentials answers only requests addressed to a loopback name, not "+
			strconv.Quote(r.Host)+": set username and password on the embedded engine to serve other names")
		return
	}
	if s.user == "" && r.Header.Get("Origin") != "" {
		// Browsers send Origin with what a web page posts; without
		// credentials, any page could otherwise write to an open
		// loopback engine through the user's browser. Clients never
		// send it.
		httpError(w, http.StatusForbidden, 0, "requests from web pages need credentials: set username and password on the embedded engine")
		return
	}
	if !s.authorized(r) {
		httpError(w, http.StatusUnauthorized, 516, "default: Authentication failed: password is incorrect, or there is no user with such name")
		return
	}
	q := r.URL.Query()
	body, err := s.requestBody(r, q.Get("decompress") == "1")
	if err != nil {
		httpError(w, http.StatusBadRequest, 0, err.Error())
		return
	}
	defer body.Close()

	query := q.Get("query")
	st := parseStatement(query)
	var data io.Reader
	switch {
	case st.insert:
		data = io.MultiReader(strings.NewReader(st.inline), body)
	case query == "":
		b, err := io.ReadAll(body)
		if err != nil {
			httpError(w, http.StatusBadRequest, 0, err.Error())
			return
		}
		st = parseStatement(string(b))
		if st.insert {
			data = strings.NewReader(st.inline)
		}
	default:
		// ClickHouse appends a body to a query given in the URL.
		b, err := io.ReadAll(body)
		if err != nil {
			httpError(w, http.StatusBadRequest, 0, err.Error())
			return
		}
		if len(bytes.TrimSpace(b)) > 0 {
			st = parseStatement(query + " " + string(b))
		}
	}
	if strings.TrimSpace(st.sql) == "" {
		httpError(w, http.StatusBadRequest, 62, "Empty query")
		return
	}
	if multiStatement(st.sql) {
		httpError(w, http.StatusBadRequest, 62, "Multi-statements are not allowed")
		return
	}
	if why := hostAccess(st.sql); why != "" {
		httpError(w, http.StatusForbidden, 497, "default: Not enough privileges: "+why+", which the embedded engine's user may not do (docs/security.md)")
		return
	}
	format := st.format
	if format == "" {
		format = headerOr(r, "X-ClickHouse-Format", q.Get("default_format"))
	}
	if format == "" {
		format = "TabSeparated"
	}
	settings, params, err := requestSettings(q)
	if err != nil {
		httpError(w, http.StatusBadRequest, 115, err.Error())
		return
	}
	if r.Method == http.MethodGet {
		settings = readOnly(settings)
	}
	if st.insert && strings.EqualFold(st.format, "Values") {
		// Values data may hold expressions, file('…') among them, which
		// the engine evaluates; streamed data is not read by hostAccess.
		settings = append(settings, [2]string{"input_format_values_interpret_expressions", "0"})
	}

	// ClickHouse streams a result as it is produced; wait_end_of_query
	// asks for it whole, so that an error mid-way still gets its status.
	stream := !st.insert && streams(st.sql) && q.Get("wait_end_of_query") != "1"
	id := q.Get("session_id")
	sess, done, err := s.sessionOf(r.Context(), id, q, stream)
	if err != nil {
		var re *requestError
		if errors.As(err, &re) {
			httpError(w, re.status, re.code, re.msg)
		} else {
			httpError(w, http.StatusServiceUnavailable, 0, err.Error())
		}
		return
	}
	defer done()
	// A client that disconnects cancels its statement (the engine's call
	// cannot be interrupted from here): the statement carries a tag the
	// control session can kill it by.
	tag := "otelhouse-stmt-" + randomTag()
	stop := s.cancelOnDisconnect(r.Context(), tag)
	defer stop()
	rw := &response{w: w, r: r, q: q, format: format, timezone: s.timezone, sendTimeout: defaultSendTimeout}
	for _, kv := range settings {
		switch kv[0] {
		case "session_timezone":
			if kv[1] != "" {
				rw.timezone = kv[1]
			}
		case "http_send_timeout":
			if secs, err := strconv.ParseFloat(kv[1], 64); err == nil && secs > 0 {
				rw.sendTimeout = time.Duration(secs * float64(time.Second))
			}
		}
	}
	sql := "/* " + tag + " */ " + st.sql
	res, err := s.run(sess, id != "", headerOr(r, "X-ClickHouse-Database", q.Get("database")), settings, sessionEffect(st.sql), func(c *chdb.Conn) (*chdb.Result, error) {
		switch {
		case st.insert:
			return c.Insert(st.sql, st.format, func(appendChunk func([]byte) error) error {
				return copyChunks(data, appendChunk)
			})
		case stream:
			err := rw.stream(c, sql, params)
			var e *chdb.Error
			if errors.As(err, &e) && !rw.started && strings.Contains(e.Message, "Streaming query is not supported") {
				break // a WITH … INSERT, say: read whole
			}
			return nil, err
		}
		return c.QueryParams(sql, format, params)
	})
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

// response writes a statement's output as ClickHouse does: the result's
// headers, then its bytes, reframed for the client's Native revision,
// in ClickHouse's compressed frames (compress=1) or a Content-Encoding.
type response struct {
	w        http.ResponseWriter
	r        *http.Request
	q        url.Values
	format   string
	timezone string
	// started: headers are out, an error can only go into the body.
	started bool
	out     io.Writer
	// closer ends the Content-Encoding's stream, when there is one.
	closer io.Closer
	tag    string
	// sendTimeout bounds how long a streamed write may wait for the client.
	sendTimeout time.Duration
}

// defaultSendTimeout is ClickHouse's http_send_timeout: a client that
// reads nothing for this long loses its statement, which would otherwise
// hold an engine session while it stalls.
const defaultSendTimeout = 30 * time.Second

// start sends the headers and sets up the body's encoders.
func (rw *response) start(res *chdb.Result, resultBytes int, streamed bool) {
	summary, _ := json.Marshal(map[string]string{
		"read_rows": strconv.FormatUint(res.RowsRead, 10), "read_bytes": strconv.FormatUint(res.BytesRead, 10),
		"written_rows": strconv.FormatUint(res.RowsWritten, 10), "written_bytes": strconv.FormatUint(res.BytesWritten, 10),
		"total_rows_to_read": "0", "result_rows": strconv.FormatUint(res.RowsRead, 10), "result_bytes": strconv.Itoa(resultBytes),
		"elapsed_ns": strconv.FormatInt(int64(res.Elapsed*1e9), 10),
	})
	h := rw.w.Header()
	h.Set("X-ClickHouse-Summary", string(summary))
	h.Set("X-ClickHouse-Format", rw.format)
	h.Set("X-ClickHouse-Timezone", rw.timezone)
	h.Set("X-ClickHouse-Server-Display-Name", "otelhouse-embedded")
	if id := rw.q.Get("query_id"); id != "" {
		h.Set("X-ClickHouse-Query-Id", id)
	}
	if streamed {
		// An error after the headers can only be told in the body: the
		// tag marks it there, as ClickHouse 25.11 does, for clients.
		rw.tag = randomTag() // 16 characters, as ClickHouse's
		h.Set("X-ClickHouse-Exception-Tag", rw.tag)
	}
	rw.out = clientWriter{rw.w}
	if rw.q.Get("enable_http_compression") == "1" {
		accept := rw.r.Header.Get("Accept-Encoding")
		switch {
		case strings.Contains(accept, "zstd"):
			h.Set("Content-Encoding", "zstd")
			zw, _ := zstd.NewWriter(rw.out)
			rw.out, rw.closer = zw, zw
		case strings.Contains(accept, "gzip"):
			h.Set("Content-Encoding", "gzip")
			gw := gzip.NewWriter(rw.out)
			rw.out, rw.closer = gw, gw
		}
	}
	if rw.q.Get("compress") == "1" {
		// The client asked for ClickHouse's own compressed frames.
		rw.out = &framer{w: rw.out}
	}
	rw.started = true
}

// reframe rewrites whole Native blocks for the client's revision.
func (rw *response) reframe(b []byte) ([]byte, error) {
	if !strings.EqualFold(rw.format, "Native") {
		return b, nil
	}
	v, _ := strconv.Atoi(rw.q.Get("client_protocol_version"))
	return reframeNative(b, v)
}

func (rw *response) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := rw.out.Write(b)
	return err
}

func (rw *response) finish() {
	if rw.closer != nil {
		_ = rw.closer.Close()
	}
}

// whole answers with a result read at once.
func (rw *response) whole(res *chdb.Result) {
	out, err := rw.reframe(res.Data)
	if err != nil {
		httpError(rw.w, http.StatusInternalServerError, 0, err.Error())
		return
	}
	rw.start(res, len(res.Data), false)
	if rw.write(out) == nil {
		rw.finish()
	}
}

// stream answers with the statement's output as the engine produces it.
// An error before the first output is the caller's to answer; after it,
// the exception goes into the body between tagged markers and the
// response is cut short, so no client takes it for a whole result.
func (rw *response) stream(c *chdb.Conn, sql string, params map[string]string) error {
	st, err := c.QueryStream(sql, rw.format, params)
	if err != nil {
		return err
	}
	defer st.Close()
	rc := http.NewResponseController(rw.w) // net/http clears its deadline after the request
	for {
		more, err := st.Next(func(b []byte) error {
			out, err := rw.reframe(b)
			if err != nil {
				return err
			}
			if !rw.started {
				rw.start(&st.Stats, len(b), true)
			}
			_ = rc.SetWriteDeadline(time.Now().Add(rw.sendTimeout))
			return rw.write(out)
		})
		switch {
		case err != nil && !rw.started:
			return err
		case errors.Is(err, errWrite):
			return err // the client went away; Close cancels the statement
		case err != nil:
			rw.exception(err)
			panic(http.ErrAbortHandler)
		case !more:
			if !rw.started {
				rw.start(&st.Stats, 0, true)
			}
			rw.finish()
			return nil
		}
	}
}

// errWrite marks a failed write to the client, which no answer can reach.
var errWrite = errors.New("writing the response")

type clientWriter struct{ w io.Writer }

func (c clientWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	if err != nil {
		err = fmt.Errorf("%w: %w", errWrite, err)
	}
	return n, err
}

// framer puts each write into one ClickHouse compressed (LZ4) frame.
type framer struct {
	w  io.Writer
	cw *compress.Writer
}

func (f *framer) Write(b []byte) (int, error) {
	if f.cw == nil {
		f.cw = compress.NewWriter(compress.LevelZero, compress.LZ4)
	}
	if err := f.cw.Compress(b); err != nil {
		return 0, err
	}
	if _, err := f.w.Write(f.cw.Data); err != nil {
		return 0, err
	}
	return len(b), nil
}

// exception writes an error into a body already under way.
func (rw *response) exception(err error) {
	code := 0
	var e *chdb.Error
	if errors.As(err, &e) {
		code = e.Code
	}
	msg := exceptionText(code, err.Error())
	_, _ = fmt.Fprintf(rw.out, "\r\n__exception__\r\n%s\r\n%s%d %s\r\n__exception__\r\n", rw.tag, msg, len(msg), rw.tag)
	rw.finish()
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) authorized(r *http.Request) bool {
	if s.user == "" {
		return true
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		user, pass = r.Header.Get("X-ClickHouse-User"), r.Header.Get("X-ClickHouse-Key")
	}
	if user == "" {
		user, pass = r.URL.Query().Get("user"), r.URL.Query().Get("password")
	}
	return subtle.ConstantTimeCompare([]byte(user), []byte(s.user))&subtle.ConstantTimeCompare([]byte(pass), []byte(s.password)) == 1
}

func (s *Server) acquire(ctx context.Context) (*session, error) {
	select {
	case sess := <-s.sessions:
		return sess, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// headerOr is a request header, else the URL parameter's value: ClickHouse
// takes the database and the default format from either, the header first.
func headerOr(r *http.Request, header, param string) string {
	if v := r.Header.Get(header); v != "" {
		return v
	}
	return param
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

// requestSettings separates engine settings and param_ values from the
// protocol's own URL parameters.
func requestSettings(q map[string][]string) ([][2]string, map[string]string, error) {
	var settings [][2]string
	params := map[string]string{}
	for k, vs := range q {
		if len(vs) == 0 || protocolParams[k] {
			continue
		}
		if name, ok := strings.CutPrefix(k, "param_"); ok {
			params[name] = vs[len(vs)-1]
			continue
		}
		if !IsSettingName(k) {
			return nil, nil, fmt.Errorf("Unknown setting %q", k)
		}
		settings = append(settings, [2]string{k, vs[len(vs)-1]})
	}
	return settings, params, nil
}

// readOnly makes a GET request's statement read-only (readonly=2: it
// may still change settings), as ClickHouse does: a link or an image in
// a web page cannot drop a table through a browser.
func readOnly(settings [][2]string) [][2]string {
	out := make([][2]string, 0, len(settings)+1)
	strict := false
	for _, kv := range settings {
		if kv[0] == "readonly" {
			strict = strict || kv[1] == "1"
			continue
		}
		out = append(out, kv)
	}
	if strict {
		return append(out, [2]string{"readonly", "1"})
	}
	return append(out, [2]string{"readonly", "2"})
}

func quoteString(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

func quoteIdent(v string) string {
	return "`" + strings.NewReplacer("`", "``", `\`, `\\`).Replace(v) + "`"
}

// requestBody undoes HTTP Content-Encoding and, with decompress=1,
// ClickHouse's compressed frames, capping the result.
func (s *Server) requestBody(r *http.Request, frames bool) (io.ReadCloser, error) {
	var body io.Reader = r.Body
	switch enc := strings.ToLower(r.Header.Get("Content-Encoding")); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, err
		}
		body = zr
	case "deflate":
		zr, err := zlib.NewReader(body)
		if err != nil {
			return nil, err
		}
		body = zr
	case "zstd":
		zr, err := zstd.NewReader(body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(32<<20))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		b, err := io.ReadAll(io.LimitReader(zr, s.maxBody+1))
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	default:
		return nil, fmt.Errorf("unsupported Content-Encoding %q", enc)
	}
	if frames {
		body = compress.NewReader(body)
	}
	return io.NopCloser(&capReader{r: body, left: s.maxBody}), nil
}

// capReader fails once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, errors.New("request body exceeds the size limit")
	}
	return n, err
}

func randomTag() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func copyChunks(r io.Reader, appendChunk func([]byte) error) error {
	buf := make([]byte, 256<<10)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if aerr := appendChunk(buf[:n]); aerr != nil {
				return aerr
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeEngineError answers as ClickHouse does: the exception text, its
// code in X-ClickHouse-Exception-Code, and a status derived from the code.
func writeEngineError(w http.ResponseWriter, err error) {
	var e *chdb.Error
	if !errors.As(err, &e) {
		httpError(w, http.StatusInternalServerError, 0, err.Error())
		return
	}
	status := http.StatusInternalServerError
	switch e.Code {
	case 60, 81, 16, 47: // unknown table, database, column, identifier
		status = http.StatusNotFound
	case 62, 27, 26, 33, 41, 53, 117, 115, 6, 69, 130: // syntax, parse and bad-argument errors
		status = http.StatusBadRequest
	case 516:
		status = http.StatusUnauthorized
	case 497, 164: // access denied, read-only
		status = http.StatusForbidden
	}
	httpError(w, status, e.Code, e.Message)
}

func httpError(w http.ResponseWriter, status, code int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=UTF-8")
	if code != 0 {
		h.Set("X-ClickHouse-Exception-Code", strconv.Itoa(code))
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, exceptionText(code, msg))
}

// exceptionText is an error as ClickHouse writes it: "Code: N.
// DB::Exception: …", one trailing newline.
func exceptionText(code int, msg string) string {
	if code != 0 && !strings.HasPrefix(msg, "Code:") {
		msg = fmt.Sprintf("Code: %d. DB::Exception: %s", code, msg)
	}
	return strings.TrimRight(msg, "\n") + "\n"
}

// loopbackHost reports whether a Host header names this machine's
// loopback: localhost (and its subdomains, which browsers resolve there
// themselves), or a loopback address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return true // HTTP/1.0 sends none; browsers always do
	}
	if h := strings.ToLower(host); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

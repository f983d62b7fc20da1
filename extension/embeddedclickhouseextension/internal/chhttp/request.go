package chhttp

// Reading a request: protocol parameters and engine settings from the URL,
// the body (compressed frames, capped), quoting for SET statements.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ClickHouse/ch-go/compress"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

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

// headerOr is a request header, else the URL parameter's value: ClickHouse
// takes the database and the default format from either, the header first.
func headerOr(r *http.Request, header, param string) string {
	if v := r.Header.Get(header); v != "" {
		return v
	}
	return param
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
			return nil, nil, fmt.Errorf("Unknown setting %q", k) //nolint:staticcheck // ClickHouse's own words, which clients match
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

// request is a statement ready to run: its SQL, the data an INSERT
// streams, the output format, the engine settings and query parameters,
// and how the result goes back.
type request struct {
	q         url.Values
	st        statement
	data      io.Reader
	format    string
	settings  [][2]string
	params    map[string]string
	sessionID string
	// stream sends the result as the engine produces it; an INSERT, or
	// wait_end_of_query=1, gets it whole.
	stream bool
}

// maxCheckedValues bounds the Values data written in a statement that is
// parsed as expressions (the engine's max_query_size); longer data is read
// as literals only.
const maxCheckedValues = 256 << 10

// forcedValuesSettings make the engine read Values data as literals only:
// no expression is evaluated (interpret_expressions), not even through a
// template deduced from the first row (deduce_templates_of_expressions).
var forcedValuesSettings = [][2]string{
	{"input_format_values_interpret_expressions", "0"},
	{"input_format_values_deduce_templates_of_expressions", "0"},
}

// readRequest reads the statement from the URL and the body as ClickHouse
// does: query= with an INSERT's data (or more of the statement) in the
// body, or the whole statement in the body. What the statement is and what
// it reaches is the engine's parse (parse.go). What may not run answers a
// requestError.
func (s *Server) readRequest(r *http.Request, body io.Reader) (*request, error) {
	q := r.URL.Query()
	query := q.Get("query")
	settings, params, err := requestSettings(q)
	if err != nil {
		return nil, &requestError{http.StatusBadRequest, 115, err.Error()}
	}
	p, err := s.parser()
	if err != nil {
		return nil, err
	}
	var (
		st       statement
		data     io.Reader
		streamed bool // data beyond the statement text comes from the body
		ok       bool
	)
	if query != "" {
		if st, ok, err = p.splitInsert(query, params); err != nil {
			return nil, err
		}
		if ok {
			data, streamed = io.MultiReader(strings.NewReader(st.inline), body), true
		}
	}
	if !ok {
		// The statement is in the body, or ClickHouse appends the body to
		// a query given in the URL.
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, &requestError{http.StatusBadRequest, 0, err.Error()}
		}
		text := query
		if len(bytes.TrimSpace(b)) > 0 {
			if text != "" {
				text += " "
			}
			text += string(b)
		}
		if strings.TrimSpace(text) == "" {
			return nil, &requestError{http.StatusBadRequest, 62, "Empty query"}
		}
		if st, ok, err = p.splitInsert(text, params); err != nil {
			return nil, err
		}
		if ok {
			data = strings.NewReader(st.inline)
		} else if st, err = p.whole(text, params); err != nil {
			return nil, err
		}
	}
	if why := p.hostAccess(st.parsed); why != "" {
		return nil, denied(why)
	}
	if st.insert && strings.EqualFold(st.format, "Values") {
		checked, err := p.checkValues(st, streamed, params)
		if err != nil {
			return nil, err
		}
		if !checked {
			// A SETTINGS clause anywhere in the INSERT (its own, or its
			// SELECT's) would apply over the settings forced below.
			if st.parsed.has("Set") {
				return nil, &requestError{http.StatusForbidden, 497, "default: Not enough privileges: an INSERT whose Values data is read as literals only (data sent apart from the statement, or not readable as expressions) may not carry a SETTINGS clause on the embedded engine (docs/security.md)"}
			}
			settings = slices.DeleteFunc(settings, func(kv [2]string) bool {
				return slices.ContainsFunc(forcedValuesSettings, func(f [2]string) bool { return f[0] == kv[0] })
			})
			settings = append(settings, forcedValuesSettings...)
		}
	}
	format := st.format
	if format == "" {
		format = headerOr(r, "X-ClickHouse-Format", q.Get("default_format"))
	}
	if format == "" {
		format = "TabSeparated"
	}
	if r.Method == http.MethodGet {
		settings = readOnly(settings)
	}
	return &request{
		q: q, st: st, data: data, format: format, settings: settings, params: params, sessionID: q.Get("session_id"),
		// ClickHouse streams a result as it is produced; wait_end_of_query
		// asks for it whole, so that an error mid-way still gets its status.
		stream: !st.insert && st.streams && q.Get("wait_end_of_query") != "1",
	}, nil
}

func denied(why string) error {
	return &requestError{http.StatusForbidden, 497, "default: Not enough privileges: " + why + ", which the embedded engine's user may not do (docs/security.md)"}
}

// parsers holds each server's engine parser, by its control connection.
var parsers sync.Map // *chdb.Conn -> *engineParser

// parser is the engine parser on the control connection.
func (s *Server) parser() (*engineParser, error) {
	if s.control == nil {
		return nil, errors.New("the embedded engine has no control connection to parse statements on")
	}
	p, _ := parsers.LoadOrStore(s.control, &engineParser{conn: s.control})
	return p.(*engineParser), nil
}

// maxDataTries bounds the places tried as an INSERT's data start.
const maxDataTries = 8

// splitInsert finds where an INSERT's data begins: the first place
// dataCandidates offers whose head, with its FORMAT clause, the engine
// reads as an INSERT with that format. It reports false for a statement
// with no data (not an INSERT, or INSERT … SELECT).
func (p *engineParser) splitInsert(text string, params map[string]string) (statement, bool, error) {
	for i, c := range dataCandidates(text) {
		if i == maxDataTries {
			break
		}
		head := text[:c.headEnd]
		pp, err := p.parse(head+" FORMAT "+c.format, params)
		if err != nil {
			var e *chdb.Error
			if errors.As(err, &e) {
				continue // not the head's end
			}
			return statement{}, false, err
		}
		if pp.root() != "InsertQuery" || !endsWithFormat(pp.canonical, c.format) {
			continue
		}
		st := statement{sql: head, insert: true, format: c.format, inline: text[c.dataStart:], parsed: pp}
		st.classify()
		return st, true, nil
	}
	return statement{}, false, nil
}

// endsWithFormat reports whether the canonical INSERT ends with FORMAT
// format: the clause appended to the head is the INSERT's own.
func endsWithFormat(canonical, format string) bool {
	n := len(canonical) - len(format) - len("FORMAT ") - 1
	return n >= 0 && (canonical[n] == ' ' || canonical[n] == '\n') &&
		strings.EqualFold(canonical[n+1:], "FORMAT "+format)
}

// whole parses a statement that carries no data of its own.
func (p *engineParser) whole(text string, params map[string]string) (statement, error) {
	pp, err := p.parse(text, params)
	if err != nil {
		var e *chdb.Error
		if errors.As(err, &e) {
			return statement{}, &requestError{http.StatusBadRequest, e.Code, e.Message}
		}
		return statement{}, err
	}
	if pp.root() == "InsertQuery" && (!pp.hasChild("SelectWithUnionQuery") || pp.has("Function") && hasFunction(pp, "input")) {
		// An INSERT of data whose start was not found: run whole, the
		// engine would read the data with nothing checking it.
		return statement{}, &requestError{http.StatusBadRequest, 62, "cannot find where the INSERT's data begins: write FORMAT <name> or VALUES after the table and its columns"}
	}
	st := statement{sql: strings.TrimRight(strings.TrimSpace(text), ";"), parsed: pp}
	st.classify()
	return st, nil
}

func hasFunction(pp *parsed, name string) bool {
	for _, n := range pp.tree {
		if n.kind == "Function" && (strings.EqualFold(n.rest, name) || strings.HasPrefix(strings.ToLower(n.rest), name+" ")) {
			return true
		}
	}
	return false
}

// checkValues reads an INSERT's Values data as the engine would read its
// expressions, and refuses it when they reach the host; it reports
// whether the data was read, so that it may hold expressions. Data sent
// apart from the statement (the body under a query= INSERT), too long, or
// not readable as expressions is not: the engine reads it as literals.
func (p *engineParser) checkValues(st statement, streamed bool, params map[string]string) (bool, error) {
	data := strings.TrimRightFunc(st.inline, func(r rune) bool { return r == ';' || r < 0x80 && isBlank(byte(r)) })
	if streamed || len(data) > maxCheckedValues || strings.TrimSpace(data) == "" {
		return false, nil
	}
	vp, err := p.parse("SELECT "+data, params)
	if err != nil {
		var e *chdb.Error
		if errors.As(err, &e) {
			return false, nil
		}
		return false, err
	}
	if vp.root() != "SelectWithUnionQuery" {
		return false, nil
	}
	if why := p.hostAccess(vp); why != "" {
		return false, denied(why)
	}
	return true, nil
}

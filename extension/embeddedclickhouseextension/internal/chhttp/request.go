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
	"strings"

	"github.com/ClickHouse/ch-go/compress"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
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

// readRequest reads the statement from the URL and the body as ClickHouse
// does: query= with an INSERT's data (or more of the statement) in the
// body, or the whole statement in the body. What may not run answers a
// requestError.
func readRequest(r *http.Request, body io.Reader) (*request, error) {
	q := r.URL.Query()
	query := q.Get("query")
	st := parseStatement(query)
	var data io.Reader
	switch {
	case st.insert:
		data = io.MultiReader(strings.NewReader(st.inline), body)
	case query == "":
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, &requestError{http.StatusBadRequest, 0, err.Error()}
		}
		st = parseStatement(string(b))
		if st.insert {
			data = strings.NewReader(st.inline)
		}
	default:
		// ClickHouse appends a body to a query given in the URL.
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, &requestError{http.StatusBadRequest, 0, err.Error()}
		}
		if len(bytes.TrimSpace(b)) > 0 {
			st = parseStatement(query + " " + string(b))
		}
	}
	if strings.TrimSpace(st.sql) == "" {
		return nil, &requestError{http.StatusBadRequest, 62, "Empty query"}
	}
	if multiStatement(st.sql) {
		return nil, &requestError{http.StatusBadRequest, 62, "Multi-statements are not allowed"}
	}
	if why := hostAccess(st.sql); why != "" {
		return nil, &requestError{http.StatusForbidden, 497, "default: Not enough privileges: " + why + ", which the embedded engine's user may not do (docs/security.md)"}
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
		return nil, &requestError{http.StatusBadRequest, 115, err.Error()}
	}
	if r.Method == http.MethodGet {
		settings = readOnly(settings)
	}
	if st.insert && strings.EqualFold(st.format, "Values") {
		// Values data may hold expressions, file('…') among them, which
		// the engine evaluates; streamed data is not read by hostAccess.
		settings = append(settings, [2]string{"input_format_values_interpret_expressions", "0"})
	}
	return &request{q: q, st: st, data: data, format: format, settings: settings, params: params, sessionID: q.Get("session_id"),
		// ClickHouse streams a result as it is produced; wait_end_of_query
		// asks for it whole, so that an error mid-way still gets its status.
		stream: !st.insert && streams(st.sql) && q.Get("wait_end_of_query") != "1"}, nil
}

package datadogreceiver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/extension/extensionauth"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/internal/admission"
	"github.com/otelhouse/otelhouse/internal/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/freelist"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/logs"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/metadata"
)

// datadogReceiver serves the trace-agent port: the paths a tracer calls on
// its local agent and the intake paths an Agent calls on its dd_url.
type datadogReceiver struct {
	cfg        *Config
	set        receiver.Settings
	obs        *receiverhelper.ObsReport
	keys       [][]byte
	tracerNets []netip.Prefix       // clients whose tracers need no key
	authn      extensionauth.Server // the ingestion_key_authenticator, if any
	onShutdown func()
	logs       logs.Translator

	nextTraces  consumer.Traces
	nextLogs    consumer.Logs
	nextMetrics consumer.Metrics

	telemetry *metadata.TelemetryBuilder
	v3Once    sync.Once

	startOnce sync.Once
	addr      net.Addr // where the server listens, once started
	server    *http.Server
	mux       *http.ServeMux // what router() registered, to name a request's route
	endpoints []string       // the listed routes, as /info advertises them
	serveDone chan struct{}
}

func newReceiver(set receiver.Settings, cfg *Config, onShutdown func()) (*datadogReceiver, error) {
	obs, err := receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{
		ReceiverID:             set.ID,
		Transport:              "http",
		ReceiverCreateSettings: set,
	})
	if err != nil {
		return nil, err
	}
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	nets, err := cfg.tracerNetworks()
	if err != nil {
		return nil, err
	}
	return &datadogReceiver{
		cfg: cfg, set: set, obs: obs, keys: cfg.keys(), tracerNets: nets, onShutdown: onShutdown, telemetry: tb,
		logs: logs.Translator{DecodeJSONMessage: cfg.Logs.DecodeJSONMessage, TraceIDs: cfg.Logs.TraceIDs},
	}, nil
}

// Start is called once per signal; the server starts on the first call.
func (r *datadogReceiver) Start(ctx context.Context, host component.Host) error {
	var err error
	r.startOnce.Do(func() { err = r.start(ctx, host) })
	return err
}

func (r *datadogReceiver) start(ctx context.Context, host component.Host) error {
	if id := r.cfg.IngestionKeyAuthenticator; id != nil {
		ext, ok := host.GetExtensions()[*id]
		if !ok {
			return fmt.Errorf("ingestion_key_authenticator %q is not an extension of this collector", id)
		}
		if r.authn, ok = ext.(extensionauth.Server); !ok {
			return fmt.Errorf("ingestion_key_authenticator %q is not a server authenticator", id)
		}
	}
	srv, err := r.cfg.ToServer(ctx, host.GetExtensions(), r.set.TelemetrySettings, r.router(),
		confighttp.WithDecoder("gzip", gzipDecoder),
		confighttp.WithDecoder("deflate", zlibDecoder),
		confighttp.WithDecoder("zlib", zlibDecoder),
		confighttp.WithDecoder("zstd", zstdDecoder),
		confighttp.WithDecoder("zstd1", zstdDecoder),
		confighttp.WithErrorHandler(func(w http.ResponseWriter, req *http.Request, msg string, status int) {
			r.refuse(w, req, status, msg)
		}),
	)
	if err != nil {
		return err
	}
	srv.Handler = r.admit(r.normalizeCoding(srv.Handler))
	ln, err := r.cfg.ToListener(ctx)
	if err != nil {
		return fmt.Errorf("datadog receiver: listening on %s: %w", r.cfg.NetAddr.Endpoint, err)
	}
	r.server = srv
	r.addr = ln.Addr()
	r.serveDone = make(chan struct{})
	r.set.Logger.Info("datadog receiver listening", zap.String("endpoint", ln.Addr().String()))
	go func() {
		defer close(r.serveDone)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	}()
	return nil
}

// admit bounds the requests with a body in progress at once
// (max_concurrent_requests): each may hold a decompressed body and its
// translation, so their number, not only their size, bounds the memory. It
// wraps confighttp's handlers, so a waiting request has no decompressor and
// no body in memory yet. One that waits max_request_wait is answered 429
// with Retry-After, which Agents retry.
func (r *datadogReceiver) admit(next http.Handler) http.Handler {
	room := admission.New(int64(r.cfg.MaxConcurrentRequests), r.cfg.MaxRequestWait)
	if room == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost && req.Method != http.MethodPut {
			next.ServeHTTP(w, req)
			return
		}
		taken, err := room.Enter(req.Context(), 1, 0)
		if err != nil {
			if req.Context().Err() != nil {
				return // the sender gave up: nobody to answer
			}
			_, pattern := r.mux.Handler(req) // not routed yet
			r.telemetry.ReceiverDatadogThrottledRequests.Add(req.Context(), 1, byPath(pattern))
			r.retryLater(w, req, http.StatusTooManyRequests, fmt.Sprintf(
				"%d requests in progress for %s (max_concurrent_requests, max_request_wait), retry later",
				r.cfg.MaxConcurrentRequests, r.cfg.MaxRequestWait))
			return
		}
		defer room.Leave(taken)
		next.ServeHTTP(w, req)
	})
}

// Shutdown is called once per signal; the first call stops the server.
func (r *datadogReceiver) Shutdown(ctx context.Context) error {
	if r.onShutdown != nil {
		r.onShutdown()
		r.onShutdown = nil
		r.telemetry.Shutdown()
	}
	if r.server == nil {
		return nil
	}
	err := r.server.Shutdown(ctx)
	<-r.serveDone
	r.server = nil
	return err
}

// authorize demands an ingestion key on agent intake paths whenever keys
// are checked. Tracer paths take requests without a key from the
// tracer networks (require_key_on_tracer_paths: from nowhere), and a key
// from anywhere else.
func (r *datadogReceiver) authorize(tracer bool, next http.Handler) http.Handler {
	if len(r.keys) == 0 && r.authn == nil {
		return next
	}
	keyless := tracer && !r.cfg.RequireKeyOnTracerPaths
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if keyless && r.fromTracerNetwork(req) {
			next.ServeHTTP(w, req)
			return
		}
		key := req.Header.Get("DD-API-KEY")
		if key == "" {
			key = req.URL.Query().Get("api_key")
		}
		if !r.validKey(req.Context(), key) {
			msg := "missing or invalid API key (DD-API-KEY header or api_key query parameter)"
			if keyless {
				msg += "; tracer paths take requests without a key only from tracer_networks"
			}
			r.refuse(w, req, http.StatusForbidden, msg)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// fromTracerNetwork tells whether the peer (never a forwarded-for header,
// which any client sets) is in tracer_networks.
func (r *datadogReceiver) fromTracerNetwork(req *http.Request) bool {
	ap, err := netip.ParseAddrPort(req.RemoteAddr)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, n := range r.tracerNets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

func (r *datadogReceiver) validKey(ctx context.Context, key string) bool {
	if key == "" {
		return false
	}
	ok := 0
	for _, k := range r.keys {
		ok |= subtle.ConstantTimeCompare([]byte(key), k)
	}
	if ok == 1 {
		return true
	}
	if r.authn == nil {
		return false
	}
	// Offered as both an agent key and a bearer token, so any server
	// authenticator (bearertokenauth too) can judge it.
	_, err := r.authn.Authenticate(ctx, map[string][]string{"DD-API-KEY": {key}, "Authorization": {"Bearer " + key}})
	return err == nil
}

// Bodies of a few MiB at most, a few requests at a time; kept across GCs.
var bodyPool = freelist.New(2*runtime.GOMAXPROCS(0), func() *bytes.Buffer { return new(bytes.Buffer) })

// readBody reads the whole (already decompressed) body into a pooled buffer.
// Callers must not keep references into it after release.
func (r *datadogReceiver) readBody(w http.ResponseWriter, req *http.Request) (*bytes.Buffer, bool) {
	buf := bodyPool.Get()
	buf.Reset()
	if req.ContentLength > 0 && req.ContentLength <= r.cfg.MaxRequestBodySize {
		// MinRead more: ReadFrom doubles a buffer that has less free
		// before its last read, the one that meets EOF.
		buf.Grow(int(req.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(req.Body); err != nil {
		releaseBody(buf)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			r.refuse(w, req, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("body exceeds %d bytes (max_request_body_size, after decompression)", tooBig.Limit))
		} else {
			r.refuse(w, req, http.StatusBadRequest, "reading body: "+err.Error())
		}
		return nil, false
	}
	return buf, true
}

func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= 4<<20 { // don't pin huge buffers in the pool
		bodyPool.Put(buf)
	}
}

// budget is a new request's bound on what its body may become in memory.
func (r *datadogReceiver) budget() *budget.Budget { return budget.New(r.cfg.MaxDecodedSize) }

// refuseDecoded answers a body that could not be translated: 413 for one
// that would take more than max_decoded_size, else 400.
func (r *datadogReceiver) refuseDecoded(w http.ResponseWriter, req *http.Request, err error) {
	status := http.StatusBadRequest
	if isOverBudget(err) {
		status = http.StatusRequestEntityTooLarge
	}
	r.refuse(w, req, status, err.Error())
}

func isOverBudget(err error) bool {
	var over *budget.ExceededError
	return errors.As(err, &over)
}

// consumeError maps a pipeline refusal to what agents understand: a
// permanent error is the payload's fault (400, not retried); anything else
// may pass, so 503 with Retry-After makes the agent keep the payload and retry.
func (r *datadogReceiver) consumeError(w http.ResponseWriter, req *http.Request, err error) {
	if consumererror.IsPermanent(err) {
		r.refuse(w, req, http.StatusBadRequest, "pipeline refused the payload: "+err.Error())
		return
	}
	r.retryLater(w, req, http.StatusServiceUnavailable, "pipeline busy, retry later: "+err.Error())
}

// retryLater refuses a request the sender should send again, after the
// configured Retry-After.
func (r *datadogReceiver) retryLater(w http.ResponseWriter, req *http.Request, status int, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(r.cfg.RetryAfterSeconds))
	r.refuse(w, req, status, msg)
}

// byPath attributes a request counter to the served path the request
// is for (the prefix for a subtree such as /evp_proxy/v2/, "other" for a
// path not served), so senders cannot grow the metric's series.
// pattern is the ServeMux pattern that matched ("POST /v0.4/traces").
func byPath(pattern string) metric.AddOption {
	path := "other"
	if _, p, ok := strings.Cut(pattern, " "); ok {
		path = p
	}
	return metric.WithAttributeSet(attribute.NewSet(attribute.String("path", path)))
}

// maxReason bounds a refusal's text: decoder errors may quote the payload.
const maxReason = 512

// refuse answers an error with a one-line reason and logs it once.
func (r *datadogReceiver) refuse(w http.ResponseWriter, req *http.Request, status int, msg string) {
	msg = oneLine(msg)
	r.set.Logger.Warn("datadog receiver refused a request",
		zap.String("path", req.URL.Path), zap.Int("status", status), zap.String("reason", msg),
		zap.String("remote", remoteHost(req)), zap.String("user_agent", req.UserAgent()))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n") //nolint:gosec // text/plain with nosniff: read by agents, never rendered
}

// oneLine flattens and bounds a reason so it is one log line and one
// response line.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
	if len(s) > maxReason {
		s = strings.ToValidUTF8(s[:maxReason], "") + "…"
	}
	return s
}

func remoteHost(req *http.Request) string {
	h, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return h
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// The decoders replace confighttp's standard-library ones with pooled
// klauspost/compress readers (faster: BenchmarkDecompressLogs,
// docs/performance.md); confighttp still caps
// the decompressed size with max_request_body_size.

// pooledReader returns its decoder to the pool on Close.
type pooledReader struct {
	io.Reader
	put func()
	n   int64 // bytes read
}

func (p *pooledReader) Read(b []byte) (int, error) {
	n, err := p.Reader.Read(b)
	p.n += int64(n)
	return n, err
}

func (p *pooledReader) Close() error {
	if p.put != nil {
		p.put()
		p.put = nil
	}
	return nil
}

// Decoders are kept across garbage collections (a sync.Pool empties at
// each one): a zstd decoder's history and a flate reader's window cost
// more to allocate and fault in again than a body costs to decompress.
var (
	gzipPool = freelist.New(2*runtime.GOMAXPROCS(0), func() *gzip.Reader { return nil })
	zlibPool = freelist.New(2*runtime.GOMAXPROCS(0), func() io.ReadCloser { return nil })
	zstdPool = freelist.New(2*runtime.GOMAXPROCS(0), func() *zstd.Decoder { return nil })
)

func gzipDecoder(body io.ReadCloser) (io.ReadCloser, error) {
	zr := gzipPool.Get()
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(body)
	} else {
		err = zr.Reset(body)
	}
	if err != nil {
		return nil, err
	}
	return &pooledReader{Reader: zr, put: func() { gzipPool.Put(zr) }}, nil
}

// zlibDecoder serves "deflate", which Datadog Agents send as zlib.
func zlibDecoder(body io.ReadCloser) (io.ReadCloser, error) {
	if zr := zlibPool.Get(); zr != nil {
		if err := zr.(zlib.Resetter).Reset(body, nil); err != nil {
			return nil, err
		}
		return &pooledReader{Reader: zr, put: func() { zlibPool.Put(zr) }}, nil
	}
	zr, err := zlib.NewReader(body)
	if err != nil {
		return nil, err
	}
	return &pooledReader{Reader: zr, put: func() { zlibPool.Put(zr) }}, nil
}

// The window cap bounds what one zstd frame may make us allocate,
// whatever its header claims.
const zstdMaxWindow = 32 << 20

// zstdKeepBelow is the largest body after which a zstd decoder is reused.
const zstdKeepBelow = 8 << 20

func zstdDecoder(body io.ReadCloser) (io.ReadCloser, error) {
	zr := zstdPool.Get()
	var err error
	if zr == nil {
		zr, err = zstd.NewReader(body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow),
			zstd.WithDecoderMaxMemory(1<<30))
	} else {
		err = zr.Reset(body)
	}
	if err != nil {
		return nil, err
	}
	// Not Reset(nil) on release: that frees the history ring, which the
	// next request would allocate again (BenchmarkHTTPLogsZstd,
	// docs/performance.md). A decoder that served a large body may hold a
	// large window: it is dropped rather than kept.
	p := &pooledReader{Reader: zr}
	p.put = func() {
		if p.n <= zstdKeepBelow {
			zstdPool.Put(zr)
		}
	}
	return p, nil
}

package otlpbudgetextension

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/otelhouse/otelhouse/extension/otlpbudgetextension/internal/metadata"
	"github.com/otelhouse/otelhouse/internal/runtime/admission"
	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

type budgetExtension struct {
	cfg       *Config
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder
	admission *admission.Room
	// verdicts holds, for each OTLP/gRPC request the codec has seen, the
	// room it was admitted with or why it was refused, until the
	// interceptor takes it; the request's pointer is the key.
	verdicts sync.Map
	// prevGoLimit is the runtime's soft limit before Start set
	// go_memory_limit, restored at Shutdown; -1 when Start set none.
	prevGoLimit int64
	// setGoLimit is debug.SetMemoryLimit (a test's fake in tests).
	setGoLimit func(int64) int64
}

// verdict is the codec's answer to one gRPC request.
type verdict struct {
	taken int64
	err   error
}

var (
	_ extensionmiddleware.HTTPServer = (*budgetExtension)(nil)
	_ extensionmiddleware.GRPCServer = (*budgetExtension)(nil)
)

var (
	traces  = (&coltrace.ExportTraceServiceRequest{}).ProtoReflect().Descriptor()
	metrics = (&colmetrics.ExportMetricsServiceRequest{}).ProtoReflect().Descriptor()
	logs    = (&collogs.ExportLogsServiceRequest{}).ProtoReflect().Descriptor()
	// requests are the OTLP/HTTP export paths (the OTLP receiver's
	// defaults) and the message each carries.
	requests = map[string]protoreflect.MessageDescriptor{"/v1/traces": traces, "/v1/metrics": metrics, "/v1/logs": logs}
	// messages are the same by name: the OTLP/gRPC services decode into
	// pdata's own types of these names.
	messages = map[string]protoreflect.MessageDescriptor{
		string(traces.Name()): traces, string(metrics.Name()): metrics, string(logs.Name()): logs,
	}
)

func (e *budgetExtension) GetHTTPHandler(context.Context) (extensionmiddleware.WrapHTTPHandlerFunc, error) {
	return func(_ context.Context, next http.Handler) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			e.serve(&retryAfterWriter{ResponseWriter: w, seconds: strconv.Itoa(e.cfg.RetryAfterSeconds)}, req, next)
		}), nil
	}, nil
}

// retryAfterWriter adds Retry-After to every 429 and 503 the receiver
// answers without one (the memory limiter's refusals, a full sending
// queue), so every retryable refusal on OTLP/HTTP tells the sender when
// to come back, as the Datadog receiver's do.
type retryAfterWriter struct {
	http.ResponseWriter
	seconds string
}

func (w *retryAfterWriter) WriteHeader(status int) {
	if (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", w.seconds)
	}
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *retryAfterWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serve counts an export body before the receiver decodes it. The body is
// already decompressed and capped by max_request_body_size (middlewares
// run inside confighttp's decompression and size limit).
func (e *budgetExtension) serve(w http.ResponseWriter, req *http.Request, next http.Handler) {
	md, ok := requests[req.URL.Path]
	if !ok || req.Method != http.MethodPost || !e.bounded() {
		next.ServeHTTP(w, req)
		return
	}
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	// The receiver copies what it reads (it decodes from its own buffer),
	// so the buffer is free again once it has answered.
	defer func() {
		if buf.Cap() <= maxPooled {
			bodies.Put(buf)
		}
	}()
	// The body is counted as it arrives, so that bodies read at once, on
	// slow connections too, stay within the bound before any is weighed.
	reading := &heldBody{body: req.Body, room: e.admission}
	defer reading.release()
	if n := req.ContentLength; n > 0 {
		// A declared body takes its room before its buffer is made, so
		// refused senders hold no buffers (the flood's figures:
		// docs/storage.md).
		if err := reading.take(n); err != nil {
			e.tooBusy(w, req, int(n), err) // declared, not read
			return
		}
		if n <= maxPooled {
			// MinRead more: ReadFrom doubles a buffer with less free
			// before its last read, the one that meets EOF.
			buf.Grow(int(n) + bytes.MinRead)
		}
	}
	_, err := buf.ReadFrom(reading)
	body := buf.Bytes()
	if errors.Is(err, admission.ErrWaitersFull) {
		e.tooBusy(w, req, len(body), err)
		return
	}
	// The receiver reads the same bytes, and any read error after them
	// (a body over max_request_body_size, a corrupt gzip stream), and
	// answers it as it would have.
	req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
	if err != nil {
		next.ServeHTTP(w, req)
		return
	}
	bud := e.budget()
	if isJSON(req.Header.Get("Content-Type")) {
		err = bud.JSON(body, budget.Node)
	} else {
		err = bud.Proto(md, body)
	}
	if err != nil {
		e.refuseHTTP(w, req, len(body), http.StatusRequestEntityTooLarge, boundSize, err)
		return
	}
	// The body already counts among the waiting bytes while it waits.
	taken, err := e.admit(req.Context(), bud, len(body), 0)
	reading.release() // admitted, it is part of the room taken
	if err != nil {
		if req.Context().Err() != nil {
			return // the sender gave up: nobody to answer
		}
		e.tooBusy(w, req, len(body), err)
		return
	}
	defer e.admission.Leave(taken)
	next.ServeHTTP(w, req)
}

// tooBusy refuses an HTTP request as retryable.
func (e *budgetExtension) tooBusy(w http.ResponseWriter, req *http.Request, size int, err error) {
	w.Header().Set("Retry-After", strconv.Itoa(e.cfg.RetryAfterSeconds))
	e.refuseHTTP(w, req, size, http.StatusTooManyRequests, boundInFlight, e.busy(err))
}

// heldBody counts the bytes read from a body in the room (Hold) until it
// is released; the read fails with admission.ErrWaitersFull past the
// bound.
type heldBody struct {
	body       io.Reader
	room       *admission.Room
	read, held int64
}

func (h *heldBody) Read(p []byte) (int, error) {
	n, err := h.body.Read(p)
	h.read += int64(n)
	if herr := h.take(h.read); herr != nil {
		return n, herr
	}
	return n, err
}

// take makes sure the room holds n bytes of the body. A body counts up to
// the bound, so that one alone is always read, as one request alone is
// always admitted.
func (h *heldBody) take(n int64) error {
	more := min(n, h.room.Size()) - h.held
	if more <= 0 {
		return nil
	}
	if err := h.room.Hold(more); err != nil {
		return err
	}
	h.held += more
	return nil
}

func (h *heldBody) release() {
	h.room.Release(h.held)
	h.held = 0
}

func (e *budgetExtension) refuseHTTP(w http.ResponseWriter, req *http.Request, size, status int, bound string, err error) {
	e.logger.Warn("otlp_budget refused a request", zap.String("path", req.URL.Path),
		zap.Int("body_bytes", size), zap.Int("status", status), zap.String("reason", err.Error()))
	e.count(req.Context(), bound, "http")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, err.Error()+"\n")
}

// admit takes room in max_decoded_in_flight for a counted body: what it
// decodes to, and the body itself, which is in memory meanwhile; held is
// what of it Enter has to count among the waiting bytes.
func (e *budgetExtension) admit(ctx context.Context, bud *budget.Budget, size int, held int64) (int64, error) {
	return e.admission.Enter(ctx, bud.Used()+int64(size), held)
}

// busy says why admission refused a request, for its sender.
func (e *budgetExtension) busy(err error) error {
	what := fmt.Sprintf("for %s, the requests being decoded held", e.cfg.MaxRequestWait)
	if errors.Is(err, admission.ErrWaitersFull) {
		what = "the requests waiting or being read hold"
	}
	return fmt.Errorf("%s %s, the most allowed in memory at once (otlp_budget max_decoded_in_flight); retry later",
		what, budget.Size(e.cfg.MaxDecodedInFlight))
}

// The bounds a refusal names in otlp_budget_refused_requests.
const (
	boundSize     = "max_decoded_size"
	boundInFlight = "max_decoded_in_flight"
)

// count records a refusal: the receiver never sees these requests, so its
// refused-items metrics do not count them.
func (e *budgetExtension) count(ctx context.Context, bound, transport string) {
	e.telemetry.OtlpBudgetRefusedRequests.Add(ctx, 1, metric.WithAttributeSet(
		attribute.NewSet(attribute.String("bound", bound), attribute.String("transport", transport))))
}

// Start sets the Go runtime's soft memory limit when go_memory_limit is
// given.
func (e *budgetExtension) Start(context.Context, component.Host) error {
	e.prevGoLimit = -1
	if e.cfg.GoMemoryLimit > 0 {
		e.prevGoLimit = e.setGoLimit(e.cfg.GoMemoryLimit)
		e.logger.Info("Go soft memory limit set", zap.Int64("go_memory_limit", e.cfg.GoMemoryLimit))
	}
	return nil
}

// Shutdown puts back the soft memory limit Start replaced.
func (e *budgetExtension) Shutdown(context.Context) error {
	if e.prevGoLimit >= 0 && e.setGoLimit != nil {
		e.setGoLimit(e.prevGoLimit)
		e.prevGoLimit = -1
	}
	e.telemetry.Shutdown()
	return nil
}

// bounded reports whether the extension has anything to count.
func (e *budgetExtension) bounded() bool {
	return e.cfg.MaxDecodedSize > 0 || e.admission != nil
}

// Bodies are read into pooled buffers: allocating and zeroing one per
// request was a visible share of the receiver's CPU (BenchmarkOTLPLogs,
// docs/performance.md).
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 8 << 20

// GetGRPCServerOptions replaces the server's codec with one that counts an
// export message before pdata's codec decodes it: gRPC decodes a request
// before any interceptor runs, so the codec is the one place to keep it
// from being decoded. The message is already decompressed and within
// max_recv_msg_size_mib. A codec's error can only become INTERNAL, so the
// codec leaves a refused message undecoded and records why; the
// interceptor, installed first so that it runs before any other (auth
// included), answers with that status, or releases the room the message
// was admitted with once the receiver is done with it.
func (e *budgetExtension) GetGRPCServerOptions(context.Context) ([]grpc.ServerOption, error) {
	if !e.bounded() {
		return nil, nil
	}
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(&countingCodec{CodecV2: encoding.GetCodecV2("proto"), ext: e}),
		grpc.UnaryInterceptor(e.intercept),
	}, nil
}

type countingCodec struct {
	encoding.CodecV2 // pdata's, which registered itself as "proto"
	ext              *budgetExtension
}

func (c *countingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	md, ok := messages[t.Name()]
	if !ok {
		return c.CodecV2.Unmarshal(data, v)
	}
	e := c.ext
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	bud := e.budget()
	err := bud.Proto(md, buf.ReadOnlyData())
	buf.Free()
	if err != nil {
		e.refuseGRPC(v, t.Name(), data.Len(), boundSize, status.New(codes.ResourceExhausted, err.Error()))
		return nil
	}
	taken, err := e.admit(context.Background(), bud, data.Len(), int64(data.Len()))
	if err != nil {
		st, _ := status.New(codes.Unavailable, e.busy(err).Error()).WithDetails(&errdetails.RetryInfo{
			RetryDelay: durationpb.New(time.Duration(e.cfg.RetryAfterSeconds) * time.Second),
		})
		e.refuseGRPC(v, t.Name(), data.Len(), boundInFlight, st)
		return nil
	}
	if err := c.CodecV2.Unmarshal(data, v); err != nil {
		e.admission.Leave(taken)
		return err
	}
	e.verdicts.Store(v, verdict{taken: taken})
	return nil
}

func (e *budgetExtension) refuseGRPC(v any, message string, size int, bound string, st *status.Status) {
	e.logger.Warn("otlp_budget refused a request", zap.String("message", message),
		zap.Int("body_bytes", size), zap.String("code", st.Code().String()), zap.String("reason", st.Message()))
	e.count(context.Background(), bound, "grpc")
	e.verdicts.Store(v, verdict{err: st.Err()})
}

// intercept answers a request the codec refused, and releases the room of
// one it admitted when the receiver has answered.
func (e *budgetExtension) intercept(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	got, ok := e.verdicts.LoadAndDelete(req)
	if !ok {
		return handler(ctx, req)
	}
	v := got.(verdict)
	if v.err != nil {
		return nil, v.err
	}
	defer e.admission.Leave(v.taken)
	return handler(ctx, req)
}

// budget is a new request's or message's bound; with no bound of its own
// it still counts, for max_decoded_in_flight.
func (e *budgetExtension) budget() *budget.Budget {
	limit := e.cfg.MaxDecodedSize
	if limit <= 0 {
		limit = math.MaxInt64
	}
	return budget.New(limit).For("otlp_budget max_decoded_size")
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return 0, io.EOF
}

func isJSON(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json"
}

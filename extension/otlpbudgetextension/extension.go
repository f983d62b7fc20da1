package otlpbudgetextension

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/otelhouse/otelhouse/internal/budget"
)

type budgetExtension struct {
	component.StartFunc
	component.ShutdownFunc
	cfg    *Config
	logger *zap.Logger
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
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { e.serve(w, req, next) }), nil
	}, nil
}

// serve counts an export body before the receiver decodes it. The body is
// already decompressed and capped by max_request_body_size (middlewares
// run inside confighttp's decompression and size limit).
func (e *budgetExtension) serve(w http.ResponseWriter, req *http.Request, next http.Handler) {
	md, ok := requests[req.URL.Path]
	if !ok || req.Method != http.MethodPost || e.cfg.MaxDecodedSize <= 0 {
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
	if req.ContentLength > 0 && req.ContentLength <= maxPooled {
		buf.Grow(int(req.ContentLength))
	}
	_, err := buf.ReadFrom(req.Body)
	body := buf.Bytes()
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
		e.logger.Warn("otlp_budget refused a request", zap.String("path", req.URL.Path),
			zap.Int("body_bytes", len(body)), zap.String("reason", err.Error()))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, err.Error()+"\n")
		return
	}
	next.ServeHTTP(w, req)
}

// Bodies are read into pooled buffers: allocating and zeroing a new one
// per request cost a tenth of the receiver's CPU.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 8 << 20

// GetGRPCServerOptions replaces the server's codec with one that counts an
// export message before pdata's codec decodes it: gRPC decodes a request
// before any interceptor runs, so the codec is the one place to refuse it.
// The message is already decompressed and within max_recv_msg_size_mib.
func (e *budgetExtension) GetGRPCServerOptions(context.Context) ([]grpc.ServerOption, error) {
	if e.cfg.MaxDecodedSize <= 0 {
		return nil, nil
	}
	return []grpc.ServerOption{grpc.ForceServerCodecV2(&countingCodec{CodecV2: encoding.GetCodecV2("proto"), ext: e})}, nil
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
	if md, ok := messages[t.Name()]; ok {
		buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
		err := c.ext.budget().Proto(md, buf.ReadOnlyData())
		buf.Free()
		if err != nil {
			c.ext.logger.Warn("otlp_budget refused a request", zap.String("message", t.Name()),
				zap.Int("body_bytes", data.Len()), zap.String("reason", err.Error()))
			return err
		}
	}
	return c.CodecV2.Unmarshal(data, v)
}

// budget is a new request's or message's bound.
func (e *budgetExtension) budget() *budget.Budget {
	return budget.New(e.cfg.MaxDecodedSize).For("otlp_budget max_decoded_size")
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

package otlpbudgetextension

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"go.uber.org/zap"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/otelhouse/otelhouse/internal/budget"
)

type budgetExtension struct {
	component.StartFunc
	component.ShutdownFunc
	cfg    *Config
	logger *zap.Logger
}

var _ extensionmiddleware.HTTPServer = (*budgetExtension)(nil)

// requests are the OTLP/HTTP export paths (the OTLP receiver's defaults)
// and the message each carries.
var requests = map[string]protoreflect.MessageDescriptor{
	"/v1/traces":  (&coltrace.ExportTraceServiceRequest{}).ProtoReflect().Descriptor(),
	"/v1/metrics": (&colmetrics.ExportMetricsServiceRequest{}).ProtoReflect().Descriptor(),
	"/v1/logs":    (&collogs.ExportLogsServiceRequest{}).ProtoReflect().Descriptor(),
}

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
	bud := budget.New(e.cfg.MaxDecodedSize)
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
		_, _ = io.WriteString(w, strings.ReplaceAll(err.Error(), "max_decoded_size", "otlp_budget max_decoded_size")+"\n")
		return
	}
	next.ServeHTTP(w, req)
}

// Bodies are read into pooled buffers: allocating and zeroing a new one
// per request cost a tenth of the receiver's CPU.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 8 << 20

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

package datadogreceiver

// The receiver's lifecycle: built by the factory, started once for all
// its signals, shut down on the first Shutdown (the other jobs' files are
// listed in doc.go).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/extension/extensionauth"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

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

package embeddedclickhouseextension

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/extension"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chhttp"
)

type embedded struct {
	cfg    *Config
	set    extension.Settings
	api    *chhttp.Server
	server *http.Server
	done   chan struct{}
}

func newEmbedded(set extension.Settings, cfg *Config) *embedded {
	return &embedded{cfg: cfg, set: set}
}

// Start opens the engine and serves it. Extensions start before the
// pipelines, so the exporter finds it up.
func (e *embedded) Start(ctx context.Context, host component.Host) (err error) {
	// The port first: a second instance on the same port (a second
	// `make run`) stops here, before it opens the first one's data.
	ln, err := e.cfg.ToListener(ctx)
	if err != nil {
		return fmt.Errorf("embedded ClickHouse listening on %s: %w", e.cfg.NetAddr.Endpoint, err)
	}
	defer func() {
		if err != nil {
			_ = ln.Close()
		}
	}()
	lib, err := chdb.Load(e.cfg.LibraryPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.cfg.DataDir, 0o750); err != nil {
		return fmt.Errorf("embedded ClickHouse data directory: %w", err)
	}
	if err := keepPassword(e.cfg.PasswordFile, string(e.cfg.Password)); err != nil {
		return err
	}
	args, err := EngineArgs(&e.cfg.Settings)
	if err != nil {
		return err
	}
	var conns []*chdb.Conn
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	// One more than the sessions: the control connection.
	for i := 0; i <= e.cfg.Sessions; i++ {
		c, err := lib.Connect(e.cfg.DataDir, args...)
		if err != nil {
			closeAll()
			return err
		}
		conns = append(conns, c)
	}
	if err := checkEngineConfig(conns[0], &e.cfg.Settings); err != nil {
		closeAll()
		return err
	}
	e.api, err = chhttp.New(conns[:e.cfg.Sessions], conns[e.cfg.Sessions], chhttp.Options{
		User: e.cfg.Username, Password: string(e.cfg.Password), MaxBody: e.cfg.MaxRequestBodySize,
		Profile: e.cfg.EngineProfile(), Logger: e.set.Logger,
	})
	if err != nil {
		closeAll()
		return fmt.Errorf("embedded ClickHouse %w", err)
	}
	srv, err := e.cfg.ToServer(ctx, host.GetExtensions(), e.set.TelemetrySettings, e.api)
	if err != nil {
		e.api.Close()
		return err
	}
	e.server, e.done = srv, make(chan struct{})
	go func() {
		defer close(e.done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	}()
	e.set.Logger.Info("embedded ClickHouse serving", zap.String("endpoint", ln.Addr().String()),
		zap.String("engine", lib.Version()), zap.String("data_dir", e.cfg.DataDir), zap.Int("sessions", e.cfg.Sessions))
	return nil
}

// Shutdown stops taking requests, lets running statements finish, then
// closes the sessions (extensions stop after the pipelines).
func (e *embedded) Shutdown(ctx context.Context) error {
	if e.server == nil {
		return nil
	}
	err := e.server.Shutdown(ctx)
	<-e.done
	e.api.Close()
	e.server = nil
	return err
}

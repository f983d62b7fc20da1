package webuiextension

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/extension"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/webuiextension/internal/metadata"
	"github.com/otelhouse/otelhouse/internal/domain/accounts"
	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
	"github.com/otelhouse/otelhouse/internal/runtime/authfail"
)

type webUI struct {
	cfg       *Config
	set       extension.Settings
	telemetry *metadata.TelemetryBuilder
	authLog   *authfail.Log // failed sign-ins, once a minute per address
	hosts     *hostGuard    // the names the UI answers to (routes)
	server    *http.Server
	done      chan struct{}

	provider apistate.Provider
	// accounts is made once the API's state is there.
	accountsOnce sync.Once
	accounts     *accounts.Service
	assets       *assets
}

// Start finds the API extension (its state may come later: until then the
// endpoints answer 503 with Retry-After and the app says it is starting)
// and serves.
func (u *webUI) Start(ctx context.Context, host component.Host) error {
	ext, ok := host.GetExtensions()[u.cfg.API]
	if !ok {
		return fmt.Errorf("webui: extension %q is not configured; the UI shares its state (set webui::api)", u.cfg.API)
	}
	p, ok := ext.(apistate.Provider)
	if !ok {
		return fmt.Errorf("webui: extension %q is not an observability API", u.cfg.API)
	}
	u.provider = p
	a, err := loadAssets(u.cfg.AssetsDir)
	if err != nil {
		return err
	}
	u.assets = a
	ln, err := u.cfg.ServerConfig.ToListener(ctx)
	if err != nil {
		return fmt.Errorf("web UI listening on %s: %w", u.cfg.ServerConfig.NetAddr.Endpoint, err)
	}
	hs, err := u.cfg.ServerConfig.ToServer(ctx, host.GetExtensions(), u.set.TelemetrySettings, u.routes())
	if err != nil {
		_ = ln.Close()
		return err
	}
	u.server, u.done = hs, make(chan struct{})
	go func() {
		defer close(u.done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	}()
	u.set.Logger.Info("web UI serving", zap.String("endpoint", ln.Addr().String()), zap.Bool("built_frontend", a.built))
	return nil
}

// state is the API's shared state and the accounts over it, nil while
// the API is starting.
func (u *webUI) state() (*apistate.State, *accounts.Service) {
	st := u.provider.APIState()
	if st == nil {
		return nil, nil
	}
	u.accountsOnce.Do(func() {
		u.accounts = accounts.New(accounts.Options{
			Store: st.Store, Sealer: st.Sealer, Team: st.Team,
			SessionLifetime: u.cfg.SessionLifetime, IdleTimeout: u.cfg.SessionIdleTimeout, InvitationLifetime: u.cfg.InvitationLifetime,
		})
	})
	return st, u.accounts
}

func (u *webUI) Shutdown(ctx context.Context) error {
	if u.server == nil {
		return nil
	}
	err := u.server.Shutdown(ctx)
	<-u.done
	u.server = nil
	return err
}

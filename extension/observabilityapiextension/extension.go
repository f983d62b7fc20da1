package observabilityapiextension

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/extension"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/api"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/metadata"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/apistate"
	"github.com/otelhouse/otelhouse/internal/runtime/authfail"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// DefaultTeam owns everything until teams can be created through the API.
const DefaultTeam = "default"

// KeysFile is written once, on first start, with the generated keys.
const KeysFile = "api-keys.txt"

type apiExtension struct {
	cfg      *Config
	set      extension.Settings
	db       *sql.DB
	server   *http.Server
	done     chan struct{}
	cancel   context.CancelFunc
	initDone chan struct{}
	ready    atomic.Pointer[api.Server]
	// ingestion holds every team's ingestion keys once the store is open.
	ingestion atomic.Pointer[store.KeyCache]
	// state is what the web UI shares, once the store is open.
	state atomic.Pointer[apistate.State]
	// telemetry counts refused credentials; authLog logs them, at most
	// once a minute per client address.
	telemetry *metadata.TelemetryBuilder
	authLog   *authfail.Log
}

var _ apistate.Provider = (*apiExtension)(nil)

// APIState answers the shared state, nil until the store is reachable.
func (e *apiExtension) APIState() *apistate.State { return e.state.Load() }

// Start serves at once and connects to its state in the background: the
// storage may start after this extension (the collector orders extensions
// by dependencies only) or be briefly unreachable. Until it is ready every
// request gets 503 with Retry-After.
func (e *apiExtension) Start(ctx context.Context, host component.Host) error {
	u, _ := url.Parse(e.cfg.ClickHouse.Endpoint)
	opts := &clickhouse.Options{
		Addr: []string{u.Host}, Protocol: clickhouse.HTTP,
		Auth: clickhouse.Auth{Username: e.cfg.ClickHouse.Username, Password: string(e.cfg.ClickHouse.Password)},
	}
	if u.Scheme == "https" {
		opts.TLS = tlsConfig()
	}
	e.db = clickhouse.OpenDB(opts)
	ln, err := e.cfg.ToListener(ctx)
	if err != nil {
		return fmt.Errorf("observability API listening on %s: %w", e.cfg.NetAddr.Endpoint, err)
	}
	hs, err := e.cfg.ToServer(ctx, host.GetExtensions(), e.set.TelemetrySettings, http.HandlerFunc(e.serve))
	if err != nil {
		_ = ln.Close()
		return err
	}
	initCtx, cancel := context.WithCancel(context.Background())
	e.server, e.done, e.cancel, e.initDone = hs, make(chan struct{}), cancel, make(chan struct{})
	go func() {
		defer close(e.done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	}()
	go e.connect(initCtx, u.Host)
	if e.cfg.OpenIngestion {
		e.set.Logger.Warn("ingestion is open: OTLP and the Datadog receiver accept telemetry without a key " +
			"(OTELHOUSE_OPEN_INGESTION / open_ingestion); unset it to require the Ingestion API Key")
	}
	e.set.Logger.Info("observability API serving", zap.String("endpoint", ln.Addr().String()))
	return nil
}

// connect opens the state store, retrying until it succeeds or shutdown,
// then composes the parts over it and runs the alert scheduler until
// shutdown.
func (e *apiExtension) connect(ctx context.Context, host string) {
	defer close(e.initDone)
	delay := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		sealer, err := keys.LoadSealer(filepath.Join(e.cfg.DataDir, keys.SecretFile))
		if err != nil {
			// The data directory is the operator's to fix; retrying cannot.
			e.set.Logger.Error("observability API cannot load its key sealing secret", zap.Error(err))
			return
		}
		st, tenancy, err := e.openState(ctx)
		if err == nil {
			p := e.compose(st, tenancy, sealer)
			var firstKeys string
			if firstKeys, err = e.bootstrap(ctx, st, p.api, sealer); err == nil {
				// Written after every key is stored and just before the
				// API answers, so whoever reads the file can use the keys.
				e.writeKeysFile(firstKeys)
				e.ingestion.Store(st.KeyCache(keys.Ingestion))
				e.state.Store(p.state)
				e.ready.Store(p.api)
				e.evaluateAlerts(ctx, p.scheduler)
				return
			}
		}
		if attempt == 5 || attempt%60 == 0 {
			e.set.Logger.Warn("observability API cannot reach its state in ClickHouse yet; retrying",
				zap.String("clickhouse", host), zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// openState opens the state store (its tables made if missing), sets the
// alert history's retention and assigns the configured teams' databases.
func (e *apiExtension) openState(ctx context.Context) (*store.Store, *sources.Tenancy, error) {
	var opts []store.Option
	if e.cfg.ClickHouse.Cluster != "" {
		opts = append(opts, store.OnCluster(e.cfg.ClickHouse.Cluster))
	}
	st, err := store.Open(ctx, e.db, e.cfg.ClickHouse.Database, opts...)
	if err != nil {
		return nil, nil, err
	}
	if err := st.KeepHistory(ctx, e.cfg.Alerts.HistoryRetention); err != nil {
		return nil, nil, err
	}
	tenancy := e.cfg.tenancy(st)
	for _, team := range slices.Sorted(maps.Keys(e.cfg.Tenancy.TeamDatabases)) {
		if err := tenancy.Assign(ctx, team, e.cfg.Tenancy.TeamDatabases[team]); err != nil {
			return nil, nil, err
		}
	}
	return st, tenancy, nil
}

// parts are what the extension composes over its state, side by side: the
// REST API stores and validates resources, the scheduler evaluates the
// alerts, and the web UI reads the same store and sources through state.
type parts struct {
	api       *api.Server
	scheduler *alerting.Scheduler
	state     *apistate.State
}

func (e *apiExtension) compose(st *store.Store, tenancy *sources.Tenancy, sealer *keys.Sealer) parts {
	catalog := &sources.Catalog{Store: st, Tenancy: tenancy}
	scheduler := alerting.New(alerting.Options{
		Store: st, Sources: catalog, DB: e.db, QueryTimeout: e.cfg.QueryTimeout,
		Workers: e.cfg.Alerts.Workers, ClaimSettle: e.cfg.Alerts.ClaimSettle, Logger: e.set.Logger, Sealer: sealer,
	})
	// A test delivery is one attempt: its answer is what the person reads.
	a := e.cfg.Alerts
	testSender := webhook.New(webhook.Options{Timeout: a.WebhookTimeout, Attempts: 1, AllowPrivate: a.AllowPrivateWebhooks})
	sendTest := func(ctx context.Context, team, id string) webhook.Result {
		return scheduler.SendTest(ctx, team, id, time.Now(), testSender)
	}
	srv := api.New(api.Options{
		Store: st, Sealer: sealer, Database: e.cfg.TelemetryDatabase, Logger: e.set.Logger, SendTest: sendTest,
		OrganizationID: e.cfg.Managed.OrganizationID, ServiceID: e.cfg.Managed.ServiceID, ManagedKeys: e.managedKeys(),
		RateLimit: api.RateLimit{PerSecond: e.cfg.RateLimit.RequestsPerSecond, Burst: e.cfg.RateLimit.Burst},
		Tenancy:   tenancy, Sources: catalog,
		AllowPrivateWebhooks: e.cfg.Alerts.AllowPrivateWebhooks,
		TeamLimits:           e.cfg.TeamLimits,
		DB:                   e.db, QueryTimeout: e.cfg.QueryTimeout,
		ClickHouseHost: e.cfg.ClickHouse.Endpoint, ClickHouseUser: e.cfg.ClickHouse.Username,
	})
	return parts{
		api:       srv,
		scheduler: scheduler,
		state: &apistate.State{
			Store: st, Sealer: sealer, DB: e.db, QueryTimeout: e.cfg.QueryTimeout, Team: DefaultTeam,
			Limit: e.cfg.TeamLimits.Of, API: srv.Session(), Sources: catalog,
		},
	}
}

func (e *apiExtension) serve(w http.ResponseWriter, r *http.Request) {
	if srv := e.ready.Load(); srv != nil {
		srv.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(`{"message":"starting: the API's ClickHouse storage is not reachable yet"}` + "\n"))
}

func (e *apiExtension) managedKeys() []api.ManagedKey {
	var out []api.ManagedKey
	for _, k := range e.cfg.managedKeys() {
		out = append(out, api.ManagedKey{ID: k.ID, Secret: string(k.Secret), TeamID: DefaultTeam})
	}
	return out
}

func (e *apiExtension) Shutdown(ctx context.Context) error {
	var err error
	if e.cancel != nil {
		e.cancel()
		<-e.initDone
	}
	if e.server != nil {
		err = e.server.Shutdown(ctx)
		<-e.done
		e.server = nil
	}
	if e.db != nil {
		err = errors.Join(err, e.db.Close())
		e.db = nil
	}
	return err
}

package api

// The REST API's handler: its options and construction. Each job has its
// file: routes.go (the one route table), auth.go (the guard), crud.go (the
// handlers every kind shares), kinds.go (what differs by kind), paging.go,
// references.go (what an alert names must exist), bootstrap.go (a new
// team's sources). The rules binding alerts to what they watch, and the
// scheduler that evaluates them, are internal/alerting's.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/http"
	"time"

	"go.uber.org/zap"
	"golang.org/x/time/rate"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/accounts"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// ManagedKey is a managed-API key pair from the configuration.
type ManagedKey struct{ ID, Secret, TeamID string }

// Options configure the API.
type Options struct {
	Store    *store.Store
	Database string // where the telemetry tables are (default sources)
	// ClickHouseHost and ClickHouseUser are the collector's own
	// ClickHouse as a team's default connection shows it (no password:
	// the collector's is in its configuration).
	ClickHouseHost, ClickHouseUser string
	OrganizationID                 string // managed form: the path must name these
	ServiceID                      string
	ManagedKeys                    []ManagedKey
	RateLimit                      RateLimit
	// Tenancy decides which databases each team's sources read (chart
	// and search queries run with the API's credentials); nil reads none.
	Tenancy *sources.Tenancy
	// Sources resolves the teams' sources; nil builds one over Store and
	// Tenancy. The extension passes the one it shares with the alert
	// scheduler and the web UI.
	Sources *sources.Catalog
	// DB runs chart queries; QueryTimeout bounds each (generous default).
	DB           *sql.DB
	QueryTimeout time.Duration
	TeamLimits   TeamLimits
	// Sealer seals the keys rotation makes, so the UI can show them.
	Sealer *keys.Sealer
	// OnAuthFailure hears of every refused key (counted and logged by the
	// extension); nil ignores them.
	OnAuthFailure func(r *http.Request, reason string)
	// SendTest delivers a sample notification to one of a team's webhooks
	// (POST /api/v2/webhooks/{id}/test) as an alert's would go; nil
	// answers 501.
	SendTest func(ctx context.Context, team, webhookID string) webhook.Result
	// AllowPrivateWebhooks stores webhooks whose URL is a loopback,
	// private or link-local address (on-prem receivers, tests).
	AllowPrivateWebhooks bool
	Logger               *zap.Logger
}

// Server is the REST API's handler. It stores and validates alerts; the
// extension runs the scheduler that evaluates them (internal/alerting).
type Server struct {
	opts   Options
	mux    *http.ServeMux
	limits *limiters
	// creating serialises a team's creates of a kind (TeamLimits).
	creating keyedLocks
	// personal answers the Bearer keys of the self-hosted form.
	personal *store.KeyCache
	sources  *sources.Catalog
	accounts *accounts.Service // keys and team, for keys and sessions alike
	// selfRoutes is the self-hosted form's route table, for Session.
	selfRoutes []selfRoute
	// patterns is every route of every form, for the test that holds
	// them to the OpenAPI document.
	patterns []string
}

// New builds the handler with every route of both forms.
func New(opts Options) *Server {
	catalog := opts.Sources
	if catalog == nil {
		catalog = &sources.Catalog{Store: opts.Store, Tenancy: opts.Tenancy}
	}
	s := &Server{
		opts: opts, mux: http.NewServeMux(), limits: &limiters{cfg: opts.RateLimit, m: map[string]*rate.Limiter{}},
		personal: opts.Store.KeyCache(keys.Personal),
		sources:  catalog, accounts: accounts.New(accounts.Options{Store: opts.Store, Sealer: opts.Sealer}),
	}
	s.routes()
	return s
}

// queryTimeout bounds each telemetry query (charts, search, facets).
func (s *Server) queryTimeout() time.Duration {
	if s.opts.QueryTimeout > 0 {
		return s.opts.QueryTimeout
	}
	return time.Minute
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

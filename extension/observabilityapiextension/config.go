package observabilityapiextension

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/api"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/httpconfig"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Config configures the API server and where it keeps its state.
type Config struct {
	confighttp.ServerConfig `mapstructure:",squash"`
	Settings                `mapstructure:",squash"`
}

// Settings are the API's own settings beside the HTTP server's.
type Settings struct {
	ClickHouse ClickHouseConfig `mapstructure:"clickhouse"`
	// TelemetryDatabase holds the exporter's tables (the default sources).
	TelemetryDatabase string `mapstructure:"telemetry_database"`
	// SourceDatabases are more databases the install's team (the first
	// team, DefaultTeam) reads besides TelemetryDatabase. Chart queries
	// run with the API's credentials, so a source elsewhere (the API's
	// own state, system, another team's) would read what the caller may
	// not.
	SourceDatabases []string `mapstructure:"source_databases"`
	// Tenancy assigns databases to the other teams.
	Tenancy TenancyConfig `mapstructure:"tenancy"`
	// DataDir receives api-keys.txt (0600) on first start.
	DataDir string `mapstructure:"data_dir"`
	// PersonalKeys and IngestionKeys are added to the first team; empty
	// entries are ignored (so `${env:OTLP_AUTH_TOKEN:-}` can be listed).
	PersonalKeys  []configopaque.String `mapstructure:"personal_keys"`
	IngestionKeys []configopaque.String `mapstructure:"ingestion_keys"`
	// OpenIngestion leaves OTLP and the Datadog receiver without a key
	// check (the ingestionauth converter reads it; OTELHOUSE_OPEN_INGESTION
	// sets it too), for local experiments; every start warns while set.
	OpenIngestion bool          `mapstructure:"open_ingestion"`
	Managed       ManagedConfig `mapstructure:"managed"`
	// QueryTimeout cancels a chart query that runs longer (generous by
	// default); a client that disconnects cancels its query too.
	QueryTimeout time.Duration `mapstructure:"query_timeout"`
	Alerts       AlertsConfig  `mapstructure:"alerts"`
	// RateLimit bounds each key's management calls; off (0) by default.
	RateLimit RateLimitConfig `mapstructure:"rate_limit"`
	// TeamLimits bound the dashboards, alerts, sources and webhooks one
	// team keeps.
	TeamLimits api.TeamLimits `mapstructure:"team_limits"`
}

// TenancyConfig is which databases the teams other than the install's
// read (docs/security.md, Tenancy).
type TenancyConfig struct {
	// TeamDatabases maps a team id to the databases its sources read.
	// Each start writes the listed teams' assignments to the state, which
	// every collector sharing it enforces; a team not listed keeps what
	// the state holds, and an empty list takes its databases away.
	TeamDatabases map[string][]string `mapstructure:"team_databases"`
}

// tenancy is the rule this configuration sets; st keeps the assignments.
func (c *Config) tenancy(st *store.Store) *sources.Tenancy {
	return &sources.Tenancy{
		Store: st, State: c.ClickHouse.Database, Owner: DefaultTeam,
		OwnerDatabases: append([]string{c.TelemetryDatabase}, c.SourceDatabases...),
	}
}

// AlertsConfig drives alert evaluation and webhook delivery.
type AlertsConfig struct {
	// CheckInterval is how often due alerts are looked for; each alert is
	// evaluated once per its own interval, over the last complete window.
	CheckInterval time.Duration `mapstructure:"check_interval"`
	// Workers bounds the alerts evaluated and delivered at once, so a
	// slow webhook holds up only its own alert.
	Workers int `mapstructure:"workers"`
	// Webhook delivery: a timeout per attempt, attempts with a doubling
	// backoff, and whether private/loopback targets may be called.
	WebhookTimeout       time.Duration `mapstructure:"webhook_timeout"`
	WebhookAttempts      int           `mapstructure:"webhook_attempts"`
	WebhookBackoff       time.Duration `mapstructure:"webhook_backoff"`
	AllowPrivateWebhooks bool          `mapstructure:"allow_private_webhooks"`
	// HistoryRetention is how long evaluations stay readable in an
	// alert's history (HyperDX keeps 30 days); 0 keeps them for ever.
	HistoryRetention time.Duration `mapstructure:"history_retention"`
	// ClaimSettle is how long a replica waits between claiming an alert's
	// window and reading who won, so that replicas sharing one ClickHouse
	// evaluate and notify each window once; it must exceed an insert's
	// latency.
	ClaimSettle time.Duration `mapstructure:"claim_settle"`
}

// RateLimitConfig is a token bucket per key.
type RateLimitConfig struct {
	RequestsPerSecond float64 `mapstructure:"requests_per_second"`
	Burst             int     `mapstructure:"burst"`
}

// ClickHouseConfig is where the state lives (an HTTP endpoint).
type ClickHouseConfig struct {
	Endpoint string              `mapstructure:"endpoint"`
	Username string              `mapstructure:"username"`
	Password configopaque.String `mapstructure:"password"`
	Database string              `mapstructure:"database"`
	// Cluster, when set, keeps the state on every replica of that
	// ClickHouse cluster (ON CLUSTER tables, Replicated engines), so the
	// collectors talking to any replica share it. CLICKHOUSE_CLUSTER sets
	// it in the shipped configuration.
	Cluster string `mapstructure:"cluster"`
}

// ManagedConfig enables the managed form for one organization and service.
type ManagedConfig struct {
	OrganizationID string       `mapstructure:"organization_id"`
	ServiceID      string       `mapstructure:"service_id"`
	Keys           []ManagedKey `mapstructure:"keys"`
}

// ManagedKey is a cloud API key: id as user name, secret as password.
type ManagedKey struct {
	ID     string              `mapstructure:"id"`
	Secret configopaque.String `mapstructure:"secret"`
}

// Unmarshal decodes the server and API settings (see httpconfig).
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	return httpconfig.Unmarshal(conf, &c.ServerConfig, &c.Settings)
}

// Validate checks the configuration before the extension is built.
func (c *Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.ClickHouse.Endpoint); err != nil || u.Host == "" {
		errs = append(errs, fmt.Errorf("clickhouse.endpoint must be a URL, got %q", c.ClickHouse.Endpoint))
	}
	if c.ClickHouse.Database == "" || c.TelemetryDatabase == "" {
		errs = append(errs, errors.New("clickhouse.database and telemetry_database are required"))
	}
	if c.TelemetryDatabase != "" && strings.EqualFold(c.TelemetryDatabase, c.ClickHouse.Database) {
		errs = append(errs, fmt.Errorf("telemetry_database may not be %q, the API's state database: sources would read every team's state", c.TelemetryDatabase))
	}
	for _, d := range c.SourceDatabases {
		if strings.EqualFold(d, c.ClickHouse.Database) || api.SystemDatabase(d) {
			errs = append(errs, fmt.Errorf("source_databases may not list %q: sources would read the API's state or the server's", d))
		}
	}
	ten := c.tenancy(nil)
	owner := map[string]string{}
	for _, team := range slices.Sorted(maps.Keys(c.Tenancy.TeamDatabases)) {
		dbs := c.Tenancy.TeamDatabases[team]
		if err := ten.ValidateAssignment(team, dbs); err != nil {
			errs = append(errs, fmt.Errorf("tenancy.team_databases[%s]: %w", team, err))
		}
		for _, d := range dbs {
			if o, ok := owner[d]; ok && o != team {
				errs = append(errs, fmt.Errorf("tenancy.team_databases: %q is assigned to teams %q and %q; a database belongs to one team", d, o, team))
			}
			owner[d] = team
		}
	}
	m := c.Managed
	if (m.OrganizationID == "") != (m.ServiceID == "") {
		errs = append(errs, errors.New("managed.organization_id and managed.service_id go together"))
	}
	for i, k := range m.Keys {
		if (k.ID == "") != (k.Secret == "") {
			errs = append(errs, fmt.Errorf("managed.keys[%d] needs id and secret", i))
		}
	}
	if c.Alerts.ClaimSettle < 0 {
		errs = append(errs, errors.New("alerts.claim_settle must not be negative"))
	}
	if c.Alerts.Workers < 0 {
		errs = append(errs, errors.New("alerts.workers must not be negative"))
	}
	if c.Alerts.HistoryRetention < 0 || c.Alerts.HistoryRetention%time.Second != 0 {
		errs = append(errs, errors.New("alerts.history_retention must be whole seconds, not negative"))
	}
	if l := c.TeamLimits; l.Dashboards < 1 || l.Alerts < 1 || l.Sources < 1 || l.Webhooks < 1 || l.SavedSearches < 1 || l.Connections < 1 {
		errs = append(errs, errors.New("team_limits values must be positive"))
	}
	if c.RateLimit.RequestsPerSecond < 0 || c.RateLimit.Burst < 0 {
		errs = append(errs, errors.New("rate_limit values must not be negative"))
	}
	if len(c.managedKeys()) > 0 && m.OrganizationID == "" {
		errs = append(errs, errors.New("managed.keys need managed.organization_id and service_id"))
	}
	return errors.Join(errs...)
}

// managedKeys are the configured key pairs; an entry with neither id nor
// secret is ignored, so unset environment variables leave it out.
func (c *Config) managedKeys() []ManagedKey {
	var out []ManagedKey
	for _, k := range c.Managed.Keys {
		if k.ID != "" {
			out = append(out, k)
		}
	}
	return out
}

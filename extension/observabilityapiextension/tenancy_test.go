package observabilityapiextension

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

func TestTenancyConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.ClickHouse.Endpoint = "http://127.0.0.1:8123"
	require.NoError(t, cfg.Unmarshal(confmap.NewFromStringMap(map[string]any{"tenancy": map[string]any{
		"team_databases": map[string]any{"team_b": []any{"b_logs"}, "team_c": []any{"c_logs"}},
	}})))
	require.NoError(t, cfg.Validate())
	assert.Equal(t, map[string][]string{"team_b": {"b_logs"}, "team_c": {"c_logs"}}, cfg.Tenancy.TeamDatabases)

	cfg.Tenancy.TeamDatabases = map[string][]string{
		"team_b":    {"b_logs", "otel"},
		"team_c":    {"b_logs", "otelhouse", "System", "x`y"},
		DefaultTeam: {"more"},
	}
	err := cfg.Validate()
	require.Error(t, err)
	for _, want := range []string{
		`database "otel" cannot be assigned to team "team_b": it is the install team's`,
		`"b_logs" is assigned to teams "team_b" and "team_c"`,
		`database "otelhouse" cannot be assigned: it holds the API's state`,
		`database "System" cannot be assigned: it is the server's own`,
		"database \"x`y\" cannot be assigned: not a plain identifier",
		`team "default" is the install's team: list its databases in source_databases`,
	} {
		require.ErrorContains(t, err, want)
	}

	cfg = createDefaultConfig().(*Config)
	cfg.ClickHouse.Endpoint = "http://127.0.0.1:8123"
	cfg.TelemetryDatabase = cfg.ClickHouse.Database
	assert.ErrorContains(t, cfg.Validate(), `telemetry_database may not be "otelhouse", the API's state database`)
}

// A start writes the configured assignments to the state: a collector
// whose own configuration lists none (or a catalog reading the same
// state) enforces them alike.
func TestStartWritesTeamDatabasesToTheState(t *testing.T) {
	const db = "api_ext_tenancy"
	chtest.FreshDatabase(t, db)
	cfg := createDefaultConfig().(*Config)
	cfg.ClickHouse.Endpoint = "http://" + chtest.Endpoint(t)
	cfg.ClickHouse.Database = db
	cfg.DataDir = t.TempDir()
	cfg.Tenancy.TeamDatabases = map[string][]string{"team_b": {"b_logs"}}
	require.NoError(t, cfg.Validate())
	_, ext := startOnFreeAddr(t, cfg)
	t.Cleanup(func() { _ = ext.Shutdown(context.Background()) })
	a := ext.(*apiExtension)
	require.Eventually(t, func() bool { return a.ready.Load() != nil }, 30*time.Second, 20*time.Millisecond)

	ctx := context.Background()
	ten := a.APIState().Sources.Tenancy
	require.NoError(t, ten.Check(ctx, DefaultTeam, "otel"))
	require.NoError(t, ten.Check(ctx, "team_b", "b_logs"))
	require.ErrorIs(t, ten.Check(ctx, "team_b", "otel"), sources.ErrUnreadable)
	require.ErrorIs(t, ten.Check(ctx, DefaultTeam, "b_logs"), sources.ErrUnreadable)
	require.ErrorIs(t, ten.Check(ctx, DefaultTeam, db), sources.ErrUnreadable)

	st, err := store.Open(ctx, chtest.DB(t), db)
	require.NoError(t, err)
	other := (&Config{Settings: Settings{TelemetryDatabase: "otel", ClickHouse: ClickHouseConfig{Database: db}}}).tenancy(st)
	require.NoError(t, other.Check(ctx, "team_b", "b_logs"), "another collector, configured without tenancy, agrees")
	assert.ErrorIs(t, other.Check(ctx, "team_b", "otel"), sources.ErrUnreadable)
}

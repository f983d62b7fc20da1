package embeddedclickhouseextension

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/clickhouseexporter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/testdata"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/metadata"
	"github.com/otelhouse/otelhouse/internal/testenv"
)

var (
	startOnce sync.Once
	endpoint  string
	startErr  error
	engine    component.Component
	engineDir string
)

// runTests is the package's TestMain (metadata.yaml): the tests, then the
// engine stopped and its data removed, then syscall.Exit, not os.Exit: a
// race build's os.Exit(0) runs libchdb's static destructors under the
// engine's still running threads (chtest.Main says more).
func runTests(m *testing.M) {
	code := m.Run()
	if engine != nil {
		_ = engine.Shutdown(context.Background())
		_ = os.RemoveAll(engineDir)
	}
	syscall.Exit(code)
}

// need starts one embedded engine for the package's tests, as the
// distribution does: the engine allows one data path per process, so it
// lives until the test process exits (its data under the OS temp dir).
func need(t *testing.T) {
	t.Helper()
	lib := os.Getenv("OTELHOUSE_LIBCHDB")
	if lib == "" {
		testenv.Missing(t, "OTELHOUSE_LIBCHDB not set: run through `make test`, which fetches libchdb")
	}
	startOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("otelhouse-embedded-test-%d", os.Getpid()))
		var (
			addr string
			ext  extension.Extension
			err  error
		)
		// A port found free may be taken before the engine binds it; the
		// engine binds first, so it can try another.
		for attempt := 0; attempt < 10; attempt++ {
			var l net.Listener
			if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				break
			}
			addr = l.Addr().String()
			_ = l.Close()
			cfg := createDefaultConfig().(*Config)
			cfg.NetAddr.Endpoint = addr
			cfg.LibraryPath, cfg.DataDir, cfg.Username, cfg.Password = lib, dir, "otel", "pw"
			if ext, err = NewFactory().Create(context.Background(), extensiontest.NewNopSettings(metadata.Type), cfg); err != nil {
				break
			}
			if err = ext.Start(context.Background(), componenttest.NewNopHost()); !errors.Is(err, syscall.EADDRINUSE) {
				break
			}
		}
		startErr, endpoint, engine, engineDir = err, addr, ext, dir
	})
	require.NoError(t, startErr)
}

func sql(t *testing.T, query string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+endpoint+"/", strings.NewReader(query))
	req.SetBasicAuth("otel", "pw")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return strings.TrimSpace(string(b))
}

// exporterConfig is the contrib clickhouse exporter, unmodified, pointed at
// the embedded engine; no queue, so errors surface in the test.
func exporterConfig(database string, json bool) *clickhouseexporter.Config {
	cfg := clickhouseexporter.NewFactory().CreateDefaultConfig().(*clickhouseexporter.Config)
	cfg.Endpoint = "http://" + endpoint + "?dial_timeout=5s"
	cfg.Username, cfg.Password = "otel", "pw"
	cfg.Database = database
	cfg.CreateSchema = true
	cfg.JSON = json
	cfg.QueueSettings = configoptional.None[exporterhelper.QueueBatchConfig]()
	cfg.BackOffConfig.Enabled = false
	return cfg
}

func start(t *testing.T, c component.Component) {
	t.Helper()
	require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
}

func TestExporterWritesEverySignal(t *testing.T) {
	need(t)
	for _, mode := range []struct {
		db   string
		json bool
	}{{"otel_map", false}, {"otel_json", true}} {
		t.Run(mode.db, func(t *testing.T) {
			sql(t, "DROP DATABASE IF EXISTS "+mode.db+" SYNC") // from an earlier run (-count)
			f := clickhouseexporter.NewFactory()
			cfg := exporterConfig(mode.db, mode.json)
			set := exportertest.NewNopSettings(f.Type())
			ctx := context.Background()

			logs, err := f.CreateLogs(ctx, set, cfg)
			require.NoError(t, err)
			start(t, logs)
			traces, err := f.CreateTraces(ctx, set, cfg)
			require.NoError(t, err)
			start(t, traces)
			metrics, err := f.CreateMetrics(ctx, set, cfg)
			require.NoError(t, err)
			start(t, metrics)

			require.NoError(t, logs.ConsumeLogs(ctx, testdata.GenerateLogs(25)))
			require.NoError(t, traces.ConsumeTraces(ctx, testdata.GenerateTraces(30)))
			md := testdata.GenerateMetrics(20) // gauge, sum, histogram, exponential histogram, summary
			require.NoError(t, metrics.ConsumeMetrics(ctx, md))

			assert.Equal(t, "25", sql(t, fmt.Sprintf("SELECT count() FROM %s.otel_logs", mode.db)))
			assert.Equal(t, "30", sql(t, fmt.Sprintf("SELECT count() FROM %s.otel_traces", mode.db)))
			for _, table := range []string{"gauge", "sum", "histogram", "exponential_histogram", "summary"} {
				n := sql(t, fmt.Sprintf("SELECT count() FROM %s.otel_metrics_%s", mode.db, table))
				assert.NotEqual(t, "0", n, table)
			}
			// The trace-id lookup view the exporter creates is fed too.
			assert.NotEqual(t, "0", sql(t, fmt.Sprintf("SELECT count() FROM %s.otel_traces_trace_id_ts", mode.db)))
		})
	}
}

func TestPersistsAcrossRestartOfTheHTTPLayer(t *testing.T) {
	need(t)
	sql(t, "DROP TABLE IF EXISTS default.keep SYNC") // from an earlier run (-count)
	sql(t, "CREATE TABLE default.keep (x UInt8) ENGINE = MergeTree ORDER BY x")
	sql(t, "INSERT INTO default.keep VALUES (1), (2)")
	assert.Equal(t, "2", sql(t, "SELECT count() FROM default.keep"))
}

// A second instance on a taken port fails on the port, before it loads the
// engine or opens the data directory the first instance holds.
func TestTakenPortFailsBeforeTheData(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	cfg := createDefaultConfig().(*Config)
	cfg.NetAddr.Endpoint = l.Addr().String()
	cfg.LibraryPath = filepath.Join(t.TempDir(), "no-libchdb.so")
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	ext, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(metadata.Type), cfg)
	require.NoError(t, err)
	err = ext.Start(context.Background(), componenttest.NewNopHost())
	require.ErrorContains(t, err, "embedded ClickHouse listening on "+cfg.NetAddr.Endpoint)
	assert.NoDirExists(t, cfg.DataDir)
	require.NoError(t, ext.Shutdown(context.Background()))
}

func TestConfigValidate(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	assert.Equal(t, "127.0.0.1:8123", cfg.NetAddr.Endpoint)
	err := cfg.Validate()
	require.Error(t, err, "no library path")
	cfg.LibraryPath, cfg.Sessions, cfg.Password = "x.so", 0, "p"
	err = cfg.Validate()
	require.ErrorContains(t, err, "sessions")
	require.ErrorContains(t, err, "password is set without a username")
	cfg.MergeTree = map[string]any{"x></merge_tree><path>/": 1, "min_bytes_for_wide_part": map[string]any{"a": 1}}
	err = cfg.Validate()
	require.ErrorContains(t, err, `merge_tree: "x></merge_tree><path>/" is not a setting name`)
	require.ErrorContains(t, err, "merge_tree: min_bytes_for_wide_part must be a number, string or bool")
	cfg.Profile = map[string]any{"max_threads; DROP": 1, "max_threads": []int{1}}
	err = cfg.Validate()
	require.ErrorContains(t, err, `profile: "max_threads; DROP" is not a setting name`)
	require.ErrorContains(t, err, "profile: max_threads must be a number, string or bool")
	cfg.Server = map[string]any{"users_config": "/tmp/users.xml", "user_files_path": "/"}
	err = cfg.Validate()
	require.ErrorContains(t, err, "server: users_config is otelhouse's own")
	assert.ErrorContains(t, err, "server: user_files_path is otelhouse's own")
}

// With the default profile an insert leaves its part's skip indexes to the
// first merge, as the factory says, and queries find the rows either way.
func TestInsertsLeaveSkipIndexesToMerges(t *testing.T) {
	need(t)
	assert.Equal(t, "false", sql(t, "SELECT getSetting('materialize_skip_indexes_on_insert')"))
	// Shaped like the exporter's body index, which the API's searches
	// (ILIKE, positionCaseInsensitiveUTF8) meet.
	sql(t, "DROP TABLE IF EXISTS default.indexed SYNC") // from an earlier run (-count)
	sql(t, "CREATE TABLE default.indexed (s String, INDEX i lower(s) TYPE text(tokenizer = 'splitByNonAlpha') GRANULARITY 100000000) ENGINE = MergeTree ORDER BY tuple()")
	sql(t, "INSERT INTO default.indexed VALUES ('hello world'), ('other Words')")
	sql(t, "INSERT INTO default.indexed VALUES ('more words')")
	indexBytes := "SELECT count(), sum(secondary_indices_uncompressed_bytes) > 0 FROM system.parts WHERE active AND database = 'default' AND table = 'indexed' FORMAT CSV"
	searches := []string{
		"SELECT count() FROM default.indexed WHERE hasToken(lower(s), 'words')",
		"SELECT count() FROM default.indexed WHERE s ILIKE '%WORDS%'",
		"SELECT count() FROM default.indexed WHERE lower(s) LIKE '%words%'",
		"SELECT count() FROM default.indexed WHERE positionCaseInsensitiveUTF8(s, 'words') > 0",
	}
	assert.Equal(t, "2,0", sql(t, indexBytes), "two parts, no index yet")
	for _, q := range searches {
		assert.Equal(t, "2", sql(t, q), q)
	}
	sql(t, "OPTIMIZE TABLE default.indexed FINAL")
	assert.Equal(t, "1,1", sql(t, indexBytes), "the merge built the index")
	for _, q := range searches {
		assert.Equal(t, "2", sql(t, q), q)
	}
}

// The package's engine runs with the default server and merge_tree
// entries, written where they can be read next to the data.
func TestEngineConfigDefaultsReachTheEngine(t *testing.T) {
	need(t)
	assert.Equal(t, "0.5\t0.25", sql(t, "SELECT (SELECT value FROM system.server_settings WHERE name = 'max_server_memory_usage_to_ram_ratio'),"+
		" (SELECT value FROM system.server_settings WHERE name = 'cache_size_to_ram_max_ratio')"))
	assert.Equal(t, "30", sql(t, "SELECT value FROM system.merge_tree_settings WHERE name = 'merge_selector_base'"))
	sql(t, "CREATE TABLE IF NOT EXISTS default.merged (x UInt8) ENGINE = MergeTree ORDER BY x")
	assert.Contains(t, sql(t, "SHOW CREATE TABLE default.merged"), "ENGINE = MergeTree", "tables still create")
}

func TestEngineArgsEscapeValues(t *testing.T) {
	dir := t.TempDir()
	args, err := EngineArgs(&Settings{DataDir: dir, Server: map[string]any{"s": 0.5}, MergeTree: map[string]any{"b": "<x&y>", "a": 2}})
	require.NoError(t, err)
	path := filepath.Join(dir, engineConfigFile)
	assert.Equal(t, []string{"--config-file=" + path}, args)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	users := filepath.Join(dir, engineUsersFile)
	assert.Equal(t, "<clickhouse>\n  <users_config>"+users+"</users_config>\n  <s>0.5</s>\n"+
		"  <merge_tree>\n    <a>2</a>\n    <b>&lt;x&amp;y&gt;</b>\n  </merge_tree>\n</clickhouse>\n", string(b))
	b, err = os.ReadFile(users)
	require.NoError(t, err)
	assert.Equal(t, engineUsers, b)
	for _, f := range []string{path, users} {
		fi, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), f)
	}
}

var _ exporter.Factory = clickhouseexporter.NewFactory()

// attempt runs query (with body as the request's data when given) and
// returns the status and ClickHouse's exception code.
func attempt(t *testing.T, query string, body ...string) (int, string) {
	t.Helper()
	target, data := "http://"+endpoint+"/", query
	if len(body) > 0 {
		target, data = target+"?query="+url.QueryEscape(query), body[0]
	}
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(data))
	req.SetBasicAuth("otel", "pw")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("X-ClickHouse-Exception-Code")
}

// Whoever holds the engine's password reaches its databases and nothing
// else: no file, URL, server, object store or process, by table function,
// table engine, function, dictionary, backup, setting or client-side
// clause; and cannot grant itself more. What the exporter and the API do
// still works.
func TestEngineUserIsConfined(t *testing.T) {
	need(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("s3cr3t"), 0o600))
	sql(t, "CREATE TABLE IF NOT EXISTS default.confined (a String) ENGINE = MergeTree ORDER BY a")
	for _, tc := range []struct{ query, code string }{
		{"SELECT * FROM file('" + secret + "', 'RawBLOB')", "497"},
		{"SELECT file('" + secret + "', 'RawBLOB')", "497"},
		{"SELECT `fi\\x6ce`('" + secret + "', 'RawBLOB')", "497"},
		{"INSERT INTO FUNCTION file('" + outside + "/w', 'RawBLOB') SELECT 'x'", "497"},
		{"SELECT 1 INTO OUTFILE '" + outside + "/out'", "497"},
		{"INSERT INTO default.confined FROM INFILE '" + secret + "' FORMAT RawBLOB", "497"},
		{"CREATE TABLE default.f (a String) ENGINE = File(RawBLOB, '" + secret + "')", "497"},
		{"SELECT * FROM url('http://127.0.0.1:1/', 'RawBLOB')", "497"},
		{"CREATE TABLE default.u (a String) ENGINE = URL('http://127.0.0.1:1/', RawBLOB)", "497"},
		{"SELECT * FROM remote('127.0.0.1:1', system.one)", "497"},
		{"SELECT * FROM remoteSecure('127.0.0.1:1', system.one)", "497"},
		{"SELECT * FROM s3('http://127.0.0.1:1/bucket/key', 'RawBLOB')", "497"},
		{"SELECT * FROM mysql('127.0.0.1:1', 'd', 't', 'u', 'p')", "497"},
		{"SELECT * FROM postgresql('127.0.0.1:1', 'd', 't', 'u', 'p')", "497"},
		{"SELECT * FROM hdfs('hdfs://127.0.0.1:1/x', 'RawBLOB')", "497"},
		{"SELECT * FROM executable('sh', 'RawBLOB', 'a String')", ""},
		{"CREATE DICTIONARY default.d (a UInt64, b String) PRIMARY KEY a SOURCE(FILE(path '" + secret + "' format 'TSV')) LAYOUT(FLAT()) LIFETIME(0)", "497"},
		{"CREATE FUNCTION reads AS () -> 1", "497"},
		{"BACKUP TABLE default.confined TO File('" + outside + "/b')", "497"},
		{"SELECT addressToSymbol(1)", "497"},
		{"GRANT FILE ON *.* TO default", ""},
		{"SELECT 1 SETTINGS input_format_record_errors_file_path = '" + outside + "/e'", "452"},
		{"SELECT 1 SETTINGS format_schema = '" + secret + ":M'", "452"},
		{"SELECT 1 SETTINGS dialect = 'prql'", "452"},
	} {
		t.Run(strings.ReplaceAll(tc.query, outside, "TMP"), func(t *testing.T) {
			status, code := attempt(t, tc.query)
			assert.NotEqual(t, http.StatusOK, status, tc.query)
			if tc.code != "" {
				assert.Equal(t, tc.code, code, tc.query)
			}
		})
	}
	// Values data is evaluated by the engine, but not as expressions.
	status, _ := attempt(t, "INSERT INTO default.confined FORMAT Values", "(file('"+secret+"', 'RawBLOB'))")
	assert.NotEqual(t, http.StatusOK, status)
	assert.NotContains(t, sql(t, "SELECT groupArray(a) FROM default.confined"), "s3cr3t")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written beside the secret")

	// The exporter's and the API's statements.
	for _, q := range []string{
		"INSERT INTO default.confined VALUES ('a'), (concat('b', toString(now64(3))))",
		"CREATE TABLE IF NOT EXISTS default.replacing (a String, v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY a",
		"CREATE MATERIALIZED VIEW IF NOT EXISTS default.confined_mv ENGINE = MergeTree ORDER BY a AS SELECT a FROM default.confined",
		"ALTER TABLE default.confined DELETE WHERE a = 'zz'",
		"OPTIMIZE TABLE default.confined FINAL",
		"KILL QUERY WHERE query LIKE '%no such statement%' SYNC",
		"SELECT count() FROM system.parts WHERE database = 'default'",
	} {
		sql(t, q)
	}
	status, _ = attempt(t, "INSERT INTO default.confined FORMAT Values", "('c')")
	assert.Equal(t, http.StatusOK, status)
}

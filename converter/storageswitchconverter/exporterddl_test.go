package storageswitchconverter

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/clickhouseexporter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exportertest"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

var update = flag.Bool("update", false, "rewrite the golden DDL files in testdata/")

func TestMain(m *testing.M) { chtest.Main(m) }

// ddlRecorder stands between the exporter and the embedded engine: it
// keeps every CREATE the exporter sends and passes the rest on. With
// apply false it answers a CREATE itself instead of passing it on, for the
// cluster DDL that a single server cannot run.
type ddlRecorder struct {
	mu    sync.Mutex
	stmts []string
	apply bool
	proxy *httputil.ReverseProxy
}

func (d *ddlRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	q := strings.TrimSpace(r.URL.Query().Get("query") + string(body))
	if strings.HasPrefix(strings.ToUpper(q), "CREATE") {
		d.mu.Lock()
		d.stmts = append(d.stmts, q)
		d.mu.Unlock()
		if !d.apply {
			return // 200, empty: what a server answers a DDL
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	d.proxy.ServeHTTP(w, r)
}

// exporterDDL starts the contrib exporter's three signals with the
// settings the converter gives it (cluster "" for one server) against the
// recorder, and returns the statements it sent.
func exporterDDL(t *testing.T, cluster string) string {
	t.Helper()
	engine, err := url.Parse("http://" + chtest.Endpoint(t))
	require.NoError(t, err)
	rec := &ddlRecorder{apply: cluster == "", proxy: httputil.NewSingleHostReverseProxy(engine)}
	srv := httptest.NewServer(rec)
	defer srv.Close()

	database := "exporter_ddl"
	chtest.FreshDatabase(t, database)
	raw := map[string]any{"exporters": map[string]any{"clickhouse": map[string]any{"endpoint": srv.URL, "database": database, "create_schema": true}}}
	conf := confmap.NewFromStringMap(raw)
	if cluster != "" {
		require.NoError(t, onCluster(conf, cluster))
	}
	sub, err := conf.Sub("exporters::clickhouse")
	require.NoError(t, err)
	f := clickhouseexporter.NewFactory()
	cfg := f.CreateDefaultConfig()
	require.NoError(t, sub.Unmarshal(cfg))

	ctx := context.Background()
	set := exportertest.NewNopSettings(f.Type())
	logs, err := f.CreateLogs(ctx, set, cfg)
	require.NoError(t, err)
	traces, err := f.CreateTraces(ctx, set, cfg)
	require.NoError(t, err)
	metrics, err := f.CreateMetrics(ctx, set, cfg)
	require.NoError(t, err)
	for _, c := range []interface {
		Start(context.Context, component.Host) error
		Shutdown(context.Context) error
	}{logs, traces, metrics} {
		require.NoError(t, c.Start(ctx, componenttest.NewNopHost()))
		require.NoError(t, c.Shutdown(ctx))
	}
	// The exporter creates the metric tables concurrently, and each
	// signal its database: sorted and once each, the file stays the same.
	slices.Sort(rec.stmts)
	return strings.Join(slices.Compact(rec.stmts), ";\n\n") + ";\n"
}

// The exporter's DDL in both modes as golden files: the single-server
// statements run on the embedded engine; the cluster ones (ON CLUSTER,
// Replicated engines, from the converter's settings) are recorded, as the
// embedded engine has no Keeper to run them.
func TestExporterDDL(t *testing.T) {
	for file, cluster := range map[string]string{"exporter.sql.golden": "", "exporter_cluster.sql.golden": "otel_cluster"} {
		got := exporterDDL(t, cluster)
		if cluster != "" {
			for _, stmt := range strings.Split(got, ";\n\n") {
				assert.Contains(t, stmt, "ON CLUSTER `otel_cluster`", "every statement on the cluster")
				if strings.Contains(stmt, "ENGINE") {
					assert.Regexp(t, `ENGINE = Replicated`, stmt, "every table replicated")
				}
			}
		}
		path := filepath.Join("testdata", file)
		if *update {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			require.NoError(t, os.WriteFile(path, []byte(got), 0o600))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./converter/storageswitchconverter -run TestExporterDDL -update")
		assert.Equal(t, string(want), got, file)
	}
}

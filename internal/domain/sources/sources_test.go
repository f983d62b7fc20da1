package sources

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	logs := func() Source {
		return Source{Name: "L", Kind: "log", Connection: "c", From: From{TableName: "t"}, TimestampValueExpression: "ts", DefaultTableSelectExpression: "*"}
	}
	metric := func() Source {
		return Source{Name: "M", Kind: "metric", Connection: "c", TimestampValueExpression: "ts", ResourceAttributesExpression: "R", MetricTables: map[string]string{"gauge": "g"}}
	}
	for _, tc := range []struct {
		name string
		src  Source
		want string // a part of the error; "" is valid
	}{
		{"a log source", logs(), ""},
		{"a metric source reads no from table", metric(), ""},
		{"no name", func() Source { s := logs(); s.Name = ""; return s }(), "name is required"},
		{"unknown kind", func() Source { s := logs(); s.Kind = "event"; return s }(), "kind must be one of log, trace, session, metric, promql"},
		{"no table", func() Source { s := logs(); s.From.TableName = ""; return s }(), "from.tableName is required"},
		{"no select", func() Source { s := logs(); s.DefaultTableSelectExpression = ""; return s }(), "defaultTableSelectExpression is required"},
		{"no connection", func() Source { s := logs(); s.Connection = ""; return s }(), "connection is required"},
		{"no metric table", func() Source { s := metric(); s.MetricTables = nil; return s }(), "at least one metric table"},
		{"unknown metric type", func() Source { s := metric(); s.MetricTables["exp"] = "x"; return s }(), `"exp" is not one of`},
		{"a trace source needs its columns", Source{Name: "T", Kind: "trace", Connection: "c", From: From{TableName: "t"}, TimestampValueExpression: "ts"}, "durationExpression is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.src.Validate("otel")
			if tc.want == "" {
				require.NoError(t, err, tc.name)
				assert.Equal(t, "otel", tc.src.From.DatabaseName, "%s: the telemetry database by default", tc.name)
				return
			}
			require.ErrorContains(t, err, tc.want, tc.name)
		})
	}
	noDB := logs()
	require.ErrorContains(t, noDB.Validate(""), "from.databaseName is required")
}

func TestDefaultsMatchTheExporter(t *testing.T) {
	d := Defaults("otel", "team")
	assert.Equal(t, []string{"logs", "traces", "metrics"}, []string{d[0].ID, d[1].ID, d[2].ID})
	for _, s := range d {
		require.NoError(t, s.Validate("otel"), s.ID)
		assert.Equal(t, DefaultConnectionID("team"), s.Connection)
		require.NoError(t, Readable("team", s))
	}
	assert.Equal(t, "ParentSpanId", d[1].ParentSpanIDColumn())
	assert.Equal(t, "TraceId", d[0].TraceIDColumn())
	m := d[2].Chart()
	assert.Equal(t, [2]string{"otel_metrics_gauge", "gauge"}, [2]string{m.Table, m.MetricType})
	assert.Equal(t, "x", Column("", "x"))
	assert.Len(t, DefaultConnectionID("team"), 24)
	assert.NotEqual(t, DefaultConnectionID("team"), DefaultConnectionID("other"))
}

// A source stored before sources took HyperDX's shape reads as today's,
// through the team's default connection.
func TestLegacyDocumentsLoad(t *testing.T) {
	old := `{"id":"logs","name":"Logs","kind":"log","database":"otel","table":"otel_logs","timestampColumn":"Timestamp",` +
		`"bodyColumn":"Body","serviceColumn":"ServiceName","severityColumn":"SeverityText","attributesMap":"LogAttributes","resourceMap":"ResourceAttributes"}`
	src, err := Decode("team", []byte(old))
	require.NoError(t, err)
	assert.Equal(t, From{"otel", "otel_logs"}, src.From)
	assert.Equal(t, DefaultConnectionID("team"), src.Connection)
	assert.Equal(t, "Timestamp, ServiceName, SeverityText, Body", src.DefaultTableSelectExpression)
	c := src.Chart()
	assert.Equal(t, []string{"Timestamp", "Body", "ServiceName", "SeverityText", "LogAttributes", "ResourceAttributes"},
		[]string{c.TimestampColumn, c.BodyColumn, c.ServiceColumn, c.SeverityColumn, c.AttributesMap, c.ResourceMap})
	require.NoError(t, src.Validate("otel"), "a migrated source is a valid one")

	metric, err := Decode("team", []byte(`{"id":"m","name":"M","kind":"metric","database":"otel","table":"otel_metrics_sum","timestampColumn":"TimeUnix","metricType":"sum"}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"sum": "otel_metrics_sum"}, metric.MetricTables)
	assert.Equal(t, "sum", metric.Chart().MetricType)
	require.NoError(t, metric.Validate("otel"))

	trace, err := Decode("team", []byte(`{"id":"t","name":"T","kind":"trace","database":"otel","table":"otel_traces","timestampColumn":"Timestamp"}`))
	require.NoError(t, err)
	require.NoError(t, trace.Validate("otel"))
	assert.Equal(t, "SpanName", trace.Chart().BodyColumn)
	assert.Zero(t, trace.Chart().DurationScale, "the exporter's Duration: nanoseconds")
}

// durationPrecision says how many digits of a second Duration counts.
func TestDurationPrecisionScalesToNanoseconds(t *testing.T) {
	for p, want := range map[int]int64{9: 0, 6: 1000, 3: 1000000, 0: 1000000000} {
		src := Source{Kind: "trace", DurationExpression: "Duration", DurationPrecision: &p}
		assert.Equal(t, want, src.Chart().DurationScale, "precision %d", p)
	}
}

func TestOtherConnectionsAndKindsAreNotQueried(t *testing.T) {
	src := Defaults("otel", "team")[0]
	src.Connection = "0123456789abcdef01234567"
	require.ErrorIs(t, Readable("team", src), ErrUnreadable)
	require.ErrorContains(t, Readable("team", src), "not this collector's own ClickHouse")
	src = Defaults("otel", "team")[0]
	src.Kind = "session"
	require.ErrorContains(t, Readable("team", src), "does not query it")
}

func TestGranularities(t *testing.T) {
	for in, want := range map[string]string{"1 second": "1s", "1 minute": "1m", "1 hour": "1h", "1 day": "1d", "invalid": "invalid", "1m": "1m", "2 minutes": "2 minutes"} {
		assert.Equal(t, want, GranularityExternal(in), in)
	}
	for in, want := range map[string]string{"15s": "15 second", "5m": "5 minute", "2h": "2 hour", "1d": "1 day", "invalid": "invalid", "1 minute": "1 minute", "5min": "5min"} {
		assert.Equal(t, want, GranularityInternal(in), in)
	}
}

func TestNullLogSourceIDIsKept(t *testing.T) {
	src, err := Decode("team", []byte(`{"id":"t","name":"T","kind":"trace","from":{"databaseName":"d","tableName":"t"},"logSourceId":null}`))
	require.NoError(t, err)
	b, err := json.Marshal(src.Public())
	require.NoError(t, err)
	assert.Contains(t, string(b), `"logSourceId":null`)
}

// The cluster a source is read across is the deployment's, not stored
// with the team's source: the catalog stamps it on what it reads, and the
// chart builders get it.
func TestChartCarriesTheCluster(t *testing.T) {
	src := Defaults("otel", "team")[0]
	assert.Empty(t, src.Chart().Cluster)
	src.cluster = "otel_cluster"
	assert.Equal(t, "otel_cluster", src.Chart().Cluster)
	b, err := json.Marshal(src)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "otel_cluster", "not part of the stored document")
}

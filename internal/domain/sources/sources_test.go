package sources

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  Source
		want string // a part of the error; "" is valid
	}{
		{"a log source", Source{Name: "L", Kind: "log", Table: "t", TimestampColumn: "ts"}, ""},
		{"a metric source gets gauge", Source{Name: "M", Kind: "metric", Table: "t", TimestampColumn: "ts"}, ""},
		{"no name", Source{Kind: "log", Table: "t", TimestampColumn: "ts"}, "name is required"},
		{"unknown kind", Source{Name: "x", Kind: "event", Table: "t", TimestampColumn: "ts"}, "kind must be one of log, trace, metric"},
		{"no table", Source{Name: "x", Kind: "log"}, "table and timestampColumn are required"},
		{"metric type on logs", Source{Name: "x", Kind: "log", Table: "t", TimestampColumn: "ts", MetricType: "sum"}, "metricType is only for metric sources"},
		{"unknown metric type", Source{Name: "x", Kind: "metric", Table: "t", TimestampColumn: "ts", MetricType: "exp"}, "metricType must be one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.src.Validate("otel")
			if tc.want == "" {
				require.NoError(t, err, tc.name)
				assert.Equal(t, "otel", tc.src.Database, "%s: the telemetry database by default", tc.name)
				return
			}
			require.ErrorContains(t, err, tc.want, tc.name)
		})
	}
	noDB := Source{Name: "L", Kind: "log", Table: "t", TimestampColumn: "ts"}
	require.ErrorContains(t, noDB.Validate(""), "database is required")
	m := Source{Name: "M", Kind: "metric", Table: "t", TimestampColumn: "ts"}
	require.NoError(t, m.Validate("otel"))
	assert.Equal(t, "gauge", m.MetricType)
}

func TestDefaultsMatchTheExporter(t *testing.T) {
	d := Defaults("otel")
	assert.Equal(t, []string{"logs", "traces", "metrics"}, []string{d[0].ID, d[1].ID, d[2].ID})
	for _, s := range d {
		require.NoError(t, s.Validate("otel"), s.ID)
	}
	assert.Equal(t, "ParentSpanId", d[1].ParentSpanIDColumn)
	assert.Equal(t, "TraceId", Column(d[0].TraceIDColumn, "x"))
	assert.Equal(t, "x", Column("", "x"))
}

// The cluster a source is read across is the deployment's, not stored
// with the team's source: the catalog stamps it on what it reads, and the
// chart builders get it.
func TestChartCarriesTheCluster(t *testing.T) {
	src := Defaults("otel")[0]
	assert.Empty(t, src.Chart().Cluster)
	src.cluster = "otel_cluster"
	assert.Equal(t, "otel_cluster", src.Chart().Cluster)
	b, err := json.Marshal(src)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "otel_cluster", "not part of the stored document")
}

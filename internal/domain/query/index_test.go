package query

import (
	"context"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/clickhouseexporter"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/exportertest"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// Every form a field may be written in, on the exporter's own otel_logs,
// compiles to a condition the engine filters with the table's skip index
// on that map (force_data_skipping_indices fails the query otherwise): a
// term that hid the lookup in toString() read every granule of a day of
// logs. A quoted value (exactly it) uses the index on the map's values;
// an unquoted one (HyperDX's substring) the index on its keys.
// BenchmarkSearchPage/field-form measures the forms on 10 million rows.
func TestFieldFormsUseTheSkipIndexes(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	chtest.FreshDatabase(t, "charts_index")
	f := clickhouseexporter.NewFactory()
	cfg := f.CreateDefaultConfig().(*clickhouseexporter.Config)
	cfg.Endpoint = "http://" + chtest.Endpoint(t)
	cfg.Database = "charts_index"
	cfg.CreateSchema = true
	e, err := f.CreateLogs(ctx, exportertest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	require.NoError(t, e.Start(ctx, componenttest.NewNopHost()))
	require.NoError(t, e.Shutdown(ctx))
	_, err = db.ExecContext(ctx, `INSERT INTO charts_index.otel_logs (Timestamp, Body, ResourceAttributes, LogAttributes)
		SELECT now64(9), 'x', map('host.name', concat('host-', toString(number))), map('user.id', toString(number)) FROM numbers(1000)`)
	require.NoError(t, err)
	src := Source{
		Database: "charts_index", Table: "otel_logs", TimestampColumn: "TimestampTime", BodyColumn: "Body",
		ServiceColumn: "ServiceName", SeverityColumn: "SeverityText", AttributesMap: "LogAttributes", ResourceMap: "ResourceAttributes",
	}
	cols, err := columns(ctx, db, src)
	require.NoError(t, err)
	fs := fields{s: src, cols: cols}
	for _, tc := range []struct {
		where   string
		indexes []string
		count   int
		lang    string // lucene unless said
	}{
		// Quoted, a value exactly: the index on the map's values.
		{`LogAttributes.user.id:"7"`, []string{"idx_log_attr_value"}, 1, ""},
		{`Attr.user.id:"7"`, []string{"idx_log_attr_value"}, 1, ""},
		{`user.id:"7"`, []string{"idx_log_attr_value"}, 1, ""},
		{`ResourceAttributes.host.name:"host-7"`, []string{"idx_res_attr_value"}, 1, ""},
		{`Resource.host.name:"host-7"`, []string{"idx_res_attr_value"}, 1, ""},
		{`host.name:"host-7"`, []string{"idx_log_attr_value", "idx_res_attr_value"}, 1, ""},
		{`host.name:"host-7" OR user.id:"8"`, []string{"idx_res_attr_value"}, 2, ""},
		// Unquoted, HyperDX's substring (7, 17, 70…: 271 of 0–999; host-7,
		// host-70…: 111), which no value index serves: the index on the
		// map's keys skips the granules without the key.
		{"LogAttributes.user.id:7", []string{"idx_log_attr_key"}, 271, ""},
		{"Attr.user.id:7", []string{"idx_log_attr_key"}, 271, ""},
		{"ResourceAttributes.host.name:host-7", []string{"idx_res_attr_key"}, 111, ""},
		{"Resource.host.name:host-7", []string{"idx_res_attr_key"}, 111, ""},
		// A bare key unquoted (attributes, else resource) reads every
		// granule: quote the value for the index.
		{"user.id:7", nil, 271, ""},
		// Datadog's @path: the flat key, JSON under a shorter key, then
		// the resource; each place keeps its map's index.
		{"@user.id:7", []string{"idx_log_attr_value"}, 1, "datadog"},
		{"@host.name:host-7", []string{"idx_log_attr_value", "idx_res_attr_value"}, 1, "datadog"},
		{"@user.id:7 OR @host.name:host-8", []string{"idx_res_attr_value"}, 2, "datadog"},
	} {
		t.Run(tc.lang+" "+tc.where, func(t *testing.T) {
			var p Params
			cond, err := Lucene(tc.where, fs, &p)
			if tc.lang == "datadog" {
				cond, err = datadogWhere(tc.where, fs, &p)
			}
			require.NoError(t, err, tc.where)
			q := "SELECT count() FROM charts_index.otel_logs WHERE " + cond
			if len(tc.indexes) > 0 {
				q += " SETTINGS force_data_skipping_indices = '" + strings.Join(tc.indexes, ",") + "'"
			}
			var n int
			qctx := clickhouse.Context(ctx, clickhouse.WithParameters(clickhouse.Parameters(p.Values)))
			require.NoError(t, db.QueryRowContext(qctx, q).Scan(&n), "%s: %s", tc.where, cond)
			require.Equal(t, tc.count, n, tc.where)
		})
	}
}

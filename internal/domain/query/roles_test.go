package query

import (
	"context"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// A source's roles that are expressions: each checked against the
// table's columns and typed by the engine (a duration a number); one
// the check refuses
// (a missing column, a function that reads files) left out, as a role
// naming a missing column is; every where language reading them.
func TestRolesMayBeExpressions(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	chtest.FreshDatabase(t, "query_roles")
	for _, q := range []string{
		"CREATE DATABASE query_roles",
		"CREATE TABLE query_roles.t (ts DateTime64(9), Attrs Map(String, String), Raw String, Code UInt16, J JSON) ENGINE = MergeTree ORDER BY ts",
		`INSERT INTO query_roles.t VALUES ('2026-11-01 12:00:00', {'svc':'api','lvl':'Error','ms':'12'}, '{"m":"disk full"}', 500, '{"kind":"server"}'),` +
			` ('2026-11-01 12:00:01', {'svc':'web','lvl':'info','ms':'3'}, '{"m":"ok"}', 200, '{"kind":"client"}')`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	src := Source{
		Database: "query_roles", Table: "t", TimestampColumn: "ts", AttributesMap: "Attrs",
		ServiceColumn: "Attrs['svc']", SeverityColumn: "Attrs['lvl']", BodyColumn: "JSONExtractString(Raw, 'm')",
		Duration: "toUInt64OrZero(Attrs['ms'])", StatusCode: "Code + 0", SpanKind: "J.kind",
		TraceID: "Missing['x']", SpanID: "file('/etc/passwd')", ParentSpanID: "NoSuchColumn",
	}
	sc, err := OpenScope(ctx, db, src)
	require.NoError(t, err)

	for role, want := range map[string]string{
		src.ServiceColumn: "(`arrayElement`(`Attrs`, 'svc'))", src.BodyColumn: "(`JSONExtractString`(`Raw`, 'm'))",
		src.Duration:   "(`toUInt64OrZero`(`arrayElement`(`Attrs`, 'ms')))",
		src.StatusCode: "(`plus`(`Code`, 0))",
		// A JSON path is a Dynamic: a text role reads it as its text.
		src.SpanKind: "toString((`J`.`kind`))",
	} {
		got, ok := sc.Role(role)
		require.True(t, ok, role)
		assert.Equal(t, want, got, role)
	}
	for _, refused := range []string{src.TraceID, src.SpanID, src.ParentSpanID, ""} {
		_, ok := sc.Role(refused)
		assert.False(t, ok, "%q: left out", refused)
	}
	got, ok := sc.Role("Raw")
	assert.True(t, ok, "a column is its own role")
	assert.Equal(t, "`Raw`", got)
	_, numeric, err := sc.Resolve("duration", &Params{})
	require.NoError(t, err)
	assert.True(t, numeric, "the duration is the number the engine types it as")
	assert.Equal(t, "service", sc.Alias(src.ServiceColumn))
	assert.Equal(t, "level", sc.Alias(src.SeverityColumn))
	assert.Contains(t, sc.Computed(), " AS `Attrs['svc']`")

	count := func(lang, where string) uint64 {
		t.Helper()
		var p Params
		cond, err := sc.Where(ctx, db, lang, where, &p)
		require.NoError(t, err, where)
		params := clickhouse.Parameters{}
		for k, v := range p.Values {
			params[k] = v
		}
		var n uint64
		require.NoError(t, db.QueryRowContext(clickhouse.Context(ctx, clickhouse.WithParameters(params)),
			"SELECT count() FROM "+sc.From+" WHERE "+cond).Scan(&n), where)
		return n
	}
	assert.EqualValues(t, 1, count("lucene", "service:api"))
	assert.EqualValues(t, 1, count("lucene", "level:error"), "the level without regard to case")
	assert.EqualValues(t, 1, count("lucene", "disk"), "a bare word in the body expression")
	assert.EqualValues(t, 1, count("lucene", "duration:>10"))
	assert.EqualValues(t, 1, count("datadog", "service:web"))
	assert.EqualValues(t, 1, count("datadog", "status:error"))
	assert.EqualValues(t, 1, count("lucene", "duration:<5"))

	// Rows read with SELECT * carry the roles under their text.
	var svc string
	require.NoError(t, db.QueryRowContext(ctx, "SELECT `Attrs['svc']` FROM (SELECT *"+sc.Computed()+" FROM "+sc.From+") ORDER BY `Attrs['svc']` LIMIT 1").Scan(&svc))
	assert.Equal(t, "api", svc)
}

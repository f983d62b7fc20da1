package charts

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

func TestTableRef(t *testing.T) {
	for _, tc := range []struct {
		src  query.Source
		want string
	}{
		{query.Source{Database: "otel", Table: "otel_logs"}, "`otel`.`otel_logs`"},
		{query.Source{Database: "otel", Table: "otel_logs", Cluster: "otel_cluster"}, "cluster('otel_cluster', `otel`, `otel_logs`)"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.src.TableRef(tc.src.Table))
		})
	}
}

// On a cluster a source is read across its shards: every query built on
// the scope names the table through cluster(). A cluster name that is not
// plain is refused before it reaches a query.
func TestScopeOnACluster(t *testing.T) {
	db := chtest.DB(t)
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_scope",
		"CREATE TABLE IF NOT EXISTS charts_scope.t (ts DateTime64(3), msg String) ENGINE = MergeTree ORDER BY ts",
	} {
		_, err := db.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	src := query.Source{Database: "charts_scope", Table: "t", TimestampColumn: "ts", BodyColumn: "msg", Cluster: "otel_cluster"}
	sc, err := query.OpenScope(context.Background(), db, src)
	require.NoError(t, err)
	assert.Equal(t, "cluster('otel_cluster', `charts_scope`, `t`)", sc.From)
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	q, _, err := Build(context.Background(), db, Series{Source: src, AggFn: "count"}, start, start.Add(time.Hour), time.Minute)
	require.NoError(t, err)
	assert.Contains(t, q, "FROM cluster('otel_cluster', `charts_scope`, `t`)", "charts read the shards too")

	src.Cluster = "c'); DROP TABLE x; --"
	_, err = query.OpenScope(context.Background(), db, src)
	assert.ErrorContains(t, err, "not a plain name")
}

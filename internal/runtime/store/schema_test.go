package store

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden DDL files in testdata/")

// The state's DDL, single server and cluster, as golden files: a change
// to schema.sql shows here as the statements a cluster would run. The
// single-server form runs on the embedded engine in every other test; the
// cluster form cannot (clickhouse-local has no Keeper: "Can't create
// replicated table without ZooKeeper").
func TestSchemaDDL(t *testing.T) {
	for file, cluster := range map[string]string{"schema.sql.golden": "", "schema_cluster.sql.golden": "otel_cluster"} {
		stmts, err := Schema("otelhouse", cluster)
		require.NoError(t, err)
		got := strings.Join(stmts, ";\n\n") + ";\n"
		path := filepath.Join("testdata", file)
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./internal/runtime/store -run TestSchemaDDL -update")
		assert.Equal(t, string(want), got, file)
	}
	clustered, _ := Schema("otelhouse", "c1")
	for _, stmt := range clustered {
		assert.Contains(t, stmt, " ON CLUSTER 'c1'", "every statement runs on every replica")
		if strings.Contains(stmt, "ENGINE") {
			assert.Contains(t, stmt, "ENGINE = Replicated", "every table is replicated")
		}
	}
	_, err := Schema("otelhouse", "c1'; DROP TABLE x")
	require.Error(t, err)
	_, err = Schema("bad-name;", "")
	assert.Error(t, err)
}

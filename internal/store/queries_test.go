package store

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every statement the store names is in queries.sql, and queries.sql has
// none that nothing uses.
func TestQueriesMatchTheirUses(t *testing.T) {
	src, err := os.ReadFile("store.go")
	require.NoError(t, err)
	var used []string
	for _, m := range regexp.MustCompile(`s\.sql\("([a-z_]+)"\)`).FindAllStringSubmatch(string(src), -1) {
		used = append(used, m[1])
	}
	var defined []string
	for name, stmt := range queries {
		defined = append(defined, name)
		assert.Contains(t, stmt, "{db}.", name)
		assert.NotContains(t, stmt, "--", name)
	}
	slices.Sort(used)
	slices.Sort(defined)
	assert.Equal(t, defined, slices.Compact(used))
}

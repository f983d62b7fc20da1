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
	var used []string
	for _, file := range []string{"store.go", "accounts.go"} {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`s\.sql\("([a-z_]+)"\)`).FindAllStringSubmatch(string(src), -1) {
			used = append(used, m[1])
		}
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

package embeddedclickhouseextension

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeepPassword(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "clickhouse-password")
	require.NoError(t, keepPassword("", "x"), "no file asked for")
	require.NoError(t, keepPassword(path, "secret"))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "secret\n", string(b))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	require.NoError(t, keepPassword(path, "secret"), "the next start finds its own password")
	assert.ErrorContains(t, keepPassword(path, "other"), "changed after the configuration was read")
}

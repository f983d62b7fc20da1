package keys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSealerRoundTripAndFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir", SecretFile)
	s, err := LoadSealer(path)
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the secret is readable by the owner only")

	key := New("ohp_")
	sealed := s.Seal(key)
	assert.NotContains(t, sealed, key[4:])
	got, err := s.Open(sealed, Hash(key))
	require.NoError(t, err)
	assert.Equal(t, key, got)

	// The same file opens it after a restart; a loosened mode is tightened.
	require.NoError(t, os.Chmod(path, 0o644))
	again, err := LoadSealer(path)
	require.NoError(t, err)
	got, err = again.Open(sealed, Hash(key))
	require.NoError(t, err)
	assert.Equal(t, key, got)
	fi, _ = os.Stat(path)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// Bound to its row, and to its secret.
	_, err = s.Open(sealed, Hash("another key"))
	require.Error(t, err)
	other, err := LoadSealer(filepath.Join(t.TempDir(), SecretFile))
	require.NoError(t, err)
	_, err = other.Open(sealed, Hash(key))
	require.Error(t, err)
	_, err = s.Open("not base64 !", Hash(key))
	assert.Error(t, err)
}

func TestSealBoundOpensOnlyWhereItWasSealed(t *testing.T) {
	s, err := NewSealer(make([]byte, 32))
	require.NoError(t, err)
	sealed := s.SealBound(`{"Authorization":"Bearer x"}`, "webhook:a/1")
	assert.NotContains(t, sealed, "Bearer")
	plain, err := s.OpenBound(sealed, "webhook:a/1")
	require.NoError(t, err)
	assert.Equal(t, `{"Authorization":"Bearer x"}`, plain) //nolint:testifylint // the exact text, not only the same JSON
	_, err = s.OpenBound(sealed, "webhook:b/1")
	require.Error(t, err, "copied to another team's webhook, it does not open")
	_, err = s.OpenBound("!!", "webhook:a/1")
	assert.Error(t, err)
}

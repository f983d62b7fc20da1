package keys

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sealer encrypts keys at rest (AES-256-GCM) so the UI can show a key to
// its owner at any time, as HyperDX does, while the database holds only
// ciphertext and hashes. Its secret lives in the data directory, 0600.
type Sealer struct{ aead cipher.AEAD }

// SecretFile is the sealing secret's name in the data directory.
const SecretFile = "secret.key"

// LoadSealer reads the secret at path, or makes one there on first start.
func LoadSealer(path string) (*Sealer, error) {
	b, err := os.ReadFile(path) //nolint:gosec // the data directory's secret, a path from the configuration
	if errors.Is(err, os.ErrNotExist) {
		secret := make([]byte, 32)
		_, _ = rand.Read(secret)
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // as above
		if errors.Is(err, os.ErrExist) {
			return LoadSealer(path) // another start made it first
		}
		if err != nil {
			return nil, fmt.Errorf("creating the key sealing secret: %w", err)
		}
		_, err = f.WriteString(hex.EncodeToString(secret) + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("writing the key sealing secret: %w", err)
		}
		return NewSealer(secret)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the key sealing secret: %w", err)
	}
	// A copy restored with looser modes is tightened, not trusted as is.
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600)
	}
	secret, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(secret) != 32 {
		return nil, fmt.Errorf("%s must hold 32 bytes in hex", path)
	}
	return NewSealer(secret)
}

// NewSealer seals with a 32-byte secret.
func NewSealer(secret []byte) (*Sealer, error) {
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts a key; the hash binds the ciphertext to its row, so a
// sealed value copied to another key's row does not open there.
func (s *Sealer) Seal(key string) string { return s.SealBound(key, Hash(key)) }

// Open decrypts a sealed key stored with hash.
func (s *Sealer) Open(sealed, hash string) (string, error) {
	return s.OpenBound(sealed, hash)
}

// SealBound encrypts any secret (a webhook's headers) bound to where it
// is stored (bound, e.g. its team and id): it opens only with the same
// binding, so a sealed value copied elsewhere does not open there.
func (s *Sealer) SealBound(plain, bound string) string {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	out := s.aead.Seal(nonce, nonce, []byte(plain), []byte(bound))
	return base64.RawStdEncoding.EncodeToString(out)
}

// OpenBound decrypts what SealBound sealed with the same binding.
func (s *Sealer) OpenBound(sealed, bound string) (string, error) {
	b, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil || len(b) < s.aead.NonceSize() {
		return "", errors.New("sealed value is malformed")
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, b[:n], b[n:], []byte(bound))
	if err != nil {
		return "", errors.New("sealed value does not open with this data directory's secret")
	}
	return string(plain), nil
}

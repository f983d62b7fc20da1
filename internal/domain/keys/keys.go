// Package keys makes and checks API keys. Only SHA-256 hashes are stored;
// a presented key is looked up by its hash, so no stored secret is ever
// compared byte by byte, and managed secrets are compared in constant time.
package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
)

// Kinds of keys.
const (
	Personal  = "personal"  // self-hosted API, Bearer
	Ingestion = "ingestion" // agents' api_key, OTLP bearer token
	Managed   = "managed"   // managed API, Basic key id:secret
)

// New makes a random key with a readable prefix ("ohp_…", "ohi_…").
func New(prefix string) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Hash is what is stored for a key.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Equal compares two secrets in constant time.
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stored document that is not JSON is an error, never a null answer.
func TestPublicRefusesACorruptDocument(t *testing.T) {
	for _, kind := range []string{kindWebhook, kindSaved, kindDashboard} {
		t.Run(kind, func(t *testing.T) {
			pub, err := public("a", kind, []byte(`{"id":`))
			require.Error(t, err)
			assert.Nil(t, pub)
		})
	}
	pub, err := public("a", kindWebhook, []byte(`{"id":"w1","service":"generic","url":"https://example.com","headers":{"k":"v"}}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": "w1", "service": "generic", "url": "https://example.com"}, pub, "headers are write-only")
}

package webhook

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A webhook's write-only query parameters join the query its URL has.
func TestWithQueryParams(t *testing.T) {
	got, err := WithQueryParams("https://example.com/hook?a=1", map[string]string{"token": "s e&cret"})
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/hook?a=1&token=s+e%26cret", got)
	got, err = WithQueryParams("https://example.com/hook", nil)
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/hook", got)
}

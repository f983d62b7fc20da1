package datadogreceiver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContentCoding(t *testing.T) {
	for header, want := range map[string]string{
		"":                "",
		"identity":        "",
		"IDENTITY":        "",
		"gzip":            "gzip",
		"GZip":            "gzip",
		"x-gzip":          "gzip",
		"gzip, identity":  "gzip",
		"identity,zstd":   "zstd",
		" deflate ":       "deflate",
		"br":              "br", // confighttp answers that it has no such decoder
		"identity, ,gzip": "gzip",
	} {
		got, err := contentCoding(header)
		require.NoError(t, err, header)
		assert.Equal(t, want, got, header)
	}
	_, err := contentCoding("gzip, zstd")
	assert.ErrorContains(t, err, "more than one coding")
}

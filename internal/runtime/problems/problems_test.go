package problems

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestList(t *testing.T) {
	var p List
	require.NoError(t, p.Err())
	p.OneOf("whereLanguage", "lucene", []string{"lucene", "sql"})
	require.NoError(t, p.Err(), "an allowed value is no problem")
	p.Add("name is required")
	p.OneOf("whereLanguage", "kql", []string{"lucene", "sql"})
	assert.EqualError(t, p.Err(), `name is required; whereLanguage must be one of lucene, sql, got "kql"`)
}

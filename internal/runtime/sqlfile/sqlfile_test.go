package sqlfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	got := Parse("t.sql", `-- A file comment.

-- name: one
-- What it does.
SELECT 1 -- trailing
FROM x

-- name: two
INSERT INTO y VALUES (?)
`)
	assert.Equal(t, map[string]string{"one": "SELECT 1 \nFROM x", "two": "INSERT INTO y VALUES (?)"}, got)
	assert.PanicsWithValue(t, "t.sql: statement empty is empty", func() { Parse("t.sql", "-- name: empty\n-- only a comment\n") })
}

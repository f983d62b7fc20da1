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

func TestTemplates(t *testing.T) {
	ts := ParseTemplates("t.sql", "-- name: pick\nSELECT {{.Column}} FROM t\n")
	assert.Equal(t, "SELECT a FROM t", ts.Render("pick", map[string]string{"Column": "a"}))
	assert.PanicsWithValue(t, "t.sql: no statement nope", func() { ts.Render("nope", nil) })
	assert.Panics(t, func() { ParseTemplates("t.sql", "-- name: bad\nSELECT {{.\n") })
}

package testenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder catches what Missing asks of the test.
type recorder struct {
	testing.TB
	fatal, skipped bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatal(...any)          { r.fatal = true }
func (r *recorder) Skip(...any)           { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.fatal = true }

func TestMissing(t *testing.T) {
	t.Run("developer", func(t *testing.T) {
		t.Setenv("CI", "")
		r := &recorder{TB: t}
		Missing(r, "no %s", "chromium")
		assert.True(t, r.skipped)
		assert.False(t, r.fatal)
	})
	t.Run("ci", func(t *testing.T) {
		t.Setenv("CI", "true")
		r := &recorder{TB: t}
		Missing(r, "no %s", "chromium")
		assert.True(t, r.fatal)
		assert.False(t, r.skipped)
	})
}

package authfail

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestOncePerMinutePerAddress(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	l := New(zap.New(core))
	now := time.Unix(1_700_000_000, 0)
	l.now = func() time.Time { return now }
	assert.True(t, l.Failed("ingestion", "10.0.0.1", "invalid ingestion key"))
	for range 100 {
		assert.False(t, l.Failed("ingestion", "10.0.0.1", "invalid ingestion key"))
	}
	assert.True(t, l.Failed("api", "10.0.0.2", "missing or invalid API key"), "another address is logged")
	now = now.Add(Every)
	assert.True(t, l.Failed("ingestion", "10.0.0.1", "invalid ingestion key"))
	entries := logs.All()
	assert.Len(t, entries, 3)
	assert.Equal(t, int64(100), entries[2].ContextMap()["refused_since_last_logged"])
	assert.Equal(t, "10.0.0.1", entries[2].ContextMap()["client"])
}

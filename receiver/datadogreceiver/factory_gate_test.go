package datadogreceiver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The gate operators name on the command line is the one metadata.yaml
// declares.
func TestGateIsDeclaredInMetadata(t *testing.T) {
	assert.Equal(t, FeatureGateID, Gate.ID())
	assert.False(t, Gate.IsEnabled(), "off by default")
}

package sqlname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNames(t *testing.T) {
	for name, want := range map[string][2]bool{ // {Plain, Cluster}
		"otel":                  {true, true},
		"otel_logs":             {true, true},
		"prod-eu.1":             {false, true},
		"1st":                   {false, false},
		"":                      {false, false},
		"a`b":                   {false, false},
		"c'); DROP TABLE x; --": {false, false},
	} {
		assert.Equal(t, want[0], Plain(name), name)
		assert.Equal(t, want[1], Cluster(name), name)
	}
}

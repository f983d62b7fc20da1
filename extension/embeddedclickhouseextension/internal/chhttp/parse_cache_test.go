package chhttp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/testenv"
)

// A statement with typed parameters is parsed by the engine once, whatever
// their values; one with an Identifier parameter each time, since the name
// it is given changes what is read.
func TestParsesCachedAcrossParameterValues(t *testing.T) {
	if srvURL == "" {
		testenv.Missing(t, "OTELHOUSE_LIBCHDB not set")
	}
	p := &engineParser{conn: spare}
	typed := "SELECT count() FROM system.one WHERE dummy = {d:UInt8} AND {s:String} != ''"
	first, err := p.parse(typed, map[string]string{"d": "0", "s": "a"})
	require.NoError(t, err)
	again, err := p.parse(typed, map[string]string{"d": "1", "s": "') FROM file('/etc/passwd"})
	require.NoError(t, err)
	assert.Same(t, first, again, "typed parameters: one parse")

	named := "SELECT count() FROM {t:Identifier}"
	first, err = p.parse(named, map[string]string{"t": "system.one"})
	require.NoError(t, err)
	again, err = p.parse(named, map[string]string{"t": "system.numbers"})
	require.NoError(t, err)
	assert.NotSame(t, first, again, "an Identifier parameter: parsed each time")
}

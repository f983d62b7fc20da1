package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContainer(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	missing := filepath.Join(dir, "missing")
	assert.EqualValues(t, 268435456, Container([]string{missing, file("v2", "268435456\n")}))
	assert.Equal(t, uint64(math.MaxUint64), Container([]string{file("v2max", "max\n"), file("v1", "1024\n")}), "v2 without a limit")
	assert.EqualValues(t, 1024, Container([]string{missing, file("v1b", "1024\n")}))
	assert.Equal(t, uint64(math.MaxUint64), Container([]string{file("v1max", "9223372036854771712\n")}), "v1's unlimited")
	assert.Equal(t, uint64(math.MaxUint64), Container([]string{missing}), "no cgroup files")
}

func TestRAM(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	assert.Greater(t, RAM(), uint64(64<<20))
}

func TestOwnGroup(t *testing.T) {
	g, ok := OwnGroup()
	if !ok {
		t.Skip("no memory cgroup here")
	}
	_, err := os.Stat(g.LimitFile())
	require.NoError(t, err, "the own group's limit file is readable")
	assert.Equal(t, g.LimitFile(), CgroupFiles()[0])
}

// Package memlimit finds how much memory the process may use: the memory
// limit of the container (cgroup) it runs in, else the machine's RAM. The
// memory budget and the garbage-collector tuner both start from it.
package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Unlimited is what Container says without a limit.
const Unlimited = math.MaxUint64

// CgroupFiles hold the process's memory limit: first those of its own
// group, as /proc/self/cgroup names it (a systemd unit's MemoryMax, a
// group made for it), then the root's, which is its own group in a
// container (the cgroup namespace makes it the root); v2 before v1.
func CgroupFiles() []string {
	var files []string
	if g, ok := OwnGroup(); ok {
		files = append(files, g.LimitFile())
	}
	return append(files, "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
}

// Group is a memory cgroup's directory.
type Group struct {
	Dir string
	V1  bool
}

// LimitFile holds the group's memory limit.
func (g Group) LimitFile() string {
	if g.V1 {
		return filepath.Join(g.Dir, "memory.limit_in_bytes")
	}
	return filepath.Join(g.Dir, "memory.max")
}

// OwnGroup is the memory cgroup the process belongs to, from
// /proc/self/cgroup: the v1 memory controller's group when it is mounted,
// else the v2 group.
func OwnGroup() (Group, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return Group{}, false
	}
	var v2 string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		// hierarchy-id:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if slices.Contains(strings.Split(parts[1], ","), "memory") {
			dir := filepath.Join("/sys/fs/cgroup/memory", parts[2])
			if _, err := os.Stat(dir); err == nil { //nolint:gosec // the kernel's own name for the process's group, under the cgroup mount

				return Group{Dir: dir, V1: true}, true
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
		}
	}
	if v2 == "" {
		return Group{}, false
	}
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		dir := filepath.Join(root, v2)
		if _, err := os.Stat(filepath.Join(dir, "memory.max")); err == nil { //nolint:gosec // as above

			return Group{Dir: dir}, true
		}
	}
	return Group{}, false
}

// Container is the first limit found in files, or math.MaxUint64 when
// there is none: no file, v2's "max", or v1's "unlimited" (a number near
// 2^63).
func Container(files []string) uint64 {
	for _, f := range files {
		b, err := os.ReadFile(f) //nolint:gosec // the cgroup's own memory files, names fixed by the caller
		if err != nil {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n >= math.MaxInt64-1<<20 {
			return Unlimited
		}
		return n
	}
	return Unlimited
}

// RAM is the machine's memory from /proc/meminfo (MemTotal), or 0 when
// it cannot be read.
func RAM() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

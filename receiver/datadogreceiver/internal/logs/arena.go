package logs

import "unsafe"

// arenaBlock is the size of the blocks an arena copies strings into.
const arenaBlock = 32 << 10

// arena copies the strings a batch keeps into shared blocks: one
// allocation per block instead of one per string, and no pointers for the
// collector to scan. Blocks are append-only, so the bytes behind a string
// handed out never change; a block lives as long as any of its strings.
type arena struct{ block []byte }

func (a *arena) string(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > arenaBlock/8:
		return string(b)
	case cap(a.block)-len(a.block) < len(b):
		a.block = make([]byte, 0, arenaBlock)
	}
	start := len(a.block)
	a.block = append(a.block, b...)
	return unsafe.String(&a.block[start], len(b)) //nolint:gosec // the arena's blocks are never written again (see above)
}

// Package mutate makes corrupted copies of a payload for the tests that
// hold a hand-written decoder to the library decoder it stands in for.
package mutate

import "math/rand/v2"

// Each calls check with 20,000 copies of body, each with one to four
// bytes overwritten and a third of them cut short (none empty); seed
// fixes them, so a failure reproduces.
func Each(body []byte, seed uint64, check func([]byte)) {
	r := rand.New(rand.NewPCG(seed, seed+1)) //nolint:gosec // reproducible fuzz mutations, not secrets
	for i := 0; i < 20000; i++ {
		b := append([]byte(nil), body...)
		for k := 0; k < 1+r.IntN(4); k++ {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		if r.IntN(3) == 0 {
			b = b[:r.IntN(len(b))]
		}
		if len(b) > 0 {
			check(b)
		}
	}
}

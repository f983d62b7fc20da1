package freelist

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReuseSurvivesGCAndIsBounded(t *testing.T) {
	made := 0
	l := New(2, func() *[]byte { made++; b := make([]byte, 0, 8); return &b })
	a, b, c := l.Get(), l.Get(), l.Get()
	assert.Equal(t, 3, made)
	l.Put(a)
	l.Put(b)
	l.Put(c) // over capacity: dropped
	runtime.GC()
	assert.Same(t, a, l.Get())
	assert.Same(t, b, l.Get())
	l.Get()
	assert.Equal(t, 4, made, "the third was not kept")
}

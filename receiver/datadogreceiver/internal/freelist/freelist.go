// Package freelist keeps a bounded number of reusable objects. Unlike
// sync.Pool it keeps them across garbage collections: the receiver's body
// buffers and JSON parsers grow to hundreds of KiB, and regrowing them
// after every GC cost more CPU than decoding. The bound caps what is held.
package freelist

// List is a fixed-capacity free list; Get makes a new object when empty and
// Put drops the object when full.
type List[T any] struct {
	free  chan T
	alloc func() T
}

// New returns a list holding at most size objects made by alloc.
func New[T any](size int, alloc func() T) *List[T] {
	return &List[T]{free: make(chan T, size), alloc: alloc}
}

// Get returns a held object, or a new one when none is held.
func (l *List[T]) Get() T {
	select {
	case v := <-l.free:
		return v
	default:
		return l.alloc()
	}
}

// Put holds v for a later Get, or drops it when the list is full.
func (l *List[T]) Put(v T) {
	select {
	case l.free <- v:
	default:
	}
}

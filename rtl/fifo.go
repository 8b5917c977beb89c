package rtl

// FIFO is a first-in first-out queue on a ring buffer. With a capacity it is
// bounded and Push refuses when full (back-pressure); with capacity 0 it grows.
// The ring's length is a power of two, so indices wrap with a mask.
//
// A FIFO that empties starts again at the ring's first slot, so that one
// that holds few items at a time keeps writing the same slots, which stay
// in the cache, rather than going round the whole ring (a link's queues,
// millions of times a run: docs/performance.md).
type FIFO[T any] struct {
	buf   []T
	head  int
	n     int
	limit int
}

func pow2AtLeast(n, floor int) int {
	p := floor
	for p < n {
		p <<= 1
	}
	return p
}

// NewFIFO returns a FIFO holding at most capacity items (0: unbounded).
func NewFIFO[T any](capacity int) *FIFO[T] {
	f := &FIFO[T]{limit: capacity}
	size := 16
	if capacity > 0 && capacity <= 1024 {
		size = pow2AtLeast(capacity, 16)
	}
	f.buf = make([]T, size)
	return f
}

// NewRing returns an unbounded FIFO whose ring starts with room for size
// items (rounded up to a power of two) rather than 16: for a queue that
// rarely holds more, kept small so that it stays in the cache; it grows
// as items need it.
func NewRing[T any](size int) *FIFO[T] {
	return &FIFO[T]{buf: make([]T, pow2AtLeast(size, 1))}
}

// Len returns the number of items queued.
func (f *FIFO[T]) Len() int { return f.n }

// Cap returns the capacity (0: unbounded).
func (f *FIFO[T]) Cap() int { return f.limit }

// Full reports whether a bounded FIFO has no room.
func (f *FIFO[T]) Full() bool { return f.limit > 0 && f.n >= f.limit }

// Space returns the free slots of a bounded FIFO (a large number if unbounded).
func (f *FIFO[T]) Space() int {
	if f.limit == 0 {
		return int(^uint(0) >> 1)
	}
	return f.limit - f.n
}

// Push appends v and reports whether there was room.
func (f *FIFO[T]) Push(v T) bool {
	if f.Full() {
		return false
	}
	if f.n == len(f.buf) {
		f.grow()
	}
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = v
	f.n++
	return true
}

// Peek returns the oldest item without removing it; ok is false when empty.
func (f *FIFO[T]) Peek() (v T, ok bool) {
	if f.n == 0 {
		return v, false
	}
	return f.buf[f.head], true
}

// PeekRef returns a pointer to the oldest item, valid until the next Push or
// Pop; nil when empty.
func (f *FIFO[T]) PeekRef() *T {
	if f.n == 0 {
		return nil
	}
	return &f.buf[f.head]
}

// At returns the i-th oldest item (0: the oldest); i must be below Len.
func (f *FIFO[T]) At(i int) T { return f.buf[(f.head+i)&(len(f.buf)-1)] }

// Ref returns a pointer to the i-th oldest item (0: the oldest), valid
// until the next Push or Pop; i must be below Len.
func (f *FIFO[T]) Ref(i int) *T { return &f.buf[(f.head+i)&(len(f.buf)-1)] }

// Pop removes and returns the oldest item; ok is false when empty.
func (f *FIFO[T]) Pop() (v T, ok bool) {
	if f.n == 0 {
		return v, false
	}
	v = f.buf[f.head]
	var zero T
	f.buf[f.head] = zero
	f.head = (f.head + 1) & (len(f.buf) - 1)
	if f.n--; f.n == 0 {
		f.head = 0 // empty: start again at the first slot (FIFO)
	}
	return v, true
}

// Drop removes the k oldest items; k must not exceed Len.
func (f *FIFO[T]) Drop(k int) {
	if k > f.n {
		panic("rtl: FIFO drops more items than it holds")
	}
	var zero T
	for range k {
		f.buf[f.head] = zero
		f.head = (f.head + 1) & (len(f.buf) - 1)
	}
	if f.n -= k; f.n == 0 {
		f.head = 0
	}
}

func (f *FIFO[T]) grow() {
	nb := make([]T, 2*len(f.buf))
	for i := 0; i < f.n; i++ {
		nb[i] = f.buf[(f.head+i)&(len(f.buf)-1)]
	}
	f.buf, f.head = nb, 0
}

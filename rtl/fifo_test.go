package rtl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFIFOBoundedBackPressure(t *testing.T) {
	f := NewFIFO[int](3)
	require.Equal(t, 3, f.Space())
	for i := 1; i <= 3; i++ {
		require.True(t, f.Push(i))
	}
	require.True(t, f.Full())
	require.False(t, f.Push(4), "a full FIFO refuses")
	v, ok := f.Pop()
	require.True(t, ok)
	require.Equal(t, 1, v)
	require.True(t, f.Push(4))
	var got []int
	for f.Len() > 0 {
		v, _ := f.Pop()
		got = append(got, v)
	}
	require.Equal(t, []int{2, 3, 4}, got)
	_, ok = f.Pop()
	require.False(t, ok)
}

func TestFIFOUnboundedGrowsInOrder(t *testing.T) {
	f := NewFIFO[int](0)
	for i := 0; i < 100; i++ {
		require.True(t, f.Push(i))
		if i%3 == 0 {
			v, _ := f.Pop()
			require.Equal(t, i/3, v)
		}
	}
	p, ok := f.Peek()
	require.True(t, ok)
	require.Equal(t, 34, p)
	require.Equal(t, 66, f.Len())
}

// Drop removes the oldest items across the ring's wrap, keeps the rest in
// order, and refuses to drop more than the FIFO holds.
func TestFIFODrop(t *testing.T) {
	f := NewFIFO[int](5) // a ring of 16
	for i := 0; i < 14; i++ {
		f.Push(i)
		if f.Len() > 1 { // never empty, so that the ring goes round
			f.Pop()
		}
	}
	for i := 1; i <= 4; i++ { // items 13, 1..4 at ring slots 13, 14, 15, 0, 1
		require.True(t, f.Push(i))
	}
	f.Drop(3)
	require.Equal(t, 2, f.Len())
	require.Equal(t, 3, f.At(0))
	require.Equal(t, 4, f.At(1))
	f.Drop(0)
	require.Equal(t, 2, f.Len())
	require.Panics(t, func() { f.Drop(3) })
}

// A FIFO that empties, by Pop or by Drop, starts again at its ring's first
// slot; NewRing's ring starts at the size asked (rounded up to a power of
// two) and grows, in order, past it.
func TestFIFOStartsAgainWhenEmptyAndRingsGrow(t *testing.T) {
	cases := []struct {
		name  string
		size  int
		ring  int // slots before the first growth
		empty func(f *FIFO[int])
	}{
		{"ring of 4, emptied by Pop", 4, 4, func(f *FIFO[int]) {
			for f.Len() > 0 {
				f.Pop()
			}
		}},
		{"ring of 3 is 4, emptied by Drop", 3, 4, func(f *FIFO[int]) { f.Drop(f.Len()) }},
		{"ring of 1", 1, 1, func(f *FIFO[int]) { f.Drop(f.Len()) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := NewRing[int](c.size)
			require.Len(t, f.buf, c.ring)
			require.Equal(t, 0, f.Cap(), "unbounded")
			f.Push(7)
			f.Push(8)
			f.Pop()
			require.Equal(t, 1, f.head, "not empty: the head moves on")
			c.empty(f)
			require.Equal(t, 0, f.head, "empty: back to the first slot")
			for i := range 2*c.ring + 1 { // grows twice
				require.True(t, f.Push(i))
			}
			require.Len(t, f.buf, 4*c.ring)
			for i := range 2*c.ring + 1 {
				v, ok := f.Pop()
				require.True(t, ok)
				require.Equal(t, i, v)
			}
			require.Equal(t, 0, f.head)
		})
	}
}

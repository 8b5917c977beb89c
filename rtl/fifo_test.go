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
		f.Pop()
	}
	for i := 1; i <= 5; i++ { // items 1..5 at ring slots 14, 15, 0, 1, 2
		require.True(t, f.Push(i))
	}
	f.Drop(3)
	require.Equal(t, 2, f.Len())
	require.Equal(t, 4, f.At(0))
	require.Equal(t, 5, f.At(1))
	f.Drop(0)
	require.Equal(t, 2, f.Len())
	require.Panics(t, func() { f.Drop(3) })
}

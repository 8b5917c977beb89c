package rtl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Two resources at 64 B/cycle and 256 B/cycle; a 256 B sub-step holds the
// first for 4 cycles and the second for 1, and ends when both are done.
func TestStartAllHoldsEveryResource(t *testing.T) {
	alu := NewSerializer(Rate{64, 1})
	port := NewSerializer(Rate{256, 1})
	end, ok, _ := StartAll(10, Need{alu, 256}, Need{port, 256})
	require.True(t, ok)
	require.Equal(t, Cycle(14), end)
	// At cycle 11 the port is free but the ALU is not (until 14): stall.
	_, ok, retry := StartAll(11, Need{alu, 256}, Need{port, 256})
	require.False(t, ok)
	require.Equal(t, Cycle(14), retry)
	// A resource that frees at a fraction of a cycle is taken up at that
	// exact instant: 256 B at 4700/249 B/cycle end at 13.56; a sub-step
	// during cycle 13 starts at 13.56 and ends at 27.12 → 28.
	mem := NewSerializer(Rate{4700, 249})
	mem.Start(0, 256)
	end, ok, _ = StartAll(13, Need{mem, 256})
	require.True(t, ok)
	require.Equal(t, Cycle(28), end)
	_, ok, retry = StartAll(12, Need{mem, 256})
	require.False(t, ok)
	require.Equal(t, Cycle(27), retry, "frees during cycle 27 (at 27.12)")
	// Nothing was reserved by the failed attempt: the port alone is free.
	end, ok, _ = StartAll(11, Need{port, 256})
	require.True(t, ok)
	require.Equal(t, Cycle(12), end)
}

func TestPoolPicksTheFirstFree(t *testing.T) {
	p := NewPool(2, Rate{64, 1})
	s, _ := p.Free(0)
	require.Same(t, p[0], s)
	s.Start(0, 256) // busy until 4
	s, _ = p.Free(0)
	require.Same(t, p[1], s)
	s.Start(0, 128) // busy until 2
	s, next := p.Free(1)
	require.Nil(t, s)
	require.Equal(t, Cycle(2), next)
}

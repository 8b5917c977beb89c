package rtl

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// A serializer of 3 B/cycle (Num 3, Den 1: one unit is 1/3 cycle) in
// windows of 10 cycles: 45 bytes ready at cycle 8 take 15 cycles, [8, 23):
// 2 cycles in window 0, 10 in window 1, 3 in window 2. Then 1 byte ready at
// cycle 23 takes 1/3 cycle: window 2 holds 3 1/3.
func TestWindowsSplitSpansExactly(t *testing.T) {
	s := NewSerializer(Rate{Num: 3, Den: 1})
	ws := NewWindows(10, 3)
	s.Start(8, 45)
	ws.Add(s.LastSpan())
	s.Start(23, 1)
	ws.Add(s.LastSpan())
	require.Equal(t, 3, ws.Len())
	require.Equal(t, big.NewRat(2, 1), ws.Busy(0))
	require.Equal(t, big.NewRat(10, 1), ws.Busy(1))
	require.Equal(t, big.NewRat(10, 3), ws.Busy(2))
	require.Equal(t, new(big.Rat), ws.Busy(7))
}

// Busy time an hour of cycles apart costs two pages, not the billions of
// idle windows between; both spans are where they belong.
func TestWindowsAcrossALongIdleStretch(t *testing.T) {
	ws := NewWindows(1000, 1)
	far := int64(4_482_000_000_000) // an hour at 1245 MHz
	ws.Add(500, 1500)
	ws.Add(far, far+250)
	require.Len(t, ws.pages, 2)
	require.Equal(t, int(far/1000+1), ws.Len())
	require.Equal(t, big.NewRat(500, 1), ws.Busy(0))
	require.Equal(t, big.NewRat(500, 1), ws.Busy(1))
	require.Equal(t, big.NewRat(250, 1), ws.Busy(int(far/1000)))
	require.Equal(t, new(big.Rat), ws.Busy(2))
	require.Equal(t, []int64{0, far / 1000 / PageWindows * PageWindows}, ws.BusyPages())
}

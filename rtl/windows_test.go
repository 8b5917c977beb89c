package rtl

import (
	"math/big"
	"math/rand/v2"
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

// Spans added in nearly time order (the window Add used last is counted
// without division) and out of order, across window and page edges: every
// window holds what a direct count of the spans' overlap with it gives.
func TestWindowsAgreeWithADirectCount(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	for run := 0; run < 50; run++ {
		w := 1 + r.Int64N(300)
		ws := NewWindows(Cycle(w), 1)
		want := map[int64]int64{}
		t0 := int64(0)
		for i := 0; i < 2000; i++ {
			if r.IntN(50) == 0 {
				t0 = r.Int64N(pageWindows * w * 3) // jump, back or ahead
			}
			start := t0 + r.Int64N(w)
			end := start + r.Int64N(3*w)
			if r.IntN(10) == 0 {
				end = start // an empty span adds nothing
			}
			ws.Add(start, end)
			for u := start; u < end; u++ {
				want[u/w]++
			}
			t0 = end
		}
		for i, n := range want {
			require.Equal(t, big.NewRat(n, 1), ws.Busy(int(i)), "run %d window %d", run, i)
		}
		got := 0
		for _, p := range ws.BusyPages() {
			for i := p; i < p+pageWindows; i++ {
				if ws.Busy(int(i)).Sign() != 0 {
					got++
				}
			}
		}
		require.Equal(t, len(want), got, "run %d: windows with busy time", run)
	}
}

// Idle tells a window with no busy time, on a page never touched or on a
// page with other windows busy, from a busy one.
func TestWindowsIdle(t *testing.T) {
	ws := NewWindows(10, 3)
	ws.Add(3*12, 3*15) // cycles 12 to 15: window 1
	for _, tc := range []struct {
		window int
		idle   bool
	}{
		{0, true},               // on the page of window 1
		{1, false},              // busy
		{2, true},               // on the same page
		{5 * PageWindows, true}, // a page never touched
	} {
		require.Equal(t, tc.idle, ws.Idle(tc.window), "window %d", tc.window)
		require.Equal(t, tc.idle, ws.Busy(tc.window).Sign() == 0, "window %d agrees with Busy", tc.window)
	}
}

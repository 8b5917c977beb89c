package measure

import (
	"math"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// Points made from Eq (5) with α1 = 1, α2 = 1/10 (b = 900: g = 900/0.9 =
// 1000 at 1 SM, 900/0.8 = 1125 at 2, 900/0.6 = 1500 at 4) and Eq (6) with
// γ1 = 2, γ2 = 1, γ3 = 1 (on the grid: 10^0) for ĉ = 10^9 sent bytes, the
// times rounded to whole cycles (t = a + 10^9/x, a = 100): the fit gives
// them back, to the rounding (below 10^-8 relative).
func TestFitRecoversEq5And6(t *testing.T) {
	c := &Curves{Alone: 900, Startup: 100, Bytes: 1 << 20, Sent: 1e9}
	for _, p := range []struct {
		r int
		g rtl.Cycle
	}{{1, 1000}, {2, 1125}, {4, 1500}} {
		x := 2 - math.Exp(-math.Pow(float64(p.r), 0.6))
		tp := rtl.Cycle(math.Round(100 + 1e9/x))
		c.Points = append(c.Points, Point{SMs: p.r, Overlapped: p.g, CommOverlapped: tp, CommAlone: tp})
	}
	f, err := c.Fit()
	require.NoError(t, err)
	require.InDelta(t, 1, f.Alpha1, 1e-12)
	require.InDelta(t, 0.1, f.Alpha2, 1e-12)
	for _, g := range []Gammas{f.P, f.Q} {
		require.InDelta(t, 2, g.Gamma1, 1e-8)
		require.InDelta(t, 1, g.Gamma2, 1e-8)
		require.InDelta(t, 1, g.Gamma3, 1e-12)
		require.Less(t, g.MaxError, 1e-8)
	}
	_, err = (&Curves{Points: c.Points[:1]}).Fit()
	require.ErrorContains(t, err, "needs two allocations or more; 1 measured")
}

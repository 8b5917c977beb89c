package ace

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// On a full network, NPUs that run NPU 0's programs translated share them
// (run.share): every packet, sub-step, interrupt and collective end, and
// the statistics, are those of the run in which every NPU runs its own, on
// random configurations (those of TestIncrementalKickMatchesReference, on
// full networks), while the run derives fewer programs.
func TestSharedProgramsChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	n := 30
	if testing.Short() {
		n = 8
	}
	ran, fewer := 0, 0
	for i := 0; ran < n && i < 20*n; i++ {
		c := randomIncRun(r)
		c.folded = false
		own := c
		own.cfg.ownPrograms = true
		ref, ok := incTrace(t, own, false)
		if !ok {
			continue
		}
		got, _ := incTrace(t, c, false)
		ran++
		name := fmt.Sprintf("config %d: %+v", i, c)
		require.Equal(t, ref.stuck, got.stuck, name)
		require.Equal(t, ref.ends, got.ends, name)
		require.Equal(t, ref.stats, got.stats, name)
		require.Equal(t, ref.events, got.events, name)
		require.Equal(t, ref.packets, got.packets, name)
		require.Equal(t, ref.steps, got.steps, name)
		require.LessOrEqual(t, got.programs, ref.programs, name)
		if got.programs < ref.programs {
			fewer++
		}
	}
	require.Equal(t, n, ran, "configurations ACE accepts")
	require.Greater(t, fewer, n/2, "programs are shared")
}

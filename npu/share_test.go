package npu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// On a full network, the chunks of an equivariant plan run NPU 0's
// programs with their peers displaced (chunkState.shared): nothing
// observable changes. The same random configurations as
// TestSparedArrivalsChangeNothing, all on full networks, run with every
// NPU's own programs and with NPU 0's shared, and must give the same
// packets on every link, op events on every NPU and collective ends. The
// runs that share derive fewer programs' Info (one NPU's where every NPU
// had its own): sharing happened.
func TestSharedProgramsChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	ran, fewer := 0, 0
	for i := 0; i < 200 && ran < 40; i++ {
		c := randomAbsorbRun(r)
		c.folded = false
		ref, ok := absorbTrace(t, c, false, func(e *Engine) { e.r.ownPrograms = true })
		if !ok {
			continue
		}
		got, _ := absorbTrace(t, c, false)
		require.Equal(t, ref.ends, got.ends, "%+v", c)
		require.Equal(t, ref.ops, got.ops, "%+v", c)
		require.Equal(t, ref.packets, got.packets, "%+v", c)
		require.LessOrEqual(t, got.programs, ref.programs)
		if got.programs < ref.programs {
			fewer++
		}
		ran++
	}
	t.Logf("%d configurations, %d of them sharing programs", ran, fewer)
	require.GreaterOrEqual(t, ran, 30)
	require.GreaterOrEqual(t, fewer, 10)
}

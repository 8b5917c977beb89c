package admit

import (
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func plan(t *testing.T, s torus.Shape, bytes int64) *collectives.Plan {
	p, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}, "hierarchical", bytes, 65536)
	require.NoError(t, err)
	return p
}

func TestTheGateRefusesWhatAnEngineCannotRun(t *testing.T) {
	s := torus.Shape{L: 4, V: 2, H: 1}
	k := rtl.NewKernel()
	g := New("ACE", k, s.Machine(), true)
	require.NoError(t, g.Admit(0, plan(t, s, 1<<20)))
	require.ErrorContains(t, g.Admit(0, plan(t, torus.Shape{L: 2, V: 2, H: 1}, 1<<20)), "ACE: collective planned for 2x2x1 on an engine for 4x2x1")
	k.Schedule(5, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {}), 0, 0)
	k.Run()
	require.ErrorContains(t, g.Admit(3, plan(t, s, 1<<20)), "ACE: collective issued at cycle 3, before the current cycle 5")
	// 1 B per NPU cannot be cut the same way on every NPU of 8: refused on
	// a folded network, accepted on a full one.
	odd := plan(t, s, 1)
	require.ErrorContains(t, g.Admit(5, odd), "ACE on a folded network")
	require.NoError(t, New("", k, s.Machine(), false).Admit(5, odd))
}

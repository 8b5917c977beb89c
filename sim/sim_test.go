package sim

import (
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// Every kind runs the same small all-reduce from one assembly and reports
// through one metrics type: the bytes each NPU injects are the plan's,
// whatever the endpoint (a 4-NPU ring all-reduce of 4 KiB sends
// 2 × 3/4 × 4096 = 6144 B per NPU), only the baseline and ACE touch
// memory, and the network bandwidth is 6144 B over the run's time at
// 1245 MHz.
func TestOneAssemblyRunsEveryKind(t *testing.T) {
	m, err := topology.Parse("4x1x1")
	require.NoError(t, err)
	plan, err := afi.DefaultConfig(m.Machine).Plan(collectives.OpAllReduce, 4096)
	require.NoError(t, err)
	require.NoError(t, Foldable(m, false, plan))
	for _, name := range []string{"ideal", "baseline-commopt", "ace"} {
		sys, err := systems.Lookup(name)
		require.NoError(t, err)
		r, err := New(Setup{Machine: m, System: sys, Fold: true, Layout: plan})
		require.NoError(t, err, name)
		require.True(t, r.Net.Folded())
		met, err := r.One(plan)
		require.NoError(t, err, name)
		require.Positive(t, met.Cycles, name)
		require.Equal(t, int64(6144), met.BytesSent, name)
		require.InDelta(t, 6144/(float64(met.Cycles)/1.245e9)/1e9, met.NetworkGBps(), 1e-9, name)
		require.Equal(t, name != "ideal", met.MemRead > 0, name)
		require.Equal(t, name == "ace", met.ACE != nil, name)
		require.NoError(t, r.Endpoint.Stuck())
	}
}

// The one fold decision: a torus folds a plan whose NPUs all run NPU 0's
// programs translated (1024 B over 4 NPUs: blocks of 256), not under
// --full nor a plan whose blocks differ (1001 B over 3 NPUs: 334, 334
// and 333); a machine without the symmetry never.
func TestFoldable(t *testing.T) {
	torus4, err := topology.Parse("4x1x1")
	require.NoError(t, err)
	even, err := afi.DefaultConfig(torus4.Machine).Plan(collectives.OpAllReduce, 1024)
	require.NoError(t, err)
	require.NoError(t, Foldable(torus4, false, even))
	require.ErrorContains(t, Foldable(torus4, true, even), "--full")
	torus3, err := topology.Parse("3x1x1")
	require.NoError(t, err)
	odd, err := afi.DefaultConfig(torus3.Machine).Plan(collectives.OpAllReduce, 1001)
	require.NoError(t, err)
	require.Error(t, Foldable(torus3, false, odd))
	dgx, err := topology.Parse("dgx1")
	require.NoError(t, err)
	require.ErrorContains(t, Foldable(dgx, false), "no symmetry")
	_, err = New(Setup{})
	require.ErrorContains(t, err, "no machine")
}

// The assembly takes any machine: a ring all-reduce on the DGX-1 runs
// through its NVLinks, never folded.
func TestAssemblyOnDGX1(t *testing.T) {
	m, err := topology.Parse("dgx1")
	require.NoError(t, err)
	plan, err := afi.DefaultConfig(m.Machine).Plan(collectives.OpAllReduce, 1<<16)
	require.NoError(t, err)
	r, err := New(Setup{Machine: m, System: systems.System{Name: "ideal", Kind: systems.Ideal}})
	require.NoError(t, err)
	require.False(t, r.Folded)
	met, err := r.One(plan)
	require.NoError(t, err)
	require.Positive(t, int64(met.Cycles))
	require.Equal(t, int64(2*7*(1<<16)/8), met.BytesSent, "a ring all-reduce of 64 KiB on 8 GPUs sends 2·7/8 of it per GPU")
}

package ace

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// A routed phase's profile is its route's: on switch:4x2 the spine
// phase's messages leave NPU 0 by its leaf link (tier0, the intra-package
// link's 200 GB/s and 90 cycles) but cross the spine links (tier1, the
// inter-package link's 25 GB/s and 500 cycles), so the phase's slowest
// link is a spine link and its latency the whole route's, 90 + 500 + 500
// + 90 = 1180 cycles (the switches add none by default); the leaf phases'
// messages cross two leaf links, 180 cycles at the leaf links' rate.
// Reading only the first link made the spine phase look as quick as a
// leaf phase, and with faster leaf links it kept 2 of 12 FSMs and one
// chunk's room (docs/ace-model.md, "Partitions").
func TestRoutedPhaseProfileIsItsRoutes(t *testing.T) {
	spec, err := topology.Parse("switch:4x2")
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce, MessageBytes: 8192}, "hierarchical", 1<<20, 65536)
	require.NoError(t, err)
	e, err := NewEngine(k, net, plan, Default(), nil)
	require.NoError(t, err)
	prof := profile(plan, spec.Machine.Topology, net, 0, 0, func(p int32) int32 { return p }, e.r.route)
	require.Len(t, prof, 3)
	leafRate, spineRate := big.NewRat(200*940, 1245), big.NewRat(25*940, 1245) // GB/s × 0.94 per 1245 MHz cycle, B/cycle
	for i, want := range []struct {
		rate    *big.Rat
		latency int64
	}{{leafRate, 180}, {spineRate, 1180}, {leafRate, 180}} {
		require.Equal(t, want.rate.String(), prof[i].link.String(), "phase %d", i+1)
		require.Equal(t, want.latency, prof[i].latency, "phase %d", i+1)
	}
	split, err := splitFSMs(16, prof, "latency")
	require.NoError(t, err)
	require.Greater(t, split[1], split[0], "the spine phase, the slowest, has the most FSMs: %v", split)
	require.Greater(t, split[1], split[2], "the spine phase, the slowest, has the most FSMs: %v", split)
}

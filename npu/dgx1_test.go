package npu

import (
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

// Bytes per NVLink on the DGX-1, worked by hand: a one-way ring all-reduce
// of N = 64 KiB per GPU through GPUs 0 → 1 → … → 7 → 0 sends 2(8 − 1)
// messages of N/8 = 8192 B from each GPU to the next, 114688 B. Routes
// take the fewest hops, then the lowest next GPU, then the first of bonded
// links: 3 → 4 has no NVLink and goes 3 → 0 → 4 (0 and 7 are both one hop
// from 4; 0 is lower), 7 → 0 goes 7 → 3 → 0 (3 and 4 both reach 0; 3 is
// lower). So the first 3 → 0 link carries both detours, 229376 B; 0 → 4
// and 7 → 3 carry 114688 B each, as do the direct hops 0 → 1, 1 → 2,
// 2 → 3, 4 → 5, 5 → 6, 6 → 7; the other 38 of the 48 directed NVLinks
// carry nothing (the second links of bonded pairs among them).
func TestBytesPerNVLinkOfARingOnDGX1(t *testing.T) {
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Shape: spec.Plan, Axes: spec.Axes, Op: collectives.OpAllReduce,
		MessageBytes: 8 << 10, Unidirectional: true}, "ring", 64<<10, 64<<10)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
	require.NoError(t, err)
	require.Len(t, net.Links, 48, "24 NVLinks, each way")
	dc, err := verify.NewDataCheck(plan)
	require.NoError(t, err)
	cfg := DefaultIdeal()
	cfg.Data, cfg.Observer, cfg.Topology = &DataHooks{Init: dc.Hook}, dc, spec.Topology
	_, err = RunIdeal(k, net, plan, cfg)
	require.NoError(t, err)
	require.NoError(t, dc.Result())

	const step = 2 * 7 * 8192
	want := map[[2]int]int64{
		{0, 1}: step, {1, 2}: step, {2, 3}: step, {4, 5}: step, {5, 6}: step, {6, 7}: step,
		{3, 0}: 2 * step, {0, 4}: step, {7, 3}: step,
	}
	seen := map[[2]int]bool{}
	var total int64
	for _, l := range net.Links {
		pair := [2]int{l.Src, l.Dst}
		got := l.Bytes()
		total += got
		if w, ok := want[pair]; ok && !seen[pair] { // the first link of the pair
			require.Equal(t, w, got, "NVLink %d → %d", l.Src, l.Dst)
			seen[pair] = true
			continue
		}
		require.Zero(t, got, "NVLink %d → %d (port %d)", l.Src, l.Dst, l.Port)
	}
	require.Len(t, seen, len(want))
	require.Equal(t, int64(10*step), total, "8 ring hops and 2 detour hops")
}

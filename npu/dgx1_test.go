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
// of N = 64 KiB per GPU on the DGX-1's NVLink ring (topology.DGX1Ring:
// 0 → 1 → 2 → 3 → 7 → 5 → 6 → 4 → 0, every step one NVLink) sends 2(8 − 1)
// messages of N/8 = 8192 B from each GPU to the next, 114688 B, on the
// first NVLink from it to the next (the bonded pairs 1–2, 2–3, 5–6 and
// 4–0 carry it on their first link). No message detours: the other 40 of the 48 directed
// NVLinks carry nothing.
func TestBytesPerNVLinkOfARingOnDGX1(t *testing.T) {
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce,
		MessageBytes: 8 << 10, Unidirectional: true}, "ring", 64<<10, 64<<10)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
	require.NoError(t, err)
	require.Len(t, net.Links, 48, "24 NVLinks, each way")
	dc, err := verify.NewDataCheck(plan)
	require.NoError(t, err)
	cfg := DefaultIdeal()
	cfg.Data, cfg.Observer = &DataHooks{Init: dc.Hook}, dc
	_, err = RunIdeal(k, net, plan, cfg)
	require.NoError(t, err)
	require.NoError(t, dc.Result())

	const step = 2 * 7 * 8192
	want := map[[2]int]int64{
		{0, 1}: step, {1, 2}: step, {2, 3}: step, {3, 7}: step, {7, 5}: step, {5, 6}: step, {6, 4}: step, {4, 0}: step,
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
	require.Equal(t, int64(8*step), total, "8 ring hops, no detour")
}

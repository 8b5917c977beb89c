package ace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

// kindPlan is a hierarchical (direct, for all-to-all) plan of op on
// machine m, over the dimensions span or the listed groups (at most one).
func kindPlan(t testing.TB, m *machine.Machine, op collectives.CollectiveOp, span []string, groups [][]int, payload int64) *collectives.Plan {
	t.Helper()
	alg := "hierarchical"
	if op == collectives.OpAllToAll {
		alg = "direct"
	}
	p, err := collectives.NewPlan(collectives.Config{Machine: m, Op: op, MessageBytes: 8192, Span: span, Groups: groups}, alg, payload, 65536)
	require.NoError(t, err)
	return p
}

// The rule of docs/ace-model.md, "Several kinds of collective", on
// 4x4x4, whose layout (the hierarchical all-reduce) has partitions 1-4 for
// RS local, AR vertical, AR horizontal, AG local (here 0-3): the first
// phase takes partition 1 (0); each later one the first later partition
// whose layout phase is on its dimension, else the next.
//
//	AR over every dimension: RS l, AR v, AR h, AG l → 0, 1, 2, 3 (itself)
//	AR over v,h: RS v → 0; AR h → 2 (horizontal); AG v: no vertical
//	    partition after 2, so the next, 3
//	AR over l: RS l → 0; AG l → 3 (the first local partition after 0)
//	RS over every dimension: RS l, RS v, RS h → 0, 1, 2
//	AG over every dimension: AG h → 0; AG v → 1; AG l → 3
//	AG over l, RS over v,h: AG l → 0; RS v → 0, RS h → 2
//	all-to-all: one phase → 0
//	AR over listed groups {0,1},{2,3},…: RS g → 0; AG g: no partition
//	    of that dimension (pairs are not the local ring), so the next, 1
func TestPhasesMapOntoTheLayoutsPartitions(t *testing.T) {
	s, err := torus.Parse("4x4x4")
	require.NoError(t, err)
	m := s.Machine()
	layout := kindPlan(t, m, collectives.OpAllReduce, nil, nil, 65536)
	var pairs [][]int
	for i := 0; i < 64; i += 2 {
		pairs = append(pairs, []int{i, i + 1})
	}
	for _, tc := range []struct {
		op     collectives.CollectiveOp
		span   []string
		groups [][]int
		want   []int
	}{
		{collectives.OpAllReduce, nil, nil, []int{0, 1, 2, 3}},
		{collectives.OpAllReduce, []string{"v", "h"}, nil, []int{0, 2, 3}},
		{collectives.OpAllReduce, []string{"l"}, nil, []int{0, 3}},
		{collectives.OpReduceScatter, nil, nil, []int{0, 1, 2}},
		{collectives.OpAllGather, nil, nil, []int{0, 1, 3}},
		{collectives.OpAllGather, []string{"l"}, nil, []int{0}},
		{collectives.OpReduceScatter, []string{"v", "h"}, nil, []int{0, 2}},
		{collectives.OpAllToAll, nil, nil, []int{0}},
		{collectives.OpAllReduce, nil, pairs, []int{0, 1}},
	} {
		p := kindPlan(t, m, tc.op, tc.span, tc.groups, 65536)
		got, err := phaseParts(layout, p)
		require.NoError(t, err, "%s %v", tc.op, tc.span)
		require.Equal(t, tc.want, got, "%s %v groups=%v", tc.op, tc.span, tc.groups != nil)
	}
}

// What ACE cannot run is refused, naming the collective and the fix: a
// collective of more phases than the layout has partitions for (a ring
// all-reduce lays out one phase; the hierarchical all-reduce on 4x2x1 has
// three), one in another message size, one on another machine.
func TestEngineRefusesOtherCollectives(t *testing.T) {
	k, net, ring := setup(t, "4x2x1", collectives.OpAllReduce, "ring", 64<<10, 65536)
	_, _, hier := setup(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 64<<10, 65536)
	_, _, other := setup(t, "4x1x1", collectives.OpAllReduce, "hierarchical", 64<<10, 65536)
	e, err := NewEngine(k, net, ring, Default(), nil)
	require.NoError(t, err)
	err = e.Issue(0, hier, nil)
	require.ErrorContains(t, err, "an allreduce (hierarchical: reduce-scatter on local (ring)")
	require.ErrorContains(t, err, "lay ACE out for a collective of at least 3 phases")
	require.ErrorContains(t, e.Issue(0, other, nil), "planned for 4x1x1")
	small, err := collectives.NewPlan(collectives.Config{Machine: ring.Machine, Op: collectives.OpAllReduce, MessageBytes: 4096}, "ring", 64<<10, 65536)
	require.NoError(t, err)
	require.ErrorContains(t, e.Issue(0, small, nil), "issue it with the layout's message size")
	_, err = NewEngineFor(k, net, ring, []*collectives.Plan{hier}, Default(), nil)
	require.ErrorContains(t, err, "lay ACE out for a collective of at least 3 phases")
}

// Footnote 9 of the ACE paper (Section IV-I): with several kinds of
// collective, each partition is sized by the average of the chunk sizes
// of the kinds whose phases use it. On 4x4x4, 64 KB chunks, the
// all-reduce (RS l, AR v, AR h, AG l on partitions 1-4) beside the
// reduce-scatter over every dimension (RS l, RS v, RS h on partitions 1,
// 2, 3; its result 1 KB):
//
// --partition paper (bandwidth × average initial chunk; links 376, 47,
// 47, 376 GB/s of payload): initial chunks AR 64, 16, 16, 16 KB and RS 64,
// 16, 4 KB, so the averages are 64, 16, (16 + 4)/2 = 10, 16 KB and the
// weights 376·64 : 47·16 : 47·10 : 376·16 : 376·16 (terminal = last)
// = 24064 : 752 : 470 : 6016 : 6016 of 37318; of 4 MiB (4194304 B),
// rounded down: 2704639, 84519, 52824, 676159, 676159 (today's, the
// all-reduce alone: 2684354, 83886, 83886, 671088, 671088).
//
// Little's law (the default: residence of the layout's phase × average
// view; TestPartitionsFollowLittlesLaw's T1 = 1070.1906, T2 = T3 =
// 3651.0026, T4 = 432.7506, R/D = 637.44 cycles): views AR 64, 16, 16,
// 64 KB, RS 64, 16, 4 KB, so the averages are 64, 16, 10, 64 KB and the
// terminal's average result (64 + 1)/2 = 32.5 KB; weights T1·64K :
// T2·16K : T2·10K : T4·64K : 637.44·33280, of 4 MiB rounded down (Python's
// fractions, not this code): 1356161, 1156650, 722906, 548387, 410197.
//
// Told only of the all-reduce, or of it and the all-to-all (64 KB views
// and results: the averages do not move), the layout is today's.
func TestPartitionsAverageTheKinds(t *testing.T) {
	s, err := torus.Parse("4x4x4")
	require.NoError(t, err)
	m := s.Machine()
	ar := kindPlan(t, m, collectives.OpAllReduce, nil, nil, 65536)
	rs := kindPlan(t, m, collectives.OpReduceScatter, nil, nil, 65536)
	a2a := kindPlan(t, m, collectives.OpAllToAll, nil, nil, 65536)
	paper := Default()
	paper.Partition = PartitionPaper
	for _, tc := range []struct {
		name  string
		cfg   Config
		kinds []*collectives.Plan
		want  []int64
	}{
		{"paper, AR and RS", paper, []*collectives.Plan{ar, rs}, []int64{2704639, 84519, 52824, 676159, 676159}},
		{"paper, AR", paper, []*collectives.Plan{ar}, []int64{2684354, 83886, 83886, 671088, 671088}},
		{"paper, AR and all-to-all", paper, []*collectives.Plan{a2a, ar}, []int64{2684354, 83886, 83886, 671088, 671088}},
		{"little, AR and RS", Default(), []*collectives.Plan{ar, rs}, []int64{1356161, 1156650, 722906, 548387, 410197}},
		{"little, none", Default(), nil, []int64{1131830, 965321, 965321, 457675, 674154}},
		{"little, AR and all-to-all", Default(), []*collectives.Plan{ar, a2a}, []int64{1131830, 965321, 965321, 457675, 674154}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := rtl.NewKernel()
			net, err := torus.Build(k, s, torus.DefaultLinks(), true)
			require.NoError(t, err)
			e, err := NewEngineFor(k, net, ar, tc.kinds, tc.cfg, nil)
			require.NoError(t, err)
			require.Equal(t, tc.want, e.Stats(1).Partitions)
		})
	}
}

// issued is a collective for a run with data: its plan and issue cycle.
type issued struct {
	plan *collectives.Plan
	at   rtl.Cycle
}

// buildOn builds the machine topo names, its network full (not folded),
// with the default link settings.
func buildOn(t *testing.T, topo string) (*rtl.Kernel, *fabric.Network, *machine.Machine) {
	t.Helper()
	spec, err := topology.Parse(topo)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
	require.NoError(t, err)
	return k, net, spec.Machine
}

// runKinds runs the collectives on one engine laid out for the
// hierarchical all-reduce of topo (told of kinds, when given), carrying
// values, and checks that every one finishes with its own exact result
// (verify.DataChecks) and that nothing is left in the SRAM or the FSMs.
func runKinds(t *testing.T, topo string, colls []issued, kinds []*collectives.Plan) {
	t.Helper()
	k, net, m := buildOn(t, topo)
	plans := make([]*collectives.Plan, len(colls))
	for i, c := range colls {
		plans[i] = c.plan
	}
	ds, err := verify.NewDataChecks(plans...)
	require.NoError(t, err)
	layout := kindPlan(t, m, collectives.OpAllReduce, nil, nil, 65536)
	e, err := NewEngineFor(k, net, layout, kinds, Default(), &Hooks{Init: ds.Hook, Observer: ds})
	require.NoError(t, err)
	ends := make([]rtl.Cycle, len(colls))
	for i, c := range colls {
		require.NoError(t, e.Issue(c.at, c.plan, func(now rtl.Cycle) { ends[i] = now }))
	}
	k.Run()
	require.NoError(t, e.Stuck())
	require.Zero(t, e.Unfinished())
	require.NoError(t, ds.Result())
	for i, end := range ends {
		require.Greater(t, end, colls[i].at, "collective %d ends", i)
	}
	for _, nd := range e.r.nodes {
		require.Equal(t, make([]int64, len(nd.used)), nd.used, "NPU %d partitions", nd.id)
		require.Equal(t, make([]int, len(nd.waiting)), nd.waiting, "NPU %d waiting", nd.id)
		for f := range nd.fsmQ {
			require.Empty(t, nd.fsmQ[f], "NPU %d FSM %d", nd.id, f)
		}
	}
}

// ACE laid out for the hierarchical all-reduce runs reduce-scatters,
// all-gathers, all-reduces and all-to-alls over every NPU, over the local
// dimension alone and over v,h, and over listed groups (the local ring
// cut into pairs), each ending with its exact result: alone, and told of
// it beforehand (its partitions then sized for it too).
func TestACERunsEveryKindOverGroups(t *testing.T) {
	for _, topo := range []string{"4x2x2", "4x4x4"} {
		s, err := torus.Parse(topo)
		require.NoError(t, err)
		m := s.Machine()
		var pairs [][]int
		for i := 0; i < m.N(); i += 2 {
			pairs = append(pairs, []int{i, i + 1})
		}
		type kind struct {
			op     collectives.CollectiveOp
			span   []string
			groups [][]int
		}
		kinds := []kind{{op: collectives.OpAllToAll}, {collectives.OpAllReduce, nil, pairs}}
		for _, op := range []collectives.CollectiveOp{collectives.OpReduceScatter, collectives.OpAllGather, collectives.OpAllReduce} {
			for _, span := range [][]string{nil, {"l"}, {"v", "h"}} {
				kinds = append(kinds, kind{op, span, nil})
			}
		}
		for _, kd := range kinds {
			p := kindPlan(t, m, kd.op, kd.span, kd.groups, 200_000)
			one := kindPlan(t, m, kd.op, kd.span, kd.groups, 65536)
			for _, told := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/%v/groups=%v/told=%v", topo, kd.op, kd.span, kd.groups != nil, told), func(t *testing.T) {
					var list []*collectives.Plan
					if told {
						list = []*collectives.Plan{one}
					}
					runKinds(t, topo, []issued{{p, 0}}, list)
				})
			}
		}
	}
}

// Several kinds in flight at once on one engine, their chunks in the SRAM
// together: an all-gather over the local dimension and an all-reduce over
// v,h issued together (both phase 1 on partition 1, then the all-gather
// to the terminal partition and the all-reduce through partitions 3 and
// 4), on 4x2x2 and 4x4x4; and on 4x2x2 every kind at once, staggered.
// Every collective ends with its own result and the chunk flow does not
// deadlock, under LIFO (the default) loading order.
func TestSeveralKindsInFlight(t *testing.T) {
	for _, topo := range []string{"4x2x2", "4x4x4"} {
		t.Run(topo, func(t *testing.T) {
			s, err := torus.Parse(topo)
			require.NoError(t, err)
			m := s.Machine()
			ag := kindPlan(t, m, collectives.OpAllGather, []string{"l"}, nil, 300_000)
			vh := kindPlan(t, m, collectives.OpAllReduce, []string{"v", "h"}, nil, 300_000)
			runKinds(t, topo, []issued{{ag, 0}, {vh, 0}}, nil)
			runKinds(t, topo, []issued{{vh, 0}, {ag, 0}}, []*collectives.Plan{
				kindPlan(t, m, collectives.OpAllGather, []string{"l"}, nil, 65536),
				kindPlan(t, m, collectives.OpAllReduce, []string{"v", "h"}, nil, 65536)})
		})
	}
	s, err := torus.Parse("4x2x2")
	require.NoError(t, err)
	m := s.Machine()
	var colls []issued
	for i, p := range []*collectives.Plan{
		kindPlan(t, m, collectives.OpAllReduce, nil, nil, 400_000),
		kindPlan(t, m, collectives.OpReduceScatter, []string{"v", "h"}, nil, 150_000),
		kindPlan(t, m, collectives.OpAllToAll, nil, nil, 100_000),
		kindPlan(t, m, collectives.OpAllGather, nil, nil, 150_000),
		kindPlan(t, m, collectives.OpReduceScatter, []string{"l"}, nil, 150_000),
		kindPlan(t, m, collectives.OpAllReduce, []string{"l", "h"}, nil, 150_000),
	} {
		colls = append(colls, issued{p, rtl.Cycle(700 * i)})
	}
	runKinds(t, "4x2x2", colls, nil)
}

// One NPU on a folded network measures what every NPU of the full one
// does with several kinds in flight: group collectives over dimensions
// fold on a torus (each NPU runs NPU 0's programs translated).
func TestSeveralKindsFoldedEqualsFull(t *testing.T) {
	run := func(folded bool) string {
		s, err := torus.Parse("4x2x2")
		require.NoError(t, err)
		m := s.Machine()
		k := rtl.NewKernel()
		net, err := torus.Build(k, s, torus.DefaultLinks(), folded)
		require.NoError(t, err)
		layout := kindPlan(t, m, collectives.OpAllReduce, nil, nil, 65536)
		e, err := NewEngine(k, net, layout, Default(), nil)
		require.NoError(t, err)
		plans := []*collectives.Plan{
			kindPlan(t, m, collectives.OpAllReduce, nil, nil, 1<<20),
			kindPlan(t, m, collectives.OpAllGather, []string{"l"}, nil, 256<<10),
			kindPlan(t, m, collectives.OpAllReduce, []string{"v", "h"}, nil, 256<<10),
			kindPlan(t, m, collectives.OpReduceScatter, nil, nil, 256<<10),
		}
		ends := make([]rtl.Cycle, len(plans))
		for i, p := range plans {
			require.NoError(t, e.Issue(rtl.Cycle(500*i), p, func(now rtl.Cycle) { ends[i] = now }))
		}
		k.Run()
		require.NoError(t, e.Stuck())
		st := e.Stats(k.Now())
		return fmt.Sprintf("ends %v sent %d read %d write %d util %.9f sram %.9f", ends, rtl.Mean(st.BytesSent), rtl.Mean(st.MemRead), rtl.Mean(st.MemWrite), st.Utilization, st.SRAMRead)
	}
	require.Equal(t, run(false), run(true))
}

// Off the torus, ACE laid out for the machine's all-reduce runs the other
// kinds beside it, several in flight, each ending with its exact result:
// on NVIDIA's DGX-1 (one dimension, its ring of 8: the layout RS ring, AG
// ring) with listed groups of 4 routed; on a two-tier switch fabric (RS
// leaf, AR spine, AG leaf) over the leaf and the spine; on a topology file
// (a ring of 4 with a chord).
func TestACERunsKindsOnOtherMachines(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "chord4.yaml")
	require.NoError(t, os.WriteFile(file, []byte("nodes: 4\nlinks:\n"+
		"  - {from: 0, to: 1, bandwidth: 200GB/s, latency: 90}\n"+
		"  - {from: 1, to: 2, bandwidth: 200GB/s, latency: 90}\n"+
		"  - {from: 2, to: 3, bandwidth: 200GB/s, latency: 90}\n"+
		"  - {from: 3, to: 0, bandwidth: 200GB/s, latency: 90}\n"+
		"  - {from: 0, to: 2, bandwidth: 25GB/s, latency: 500}\n"+
		"  - {from: 2, to: 0, bandwidth: 25GB/s, latency: 500}\n"), 0o600))
	for _, tc := range []struct {
		topo   string
		span   []string
		groups [][]int
	}{
		{"dgx1", nil, [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}},
		{"switch:4x4", []string{"leaf"}, nil},
		{"switch:4x4", []string{"spine"}, nil},
		{file, nil, [][]int{{0, 1}, {2, 3}}},
	} {
		t.Run(fmt.Sprintf("%s/%v/groups=%v", filepath.Base(tc.topo), tc.span, tc.groups != nil), func(t *testing.T) {
			spec, err := topology.Parse(tc.topo)
			require.NoError(t, err)
			m := spec.Machine
			colls := []issued{{kindPlan(t, m, collectives.OpAllReduce, nil, nil, 200_000), 0}}
			for i, op := range []collectives.CollectiveOp{collectives.OpReduceScatter, collectives.OpAllGather, collectives.OpAllReduce} {
				colls = append(colls, issued{kindPlan(t, m, op, tc.span, tc.groups, 100_000), rtl.Cycle(300 * (i + 1))},
					issued{kindPlan(t, m, op, nil, nil, 100_000), rtl.Cycle(300*(i+1) + 100)})
			}
			colls = append(colls, issued{kindPlan(t, m, collectives.OpAllToAll, nil, nil, 64_000), 500})
			runKinds(t, tc.topo, colls, nil)
		})
	}
}

// The FSM split follows footnote 9 too (docs/ace-model.md, "FSMs with
// several kinds"): on 4x4x4 the all-reduce's phases alone take, in
// cycles, local RS or AG 3 × (90 + 8192·249/37600) = 432.7506 and the
// vertical or horizontal AR of a 16 KB view 6 × (500 + 2048·249/4700) =
// 3651.0026; the all-reduce over v,h (RS v, AR h, AG v on partitions 1,
// 3, 4) adds the vertical RS and AG of a 64 KB chunk, 3 × (500 +
// 8192·249/4700) = 2802.0051. Partitions 1 and 4 average (432.7506 +
// 2802.0051)/2 = 1617.3779, 2 and 3 stay 3651.0026; of 16 FSMs one each
// and 12 by weight, 12 × 1617.3779/10536.7610 = 1.842 and 12 ×
// 3651.0026/10536.7610 = 4.158: 1, 4, 4, 1 whole, the two left to the
// largest remainders (0.842: partitions 1 and 4), so [3 5 5 3]. The
// all-reduce alone: 12 × 432.7506/8167.5064 = 0.636 and 5.364, so 0, 5,
// 5, 0 whole and two to partitions 1 and 4: [2 6 6 2]; an all-to-all
// named beside it takes every FSM in turn and moves nothing. Its room
// does not move either: the all-reduce over v,h's views (64, 16, 64 KB on
// partitions 1, 3, 4) and result (64 KB) are the all-reduce's there.
func TestFSMsAverageTheKinds(t *testing.T) {
	s, err := torus.Parse("4x4x4")
	require.NoError(t, err)
	m := s.Machine()
	ar := kindPlan(t, m, collectives.OpAllReduce, nil, nil, 65536)
	vh := kindPlan(t, m, collectives.OpAllReduce, []string{"v", "h"}, nil, 65536)
	a2a := kindPlan(t, m, collectives.OpAllToAll, nil, nil, 65536)
	for _, tc := range []struct {
		name  string
		kinds []*collectives.Plan
		want  []int
	}{
		{"none", nil, []int{2, 6, 6, 2}},
		{"AR", []*collectives.Plan{ar}, []int{2, 6, 6, 2}},
		{"AR and all-to-all", []*collectives.Plan{ar, a2a}, []int{2, 6, 6, 2}},
		{"AR and AR over v,h", []*collectives.Plan{ar, vh}, []int{3, 5, 5, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := rtl.NewKernel()
			net, err := torus.Build(k, s, torus.DefaultLinks(), true)
			require.NoError(t, err)
			e, err := NewEngineFor(k, net, ar, tc.kinds, Default(), nil)
			require.NoError(t, err)
			st := e.Stats(1)
			require.Equal(t, tc.want, st.FSMsPerPhase)
			require.Equal(t, []int64{1131830, 965321, 965321, 457675, 674154}, st.Partitions)
		})
	}
}

// A collective whose chunk would not fit a partition it uses is refused
// when it is issued (it would wait for room forever), naming the
// partition and the fix; named to the layout, it fits. On 4x2x2 with a
// 300 KiB SRAM under the paper's heuristic, the all-reduce's partitions
// weigh 376·64 : 47·16 : 47·16 : 376·16 : 376·16 (of 37600), so partition
// 2's share, 307200 × 752/37600 = 6144 B, falls short of its need, one
// 16 KB view, and it gets exactly 16384 B. The all-gather over v,h (AG h,
// then AG v on partition 2) needs there the vertical all-gather's view
// of a 64 KB chunk, 65536 B: refused. Named, every partition holds at
// least its largest view (64, 64, 16, 64 KB and a 64 KB result: 278528 B
// of the 307200), and it runs with its exact result.
func TestACERefusesAChunkThatCannotFit(t *testing.T) {
	spec, err := topology.Parse("4x2x2")
	require.NoError(t, err)
	m := spec.Machine
	ar := kindPlan(t, m, collectives.OpAllReduce, nil, nil, 65536)
	ag := kindPlan(t, m, collectives.OpAllGather, []string{"v", "h"}, nil, 200_000)
	one := kindPlan(t, m, collectives.OpAllGather, []string{"v", "h"}, nil, 65536)
	cfg := Default()
	cfg.SRAMBytes, cfg.Partition = 300<<10, PartitionPaper
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("named=%v", named), func(t *testing.T) {
			k := rtl.NewKernel()
			net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
			require.NoError(t, err)
			var kinds []*collectives.Plan
			if named {
				kinds = []*collectives.Plan{ar, one}
			}
			ds, err := verify.NewDataChecks(ag)
			require.NoError(t, err)
			e, err := NewEngineFor(k, net, ar, kinds, cfg, &Hooks{Init: ds.Hook, Observer: ds})
			require.NoError(t, err)
			err = e.Issue(0, ag, nil)
			if !named {
				require.Equal(t, int64(16384), e.Stats(1).Partitions[1])
				require.ErrorContains(t, err, "its phase 2 needs 65536 B of room for a chunk in partition 2, which holds 16384 B on NPU 0; name it among the collectives ACE is laid out for (afi.Config.Kinds), or give a larger --sram or a smaller --chunk")
				return
			}
			require.NoError(t, err)
			k.Run()
			require.NoError(t, e.Stuck())
			require.NoError(t, ds.Result())
		})
	}
}

package verify

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// The C-Cube paper's trees on the DGX-1 ("Logical/Physical Topology-Aware
// Collective Communication in Deep Learning Training", Section IV-A, Fig. 10)
// hold the facts its text gives: the first is NCCL's binary tree on GPU ids;
// GPU 2's edge to GPU 4 has no NVLink and detours through GPU 0; GPUs 0 and 1
// are the only detour GPUs; the interior GPUs of one tree are the leaves of
// the other; the pairs 2–3 and 6–7 carry both trees, in opposite directions.
func TestCCubeTreesOnDGX1(t *testing.T) {
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	m := spec.Machine
	require.Len(t, m.Trees, 2)
	require.Equal(t, collectives.NCCLBinaryTree(8).Parent, m.Trees[0])
	linked := map[[2]int]bool{}
	for _, p := range topology.DGX1Pairs {
		linked[[2]int{p.A, p.B}], linked[[2]int{p.B, p.A}] = true, true
	}
	detours := map[[2]int]int{} // edge (child, parent) → the GPU it passes
	interior := [2]map[int]bool{{}, {}}
	edges := [2]map[[2]int]bool{{}, {}} // (child, parent)
	for ti, parent := range m.Trees {
		for c, par := range parent {
			if par < 0 {
				continue
			}
			interior[ti][par] = true
			edges[ti][[2]int{c, par}] = true
			if !linked[[2]int{c, par}] {
				via, _ := m.Topology.NextPort(c, par)
				nb, ok, _ := m.Ports.Neighbor(c, via)
				require.True(t, ok)
				detours[[2]int{c, par}] = nb
			}
		}
	}
	require.Equal(t, map[[2]int]int{{2, 4}: 0, {3, 5}: 1}, detours, "GPU 2 → 4 through GPU 0; the second tree's 3 → 5 through GPU 1")
	for g := range 8 {
		require.NotEqual(t, interior[0][g], interior[1][g], "GPU %d is interior in exactly one tree (or the root's parent side)", g)
	}
	for _, pair := range [][2]int{{2, 3}, {6, 7}} {
		a, b := pair[0], pair[1]
		one := edges[0][[2]int{a, b}] || edges[0][[2]int{b, a}]
		two := edges[1][[2]int{a, b}] || edges[1][[2]int{b, a}]
		require.True(t, one && two, "pair %d–%d in both trees", a, b)
		require.NotEqual(t, edges[0][[2]int{a, b}], edges[1][[2]int{a, b}], "pair %d–%d: opposite directions", a, b)
	}
}

// Where the double tree runs on dgx1, no directed NVLink carries two tree
// edges: every tree edge, each way, has links of its own (a direct edge
// one lane of its pair, a detour both hops through GPU 0 or 1). Worked by
// hand: 2 trees × 7 edges × 2 ways = 28 directed edges, 26 of them direct
// hops and 2 × 2 detour directions of two hops each, 24 + 8 = 32 of the 48
// directed NVLinks, each used once; idle are both ways of 0–1, 2–6, 3–7
// and 4–5 (8) and one lane each way of 0–3, 1–2, 4–7 and 5–6 (8): 16 of
// the DGX-1's 24 NVLinks carry the trees, as the paper's Fig. 10 has it.
func TestDoubleTreeOnDGX1UsesEachNVLinkOnce(t *testing.T) {
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	m := spec.Machine
	for _, alg := range []string{"double-tree", "double-tree-overlapped"} {
		plan, err := collectives.NewPlan(collectives.Config{Machine: m, Op: collectives.OpAllReduce, MessageBytes: 8192}, alg, 1<<20, 1<<20)
		require.NoError(t, err)
		type link struct{ npu, port int }
		users := map[link]map[[2]int]bool{} // directed link → the tree edges (sender, receiver) on it
		use := func(l link, e [2]int) {
			if users[l] == nil {
				users[l] = map[[2]int]bool{}
			}
			users[l][e] = true
		}
		for n := range 8 {
			prog := plan.Program(n, 0, 1<<20)
			for _, op := range prog.Ops {
				if op.Kind != collectives.Send {
					continue
				}
				tree := int(op.Data.Off / 8192 % 2) // 128 pieces of 8 KiB, the trees every other one
				require.Equal(t, int64(8192), op.Data.Len)
				e := [2]int{n, int(op.Peer)}
				if op.Port != collectives.RouteXYZ {
					use(link{n, int(op.Port)}, [2]int{tree*100 + e[0], e[1]})
					continue
				}
				for cur := n; cur != e[1]; {
					port, _ := m.Topology.NextPort(cur, e[1])
					use(link{cur, port}, [2]int{tree*100 + e[0], e[1]})
					cur, _, _ = m.Ports.Neighbor(cur, port)
				}
			}
		}
		require.Len(t, users, 32, "%s: directed NVLinks used", alg)
		for l, es := range users {
			require.Len(t, es, 1, "%s: NPU %d port %d carries %v", alg, l.npu, l.port, es)
		}
		idle := map[[2]int]int{} // pair → directed links idle
		for _, p := range topology.DGX1Pairs {
			for _, e := range [][2]int{{p.A, p.B}, {p.B, p.A}} {
				used := 0
				for port := range 16 {
					if nb, ok, _ := m.Ports.Neighbor(e[0], port); ok && nb == e[1] && users[link{e[0], port}] != nil {
						used++
					}
				}
				if p.Links-used > 0 {
					idle[[2]int{p.A, p.B}] += p.Links - used
				}
			}
		}
		var pairs [][2]int
		for p := range idle {
			pairs = append(pairs, p)
		}
		sort.Slice(pairs, func(i, j int) bool { return pairs[i][0]*8+pairs[i][1] < pairs[j][0]*8+pairs[j][1] })
		require.Equal(t, [][2]int{{0, 1}, {0, 3}, {1, 2}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}}, pairs, alg)
		for p, n := range idle {
			require.Equal(t, 2, n, "%s: pair %v: one NVLink idle, both ways", alg, p)
		}
	}
}

// A double tree on a machine that declares one tree is refused, naming
// the algorithm, the machine and the fix.
func TestDoubleTreeNeedsTwoTrees(t *testing.T) {
	f, err := topology.Load("one.yaml", []byte(`nodes: 4
links:
  - {from: 0, to: 1, bandwidth: 100, latency: 10}
  - {from: 1, to: 0, bandwidth: 100, latency: 10}
  - {from: 1, to: 2, bandwidth: 100, latency: 10}
  - {from: 2, to: 1, bandwidth: 100, latency: 10}
  - {from: 2, to: 3, bandwidth: 100, latency: 10}
  - {from: 3, to: 2, bandwidth: 100, latency: 10}
trees:
  - [1, 1, 1, 2]
`))
	require.NoError(t, err)
	m, err := f.Machine()
	require.NoError(t, err)
	for _, alg := range []string{"double-tree", "double-tree-overlapped"} {
		_, err = collectives.NewPlan(collectives.Config{Machine: m, Op: collectives.OpAllReduce, MessageBytes: 8192}, alg, 1<<16, 1<<16)
		require.ErrorContains(t, err, "algorithm "+alg+" embeds 2 trees; machine one.yaml declares 1 (trees:), give it 2 or run tree or tree-overlapped")
	}
	plan, err := collectives.NewPlan(collectives.Config{Machine: m, Op: collectives.OpAllReduce, MessageBytes: 8192}, "tree", 1<<16, 1<<16)
	require.NoError(t, err)
	require.Equal(t, int32(1), plan.Program(0, 0, 1<<16).Ops[len(plan.Program(0, 0, 1<<16).Ops)-1].Peer, "NPU 0's last op is with its parent, NPU 1 (the file's root)")
}

// A detour (the C-Cube paper, Section IV-A: a tree edge between GPUs
// without an NVLink goes through a third GPU, which forwards it) costs
// the SM-driven baseline's forwarding GPU memory and SM time, and ACE's
// only its SRAM. Three NPUs, tree 0 → {1, 2}, on a line 0–1–2 (the edge
// 0–2 detours through NPU 1) and on a triangle (every edge direct). By
// hand: the detour carries N = 64 KiB up (2 → 0) and N down (0 → 2)
// through NPU 1, so on the baseline NPU 1 writes each forwarded packet to
// its memory and reads it back to send it: 2N more read and 2N more
// written than on the triangle, with its SMs busy the longer; on ACE, NPU
// 1's memory traffic is the same on both (forwarding stays in its SRAM).
func TestDetourCostsTheBaselineMemoryAndACEOnlySRAM(t *testing.T) {
	const n = 64 << 10
	link := func(a, b int) string {
		return fmt.Sprintf("  - {from: %d, to: %d, bandwidth: 25, latency: 500}\n  - {from: %d, to: %d, bandwidth: 25, latency: 500}\n", a, b, b, a)
	}
	machineOf := func(name, links string) *topology.Spec {
		path := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(path, []byte("nodes: 3\nlinks:\n"+links+"trees:\n  - [0, 0, 0]\n"), 0o644))
		spec, err := topology.Parse(path)
		require.NoError(t, err)
		return spec
	}
	line := machineOf("line.yaml", link(0, 1)+link(1, 2))
	triangle := machineOf("triangle.yaml", link(0, 1)+link(1, 2)+link(0, 2))
	type traffic struct{ read, write int64 }
	run := func(spec *topology.Spec, endpoint string) (traffic, float64) {
		t.Helper()
		plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce, MessageBytes: 8192}, "tree", n, n)
		require.NoError(t, err)
		k := rtl.NewKernel()
		net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
		require.NoError(t, err)
		if endpoint == "ace" {
			res, err := ace.Run(k, net, plan, ace.Default(), nil)
			require.NoError(t, err)
			return traffic{res.MemRead[1], res.MemWrite[1]}, 0
		}
		res, err := npu.RunBaseline(k, net, plan, npu.DefaultBaseline(6, big.NewRat(450, 1)))
		require.NoError(t, err)
		return traffic{res.MemRead[1], res.MemWrite[1]}, res.CommSMBusy * float64(res.Cycles)
	}
	detour, smDetour := run(line, "baseline")
	direct, smDirect := run(triangle, "baseline")
	require.Equal(t, traffic{direct.read + 2*n, direct.write + 2*n}, detour, "baseline: NPU 1 stores and reloads what it forwards")
	require.Greater(t, smDetour, smDirect, "baseline: the SMs' busy cycles (mean over NPUs) grow with the forwarding")
	detour, _ = run(line, "ace")
	direct, _ = run(triangle, "ace")
	require.Equal(t, direct, detour, "ACE: NPU 1's memory traffic does not see the detour")
}

// Recipe C-2 of the C-Cube paper's analysis (Section III-B, Eqs. (5) and
// (7)): on large messages the overlapped tree takes half the conventional
// tree's time, the broadcast running down while the reduction runs up,
// so their ratio grows with the message towards 2. Timed on dgx1, the
// ideal endpoint, the collective one chunk (the paper's pipelined tree:
// its chunks are acemu's 8 KiB messages, K = size / 8 KiB). By the
// store-and-forward step model, depth D and K pieces, the ratio is
// 2(D+K-1)/(2D+K-1): 1.54 at K = 8 (64 KiB), 1.95 at K = 128 (1 MiB),
// 1.99 at K = 512 (4 MiB) for D = 3; each step also pays a link latency
// (500 cycles) beside a piece's 434 (8 KiB at 25 GB/s × 0.94, 1245 MHz),
// which weighs on few pieces, so small messages gain less.
func TestOverlappedTreeHalvesLargeAllReduces(t *testing.T) {
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	for _, pair := range [][2]string{{"tree", "tree-overlapped"}, {"double-tree", "double-tree-overlapped"}} {
		last := 1.0
		for _, size := range []int64{64 << 10, 1 << 20, 4 << 20} {
			var cycles [2]float64
			for i, alg := range pair {
				plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce, MessageBytes: 8192}, alg, size, size)
				require.NoError(t, err)
				k := rtl.NewKernel()
				net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
				require.NoError(t, err)
				res, err := npu.RunIdeal(k, net, plan, npu.DefaultIdeal())
				require.NoError(t, err)
				cycles[i] = float64(res.Cycles)
			}
			ratio := cycles[0] / cycles[1]
			require.Greater(t, ratio, last, "%s/%s at %d B: the ratio grows with the message", pair[0], pair[1], size)
			require.Less(t, ratio, 2.0, "%s/%s at %d B", pair[0], pair[1], size)
			last = ratio
		}
		require.Greater(t, last, 1.9, "%s/%s at 4 MiB: near 2", pair[0], pair[1])
	}
}

// Recipe C-3 of the C-Cube paper's analysis, timed (Section III-B: the
// gradient turnaround, when the first piece is back at every NPU, read as
// the first progress report of a one-chunk all-reduce on dgx1, the ideal
// endpoint). The overlapped tree turns the first piece around after its
// 2D hops whatever the message: the same cycle at 256 KiB, 1 MiB and
// 4 MiB. The conventional tree waits for every piece to be reduced first,
// so its turnaround grows with the pieces K a tree, by one piece's time
// on an NVLink per piece: 8192 B at 25 GB/s × 0.94 is 434 cycles
// (18.876 B a cycle at 1245 MHz), so from 1 MiB (K = 64) to 4 MiB
// (K = 256) it grows by 192 × 434 = 83 328 cycles; and it ends when the
// overlapped tree's whole all-reduce does. Their ratio, the turnaround
// gain, grows as K does (the paper's (2D+K−1)/(2D) in steps).
func TestTurnaroundTimed(t *testing.T) {
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	turn := map[string]map[int64]rtl.Cycle{}
	total := map[string]map[int64]rtl.Cycle{}
	for _, alg := range []string{"double-tree", "double-tree-overlapped"} {
		turn[alg], total[alg] = map[int64]rtl.Cycle{}, map[int64]rtl.Cycle{}
		for _, size := range []int64{256 << 10, 1 << 20, 4 << 20} {
			plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce, MessageBytes: 8192}, alg, size, size)
			require.NoError(t, err)
			k := rtl.NewKernel()
			net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
			require.NoError(t, err)
			e, err := npu.NewIdealEngine(k, net, spec.Machine, npu.DefaultIdeal())
			require.NoError(t, err)
			first := rtl.Cycle(-1)
			require.NoError(t, e.IssueWith(0, plan, afi.IssueOptions{Progress: func(now rtl.Cycle, _ int64) {
				if first < 0 {
					first = now
				}
			}}))
			k.Run()
			require.NoError(t, e.Stuck())
			turn[alg][size], total[alg][size] = first, k.Now()
		}
	}
	over, conv := turn["double-tree-overlapped"], turn["double-tree"]
	require.Equal(t, over[256<<10], over[1<<20])
	require.Equal(t, over[1<<20], over[4<<20])
	require.Equal(t, rtl.Cycle(192*434), conv[4<<20]-conv[1<<20], "one piece's time per piece")
	for size, c := range conv {
		require.Equal(t, total["double-tree-overlapped"][size], c, "at %d B", size)
	}
	require.Greater(t, float64(conv[4<<20])/float64(over[4<<20]), float64(conv[1<<20])/float64(over[1<<20]))
}

package collectives

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func treePlan(t *testing.T, topo, alg string, payload, chunk, msg int64) *Plan {
	t.Helper()
	s, err := torus.Parse(topo)
	require.NoError(t, err)
	p, err := NewPlan(Config{Machine: s.Machine(), Op: OpAllReduce, MessageBytes: msg}, alg, payload, chunk)
	require.NoError(t, err)
	return p
}

// The trees of the C-Cube paper (Section III-A, Fig. 5(a)): P=4 is N4→N2→{N1,N3} relabelled
// 0→2→{1,3} (D=2); P=8 is 0→4→{2,6}, 2→{1,3}, 6→{5,7} (D=3).
func TestNCCLBinaryTreeShapes(t *testing.T) {
	tests := []struct {
		p        int
		parent   []int
		children [][]int
		depth    int
	}{
		{1, []int{-1}, [][]int{nil}, 0},
		{2, []int{-1, 0}, [][]int{{1}, nil}, 1},
		{3, []int{-1, 2, 0}, [][]int{{2}, nil, {1}}, 2},
		{4, []int{-1, 2, 0, 2}, [][]int{{2}, nil, {1, 3}, nil}, 2},
		{8, []int{-1, 2, 4, 2, 0, 6, 4, 6}, [][]int{{4}, nil, {1, 3}, nil, {2, 6}, nil, {5, 7}, nil}, 3},
		// P=6: 4's second child 4+2=6 is out of range, so 4+1=5.
		{6, []int{-1, 2, 4, 2, 0, 4}, [][]int{{4}, nil, {1, 3}, nil, {2, 5}, nil}, 3},
	}
	for _, tc := range tests {
		tr := NCCLBinaryTree(tc.p)
		assert.Equal(t, 0, tr.Root, "P=%d", tc.p)
		assert.Equal(t, tc.parent, tr.Parent, "P=%d", tc.p)
		assert.Equal(t, tc.children, tr.Children, "P=%d", tc.p)
		assert.Equal(t, tc.depth, tr.Depth(), "P=%d", tc.p)
	}
}

// treeCheckShape: every node is reached exactly once from the root, parent and
// children agree, at most two children each.
func treeCheckShape(t *testing.T, tr ReduceTree, p int) {
	t.Helper()
	require.Len(t, tr.Parent, p)
	require.Len(t, tr.Children, p)
	require.Equal(t, -1, tr.Parent[tr.Root])
	seen := make([]bool, p)
	order := tr.order()
	require.Len(t, order, p)
	for _, n := range order {
		require.False(t, seen[n], "node %d reached twice", n)
		seen[n] = true
		require.LessOrEqual(t, len(tr.Children[n]), 2)
		for _, c := range tr.Children[n] {
			require.Equal(t, n, tr.Parent[c])
		}
	}
}

func treeInterior(tr ReduceTree) map[int]bool {
	out := map[int]bool{}
	for n, cs := range tr.Children {
		if len(cs) > 0 {
			out[n] = true
		}
	}
	return out
}

// NCCL's tree is a binary tree of depth ceil(log2 P) whose interior nodes are
// exactly the even ids (P ≥ 2).
func TestNCCLBinaryTreeIsABalancedTree(t *testing.T) {
	for p := 1; p <= 200; p++ {
		tr := NCCLBinaryTree(p)
		treeCheckShape(t, tr, p)
		if p == 1 {
			continue
		}
		assert.Equal(t, bits.Len(uint(p-1)), tr.Depth(), "P=%d: depth ceil(log2 P)", p)
		assert.Len(t, tr.Children[0], 1, "P=%d: the root has one child", p)
		for n := 0; n < p; n++ {
			assert.Equal(t, n%2 == 0, len(tr.Children[n]) > 0, "P=%d NPU %d", p, n)
		}
	}
}

// The double tree: for even P every NPU is interior in exactly one tree; for
// odd P only NPU 0 is interior in both. An edge both trees use goes opposite
// ways, except for P=3. Both trees have the same depth.
func TestNCCLDoubleTreeFlips(t *testing.T) {
	for p := 2; p <= 200; p++ {
		t1, t2 := NCCLDoubleTree(p)
		treeCheckShape(t, t1, p)
		treeCheckShape(t, t2, p)
		assert.Equal(t, t1.Depth(), t2.Depth(), "P=%d", p)
		in1, in2 := treeInterior(t1), treeInterior(t2)
		var both []int
		for n := 0; n < p; n++ {
			if in1[n] && in2[n] {
				both = append(both, n)
			}
		}
		if p%2 == 0 {
			assert.Empty(t, both, "P=%d", p)
			assert.Equal(t, p, len(in1)+len(in2), "P=%d: every NPU interior in one tree", p)
		} else {
			assert.Equal(t, []int{0}, both, "P=%d", p)
		}
		for c, par := range t1.Parent {
			if par >= 0 && p != 3 {
				assert.NotEqual(t, par, t2.Parent[c], "P=%d: edge %d→%d used the same way in both trees", p, par, c)
			}
		}
	}
	// P=3: 0→2→1 and, shifted, 1→0→2: both send 2→0 up and 0→2 down.
	t1, t2 := NCCLDoubleTree(3)
	assert.Equal(t, []int{-1, 2, 0}, t1.Parent)
	assert.Equal(t, []int{1, -1, 0}, t2.Parent)
	t1, t2 = NCCLDoubleTree(8)
	assert.Equal(t, 0, t1.Root)
	assert.Equal(t, 7, t2.Root)
	// Mirror of 0→4→{2,6}, 2→{1,3}, 6→{5,7}: 7→3→{5,1}, 5→{6,4}, 1→{2,0}.
	assert.Equal(t, [][]int{nil, {2, 0}, nil, {5, 1}, nil, {6, 4}, nil, {3}}, t2.Children)
}

// treeCheckMatches: every send names a receive from its sender of the same size
// and range, every receive is matched once, ports are routed.
func treeCheckMatches(t *testing.T, plan *Plan, chunkLen int64) {
	t.Helper()
	n := plan.Machine.N()
	matched := map[[2]int]bool{}
	recvs := 0
	for npu := 0; npu < n; npu++ {
		prog := plan.Program(npu, 0, chunkLen)
		require.NoError(t, prog.Validate())
		for i, op := range prog.Ops {
			require.Equal(t, int8(RouteXYZ), op.Port)
			require.LessOrEqual(t, op.Data.Len, plan.MessageBytes)
			if op.Kind == Recv {
				recvs++
				continue
			}
			peer := plan.Program(int(op.Peer), 0, chunkLen)
			require.Less(t, int(op.Match), len(peer.Ops))
			rv := peer.Ops[op.Match]
			require.Equal(t, Recv, rv.Kind, "NPU %d op %d", npu, i)
			require.Equal(t, int32(npu), rv.Peer)
			require.Equal(t, op.Data, rv.Data)
			require.Equal(t, op.Step, rv.Step)
			key := [2]int{int(op.Peer), int(op.Match)}
			require.False(t, matched[key])
			matched[key] = true
			for _, d := range op.Deps {
				require.Less(t, prog.Ops[d].Step, op.Step, "a dependence is in an earlier step")
			}
		}
	}
	require.Equal(t, recvs, len(matched), "every receive is matched")
}

// Program.Steps follows C-Cube's step counts (Sections II-C and III-C): conventional
// 2(D+K-1), overlapped 2D+K-1; the double tree is conventional with K the
// pieces of half the chunk.
func TestTreeProgramSteps(t *testing.T) {
	tests := []struct {
		topo       string
		alg        string
		chunk, msg int64
		steps      int
	}{
		{"4x1x1", "tree", 400, 100, 10},           // D=2, K=4: 2(2+3) = 10
		{"4x1x1", "tree-overlapped", 400, 100, 7}, // 2·2+4-1 = 7
		{"8x1x1", "tree", 600, 100, 16},           // D=3, K=6: 2(3+5) = 16
		{"8x1x1", "tree-overlapped", 600, 100, 11},
		{"8x1x1", "tree", 601, 100, 18}, // K = ceil(601/100) = 7: 2(3+6) = 18
		{"8x1x1", "double-tree", 1200, 100, 16},
		{"8x1x1", "double-tree-overlapped", 1200, 100, 11}, // each tree K=6: 2·3+6-1 = 11
		{"4x4x4", "tree", 8192, 8192, 12},                  // D=6, K=1: 2·6 = 12
		{"4x4x4", "tree-overlapped", 8192, 8192, 12},       // K=1: no gain
		{"4x4x4", "tree-overlapped", 65536, 8192, 19},
		{"3x3x3", "tree", 1000, 100, 28}, // D=5 (ceil log2 27), K=10: 2·14 = 28
		{"1x1x1", "tree", 1000, 100, 0},
		{"1x1x1", "double-tree", 1000, 100, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d/%d", tc.alg, tc.topo, tc.chunk, tc.msg), func(t *testing.T) {
			plan := treePlan(t, tc.topo, tc.alg, tc.chunk, tc.chunk, tc.msg)
			require.Equal(t, 1, plan.NumPhases())
			for npu := 0; npu < plan.Machine.N(); npu++ {
				prog := plan.Program(npu, 0, tc.chunk)
				assert.Equal(t, tc.steps, prog.Steps)
				assert.Equal(t, []Range{{0, tc.chunk}}, prog.View)
				assert.Equal(t, []Range{{0, tc.chunk}}, prog.Out)
				if plan.Machine.N() == 1 {
					assert.Empty(t, prog.Ops)
				}
			}
			treeCheckMatches(t, plan, tc.chunk)
			assert.Nil(t, plan.Algo.Input(0, tc.chunk))
			assert.Nil(t, plan.Algo.Output(0, tc.chunk))
		})
	}
}

// The gradient turnaround (the C-Cube paper, Section III-B: the time the
// first piece is all-reduced and back at every NPU, ready for compute) in
// steps: the last step in which an NPU receives piece 0 from its parent,
// plus one. By hand, tree depth D and K pieces: conventional 2D+K-1 (the
// root waits for every piece, D+K-1 steps, then piece 0 goes D hops
// down), overlapped 2D; the ratio (2D+K-1)/(2D), 1 at K = 1.
func TestTreeTurnaround(t *testing.T) {
	for _, tc := range []struct {
		topo             string
		chunk, msg       int64
		conv, overlapped int32
	}{
		{"4x1x1", 400, 100, 7, 4},     // D=2, K=4: 2·2+4-1 = 7; 4
		{"8x1x1", 600, 100, 11, 6},    // D=3, K=6: 11; 6
		{"8x1x1", 25600, 100, 261, 6}, // D=3, K=256: 261; 6 (ratio 43.5)
		{"4x4x4", 8192, 8192, 12, 12}, // D=6, K=1: 12 both, no gain
	} {
		for alg, want := range map[string]int32{"tree": tc.conv, "tree-overlapped": tc.overlapped} {
			t.Run(fmt.Sprintf("%s/%s/%d", alg, tc.topo, tc.chunk), func(t *testing.T) {
				plan := treePlan(t, tc.topo, alg, tc.chunk, tc.chunk, tc.msg)
				first := Range{Off: 0, Len: tc.msg} // piece 0: every piece has msg bytes here
				var turn int32
				for npu := 0; npu < plan.Machine.N(); npu++ {
					for _, op := range plan.Program(npu, 0, tc.chunk).Ops {
						if op.Kind == Recv && !op.Reduce && op.Data == first {
							turn = max(turn, op.Step+1)
						}
					}
				}
				assert.Equal(t, want, turn)
			})
		}
	}
}

// Ops, pieces and matches stay right where nothing divides evenly, for every
// chunk length of a plan.
func TestTreeProgramsUneven(t *testing.T) {
	for _, alg := range []string{"tree", "tree-overlapped", "double-tree"} {
		for _, topo := range []string{"2x1x1", "3x1x1", "2x3x4", "3x3x3", "4x2x2"} {
			t.Run(alg+"/"+topo, func(t *testing.T) {
				plan := treePlan(t, topo, alg, 10_007, 3000, 100)
				treeCheckMatches(t, plan, 3000)
				treeCheckMatches(t, plan, 1007)
			})
		}
	}
}

// Bytes sent per NPU, counted by hand for a single tree carrying N: a leaf sends
// N (up), an interior node with c children (c+1)N (N up, N to each child),
// the root cN. NCCL's root has one child, so it sends N.
func TestTreeBytesPerNode(t *testing.T) {
	const n = 6007 // K = 61 uneven pieces: the bytes still add up
	plan := treePlan(t, "8x1x1", "tree", n, n, 100)
	// 0 root (1 child): N; 4, 2, 6 (2 children): 3N; 1, 3, 5, 7 leaves: N.
	want := []int64{n, n, 3 * n, n, 3 * n, n, 3 * n, n}
	for npu, w := range want {
		assert.Equal(t, w, plan.Program(npu, 0, n).SentBytes(), "NPU %d", npu)
	}
	for _, alg := range []string{"tree", "tree-overlapped"} {
		for _, topo := range []string{"3x1x1", "2x3x4", "3x3x3", "4x4x4", "1x5x1"} {
			plan := treePlan(t, topo, alg, n, n, 100)
			tr := NCCLBinaryTree(plan.Machine.N())
			for npu := 0; npu < plan.Machine.N(); npu++ {
				c := int64(len(tr.Children[npu]))
				w := (c + 1) * n
				if npu == tr.Root {
					w = c * n
				}
				assert.Equal(t, w, plan.Program(npu, 0, n).SentBytes(), "%s %s NPU %d", alg, topo, npu)
			}
		}
	}
}

// Double tree on 8 NPUs carrying N = 2 halves: tree 1 root 0 and tree 2 root
// 7 send N/2 in their own tree and N/2 as leaves of the other: N; every other
// NPU is interior (2 children, 3·N/2) in one tree and a leaf (N/2) in the
// other: 2N. In all 2·7·N, as for one tree.
func TestDoubleTreeBytesPerNode(t *testing.T) {
	const n = 1600
	plan := treePlan(t, "8x1x1", "double-tree", n, n, 100)
	var total int64
	for npu := 0; npu < 8; npu++ {
		w := int64(2 * n)
		if npu == 0 || npu == 7 {
			w = n
		}
		got := plan.Program(npu, 0, n).SentBytes()
		assert.Equal(t, w, got, "NPU %d", npu)
		total += got
	}
	assert.Equal(t, int64(2*7*n), total)
}

// A chunk of one byte gives the second tree nothing to do.
func TestDoubleTreeTinyChunk(t *testing.T) {
	plan := treePlan(t, "4x1x1", "double-tree", 1, 1, 8192)
	var sent int64
	for npu := 0; npu < 4; npu++ {
		sent += plan.Program(npu, 0, 1).SentBytes()
	}
	assert.Equal(t, int64(2*3), sent) // one tree of 4 NPUs, 1 byte each way per edge
	treeCheckMatches(t, plan, 1)
}

func TestTreeAlgorithmsRunOnlyAllReduce(t *testing.T) {
	for _, alg := range []string{"tree", "tree-overlapped", "double-tree"} {
		for _, op := range []CollectiveOp{OpReduceScatter, OpAllGather, OpAllToAll} {
			_, err := NewAlgorithm(alg, Config{Machine: torus.Shape{L: 4, V: 1, H: 1}.Machine(), Op: op, MessageBytes: 8192})
			assert.ErrorContains(t, err, "does not run", "%s %s", alg, op)
		}
	}
}

// Build hands out copies: changing one (as tests that break plans on purpose
// do) leaves the algorithm's cache alone.
func TestTreeBuildReturnsCopies(t *testing.T) {
	alg, err := NewAlgorithm("tree", Config{Machine: torus.Shape{L: 4, V: 1, H: 1}.Machine(), Op: OpAllReduce, MessageBytes: 100})
	require.NoError(t, err)
	a, err := alg.Build(2, 400)
	require.NoError(t, err)
	a[0].Ops[0].Kind = Send
	a[0].Ops[len(a[0].Ops)-1].Deps[0] = 99
	b, err := alg.Build(2, 400)
	require.NoError(t, err)
	assert.Equal(t, Recv, b[0].Ops[0].Kind)
	assert.NotEqual(t, int32(99), b[0].Ops[len(b[0].Ops)-1].Deps[0])
	_, err = alg.Build(4, 400)
	assert.Error(t, err)
}

// Every NPU's program says when each piece of its chunk is final there
// (Program.Finals, what gradient queuing consumes): the pieces in the
// order of their offsets, covering the chunk; at a tree's root once the
// piece is added from every child (its reducing receives), elsewhere once
// it is stored from the parent.
func TestTreeFinals(t *testing.T) {
	for _, alg := range []string{"tree", "tree-overlapped", "double-tree", "double-tree-overlapped"} {
		t.Run(alg, func(t *testing.T) {
			const chunk = 1200 // K = 12 pieces of 100 B (6 a tree for the double trees)
			plan := treePlan(t, "8x1x1", alg, chunk, chunk, 100)
			for npu := range 8 {
				prog := plan.Program(npu, 0, chunk)
				var off int64
				for _, f := range prog.Finals {
					require.Equal(t, off, f.Data.Off, "NPU %d: pieces in order, none missing", npu)
					require.Equal(t, int64(100), f.Data.Len)
					off = f.Data.End()
					require.NotEmpty(t, f.Ops)
					for _, i := range f.Ops {
						op := prog.Ops[i]
						require.Equal(t, Recv, op.Kind)
						require.Equal(t, f.Data, op.Data)
						// The double trees take every other piece, the
						// second (NCCL's mirror on 8 NPUs, root 7) the odd.
						second := f.Data.Off/100%2 == 1 && strings.HasPrefix(alg, "double")
						root := npu == 0 && !second || npu == 7 && second
						require.Equal(t, root, op.Reduce, "NPU %d piece at %d: the root's are its reductions, the others' a store", npu, f.Data.Off)
					}
				}
				require.Equal(t, int64(chunk), off, "NPU %d", npu)
			}
		})
	}
}

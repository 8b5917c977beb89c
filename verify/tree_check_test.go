package verify

import (
	"fmt"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var treeAlgNames = []string{"tree", "tree-overlapped", "double-tree"}

// The tree all-reduces compute the all-reduce, with nothing reduced twice
// or missed, on shapes with size-1 and odd dimensions and sizes that do not
// divide evenly.
func TestTreeAlgorithmsAreCorrect(t *testing.T) {
	sizes := []struct{ payload, chunk, msg int64 }{
		{10_007, 3000, 100}, // K = 30 and, for the last chunk, 11; halves of 1500 and 503/504
		{4096, 4096, 8192},  // one piece
		{3, 3, 1},           // halves of 2 and 1 byte: K = 2 and 1
		{1, 1, 8192},        // the second tree has nothing
	}
	shapes := []string{"1x1x1", "2x1x1", "4x1x1", "4x2x2", "2x3x4", "4x4x4", "8x1x1", "3x3x3", "1x5x1"}
	for _, alg := range treeAlgNames {
		for _, topo := range shapes {
			for _, sz := range sizes {
				t.Run(fmt.Sprintf("%s/%s/%d-%d-%d", alg, topo, sz.payload, sz.chunk, sz.msg), func(t *testing.T) {
					s, err := torus.Parse(topo)
					require.NoError(t, err)
					p, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: sz.msg}, alg, sz.payload, sz.chunk)
					require.NoError(t, err)
					require.NoError(t, Check(p))
					require.NoError(t, CheckContributions(p))
					rep, err := StepCount(p, sz.chunk)
					require.NoError(t, err)
					if s.N() == 1 {
						assert.Equal(t, 0, rep.Steps)
					}
				})
			}
		}
	}
}

// Golden step counts of C-Cube's trees (C-Cube paper, Sections III-A and
// III-C, Fig. 5), counted by StepCount. D = depth, K = pieces:
//
//	conventional: reduction ends at D+K-1, total 2(D+K-1), first piece at
//	              every NPU at 2D+K-1 (it waits at the root for the barrier);
//	overlapped:   reduction ends at D+K-1, total 2D+K-1, first piece at 2D.
//
// P=4 (0→2→{1,3}, D=2), K=4: 2(2+3) = 10 vs 2·2+3 = 7; reduction 5;
// turnaround 2·2+3 = 7 vs 4.
// P=8 (0→4→{2,6}→{1,3,5,7}, D=3), K=6: 2(3+5) = 16 vs 6+5 = 11; reduction 8;
// turnaround 11 vs 6. K=8: 20 vs 13. K=256: 2·258 = 516 vs 6+255 = 261.
// K=1: 2D either way (no gain, C-Cube L304).
func TestTreeGoldenSteps(t *testing.T) {
	tests := []struct {
		topo       string
		alg        string
		chunk, msg int64
		steps      int
		reduced    int // the root has every piece reduced
		turnaround int // the first piece is final at every NPU
	}{
		{"4x1x1", "tree", 400, 100, 10, 5, 7},
		{"4x1x1", "tree-overlapped", 400, 100, 7, 5, 4},
		{"8x1x1", "tree", 600, 100, 16, 8, 11},
		{"8x1x1", "tree-overlapped", 600, 100, 11, 8, 6},
		{"8x1x1", "tree", 800, 100, 20, 10, 13},
		{"8x1x1", "tree-overlapped", 800, 100, 13, 10, 6},
		{"8x1x1", "tree", 256, 1, 516, 258, 261},
		{"8x1x1", "tree-overlapped", 256, 1, 261, 258, 6},
		{"8x1x1", "tree", 100, 100, 6, 3, 6},
		{"8x1x1", "tree-overlapped", 100, 100, 6, 3, 6},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/K=%d", tc.alg, tc.topo, tc.chunk/tc.msg), func(t *testing.T) {
			p := stepPlan(t, tc.topo, collectives.OpAllReduce, tc.alg, tc.chunk, tc.msg, nil)
			rep, err := StepCount(p, tc.chunk)
			require.NoError(t, err)
			assert.Equal(t, tc.steps, rep.Steps)
			assert.Equal(t, tc.reduced, rep.RangeDoneAt(0, collectives.Range{Off: 0, Len: tc.chunk}), "root 0 reduced")
			assert.Equal(t, tc.turnaround, rep.RangeDone(collectives.Range{Off: 0, Len: tc.msg}), "first piece")
			assert.Equal(t, tc.steps, rep.RangeDone(collectives.Range{Off: 0, Len: tc.chunk}))
		})
	}
}

// The formulas hold on every tree NCCL's construction gives (any P, D =
// ceil(log2 P)), and every op runs in the step the algorithm gives it
// (Op.Step, 0-based), so Program.Steps is the model's count.
func TestTreeStepFormulas(t *testing.T) {
	shapes := []string{"2x1x1", "3x1x1", "5x1x1", "6x1x1", "7x1x1", "3x2x2", "2x3x4", "3x3x3", "4x4x4", "1x5x1"}
	for _, topo := range shapes {
		for _, k := range []int64{1, 3, 7, 16} {
			for _, alg := range treeAlgNames {
				t.Run(fmt.Sprintf("%s/%s/K=%d", alg, topo, k), func(t *testing.T) {
					const msg = 10
					chunk := k * msg
					if alg == "double-tree" {
						chunk *= 2 // K pieces on each tree
					}
					p := stepPlan(t, topo, collectives.OpAllReduce, alg, chunk, msg, nil)
					n := p.Machine.N()
					d := collectives.NCCLBinaryTree(n).Depth()
					rep, err := StepCount(p, chunk)
					require.NoError(t, err)
					steps, turn := 2*(d+int(k)-1), 2*d+int(k)-1
					if alg == "tree-overlapped" {
						steps, turn = 2*d+int(k)-1, 2*d
					}
					if alg == "double-tree" && n == 3 {
						// P=3: both trees use 2→0 and 0→2 (0→2→1 and, shifted,
						// 1→0→2). The channel 2→0 carries both trees' K up
						// pieces and 0→2 both trees' K down pieces, 4K steps
						// in all once K > 1 (K=1: the trees use 2→0 in
						// different steps, 2D = 4), not 2(D+K-1).
						want := map[int64]int{1: 4, 3: 12, 7: 28, 16: 64}[k]
						assert.Equal(t, want, rep.Steps)
						return
					}
					assert.Equal(t, steps, rep.Steps)
					assert.Equal(t, turn, rep.RangeDone(collectives.Range{Off: 0, Len: msg}))
					for npu := 0; npu < n; npu++ {
						prog := p.Program(npu, 0, chunk)
						assert.Equal(t, steps, prog.Steps)
						for i, op := range prog.Ops {
							require.Equal(t, int(op.Step)+1, rep.OpDone[0][npu][i], "NPU %d op %d", npu, i)
						}
					}
				})
			}
		}
	}
}

// The double tree on even P runs both halves at once in the conventional
// tree's steps for K pieces per half: the same steps as one tree with half
// the chunk, twice the data per step. One tree with the whole chunk in the
// same messages needs 2(D+2K-1).
func TestDoubleTreeSteps(t *testing.T) {
	tests := []struct {
		topo         string
		chunk, msg   int64
		double, tree int
	}{
		{"8x1x1", 1200, 100, 16, 28},   // D=3, K=6 per half: 2(3+5) = 16; one tree K=12: 2(3+11) = 28
		{"4x1x1", 800, 100, 10, 18},    // D=2, K=4: 10; one tree K=8: 2(2+7) = 18
		{"4x4x4", 16384, 1024, 26, 42}, // D=6, K=8: 2(6+7) = 26; K=16: 2(6+15) = 42
	}
	for _, tc := range tests {
		t.Run(tc.topo, func(t *testing.T) {
			for alg, want := range map[string]int{"double-tree": tc.double, "tree": tc.tree} {
				p := stepPlan(t, tc.topo, collectives.OpAllReduce, alg, tc.chunk, tc.msg, nil)
				rep, err := StepCount(p, tc.chunk)
				require.NoError(t, err)
				assert.Equal(t, want, rep.Steps, alg)
			}
		})
	}
}

package verify

import (
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// machinePlan builds a plan on any machine topology.Parse reads (a torus, a
// switch fabric), one direction of every ring when uni.
func machinePlan(t *testing.T, topo, alg string, payload, chunk, msg int64, uni bool) (*topology.Spec, *collectives.Plan) {
	t.Helper()
	spec, err := topology.Parse(topo)
	require.NoError(t, err)
	return spec, plan(t, topo, collectives.OpAllReduce, alg, payload, chunk, msg, func(c *collectives.Config) { c.Unidirectional = uni })
}

// BlueConnect beside its baselines ("BlueConnect: Novel Hierarchical
// All-Reduce on Multi-tired Network for Deep Learning", Sections 2 and 3) on
// the paper's Fig. 1 grouping p = (3,2,2) and on (4,4,4), as switch fabrics
// (the tiers: leaf, spine, core) and as tori (local, vertical, horizontal):
// steps in the step model, one message per block (one direction), and bytes
// sent, by hand.
//
//   - Flat ring over P NPUs: 2(P−1) steps (22; 126), every NPU sending
//     2(P−1)/P·N.
//   - BlueConnect with ring stages: 2Σ(p_i−1) steps (2·(2+1+1) = 8;
//     2·(3+3+3) = 18); every NPU sends Σ over stages of
//     2(p_i−1)/p_i·N/Π_{j<i}p_j, which telescopes to 2(P−1)/P·N, the
//     flat ring's (N = 1200: 2·11/12·1200 = 2200; N = 4096:
//     2·63/64·4096 = 8064).
//   - Two-level (Eq. (4) with a ring in every term, T_r for T_c): RS and
//     gather, then scatter and AG, p0−1 steps each, and the masters' ring
//     2(P/p0−1): 4(p0−1) + 2(P/p0−1) = 8 + 6 = 14 on (3,2,2), 12 + 30 = 42
//     on (4,4,4). Bytes differ by role (the master sends the most); the
//     average per NPU over a group of p0 is [2·p0·(p0−1)/p0·N (RS, AG) +
//     2·(1+…+(p0−1))·N/p0 (gather, scatter) + 2·(P/p0−1)/(P/p0)·N
//     (the master's ring)] / p0: (3,2,2): (4 + 2 + 1.5)/3 N = 2.5 N = 3000
//     for N = 1200; (4,4,4): (6 + 3 + 1.875)/4 N = 2.71875 N = 11136 for
//     N = 4096.
func TestBlueConnectBaselinesStepsAndBytes(t *testing.T) {
	tests := []struct {
		topo       string
		alg        string
		n, msg     int64
		steps      int
		phaseSteps []int
		meanSent   int64 // bytes sent, averaged over the NPUs
		uniform    bool  // every NPU sends meanSent
	}{
		{"switch:3x2x2", "ring", 1200, 400, 22, []int{22}, 2200, true},
		{"switch:3x2x2", "blueconnect", 1200, 400, 8, []int{2, 1, 1, 1, 1, 2}, 2200, true},
		{"switch:3x2x2", "two-level", 1200, 400, 14, []int{2, 2, 6, 2, 2}, 3000, false},
		{"3x2x2", "ring", 1200, 400, 22, []int{22}, 2200, true},
		{"3x2x2", "blueconnect", 1200, 400, 8, []int{2, 1, 1, 1, 1, 2}, 2200, true},
		{"3x2x2", "two-level", 1200, 400, 14, []int{2, 2, 6, 2, 2}, 3000, false},
		{"switch:4x4x4", "ring", 4096, 1024, 126, []int{126}, 8064, true},
		{"switch:4x4x4", "blueconnect", 4096, 1024, 18, []int{3, 3, 3, 3, 3, 3}, 8064, true},
		{"switch:4x4x4", "two-level", 4096, 1024, 42, []int{3, 3, 30, 3, 3}, 11136, false},
		{"4x4x4", "ring", 4096, 1024, 126, []int{126}, 8064, true},
		{"4x4x4", "blueconnect", 4096, 1024, 18, []int{3, 3, 3, 3, 3, 3}, 8064, true},
		{"4x4x4", "two-level", 4096, 1024, 42, []int{3, 3, 30, 3, 3}, 11136, false},
	}
	for _, tc := range tests {
		t.Run(tc.topo+"/"+tc.alg, func(t *testing.T) {
			_, p := machinePlan(t, tc.topo, tc.alg, tc.n, tc.n, tc.msg, true)
			rep, err := StepCount(p, tc.n)
			require.NoError(t, err)
			assert.Equal(t, tc.steps, rep.Steps)
			assert.Equal(t, tc.phaseSteps, rep.PhaseSteps)
			var total int64
			for npu, b := range stepSentPerNPU(p, tc.n) {
				total += b
				if tc.uniform {
					assert.Equal(t, tc.meanSent, b, "NPU %d", npu)
				}
			}
			assert.Equal(t, tc.meanSent*int64(p.Machine.N()), total)
			// The programs' own step counts agree with the model.
			for ph, s := range rep.PhaseSteps {
				assert.Equal(t, s, p.Program(0, ph, tc.n).Steps, "phase %d", ph)
			}
		})
	}
}

// BlueConnect's default factorisation on a switch fabric is its tiers,
// lowest first (Section 3, Fig. 2): on switch:3x2x2 stage i runs P/p_i
// concurrent groups, 12/3 = 4, 12/2 = 6, 12/2 = 6, on N, N/3, N/6 bytes
// each; on switch:4x4x4, 16 groups a stage on N, N/4, N/16. A group is
// found from the programs themselves: an NPU and the peers it exchanges
// with in the stage, directly or through others.
func TestBlueConnectStagesOnSwitchTiers(t *testing.T) {
	tests := []struct {
		topo   string
		phases []string
		groups []int
		views  []int64 // per-op input of stages 0, 1, 2, as a fraction's denominator of N
	}{
		{"switch:3x2x2", []string{
			"reduce-scatter on tier 0 (leaf) (ring)", "reduce-scatter on tier 1 (spine) (ring)", "reduce-scatter on tier 2 (core) (ring)",
			"all-gather on tier 2 (core) (ring)", "all-gather on tier 1 (spine) (ring)", "all-gather on tier 0 (leaf) (ring)",
		}, []int{4, 6, 6}, []int64{1, 3, 6}},
		{"switch:4x4x4", []string{
			"reduce-scatter on tier 0 (leaf) (ring)", "reduce-scatter on tier 1 (spine) (ring)", "reduce-scatter on tier 2 (core) (ring)",
			"all-gather on tier 2 (core) (ring)", "all-gather on tier 1 (spine) (ring)", "all-gather on tier 0 (leaf) (ring)",
		}, []int{16, 16, 16}, []int64{1, 4, 16}},
	}
	const n = 96 * 64
	for _, tc := range tests {
		t.Run(tc.topo, func(t *testing.T) {
			_, p := machinePlan(t, tc.topo, "blueconnect", n, n, n, false)
			require.Equal(t, tc.phases, p.Algo.Phases())
			for st, want := range tc.groups {
				// Groups are the connected parts of the graph of who
				// exchanges with whom in the stage (union-find).
				root := make([]int, p.Machine.N())
				for i := range root {
					root[i] = i
				}
				var find func(int) int
				find = func(x int) int {
					for root[x] != x {
						x = root[x]
					}
					return x
				}
				for npu := range root {
					prog := p.Program(npu, st, n)
					require.Equal(t, n/tc.views[st], prog.ViewLen(), "stage %d NPU %d", st, npu)
					for _, op := range prog.Ops {
						root[find(int(op.Peer))] = find(npu)
					}
				}
				groups := map[int]int{}
				for npu := range root {
					groups[find(npu)]++
				}
				for _, size := range groups {
					assert.Equal(t, p.Machine.N()/want, size, "stage %d", st)
				}
				assert.Len(t, groups, want, "stage %d", st)
			}
		})
	}
}

// Every NPU ends with the exact global sum, on the ideal endpoint, the
// SM-driven baseline and ACE: two-level on switch:3x2x2, switch:4x4x4 and
// the 4x4x4 torus; BlueConnect on switch:3x2x2, switch:4x4x4 and fabrics
// whose tiers are not all powers of two, switch:4x4x3 and the paper's
// 192 GPUs, switch:4x16x3 (4 per node, 16 nodes a rack, 3 racks; Section
// 4), two-level there too. Sizes do not divide.
func TestBlueConnectAndTwoLevelCarryData(t *testing.T) {
	runs := []struct{ topo, alg string }{
		{"switch:3x2x2", "two-level"},
		{"switch:4x4x4", "two-level"},
		{"4x4x4", "two-level"},
		{"switch:3x2x2", "blueconnect"},
		{"switch:4x4x4", "blueconnect"},
		{"switch:4x4x3", "blueconnect"},
		{"switch:4x16x3", "blueconnect"},
		{"switch:4x16x3", "two-level"},
	}
	for _, r := range runs {
		spec, p := machinePlan(t, r.topo, r.alg, 20_003, 8192, 2048, false)
		for _, endpoint := range []string{"ideal", "baseline", "ace"} {
			t.Run(r.topo+"/"+r.alg+"/"+endpoint, func(t *testing.T) {
				checkOnMachine(t, spec, p, endpoint)
			})
		}
	}
}

package collectives

import (
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func TestCheckEquivariant(t *testing.T) {
	tests := []struct {
		name, topo, alg string
		op              CollectiveOp
		size            int64
		err             string // "" when equivariant
	}{
		// 64 KB chunks split 4, 4, 4 ways: 64K/64 = 1 KB blocks, all equal.
		{"hierarchical, divisible", "4x4x4", "hierarchical", OpAllReduce, 1 << 20, ""},
		// 4x4x4: reduce-scatter on the local ring (4 blocks), all-reduces
		// on the vertical and horizontal rings (2 directions × 4 blocks of
		// the quarter), all-gather. 100 000 = 65 536 + 34 464, and
		// 34 464/4 = 8616 = 8·1077: equal blocks everywhere.
		{"hierarchical, divisible last chunk", "4x4x4", "hierarchical", OpAllReduce, 100_000, ""},
		// 100 001: the last chunk's 34 465 bytes split 8617 + 3·8616, so
		// NPU 1's first block is not NPU 0's.
		{"hierarchical, uneven last chunk", "4x4x4", "hierarchical", OpAllReduce, 100_001, "phase 1, chunk of 34465 bytes"},
		{"ring on 3 NPUs, uneven split", "3x1x1", "ring", OpAllReduce, 65536, "does not run NPU 0's program translated"},
		{"direct all-to-all on a 3D torus", "2x2x2", "direct", OpAllToAll, 1 << 16, ""},
		{"direct all-to-all on 4x2x2", "4x2x2", "direct", OpAllToAll, 1 << 16, ""},
		// Partners at distance 2^k alternate direction (NPU 0's is +1, NPU
		// 1's is -1): not a translation.
		{"halving-doubling", "8x1x1", "halving-doubling", OpAllReduce, 1 << 16, "port 1, match 13"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := torus.Parse(tc.topo)
			require.NoError(t, err)
			p, err := NewPlan(Config{Machine: s.Machine(), Op: tc.op, MessageBytes: 8192}, tc.alg, tc.size, 65536)
			require.NoError(t, err)
			err = CheckEquivariant(p)
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.err)
			}
		})
	}
}

// byPosition decides equivariance from NPU 0's groups; comparing every
// NPU's programs is the reference. On every configuration below where it
// decides, it must give the reference's answer, equivariant or not, and
// it must decide on enough of them (and both ways) for the comparison to
// mean something.
func TestEquivariantByPositionAgreesWithEveryNPU(t *testing.T) {
	type cfg struct {
		topo, alg, phases string
		op                CollectiveOp
		factors           []int
		unidirectional    bool
	}
	var cases []cfg
	for _, topo := range []string{"2x1x1", "3x1x1", "4x1x1", "1x4x1", "2x2x2", "3x3x1", "4x2x2", "2x3x4", "4x4x4", "5x1x3", "1x1x6"} {
		for _, op := range []CollectiveOp{OpAllReduce, OpReduceScatter, OpAllGather} {
			cases = append(cases, cfg{topo: topo, alg: "hierarchical", op: op}, cfg{topo: topo, alg: "ring", op: op},
				cfg{topo: topo, alg: "blueconnect", op: op}, cfg{topo: topo, alg: "hierarchical", op: op, unidirectional: true})
		}
	}
	cases = append(cases,
		cfg{topo: "4x4x4", alg: "hierarchical", op: OpAllReduce, phases: "rs:local,ar:vertical:halving-doubling,ar:horizontal,ag:local"},
		cfg{topo: "4x2x2", alg: "hierarchical", op: OpAllReduce, phases: "rs:local,rs:vertical,ar:horizontal,ag:vertical,ag:local"},
		cfg{topo: "8x2x1", alg: "hierarchical", op: OpAllReduce, phases: "ar:local:halving-doubling,ar:vertical"},
		cfg{topo: "4x4x1", alg: "blueconnect", op: OpAllReduce, factors: []int{2, 2, 4}},
		cfg{topo: "2x2x2", alg: "hierarchical", op: OpAllGather, phases: "ag:horizontal,ag:vertical,ag:local:halving-doubling"},
	)
	sizes := []int64{1 << 20, 100_000, 100_001, 65536, 12345, 7 * 8192, 3 * 65536, 48, 1000}
	decidedYes, decidedNo := 0, 0
	for _, c := range cases {
		s, err := torus.Parse(c.topo)
		require.NoError(t, err)
		for _, size := range sizes {
			for _, msg := range []int64{8192, 1000} {
				conf := Config{Machine: s.Machine(), Op: c.op, MessageBytes: msg, PhaseSpec: c.phases, Factors: c.factors, Unidirectional: c.unidirectional}
				p, err := NewPlan(conf, c.alg, size, 65536)
				if err != nil {
					continue // a size some shapes cannot split (its error is tested elsewhere)
				}
				h, ok := p.Algo.(*Hierarchical)
				require.True(t, ok)
				for _, l := range []int64{p.ChunkLen(0), p.ChunkLen(p.NumChunks() - 1)} {
					ref, err := p.programs(0, l)
					require.NoError(t, err)
					decided, got := h.byPosition(p, s.Table(), l, ref)
					if !decided {
						continue
					}
					want := everyNPU(p, s.Table(), l)
					if got != nil {
						decidedNo++
						require.Error(t, want, "%+v size %d msg %d length %d: by position %v, every NPU equivariant", c, size, msg, l, got)
					} else {
						decidedYes++
						require.NoError(t, want, "%+v size %d msg %d length %d: by position equivariant", c, size, msg, l)
					}
				}
			}
		}
	}
	t.Logf("decided %d equivariant, %d not", decidedYes, decidedNo)
	require.Greater(t, decidedYes, 200)
	require.Greater(t, decidedNo, 50)
}

// everyNPU compares every NPU's programs for chunk length l with NPU 0's
// translated.
func everyNPU(p *Plan, s *torus.Table, l int64) error {
	for q := 1; q < s.N(); q++ {
		progs, _, err := p.look(q, l)
		if err != nil {
			return err
		}
		if err := p.translatesFrom0(s, true, q, l, progs); err != nil {
			return err
		}
	}
	return nil
}

// A plan keeps its equivariance from NewPlan, which finds it for every
// algorithm (by position or NPU by NPU), until SetProgram changes a
// program; CheckEquivariant then works it out once again and keeps it.
func TestAPlanKeepsItsEquivariance(t *testing.T) {
	s, err := torus.Parse("4x2x2")
	require.NoError(t, err)
	for _, tc := range []struct {
		op  CollectiveOp
		alg string
	}{{OpAllReduce, "hierarchical"}, {OpAllReduce, "ring"}, {OpAllReduce, "tree"}, {OpAllToAll, "direct"}} {
		p, err := NewPlan(Config{Machine: s.Machine(), Op: tc.op, MessageBytes: 8192}, tc.alg, 1<<20, 64<<10)
		require.NoError(t, err, tc.alg)
		require.True(t, p.equivKnown, "%s: NewPlan found it", tc.alg)
		want := p.equiv
		p.Program(3, 0, p.ChunkLen(0)) // building another NPU's programs changes nothing
		require.True(t, p.equivKnown, tc.alg)
		progs, err := p.programs(1, p.ChunkLen(0))
		require.NoError(t, err)
		require.NoError(t, p.SetProgram(1, p.ChunkLen(0), progs))
		require.False(t, p.equivKnown, "%s: SetProgram forgets it", tc.alg)
		require.Equal(t, want, CheckEquivariant(p), tc.alg)
		require.True(t, p.equivKnown, "%s: CheckEquivariant keeps it", tc.alg)
	}
}

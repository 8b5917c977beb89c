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
			p, err := NewPlan(Config{Shape: s, Op: tc.op, MessageBytes: 8192}, tc.alg, tc.size, 65536)
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

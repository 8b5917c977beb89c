package verify

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// Every NPU must end each chunk holding the sum of all NPUs' values, on
// shapes with size-1 and size-2 dimensions and sizes that do not divide.
func TestHierarchicalAllReduceIsCorrect(t *testing.T) {
	tests := []struct {
		shape          string
		payload, chunk int64
		msg            int64
		uni            bool
	}{
		{"4x1x1", 4096, 4096, 512, false},
		{"4x2x2", 8192, 4096, 256, false},
		{"2x3x4", 10_007, 3000, 100, false}, // nothing divides evenly
		{"4x4x4", 4096, 4096, 8192, false},
		{"8x1x1", 1000, 1000, 8192, true},
		{"1x5x1", 999, 999, 64, false},
		{"3x3x3", 2048, 700, 33, false},
	}
	for _, tc := range tests {
		t.Run(tc.shape, func(t *testing.T) {
			s, err := torus.Parse(tc.shape)
			require.NoError(t, err)
			plan, err := collectives.NewPlan(s, collectives.HierarchicalPhases(s), tc.payload, tc.chunk, tc.msg)
			require.NoError(t, err)
			plan.Bidirectional = !tc.uni
			require.NoError(t, CheckAllReduce(plan))
		})
	}
}

// A broken program must be caught: a receive that stores instead of adding
// loses contributions.
func TestCheckAllReduceCatchesABrokenProgram(t *testing.T) {
	s := torus.Shape{L: 4, V: 1, H: 1}
	plan, err := collectives.NewPlan(s, collectives.HierarchicalPhases(s), 4096, 4096, 8192)
	require.NoError(t, err)
	prog := plan.Program(1, 0, 4096)
	for i := range prog.Ops {
		if prog.Ops[i].Kind == collectives.Recv {
			prog.Ops[i].Reduce = false
			break
		}
	}
	require.ErrorContains(t, CheckAllReduce(plan), "want the sum")
}

// Section VI-A: on 4x4x4, 3/4 N + 2 × 6/16 N + 3/4 N = 2.25 N sent per NPU.
func TestAnalyticBytes4x4x4(t *testing.T) {
	b := HierarchicalAllReduceBytes(torus.Shape{L: 4, V: 4, H: 4}, 64)
	total := new(big.Rat).Add(b[0], b[1])
	total.Add(total, b[2])
	require.Equal(t, big.NewRat(144, 1), total) // 2.25 × 64
}

// The bounds, by hand (GB/s per NPU; links 0.94 × raw, two per dimension):
// 4x4x4: vertical binds: bytes 0.375 N at 47 GB/s; total 2.25 N → 2.25·47/0.375 = 282.
// 4x2x2: vertical 2·(1/2)·N/4 = 0.25 N at 47 GB/s; total 1.5+0.25+0.25 = 2 N → 2·47/0.25 = 376.
// 4x8x4: vertical 2·(7/8)·N/4 = 7/16 N; total 1.5 + 7/16 + 6/16 = 37/16 N → (37/16)·47/(7/16) = 37·47/7 = 1739/7 ≈ 248.4.
func TestAnalyticBounds(t *testing.T) {
	tests := []struct {
		shape string
		want  *big.Rat
	}{
		{"4x4x4", big.NewRat(282, 1)},
		{"4x2x2", big.NewRat(376, 1)},
		{"4x8x4", big.NewRat(1739, 7)},
	}
	for _, tc := range tests {
		s, err := torus.Parse(tc.shape)
		require.NoError(t, err)
		require.Equal(t, tc.want.RatString(), HierarchicalAllReduceBound(s).RatString(), tc.shape)
	}
}

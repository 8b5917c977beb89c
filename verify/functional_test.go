package verify

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// plan builds a plan on any machine topology.Parse reads (a torus, a
// switch fabric, dgx1).
func plan(t *testing.T, topo string, op collectives.CollectiveOp, alg string, payload, chunk, msg int64, mod func(*collectives.Config)) *collectives.Plan {
	t.Helper()
	s, err := topology.Parse(topo)
	require.NoError(t, err)
	cfg := collectives.Config{Machine: s.Machine, Op: op, MessageBytes: msg}
	if mod != nil {
		mod(&cfg)
	}
	p, err := collectives.NewPlan(cfg, alg, payload, chunk)
	require.NoError(t, err)
	return p
}

// Every algorithm and collective ends with exactly the collective's result,
// on shapes with size-1 and size-2 dimensions and sizes that do not divide.
func TestAlgorithmsAreCorrect(t *testing.T) {
	uni := func(c *collectives.Config) { c.Unidirectional = true }
	type tc struct {
		topo           string
		payload, chunk int64
		msg            int64
		mod            func(*collectives.Config)
	}
	shapes := []tc{
		{"4x1x1", 4096, 4096, 512, nil},
		{"4x2x2", 8192, 4096, 256, nil},
		{"2x3x4", 10_007, 3000, 100, nil}, // nothing divides evenly
		{"4x4x4", 4096, 4096, 8192, nil},
		{"8x1x1", 1000, 1000, 8192, uni},
		{"1x5x1", 999, 999, 64, nil},
		{"3x3x3", 2048, 700, 33, nil},
	}
	algs := []struct {
		alg string
		ops []collectives.CollectiveOp
	}{
		{"hierarchical", []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather}},
		{"blueconnect", []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather}},
		{"ring", []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather}},
	}
	for _, a := range algs {
		for _, op := range a.ops {
			for _, sh := range shapes {
				t.Run(a.alg+"/"+op.String()+"/"+sh.topo, func(t *testing.T) {
					p := plan(t, sh.topo, op, a.alg, sh.payload, sh.chunk, sh.msg, sh.mod)
					require.NoError(t, Check(p))
				})
			}
		}
	}
}

// BlueConnect on a factorisation that is not the torus's dimensions: 12 NPUs
// of a 2x3x2 torus factored 3x2x2 (groups are not rings: routed messages).
func TestBlueConnectOtherFactorisation(t *testing.T) {
	p := plan(t, "2x3x2", collectives.OpAllReduce, "blueconnect", 5000, 5000, 256,
		func(c *collectives.Config) { c.Factors = []int{3, 2, 2} })
	require.NoError(t, Check(p))
}

// A broken program must be caught: a receive that stores instead of adding
// loses contributions.
func TestCheckCatchesABrokenProgram(t *testing.T) {
	p := plan(t, "4x1x1", collectives.OpAllReduce, "hierarchical", 4096, 4096, 8192, nil)
	prog := p.Program(1, 0, 4096) // changed on purpose
	for i := range prog.Ops {
		if prog.Ops[i].Kind == collectives.Recv {
			prog.Ops[i].Reduce = false
			break
		}
	}
	require.ErrorContains(t, Check(p), "want")
}

// A send whose receive is missing is reported, not hung on.
func TestCheckCatchesAMissingReceive(t *testing.T) {
	p := plan(t, "4x1x1", collectives.OpAllReduce, "hierarchical", 4096, 4096, 8192, nil)
	prog := p.Program(2, 0, 4096) // changed on purpose
	prog.Ops[0].Kind = collectives.Recv
	require.ErrorContains(t, Check(p), "never completes")
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

package ace

import (
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

func setup(t testing.TB, topo string, op collectives.CollectiveOp, alg string, payload, chunk int64) (*rtl.Kernel, *fabric.Network, *collectives.Plan) {
	t.Helper()
	s, err := torus.Parse(topo)
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Shape: s, Op: op, MessageBytes: 8192}, alg, payload, chunk)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	return k, net, plan
}

func runChecked(t *testing.T, topo string, op collectives.CollectiveOp, alg string, payload, chunk int64) *Result {
	t.Helper()
	k, net, plan := setup(t, topo, op, alg, payload, chunk)
	dc, err := verify.NewDataCheck(plan)
	require.NoError(t, err)
	res, err := Run(k, net, plan, Default(), &Hooks{Init: dc.Init, Done: dc.Done})
	require.NoError(t, err)
	require.NoError(t, dc.Result())
	return res
}

func TestACECarriesDataCorrectly(t *testing.T) {
	tests := []struct {
		topo           string
		op             collectives.CollectiveOp
		alg            string
		payload, chunk int64
	}{
		{"4x1x1", collectives.OpAllReduce, "hierarchical", 4096, 65536},
		{"4x2x2", collectives.OpAllReduce, "hierarchical", 300_000, 65536},
		{"2x3x4", collectives.OpAllReduce, "hierarchical", 100_003, 16384},
		{"4x2x2", collectives.OpAllToAll, "direct", 100_000, 16384},
		{"2x3x4", collectives.OpAllToAll, "direct", 50_001, 8192},
		{"4x2x2", collectives.OpAllReduce, "tree", 50_000, 8192},
		{"4x2x2", collectives.OpAllReduce, "halving-doubling", 50_000, 8192},
		{"4x2x2", collectives.OpReduceScatter, "hierarchical", 50_000, 8192},
		{"4x2x2", collectives.OpAllGather, "hierarchical", 50_000, 8192},
	}
	for _, tc := range tests {
		t.Run(tc.topo+"/"+tc.op.String()+"/"+tc.alg, func(t *testing.T) {
			runChecked(t, tc.topo, tc.op, tc.alg, tc.payload, tc.chunk)
		})
	}
}

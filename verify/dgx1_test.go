package verify

import (
	"fmt"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// On the DGX-1 (dgx1, docs/topology.md): the ring all-reduce (on the
// NVLink ring), the tree and the double tree (routed over the NVLinks,
// detours through a third GPU where two GPUs share no link) and the direct
// all-to-all each end with every GPU's exact result on the ideal endpoint,
// the SM-driven baseline and ACE; the trees are the C-Cube paper's
// (topology.DGX1Trees), overlapped or not.
func TestCollectivesOnDGX1(t *testing.T) {
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	for _, tc := range []struct {
		alg string
		op  collectives.CollectiveOp
	}{
		{"ring", collectives.OpAllReduce},
		{"tree", collectives.OpAllReduce},
		{"tree-overlapped", collectives.OpAllReduce},
		{"double-tree", collectives.OpAllReduce},
		{"double-tree-overlapped", collectives.OpAllReduce},
		{"direct", collectives.OpAllToAll},
	} {
		plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: tc.op, MessageBytes: 2048}, tc.alg, 24_000, 8192)
		require.NoError(t, err)
		for _, endpoint := range []string{"ideal", "baseline", "ace"} {
			t.Run(fmt.Sprintf("%s/%s", tc.alg, endpoint), func(t *testing.T) {
				checkOnMachine(t, spec, plan, endpoint)
			})
		}
	}
}

package compare

import (
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// ACE's layout is told each collective the workload issues once, in the
// order they first appear (forward, input gradient, weight gradient of
// each layer in turn), and nothing for a pass that issues none: here the
// all-to-all of layer a's forward pass, the all-reduce of its weight
// gradient, then layer b's reduce-scatter and all-gather (b's all-reduce
// is one already named).
func TestKindsOfAWorkload(t *testing.T) {
	c := func(tp workload.CommType) workload.Comm { return workload.Comm{Type: tp, Bytes: 4096} }
	w := &workload.Workload{Name: "w", Layers: []workload.Layer{
		{Name: "a", FwdComm: c(workload.CommAllToAll), WtGradComm: c(workload.CommAllReduce)},
		{Name: "b", FwdComm: c(workload.CommReduceScatter), InGradComm: c(workload.CommAllGather), WtGradComm: c(workload.CommAllReduce)},
		{Name: "c"},
	}}
	require.Equal(t, []afi.Kind{{Op: collectives.OpAllToAll}, {Op: collectives.OpAllReduce}, {Op: collectives.OpReduceScatter}, {Op: collectives.OpAllGather}}, kindsOf(w))
	require.Empty(t, kindsOf(&workload.Workload{Name: "none", Layers: []workload.Layer{{Name: "x"}}}))
}

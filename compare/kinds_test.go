package compare

import (
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// ACE's layout is told each collective the workload issues once, in the
// order they first appear (forward, input gradient, weight gradient of
// each layer in turn), and nothing for a pass that issues none: here the
// all-to-all of layer a's forward pass, the all-reduce of its weight
// gradient, then layer b's reduce-scatter and all-gather (b's all-reduce
// is one already named). Under HYBRID_DATA_MODEL each kind comes with its
// group: the forward all-gather and input-gradient all-reduce over the
// local dimension, the weight-gradient all-reduce over the others, a kind
// apart from the local one.
func TestKindsOfAWorkload(t *testing.T) {
	c := func(tp workload.CommType) workload.Comm { return workload.Comm{Type: tp, Bytes: 4096} }
	m, err := topology.Parse("4x2x2")
	require.NoError(t, err)
	kinds := func(w *workload.Workload) []afi.Kind {
		o := Options{Machine: m, Workload: w, Systems: presets(t, "ace")}
		list, err := o.issued()
		require.NoError(t, err)
		return kindsOf(list)
	}
	w := &workload.Workload{Name: "w", Parallelism: workload.ParallelismData, Layers: []workload.Layer{
		{Name: "a", FwdComm: c(workload.CommAllToAll), WtGradComm: c(workload.CommAllReduce)},
		{Name: "b", FwdComm: c(workload.CommReduceScatter), InGradComm: c(workload.CommAllGather), WtGradComm: c(workload.CommAllReduce)},
		{Name: "c"},
	}}
	require.Equal(t, []afi.Kind{{Op: collectives.OpAllToAll}, {Op: collectives.OpAllReduce}, {Op: collectives.OpReduceScatter}, {Op: collectives.OpAllGather}}, kinds(w))
	require.Empty(t, kinds(&workload.Workload{Name: "none", Parallelism: workload.ParallelismData, Layers: []workload.Layer{{Name: "x"}}}))
	h := &workload.Workload{Name: "h", Parallelism: workload.ParallelismHybridDataModel, Layers: []workload.Layer{
		{Name: "a", FwdComm: c(workload.CommAllGather), InGradComm: c(workload.CommAllReduce), WtGradComm: c(workload.CommAllReduce)},
		{Name: "b", FwdComm: c(workload.CommAllGather), InGradComm: c(workload.CommAllReduce), WtGradComm: c(workload.CommAllReduce)},
	}}
	local, others := []string{"local"}, []string{"vertical", "horizontal"}
	require.Equal(t, []afi.Kind{{Op: collectives.OpAllGather, Group: local}, {Op: collectives.OpAllReduce, Group: others}, {Op: collectives.OpAllReduce, Group: local}}, kinds(h))
}

package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// The groups model and hybrid parallelism run their collectives over
// (train.Group, docs/parallelism.md) give each group its own result on
// every endpoint, with the data carried and checked: HYBRID_DATA_MODEL's
// model group (local) and data group (vertical and horizontal) by name,
// and a Transformer group of 2 that splits the local ring, as the listed
// groups the loop issues.
func TestParallelismGroupsCheckData(t *testing.T) {
	s, err := torus.Parse("4x2x2")
	require.NoError(t, err)
	m := s.Machine()
	w := &workload.Workload{Name: "t", Parallelism: workload.ParallelismHybridTransformer, ParallelismArgs: []string{"model_parallel_NPU_group:", "2"},
		Layers: []workload.Layer{{Name: "l", FwdComm: workload.Comm{Type: workload.CommAllGather, Bytes: 4096}, WtGradComm: workload.Comm{Type: workload.CommAllReduce, Bytes: 4096}}}}
	comms, err := train.NewCommunicators(w, m)
	require.NoError(t, err)
	model, ok := comms.Of(0, train.PassForward)
	require.True(t, ok)
	data, ok := comms.Of(0, train.PassWtGrad)
	require.True(t, ok)
	// The local ring of 4 split in halves: {0,1}, {2,3}, {4,5}, …; the
	// data group the rest: {0,2,4,…}, {1,3,5,…} (16 NPUs, 2 groups of 8).
	require.Equal(t, []int{0, 1}, model.Groups[0])
	require.Equal(t, []int{0, 2, 4, 6, 8, 10, 12, 14}, data.Groups[0])
	listed := func(g train.Group) string {
		var parts []string
		for _, members := range g.Groups {
			parts = append(parts, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(members)), ","), "[]"))
		}
		return strings.Join(parts, "/")
	}
	for _, sys := range []string{"ideal", "baseline-commopt", "ace"} {
		for _, op := range []string{"all-reduce", "reduce-scatter", "all-gather"} {
			for _, g := range [][]string{{"--group", "l"}, {"--group", "v,h"}, {"--group-npus", listed(model)}, {"--group-npus", listed(data)}} {
				collectiveJSON(t, append([]string{"--topo", "4x2x2", "--system", sys, "--op", op}, g...)...)
			}
		}
	}
}

package verify

import (
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/stretchr/testify/require"
)

func TestContributionsOfBuiltInAlgorithms(t *testing.T) {
	ops := []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather}
	for _, alg := range []string{"hierarchical", "blueconnect", "ring"} {
		for _, op := range ops {
			for _, topo := range []string{"4x2x2", "2x3x4"} {
				p := plan(t, topo, op, alg, 3001, 3001, 128, nil)
				require.NoError(t, CheckContributions(p), "%s %s %s", alg, op, topo)
			}
		}
	}
}

// A receive that adds where it should store brings a contribution in twice.
func TestContributionsCatchDoubleReduce(t *testing.T) {
	p := plan(t, "4x1x1", collectives.OpAllReduce, "ring", 4096, 4096, 8192, nil)
	prog := p.Program(1, 0, 4096) // changed on purpose
	for i := len(prog.Ops) - 1; i >= 0; i-- {
		if prog.Ops[i].Kind == collectives.Recv && !prog.Ops[i].Reduce {
			prog.Ops[i].Reduce = true // an all-gather receive now reduces
			break
		}
	}
	require.ErrorContains(t, CheckContributions(p), "reduced twice")
}

// A receive that stores where it should add loses contributions.
func TestContributionsCatchAMissedContribution(t *testing.T) {
	p := plan(t, "4x1x1", collectives.OpAllReduce, "ring", 4096, 4096, 8192, nil)
	prog := p.Program(2, 0, 4096) // changed on purpose
	for i := range prog.Ops {
		if prog.Ops[i].Kind == collectives.Recv && prog.Ops[i].Reduce {
			prog.Ops[i].Reduce = false
			break
		}
	}
	require.ErrorContains(t, CheckContributions(p), "missing or extra")
}

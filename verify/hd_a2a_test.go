package verify

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

var hdOps = []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather}

// Halving-doubling over all NPUs ends with exactly the collective's result,
// with nothing reduced twice or missed, on sizes that do not divide: 10007
// bytes in chunks of 3000 (last chunk 1007) and 100-byte messages.
func TestHalvingDoublingIsCorrect(t *testing.T) {
	for _, topo := range []string{"8x1x1", "4x2x2", "2x2x2", "4x4x4"} {
		for _, op := range hdOps {
			t.Run(op.String()+"/"+topo, func(t *testing.T) {
				p := plan(t, topo, op, "halving-doubling", 10_007, 3000, 100, nil)
				require.NoError(t, Check(p))
				require.NoError(t, CheckContributions(p))
			})
		}
	}
}

// Hierarchical collectives with halving-doubling in some phases.
func TestHierarchicalWithHalvingDoubling(t *testing.T) {
	tests := []struct {
		topo   string
		op     collectives.CollectiveOp
		phases string
	}{
		{"4x4x4", collectives.OpAllReduce, "rs:local:halving-doubling,ar:vertical:ring,ar:horizontal:ring,ag:local:halving-doubling"},
		{"8x2x2", collectives.OpAllReduce, "rs:local:halving-doubling,ar:vertical:ring,ar:horizontal:ring,ag:local:halving-doubling"},
		{"4x4x4", collectives.OpAllReduce, "rs:local:ring,ar:vertical:halving-doubling,ar:horizontal:halving-doubling,ag:local:ring"},
		{"8x2x2", collectives.OpAllReduce, "rs:local:halving-doubling,rs:vertical:ring,ar:horizontal:halving-doubling,ag:vertical:ring,ag:local:halving-doubling"},
		{"4x4x4", collectives.OpReduceScatter, "rs:local:halving-doubling,rs:vertical:ring,rs:horizontal:halving-doubling"},
		{"8x2x2", collectives.OpAllGather, "ag:horizontal:ring,ag:vertical:halving-doubling,ag:local:halving-doubling"},
	}
	for _, tc := range tests {
		t.Run(tc.topo+"/"+tc.op.String()+"/"+tc.phases, func(t *testing.T) {
			p := plan(t, tc.topo, tc.op, "hierarchical", 10_007, 3000, 100,
				func(c *collectives.Config) { c.PhaseSpec = tc.phases })
			require.NoError(t, Check(p))
			require.NoError(t, CheckContributions(p))
		})
	}
}

// The direct all-to-all moves every block where OpAllToAll says, leaving
// the tail: 10007 bytes in chunks of 3001 (last 1004) do not divide by any of
// these NPU counts (3001 on 64 NPUs: q = 46, tail 57).
func TestDirectAllToAllIsCorrect(t *testing.T) {
	for _, topo := range []string{"4x1x1", "4x2x2", "2x3x4", "3x3x3", "4x4x4"} {
		t.Run(topo, func(t *testing.T) {
			p := plan(t, topo, collectives.OpAllToAll, "direct", 10_007, 3001, 100, nil)
			require.NoError(t, Check(p))
			require.NoError(t, CheckContributions(p))
		})
	}
}

// A direct all-to-all whose receive does not wait for the send of the same
// block overwrites it first: the check sees the block arrive with the
// receiver's new data.
func TestCheckCatchesAnAllToAllOverwrite(t *testing.T) {
	p := plan(t, "4x1x1", collectives.OpAllToAll, "direct", 4096, 4096, 8192, nil)
	for n := 0; n < 4; n++ {
		prog := p.Program(n, 0, 4096) // changed on purpose
		for i := range prog.Ops {
			prog.Ops[i].Deps = nil
		}
		// Receives first: now they can complete before the sends read.
		var recvs, sends []collectives.Op
		for _, op := range prog.Ops {
			if op.Kind == collectives.Recv {
				recvs = append(recvs, op)
			} else {
				sends = append(sends, op)
			}
		}
		for i := range sends {
			sends[i].Match -= 3
		}
		prog.Ops = append(recvs, sends...)
	}
	require.ErrorContains(t, Check(p), "want")
}

// The timed run on the ideal endpoint carries real values through
// halving-doubling and the direct all-to-all and ends with the right ones.
func TestHalvingDoublingAndDirectTimed(t *testing.T) {
	tests := []struct {
		topo           string
		op             collectives.CollectiveOp
		alg, phases    string
		payload, chunk int64
	}{
		{"8x1x1", collectives.OpAllReduce, "halving-doubling", "", 20_000, 8192},
		{"4x2x2", collectives.OpReduceScatter, "halving-doubling", "", 30_011, 4096},
		{"4x2x2", collectives.OpAllGather, "halving-doubling", "", 30_011, 4096},
		{"4x4x4", collectives.OpAllReduce, "hierarchical", "rs:local:halving-doubling,ar:vertical:ring,ar:horizontal:ring,ag:local:halving-doubling", 100_000, 65536},
		{"2x3x4", collectives.OpAllToAll, "direct", "", 30_011, 8192},
	}
	for _, tc := range tests {
		t.Run(tc.topo+"/"+tc.op.String()+"/"+tc.alg, func(t *testing.T) {
			p := plan(t, tc.topo, tc.op, tc.alg, tc.payload, tc.chunk, 8192,
				func(c *collectives.Config) { c.PhaseSpec = tc.phases })
			dc, err := NewDataCheck(p)
			require.NoError(t, err)
			k := rtl.NewKernel()
			net, err := torus.BuildNetwork(k, torus.ShapeOf(p.Machine), torus.DefaultLinks())
			require.NoError(t, err)
			cfg := npu.DefaultIdeal()
			cfg.Data, cfg.Observer = &npu.DataHooks{Init: dc.Hook}, dc
			res, err := npu.RunIdeal(k, net, p, cfg)
			require.NoError(t, err)
			require.NoError(t, dc.Result())
			require.Greater(t, res.Cycles, rtl.Cycle(0))
		})
	}
}

// runShuffled executes plan's chunk c like RunChunk but completes ready ops
// in a random order: any order the dependences and message arrivals allow,
// as a timed run with other link speeds might. Programs whose dependences
// miss a hazard (a send before the data it must carry is in, two writes to
// the same bytes in the wrong order, an overwrite before a send) fail here
// for some seed even when the in-order run passes.
func runShuffled(plan *collectives.Plan, c int, init Values, rng *rand.Rand) (Values, error) {
	n := plan.Machine.N()
	clen := plan.ChunkLen(c)
	vals := make(Values, n)
	for i := range vals {
		vals[i] = append([]int64(nil), init[i]...)
	}
	type ref struct{ npu, op int }
	for ph := 0; ph < plan.NumPhases(); ph++ {
		progs := make([]*collectives.Program, n)
		left := make([][]int, n)         // unmet dependences
		arrived := make([][][]int64, n)  // a receive's message
		dependents := make([][][]int, n) // ops waiting for each op
		var ready []ref
		total := 0
		isReady := func(r ref) bool {
			op := progs[r.npu].Ops[r.op]
			return left[r.npu][r.op] == 0 && (op.Kind == collectives.Send || arrived[r.npu][r.op] != nil)
		}
		for i := range progs {
			progs[i] = plan.Program(i, ph, clen)
			ops := progs[i].Ops
			total += len(ops)
			left[i] = make([]int, len(ops))
			arrived[i] = make([][]int64, len(ops))
			dependents[i] = make([][]int, len(ops))
			for j, op := range ops {
				left[i][j] = len(op.Deps)
				for _, d := range op.Deps {
					dependents[i][d] = append(dependents[i][d], j)
				}
				if isReady(ref{i, j}) {
					ready = append(ready, ref{i, j})
				}
			}
		}
		for done := 0; done < total; done++ {
			if len(ready) == 0 {
				return nil, fmt.Errorf("phase %d: stuck after %d of %d ops", ph+1, done, total)
			}
			k := rng.IntN(len(ready))
			r := ready[k]
			ready[k] = ready[len(ready)-1]
			ready = ready[:len(ready)-1]
			prog := progs[r.npu]
			op := prog.Ops[r.op]
			if op.Kind == collectives.Send {
				buf := make([]int64, op.Data.Len)
				for x := range buf {
					buf[x] = vals[r.npu][viewIndex(prog.View, op.Data.Off+int64(x))]
				}
				arrived[op.Peer][op.Match] = buf
				if pr := (ref{int(op.Peer), int(op.Match)}); isReady(pr) {
					ready = append(ready, pr)
				}
			} else {
				for x, v := range arrived[r.npu][r.op] {
					j := viewIndex(prog.View, op.Data.Off+int64(x))
					if op.Reduce {
						vals[r.npu][j] += v
					} else {
						vals[r.npu][j] = v
					}
				}
			}
			for _, d := range dependents[r.npu][r.op] {
				left[r.npu][d]--
				if dr := (ref{r.npu, d}); isReady(dr) {
					ready = append(ready, dr)
				}
			}
		}
	}
	return vals, nil
}

// Halving-doubling's and the direct all-to-all's dependences are enough in
// any execution order, not only in program order: 30 random orders each.
// (Dropping halving-doubling's receive dependences or the direct
// all-to-all's receive-after-send dependence fails here, though Check, which
// runs in program order, still passes.)
func TestDependencesHoldInAnyOrder(t *testing.T) {
	tests := []struct {
		topo        string
		op          collectives.CollectiveOp
		alg, phases string
	}{
		{"8x1x1", collectives.OpAllReduce, "halving-doubling", ""},
		{"4x2x2", collectives.OpAllReduce, "halving-doubling", ""},
		{"4x2x2", collectives.OpReduceScatter, "halving-doubling", ""},
		{"4x2x2", collectives.OpAllGather, "halving-doubling", ""},
		{"8x2x2", collectives.OpAllReduce, "hierarchical", "rs:local:halving-doubling,ar:vertical:ring,ar:horizontal:ring,ag:local:halving-doubling"},
		{"2x3x4", collectives.OpAllToAll, "direct", ""},
		{"3x3x3", collectives.OpAllToAll, "direct", ""},
		// The ring-based algorithms, for comparison.
		{"4x2x2", collectives.OpAllReduce, "ring", ""},
		{"2x3x4", collectives.OpAllReduce, "hierarchical", ""},
		{"2x3x4", collectives.OpAllReduce, "blueconnect", ""},
	}
	for _, tc := range tests {
		t.Run(tc.topo+"/"+tc.op.String()+"/"+tc.alg, func(t *testing.T) {
			p := plan(t, tc.topo, tc.op, tc.alg, 1003, 1003, 40,
				func(c *collectives.Config) { c.PhaseSpec = tc.phases })
			e, err := Expect(p, 0)
			require.NoError(t, err)
			for seed := uint64(0); seed < 30; seed++ {
				got, err := runShuffled(p, 0, e.Init, rand.New(rand.NewPCG(seed, 1)))
				require.NoError(t, err)
				require.NoError(t, e.Compare(got, 0), "seed %d", seed)
			}
		})
	}
}

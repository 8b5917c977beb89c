package verify

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// A pipelined tree's progress goes piece by piece (8 KiB messages) on the
// ideal endpoint and the baseline, and chunk by chunk on ACE, which keeps
// a chunk in its SRAM until it writes it back. On dgx1, a one-chunk
// all-reduce of 256 KiB on each tree algorithm: read independently from
// the NPUs' own op events (observe.OpDone), a piece is final on an NPU
// when the last op its program lists for it is done, and final everywhere
// at the latest NPU's; the bytes reported at each cycle are the longest
// prefix of pieces final everywhere by then. The overlapped trees report
// their first piece sooner (the gradient turnaround, the C-Cube paper's
// Section III-B).
func TestProgressPieceByPieceOnTrees(t *testing.T) {
	const size = 256 << 10
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	first := map[string]rtl.Cycle{}
	for _, alg := range []string{"tree", "tree-overlapped", "double-tree", "double-tree-overlapped"} {
		plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce, MessageBytes: 8192}, alg, size, size)
		require.NoError(t, err)
		for _, endpoint := range []string{"ideal", "baseline", "ace"} {
			t.Run(alg+"/"+endpoint, func(t *testing.T) {
				k := rtl.NewKernel()
				net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
				require.NoError(t, err)
				opDone := map[[2]int]rtl.Cycle{} // (NPU, op) → cycle
				obs := observe.Func(func(e observe.Event) {
					if e.Kind == observe.OpDone {
						opDone[[2]int{e.NPU, e.Op}] = e.Cycle
					}
				})
				var e afi.Runner
				switch endpoint {
				case "ideal":
					cfg := npu.DefaultIdeal()
					cfg.Observer = obs
					e, err = npu.NewIdealEngine(k, net, spec.Machine, cfg)
				case "baseline":
					cfg := npu.DefaultBaseline(6, big.NewRat(450, 1))
					cfg.Observer = obs
					e, err = npu.NewBaselineEngine(k, net, spec.Machine, cfg)
				case "ace":
					e, err = ace.NewEngine(k, net, plan, ace.Default(), nil)
				}
				require.NoError(t, err)
				got := map[rtl.Cycle]int64{}
				var done rtl.Cycle
				require.NoError(t, e.IssueWith(0, plan, afi.IssueOptions{
					Done:     func(now rtl.Cycle) { done = now },
					Progress: func(now rtl.Cycle, b int64) { got[now] = b },
				}))
				k.Run()
				require.NoError(t, e.Stuck())
				if endpoint == "ace" {
					require.Equal(t, map[rtl.Cycle]int64{done: size}, got, "ACE: the chunk at its write-back")
					return
				}
				// Each piece's cycle final everywhere, from the op events.
				finals := plan.Program(0, 0, size).Finals
				final := make([]rtl.Cycle, len(finals))
				for n := range 8 {
					for j, f := range plan.Program(n, 0, size).Finals {
						require.Equal(t, finals[j].Data, f.Data)
						for _, op := range f.Ops {
							c, ok := opDone[[2]int{n, int(op)}]
							require.True(t, ok)
							final[j] = max(final[j], c)
						}
					}
				}
				want := map[rtl.Cycle]int64{}
				var by rtl.Cycle // the prefix of pieces 0..j is final by the latest of their cycles
				for j, f := range finals {
					by = max(by, final[j])
					want[by] = f.Data.End()
				}
				require.Equal(t, want, got)
				require.Greater(t, len(got), 1, "more than one report")
				var firstAt rtl.Cycle = done
				for c := range got {
					firstAt = min(firstAt, c)
				}
				first[fmt.Sprint(alg, "/", endpoint)] = firstAt
			})
		}
	}
	for _, endpoint := range []string{"ideal", "baseline"} {
		for _, pair := range [][2]string{{"tree", "tree-overlapped"}, {"double-tree", "double-tree-overlapped"}} {
			require.Less(t, first[pair[1]+"/"+endpoint], first[pair[0]+"/"+endpoint], "%s: %s turns its first piece around sooner", endpoint, pair[1])
		}
	}
}

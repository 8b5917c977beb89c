package verify

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// chunkEngine is an engine that reports chunks.
type chunkEngine interface {
	IssueChunks(now rtl.Cycle, plan *collectives.Plan, done func(now rtl.Cycle), chunk func(now rtl.Cycle, chunk int)) error
	Stuck() error
}

// Per-chunk completion, on every endpoint: an all-reduce of 10 chunks on
// 4x2x1 reports chunks 0 to 9 in order, chunk k at the latest cycle any
// chunk up to k finished on any NPU (read independently, from the
// observer's ChunkDone events), the last at the collective's own end.
func TestChunksAreReportedInOrderOnEveryEndpoint(t *testing.T) {
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	plan := plan(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 10*4096, 4096, 1024, nil)
	require.Equal(t, 10, plan.NumChunks())
	for _, endpoint := range []string{"ideal", "baseline", "ace"} {
		t.Run(endpoint, func(t *testing.T) {
			k := rtl.NewKernel()
			net, err := torus.BuildNetwork(k, shape, torus.DefaultLinks())
			require.NoError(t, err)
			finished := make([]rtl.Cycle, plan.NumChunks()) // the latest NPU's ChunkDone per chunk
			obs := observe.Func(func(e observe.Event) {
				if e.Kind == observe.ChunkDone {
					finished[e.Chunk] = max(finished[e.Chunk], e.Cycle)
				}
			})
			var e chunkEngine
			switch endpoint {
			case "ideal":
				cfg := npu.DefaultIdeal()
				cfg.Observer = obs
				e, err = npu.NewIdealEngine(k, net, shape, cfg)
			case "baseline":
				cfg := npu.DefaultBaseline(6, big.NewRat(450, 1))
				cfg.Observer = obs
				e, err = npu.NewBaselineEngine(k, net, shape, cfg)
			case "ace":
				e, err = ace.NewEngine(k, net, plan, ace.Default(), &ace.Hooks{Observer: obs})
			}
			require.NoError(t, err)
			var reported []int
			var at []rtl.Cycle
			var done rtl.Cycle
			require.NoError(t, e.IssueChunks(0, plan, func(now rtl.Cycle) { done = now }, func(now rtl.Cycle, c int) {
				reported = append(reported, c)
				at = append(at, now)
			}))
			k.Run()
			require.NoError(t, e.Stuck())
			require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, reported)
			var latest rtl.Cycle
			for c, cycle := range at {
				latest = max(latest, finished[c])
				require.Equal(t, latest, cycle, "chunk %d", c)
			}
			require.Equal(t, done, at[len(at)-1])
		})
	}
}

package verify

import (
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// Progress where an algorithm declares no pieces goes chunk by chunk, on
// every endpoint: an all-reduce of 10 chunks of 4096 B on 4x2x1 reports,
// at each cycle it reports, the chunks before the first not yet finished
// on every NPU as of then (read independently, from the observer's
// ChunkDone events), one report a cycle, growing, the last the whole
// 40960 B at the collective's own end.
func TestProgressChunkByChunk(t *testing.T) {
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	plan := plan(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 10*4096, 4096, 1024, nil)
	require.Equal(t, 10, plan.NumChunks())
	for _, endpoint := range testEndpoints {
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
			e := newTestEngine(t, endpoint, k, net, shape, plan, nil, obs)
			got := map[rtl.Cycle]int64{}
			var done rtl.Cycle
			require.NoError(t, e.IssueWith(0, plan, afi.IssueOptions{Done: func(now rtl.Cycle) { done = now },
				Progress: func(now rtl.Cycle, b int64) {
					_, twice := got[now]
					require.False(t, twice, "one report a cycle")
					got[now] = b
				}}))
			k.Run()
			require.NoError(t, e.Stuck())
			want := map[rtl.Cycle]int64{}
			var by rtl.Cycle // chunks 0..c are all finished by the latest of their cycles
			for c, cycle := range finished {
				by = max(by, cycle)
				want[by] = int64(c+1) * 4096
			}
			require.Equal(t, want, got)
			require.Equal(t, int64(10*4096), got[done])
		})
	}
}

// A priority puts a collective ahead of those in flight: under FIFO a
// small all-reduce issued at cycle 100 behind a large one finishes sooner
// with a lower priority value than with the same priority, on every
// endpoint (its messages go first at the ports; on ACE its chunks take SRAM
// room before the large one's not yet loaded), and both still end with the
// right data.
func TestPriorityPutsACollectiveAhead(t *testing.T) {
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	large := plan(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 64*4096, 4096, 1024, nil)
	small := plan(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 4*4096, 4096, 1024, nil)
	for _, endpoint := range testEndpoints {
		end := func(priority int32) rtl.Cycle {
			k := rtl.NewKernel()
			net, err := torus.BuildNetwork(k, shape, torus.DefaultLinks())
			require.NoError(t, err)
			ds, err := NewDataChecks(large, small)
			require.NoError(t, err)
			e := newTestEngine(t, endpoint, k, net, shape, large, ds.Hook, ds)
			e.SetOrder(afi.FIFO)
			var smallEnd rtl.Cycle
			require.NoError(t, e.IssueWith(0, large, afi.IssueOptions{}))
			require.NoError(t, e.IssueWith(100, small, afi.IssueOptions{Done: func(now rtl.Cycle) { smallEnd = now }, Priority: priority}))
			k.Run()
			require.NoError(t, e.Stuck())
			require.NoError(t, ds.Result(), endpoint)
			return smallEnd
		}
		same, first := end(0), end(-1)
		require.Less(t, first, same, "%s: the small all-reduce ends at %d with priority -1, %d with 0", endpoint, first, same)
	}
}

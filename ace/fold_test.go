package ace

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// aceFoldRun issues collectives of op (sizes and issue cycles) on ACE over a
// full or a folded network and describes what it measured.
func aceFoldRun(t *testing.T, topo string, folded, lifo bool, op collectives.CollectiveOp, alg string, sizes []int64, at []rtl.Cycle) string {
	s, err := torus.Parse(topo)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.Build(k, s, torus.DefaultLinks(), folded)
	require.NoError(t, err)
	cfg := collectives.Config{Machine: s.Machine(), Op: op, MessageBytes: 8192}
	layout, err := collectives.NewPlan(cfg, alg, 65536, 65536)
	require.NoError(t, err)
	e, err := NewEngine(k, net, layout, Default(), nil)
	require.NoError(t, err)
	e.SetOrder(orderOf(lifo))
	ends := make([]rtl.Cycle, len(sizes))
	for i, n := range sizes {
		plan, err := collectives.NewPlan(cfg, alg, n, 65536)
		require.NoError(t, err)
		require.NoError(t, e.Issue(at[i], plan, func(now rtl.Cycle) { ends[i] = now }))
	}
	k.Run()
	require.NoError(t, e.Stuck())
	st := e.Stats(k.Now())
	var lb big.Rat
	for _, l := range net.Links {
		lb.Add(&lb, l.BusyCycles())
	}
	lb.Quo(&lb, big.NewRat(int64(len(net.Links)), 1))
	return fmt.Sprintf("ends %v sent %d read %d write %d util %.9f sram %.9f/%.9f alu %.9f fsm %.9f links %s",
		ends, rtl.Mean(st.BytesSent), rtl.Mean(st.MemRead), rtl.Mean(st.MemWrite), st.Utilization,
		st.SRAMRead, st.SRAMWrite, st.ALU, st.FSM, lb.RatString())
}

func TestACEFoldedEqualsFull(t *testing.T) {
	for _, topo := range []string{"4x2x2", "2x2x2", "4x4x1", "2x4x2", "8x1x1"} {
		for _, lifo := range []bool{false, true} {
			sizes, at := []int64{1 << 20, 300 << 10, 128 << 10}, []rtl.Cycle{0, 5000, 5000}
			full := aceFoldRun(t, topo, false, lifo, collectives.OpAllReduce, "hierarchical", sizes, at)
			fold := aceFoldRun(t, topo, true, lifo, collectives.OpAllReduce, "hierarchical", sizes, at)
			require.Equal(t, full, fold, "%s lifo=%v", topo, lifo)
			t.Log(topo, lifo, full)
		}
		full := aceFoldRun(t, topo, false, false, collectives.OpAllToAll, "direct", []int64{512 << 10}, []rtl.Cycle{0})
		fold := aceFoldRun(t, topo, true, false, collectives.OpAllToAll, "direct", []int64{512 << 10}, []rtl.Cycle{0})
		require.Equal(t, full, fold, "%s all-to-all", topo)
		t.Log(topo, "a2a", full)
	}
}

// DLRM's pattern on one engine: all-to-alls beside all-reduces (docs/ace-model.md).
// Every collective finishes, each byte is loaded and written back once
// (memory read = write = the payloads), an all-to-all issued behind a long
// all-reduce overtakes it under LIFO, and one NPU on a folded network
// measures what every NPU of the full one does.
func TestACEServesAllToAllBesideAllReduce(t *testing.T) {
	run := func(topo string, folded, lifo bool) (string, []rtl.Cycle) {
		s, err := torus.Parse(topo)
		require.NoError(t, err)
		k := rtl.NewKernel()
		net, err := torus.Build(k, s, torus.DefaultLinks(), folded)
		require.NoError(t, err)
		ar := collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}
		a2a := collectives.Config{Machine: s.Machine(), Op: collectives.OpAllToAll, MessageBytes: 8192}
		layout, err := collectives.NewPlan(ar, "hierarchical", 65536, 65536)
		require.NoError(t, err)
		e, err := NewEngine(k, net, layout, Default(), nil)
		require.NoError(t, err)
		e.SetOrder(orderOf(lifo))
		big, err := collectives.NewPlan(ar, "hierarchical", 4<<20, 65536)
		require.NoError(t, err)
		x, err := collectives.NewPlan(a2a, "direct", 256<<10, 65536)
		require.NoError(t, err)
		small, err := collectives.NewPlan(ar, "hierarchical", 128<<10, 65536)
		require.NoError(t, err)
		ends := make([]rtl.Cycle, 3)
		for i, p := range []*collectives.Plan{big, x, small} {
			require.NoError(t, e.Issue(rtl.Cycle(1000*i), p, func(now rtl.Cycle) { ends[i] = now }))
		}
		k.Run()
		require.NoError(t, e.Stuck())
		require.Zero(t, e.Unfinished())
		st := e.Stats(k.Now())
		payload := int64(4<<20 + 256<<10 + 128<<10)
		require.Equal(t, payload, rtl.Mean(st.MemRead))
		require.Equal(t, payload, rtl.Mean(st.MemWrite))
		// Nothing is left over: every partition's room, every FSM's queue
		// and every count of chunks waiting for an FSM is back to empty.
		for _, nd := range e.r.nodes {
			require.Equal(t, make([]int64, len(nd.used)), nd.used, "NPU %d partitions", nd.id)
			require.Equal(t, make([]int, len(nd.waiting)), nd.waiting, "NPU %d waiting", nd.id)
			for f := range nd.fsmQ {
				require.Empty(t, nd.fsmQ[f], "NPU %d FSM %d", nd.id, f)
				require.Zero(t, nd.fsmNext[f].Len(), "NPU %d FSM %d", nd.id, f)
			}
		}
		return fmt.Sprintf("ends %v sent %d util %.9f sram %.9f", ends, rtl.Mean(st.BytesSent), st.Utilization, st.SRAMRead), ends
	}
	for _, topo := range []string{"4x2x2", "2x2x2"} {
		full, fifoEnds := run(topo, false, false)
		fold, _ := run(topo, true, false)
		require.Equal(t, full, fold, topo)
		fullL, lifoEnds := run(topo, false, true)
		foldL, _ := run(topo, true, true)
		require.Equal(t, fullL, foldL, topo)
		require.Less(t, lifoEnds[1], fifoEnds[1], "%s: LIFO lets the all-to-all overtake the all-reduce's unloaded chunks", topo)
		require.Less(t, lifoEnds[1], lifoEnds[0], topo)
	}
}

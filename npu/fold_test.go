package npu

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// foldRun issues the collectives (op, bytes, issue cycle) on an engine of
// kind ("ideal" or "baseline") over a full or folded network and returns
// each one's finishing cycle and the mean traffic per NPU.
type foldColl struct {
	op    collectives.CollectiveOp
	bytes int64
	at    rtl.Cycle
}

func foldRun(t *testing.T, topo, kind string, folded bool, pol afi.Order, colls []foldColl) string {
	s, err := torus.Parse(topo)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.Build(k, s, torus.DefaultLinks(), folded)
	require.NoError(t, err)
	var e *Engine
	if kind == "ideal" {
		e, err = NewIdealEngine(k, net, s.Machine(), DefaultIdeal())
	} else {
		e, err = NewBaselineEngine(k, net, s.Machine(), DefaultBaseline(2, big.NewRat(128, 1)))
	}
	require.NoError(t, err)
	e.SetOrder(pol)
	ends := make([]rtl.Cycle, len(colls))
	for i, c := range colls {
		alg := "hierarchical"
		if c.op == collectives.OpAllToAll {
			alg = "direct"
		}
		plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: c.op, MessageBytes: 8192}, alg, c.bytes, 65536)
		require.NoError(t, err)
		require.NoError(t, e.Issue(c.at, plan, func(now rtl.Cycle) { ends[i] = now }))
	}
	k.Run()
	require.NoError(t, e.Stuck())
	sent, rd, wr := e.Traffic()
	busy := e.SMBusy(k.Now())
	var lb big.Rat
	for _, l := range net.Links {
		lb.Add(&lb, l.BusyCycles())
	}
	lb.Quo(&lb, big.NewRat(int64(len(net.Links)), 1))
	return fmt.Sprintf("ends %v sent %d read %d write %d smbusy %.9f linkbusy %s", ends, rtl.Mean(sent), rtl.Mean(rd), rtl.Mean(wr), busy, lb.RatString())
}

// One NPU on a folded network measures exactly what every NPU of the full
// network does, on the ideal and the baseline endpoints, for all-reduces and
// an all-to-all (routed over several hops) in flight together, under both
// priorities: finishing cycles, traffic, SM busy time and link busy time.
func TestFoldedEqualsFull(t *testing.T) {
	for _, topo := range []string{"4x2x2", "2x2x2", "4x4x1", "2x4x2", "8x1x1", "1x8x1"} {
		for _, kind := range []string{"ideal", "baseline"} {
			colls := []foldColl{{collectives.OpAllReduce, 1 << 20, 0}, {collectives.OpAllReduce, 300 << 10, 5000}, {collectives.OpAllToAll, 256 << 10, 7000}}
			for _, pol := range []afi.Order{afi.FIFO, afi.LIFO} {
				full := foldRun(t, topo, kind, false, pol, colls)
				fold := foldRun(t, topo, kind, true, pol, colls)
				require.Equal(t, full, fold, "%s %s %v", topo, kind, pol)
				t.Log(topo, kind, pol, full)
			}
		}
	}
}

// A folded network refuses what it cannot stand for: a plan whose NPUs run
// different programs (near-equal splits on a ring of 3), and data checks.
func TestFoldedRefusals(t *testing.T) {
	s, err := torus.Parse("3x1x1")
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildFoldedNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	e, err := NewIdealEngine(k, net, s.Machine(), DefaultIdeal())
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}, "hierarchical", 65536, 65536)
	require.NoError(t, err)
	require.ErrorContains(t, e.Issue(0, plan, nil), "does not run NPU 0's program translated")
	_, err = NewIdealEngine(k, net, s.Machine(), IdealConfig{ProcessCycles: 1, Data: &DataHooks{}})
	require.ErrorContains(t, err, "cannot carry every NPU's data")
}

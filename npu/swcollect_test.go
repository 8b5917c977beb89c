package npu

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// switchRun is one random configuration on a switch fabric: its tiers,
// links and buffers, the endpoint (ideal, or the baseline's SMs), which
// links are observed, and collectives issued at random cycles.
type switchRun struct {
	topo     string
	links    topology.LinkSettings
	baseline *BaselineConfig
	// observeAll: every link is observed; else only those leaving a
	// switch, so that the links into switches are collected (an observed
	// link keeps its arrival events, fabric.Collector).
	observeAll bool
	lifo       bool
	plans      []absorbPlan
	issueGaps  []rtl.Cycle
}

func randomSwitchRun(r *rand.Rand) switchRun {
	topos := []string{"switch:2x2", "switch:4x2", "switch:2x4", "switch:3x2", "switch:2x2x2", "switch:4", "switch:2x3", "switch:3x3"}
	l := randomLinks(r)
	if r.IntN(6) != 0 { // mostly credit latencies of a cycle or more, which let the switches collect
		l.Intra.CreditLatency = max(l.Intra.CreditLatency, 1)
		l.Inter.CreditLatency = max(l.Inter.CreditLatency, 1)
	}
	run := switchRun{
		topo:       topos[r.IntN(len(topos))],
		links:      topology.LinkSettings{Intra: l.Intra, Inter: l.Inter, TxBuffer: 1 + r.IntN(40), RxBuffer: 1 + r.IntN(140)},
		observeAll: r.IntN(4) == 0,
		lifo:       r.IntN(2) == 0,
	}
	if r.IntN(3) == 0 {
		cfg := DefaultBaseline(1+r.IntN(12), big.NewRat(int64(20+r.IntN(900)), 1))
		run.baseline = &cfg
	}
	a := randomAbsorbRun(r) // its collectives: algorithms, sizes, chunks, messages and gaps
	run.plans, run.issueGaps = a.plans, a.issueGaps
	return run
}

// switchResult is what a run of switchTrace saw: the observed packets
// (sorted), each NPU's op events in order, each collective's end, every
// link's counts, and the kernel's events.
type switchResult struct {
	packets, ops, links []string
	ends                []rtl.Cycle
	events              uint64
	trains              int64 // moved on links into switches
}

// switchTrace runs c with per-packet events or without; ok is false for
// a configuration the algorithms refuse.
func switchTrace(t *testing.T, c switchRun, perPacket bool) (res switchResult, ok bool) {
	spec, err := topology.Parse(c.topo)
	require.NoError(t, err)
	m := spec.Machine
	var plans []*collectives.Plan
	for _, p := range c.plans {
		plan, err := collectives.NewPlan(collectives.Config{Machine: m, Op: p.op, MessageBytes: p.msg}, p.alg, p.size, p.chunk)
		if err != nil {
			return res, false
		}
		plans = append(plans, plan)
	}
	k := rtl.NewKernel()
	net, err := spec.Build(k, c.links, false)
	require.NoError(t, err)
	net.SetPerPacket(perPacket)
	obs := observe.Func(func(e observe.Event) { res.packets = append(res.packets, packetLine(e)) })
	for _, l := range net.Links {
		if c.observeAll || l.Src >= net.NPUs() {
			l.SetObserver(obs)
		}
	}
	byNPU := make([][]string, m.N())
	npuObs := observe.Func(func(e observe.Event) { byNPU[e.NPU] = append(byNPU[e.NPU], opLine(e)) })
	var e *Engine
	if c.baseline != nil {
		cfg := *c.baseline
		cfg.Observer = npuObs
		e, err = NewBaselineEngine(k, net, m, cfg)
	} else {
		e, err = NewIdealEngine(k, net, m, IdealConfig{ProcessCycles: 1, Observer: npuObs})
	}
	require.NoError(t, err)
	issuePlans(t, e, c.lifo, plans, c.issueGaps, &res.ends)
	k.Run()
	require.NoError(t, e.Stuck())
	slices.Sort(res.packets)
	res.ops = slices.Concat(byNPU...)
	for _, l := range net.Links {
		res.links = append(res.links, fmt.Sprintf("%s: %d packets, %d B, busy %s, idle %v", l, l.Packets(), l.Bytes(), l.BusyCycles().RatString(), l.Idle()))
	}
	for _, l := range net.Links {
		if l.Dst >= net.NPUs() {
			res.trains += l.Trains().Trains
		}
	}
	for _, sw := range net.Switches() {
		require.Zero(t, sw.Held(), "%s", sw)
	}
	res.events = k.Events()
	return res, true
}

// Switches collecting their input links' packets (fabric.Switch.Collects)
// change nothing, with the endpoints' own spared events beside them: on
// random switch fabrics (tiers and fan-outs, link rates, latencies,
// buffers and credit latencies, zero included, which turns collecting
// off), the ideal and the baseline endpoint, several collectives in
// flight under either policy, every observed packet (those leaving
// switches, or all) is sent and received at the same cycle, every op
// event comes in the same order at the same cycle on every NPU, every
// collective ends at the same cycle and every link sends the same
// packets, bytes and busy time, as on the per-packet path
// (fabric.Network.SetPerPacket). Runs whose links into switches are
// unobserved run fewer events.
func TestSwitchesCollectingChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 11))
	ran, fewer, refEvents, gotEvents, trains := 0, 0, uint64(0), uint64(0), int64(0)
	for i := 0; i < 200 && ran < 60; i++ {
		c := randomSwitchRun(r)
		ref, ok := switchTrace(t, c, true)
		if !ok {
			continue
		}
		got, _ := switchTrace(t, c, false)
		require.Equal(t, ref.ends, got.ends, "%+v", c)
		require.Equal(t, ref.ops, got.ops, "%+v", c)
		require.Equal(t, ref.packets, got.packets, "%+v", c)
		require.Equal(t, ref.links, got.links, "%+v", c)
		ran++
		require.Zero(t, ref.trains)
		refEvents += ref.events
		gotEvents += got.events
		trains += got.trains
		if !c.observeAll && c.links.Intra.CreditLatency > 0 && c.links.Inter.CreditLatency > 0 {
			require.Less(t, got.events, ref.events, "%+v", c)
			fewer++
		}
	}
	t.Logf("%d configurations, %d collected; events %d per packet, %d without; %d trains into switches", ran, fewer, refEvents, gotEvents, trains)
	require.GreaterOrEqual(t, ran, 40)
	require.GreaterOrEqual(t, fewer, 20)
	require.Positive(t, trains)
}

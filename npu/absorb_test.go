package npu

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// absorbRun is one random configuration: collectives issued on the ideal
// endpoint at random cycles, over links of random rates, latencies and
// buffers, on a full or folded torus.
type absorbRun struct {
	topo      string
	links     torus.LinkConfig
	folded    bool
	lifo      bool
	plans     []absorbPlan
	issueGaps []rtl.Cycle
}

type absorbPlan struct {
	op               collectives.CollectiveOp
	alg              string
	size, chunk, msg int64
}

func randomLinks(r *rand.Rand) torus.LinkConfig {
	link := func(name string) fabric.LinkParams {
		rate := rtl.MustRateGBps(big.NewRat(int64(5+r.IntN(300)), 1), big.NewRat(int64(50+r.IntN(51)), 100))
		lat := rtl.Cycle(r.IntN(600))
		credit := lat
		if r.IntN(3) == 0 {
			credit = rtl.Cycle(r.IntN(50))
		}
		return fabric.LinkParams{Name: name, Rate: rate, Latency: lat, TxBuffer: 1 + r.IntN(40), RxBuffer: 1 + r.IntN(140), CreditLatency: credit}
	}
	return torus.LinkConfig{Intra: link("intra"), Inter: link("inter")}
}

func randomAbsorbRun(r *rand.Rand) absorbRun {
	topos := []string{"2x1x1", "4x1x1", "3x1x1", "1x4x1", "2x2x1", "4x2x1", "2x2x2", "4x2x2", "3x3x1", "2x3x2"}
	run := absorbRun{topo: topos[r.IntN(len(topos))], links: randomLinks(r), folded: r.IntN(3) == 0, lifo: r.IntN(2) == 0}
	algs := []struct {
		op  collectives.CollectiveOp
		alg string
	}{
		{collectives.OpAllReduce, "hierarchical"}, {collectives.OpAllReduce, "ring"}, {collectives.OpReduceScatter, "hierarchical"},
		{collectives.OpAllGather, "hierarchical"}, {collectives.OpAllToAll, "direct"}, {collectives.OpAllReduce, "double-tree"},
		{collectives.OpAllReduce, "halving-doubling"},
	}
	for i := 1 + r.IntN(3); i > 0; i-- {
		a := algs[r.IntN(len(algs))]
		msg := []int64{256, 1000, 4096, 8192}[r.IntN(4)]
		run.plans = append(run.plans, absorbPlan{op: a.op, alg: a.alg, size: int64(1 + r.IntN(120_000)), chunk: int64(4096 + r.IntN(65536)), msg: msg})
		run.issueGaps = append(run.issueGaps, rtl.Cycle(r.IntN(3000)))
	}
	return run
}

// absorbResult is what a run of absorbTrace saw: the packets sent and
// received on every link (sorted: a spared arrival is reported when its
// packet is sent, a train's packets when its events are done), each NPU's
// op events in order, each collective's end, and the links' spared
// arrivals and trains.
type absorbResult struct {
	packets, ops             []string
	ends                     []rtl.Cycle
	absorbed, trains, atOnce int64
	drains, closed           int64
	programs                 int // programs whose Info the engine derived
}

// absorbTrace runs c with per-packet events (arrivals and starts) or
// without, on an engine set up further by each of with; ok is false for a
// configuration the algorithms refuse.
func absorbTrace(t *testing.T, c absorbRun, perPacket bool, with ...func(*Engine)) (res absorbResult, ok bool) {
	ideal := func(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, obs observe.Observer) (*Engine, error) {
		return NewIdealEngine(k, net, m, IdealConfig{ProcessCycles: 1, Observer: obs})
	}
	res, net, _, ok := traceRun(t, c, perPacket, ideal, nil, with...)
	if !ok {
		return res, false
	}
	for _, l := range net.Links {
		res.absorbed += l.Absorbed()
		c := l.Trains()
		res.trains += c.Trains
		res.drains += c.Drains
		res.closed += c.Closed
		res.atOnce += c.AtOnce
	}
	return res, true
}

// engineMaker makes the engine a traced run uses, with obs its observer.
type engineMaker func(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, obs observe.Observer) (*Engine, error)

// traceRun runs c on the engine mk makes, with per-packet events or
// without, after before (if not nil) has scheduled what it adds: the
// packets sent and received on every link (sorted: a spared arrival is
// reported when its packet is sent, a train's packets when its events are
// done), each NPU's op events in order and each collective's end, with
// the network and the kernel, on an engine set up further by each of
// with; ok is false for a configuration the algorithms refuse.
func traceRun(t *testing.T, c absorbRun, perPacket bool, mk engineMaker, before func(*rtl.Kernel, *Engine), with ...func(*Engine)) (res absorbResult, net *fabric.Network, k *rtl.Kernel, ok bool) {
	s, err := torus.Parse(c.topo)
	require.NoError(t, err)
	var plans []*collectives.Plan
	for _, p := range c.plans {
		plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: p.op, MessageBytes: p.msg}, p.alg, p.size, p.chunk)
		if err != nil {
			return res, nil, nil, false // a size or shape the algorithm refuses
		}
		if c.folded && collectives.CheckEquivariant(plan) != nil {
			return res, nil, nil, false
		}
		plans = append(plans, plan)
	}
	k = rtl.NewKernel()
	net, err = torus.Build(k, s, c.links, c.folded)
	require.NoError(t, err)
	net.SetPerPacket(perPacket)
	net.SetObserver(observe.Func(func(e observe.Event) { res.packets = append(res.packets, packetLine(e)) }))
	// Within a cycle, different NPUs' events may run in another order (the
	// kernel orders each NPU's events by class and scheduling, not one
	// NPU's against another's: they do not interact within a cycle); each
	// NPU's own sequence must be the same.
	byNPU := make([][]string, s.N())
	e, err := mk(k, net, s.Machine(), observe.Func(func(e observe.Event) { byNPU[e.NPU] = append(byNPU[e.NPU], opLine(e)) }))
	require.NoError(t, err)
	for _, f := range with {
		f(e)
	}
	issuePlans(t, e, c.lifo, plans, c.issueGaps, &res.ends)
	if before != nil {
		before(k, e)
	}
	k.Run()
	require.NoError(t, e.Stuck())
	res.programs = len(e.r.info)
	slices.Sort(res.packets)
	res.ops = slices.Concat(byNPU...)
	return res, net, k, true
}

// packetLine is a packet event as the traces compare it.
func packetLine(e observe.Event) string {
	return fmt.Sprintf("%d %d %d link %d %d→%d c%d p%d o%d #%d %dB", e.Kind, e.Cycle, e.End, e.Link, e.Src, e.Dst, e.Chunk, e.Phase, e.Op, e.Index, e.Bytes)
}

// opLine is an NPU's op event as the traces compare it.
func opLine(e observe.Event) string {
	return fmt.Sprintf("%d %d npu %d c%d p%d o%d", e.Kind, e.Cycle, e.NPU, e.Chunk, e.Phase, e.Op)
}

// issuePlans issues plans on e, each gaps[i] cycles after the one before,
// under the FIFO policy or LIFO, each collective's end going into ends.
func issuePlans(t *testing.T, e *Engine, lifo bool, plans []*collectives.Plan, gaps []rtl.Cycle, ends *[]rtl.Cycle) {
	e.SetOrder(afi.FIFO)
	if lifo {
		e.SetOrder(afi.LIFO)
	}
	at := rtl.Cycle(0)
	for i, plan := range plans {
		at += gaps[i]
		require.NoError(t, e.Issue(at, plan, func(now rtl.Cycle) { *ends = append(*ends, now) }))
	}
}

// Sparing arrival events (fabric.Absorber) and moving trains
// (fabric.Feeder) change no packet's send or arrival cycle on any link,
// no op's cycle, and no collective's end, on random configurations (each
// NPU's op events in the same order; across NPUs within a cycle the order
// may differ): shapes, full and folded networks, algorithms, sizes,
// chunks and messages, link rates, latencies, buffers and credit
// latencies, several collectives in flight under either policy. Both
// happen: the runs spare arrivals and move trains, most done all at once
// (fabric.Link.applyTrain), some event by event.
func TestSparedArrivalsChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	ran, spared, trains, drains, closed, atOnce := 0, int64(0), int64(0), int64(0), int64(0), int64(0)
	for i := 0; i < 200 && ran < 80; i++ {
		c := randomAbsorbRun(r)
		ref, ok := absorbTrace(t, c, true)
		if !ok {
			continue
		}
		require.Zero(t, ref.absorbed)
		require.Zero(t, ref.trains)
		require.Zero(t, ref.drains)
		require.Zero(t, ref.closed)
		got, _ := absorbTrace(t, c, false)
		require.Equal(t, ref.ends, got.ends, "%+v", c)
		require.Equal(t, ref.ops, got.ops, "%+v", c)
		require.Equal(t, ref.packets, got.packets, "%+v", c)
		ran++
		spared += got.absorbed
		trains += got.trains
		drains += got.drains
		closed += got.closed
		atOnce += got.atOnce
	}
	t.Logf("%d configurations, %d arrivals spared, %d trains (%d drains; %d in closed form; %d done at once)", ran, spared, trains, drains, closed, atOnce)
	require.GreaterOrEqual(t, ran, 60)
	require.Positive(t, spared)
	require.Positive(t, trains)
	require.Positive(t, drains)
	require.Less(t, drains, trains, "some trains are the sender refilling")
	require.Positive(t, closed)
	require.Less(t, closed, trains, "some trains are worked out event by event")
	require.Positive(t, atOnce)
	require.Less(t, atOnce, trains, "some trains are done event by event too")
}

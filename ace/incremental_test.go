package ace

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// incRun is one random configuration of ACE: a layout, collectives like it
// (and all-to-alls and, beside the hierarchical all-reduce, collectives
// of other kinds over random dimensions) issued at random cycles, links of random
// rates, latencies, buffers and credit latencies, and an ACE design point
// of random SRAM, ports, ALUs, FSMs and policies.
type incRun struct {
	topo   string
	links  torus.LinkConfig
	folded bool
	lifo   bool
	op     collectives.CollectiveOp
	alg    string
	msg    int64
	chunk  int64
	sizes  []int64
	a2a    []bool // issue an all-to-all of that size instead
	// span, where not empty and the layout is the hierarchical
	// all-reduce, issues a collective of spanOp over those dimensions
	// instead (docs/ace-model.md, "Several kinds of collective").
	span      [][]string
	spanOp    []collectives.CollectiveOp
	issueGaps []rtl.Cycle
	cfg       Config
}

func randomIncRun(r *rand.Rand) incRun {
	topos := []string{"2x1x1", "4x1x1", "3x1x1", "2x2x1", "4x2x1", "2x2x2", "4x2x2", "3x3x1", "2x3x2"}
	link := func(name string) fabric.LinkParams {
		rate := rtl.MustRateGBps(big.NewRat(int64(20+r.IntN(300)), 1), big.NewRat(int64(50+r.IntN(51)), 100))
		lat := rtl.Cycle(r.IntN(600))
		credit := lat
		switch r.IntN(4) {
		case 0:
			credit = rtl.Cycle(r.IntN(50))
		case 1:
			credit = 0
		}
		return fabric.LinkParams{Name: name, Rate: rate, Latency: lat, TxBuffer: 1 + r.IntN(40), RxBuffer: 1 + r.IntN(140), CreditLatency: credit}
	}
	algs := []struct {
		op  collectives.CollectiveOp
		alg string
	}{
		{collectives.OpAllReduce, "hierarchical"}, {collectives.OpAllReduce, "ring"}, {collectives.OpReduceScatter, "hierarchical"},
		{collectives.OpAllGather, "hierarchical"}, {collectives.OpAllToAll, "direct"}, {collectives.OpAllReduce, "halving-doubling"},
	}
	a := algs[r.IntN(len(algs))]
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	c := incRun{
		topo: topos[r.IntN(len(topos))], links: torus.LinkConfig{Intra: link("intra"), Inter: link("inter")},
		folded: r.IntN(3) == 0, lifo: r.IntN(2) == 0, op: a.op, alg: a.alg,
		msg: []int64{256, 1000, 4096, 8192}[r.IntN(4)], chunk: int64(4096 + r.IntN(65536)),
		cfg: Config{
			SRAMBytes: int64(256<<10 + r.IntN(4<<20)), Banks: 1 + r.IntN(4), PortBytes: []int64{32, 64}[r.IntN(2)],
			PortsPerBank: r.IntN(3), Partition: pick(PartitionLittle, PartitionPaper), Notice: pick(NoticeRoom, NoticeFSM),
			Prefetch: pick(PrefetchFSM, PrefetchRoom), ALUs: 1 + r.IntN(4), ALUBytes: []int64{16, 64}[r.IntN(2)],
			FSMs: 3 + r.IntN(14), FSMSplit: pick("latency", "even"),
			CommMemGBps: big.NewRat(int64(32+r.IntN(200)), 1), BusGBps: big.NewRat(int64(100+r.IntN(500)), 1),
		},
	}
	for i := 1 + r.IntN(3); i > 0; i-- {
		c.sizes = append(c.sizes, int64(1+r.IntN(300_000)))
		c.a2a = append(c.a2a, r.IntN(4) == 0)
		c.issueGaps = append(c.issueGaps, rtl.Cycle(r.IntN(5000)))
	}
	// The spans from a source of their own, seeded by the configuration,
	// so that the configurations drawn from r stay those of before.
	g := rand.New(rand.NewPCG(uint64(c.chunk), uint64(c.sizes[0])))
	for range c.sizes {
		var span []string
		if g.IntN(2) == 0 {
			for _, d := range []string{"l", "v", "h"} {
				if g.IntN(2) == 0 {
					span = append(span, d)
				}
			}
		}
		c.span = append(c.span, span)
		c.spanOp = append(c.spanOp, []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather}[g.IntN(3)])
	}
	return c
}

// incResult is what a run saw: every link's packets (sorted: within a
// cycle, different NPUs' events may run in another order), each NPU's
// sub-steps in order, each collective's end and the run's statistics.
type incResult struct {
	packets, steps []string
	links          []string // every link's packets, bytes and busy time at the end
	ends           []rtl.Cycle
	stats, stuck   string
	events         uint64
	programs       int // programs the run derived an Info for
}

// incTrace runs c on the reference path or the incremental one (with its
// checks on); ok is false for a configuration refused before it runs.
func incTrace(t *testing.T, c incRun, reference bool) (res incResult, ok bool) {
	return incTraceOn(t, c, reference, false, true)
}

// incTraceOn is incTrace with a choice of the network's per-packet events
// (fabric.Network.SetPerPacket) and of observing its packets (an observed
// link keeps its arrival events at a fabric.Collector).
func incTraceOn(t *testing.T, c incRun, reference, perPacket, packets bool) (res incResult, ok bool) {
	s, err := torus.Parse(c.topo)
	require.NoError(t, err)
	cc := collectives.Config{Machine: s.Machine(), Op: c.op, MessageBytes: c.msg}
	layout, err := collectives.NewPlan(cc, c.alg, c.chunk, c.chunk)
	if err != nil {
		return res, false
	}
	var plans []*collectives.Plan
	for i, n := range c.sizes {
		pc, alg := cc, c.alg
		if c.a2a[i] {
			pc.Op, alg = collectives.OpAllToAll, "direct"
		}
		plan, err := collectives.NewPlan(pc, alg, n, c.chunk)
		if len(c.span[i]) > 0 && !c.a2a[i] && c.op == collectives.OpAllReduce && c.alg == "hierarchical" {
			gc := pc
			gc.Op, gc.Span = c.spanOp[i], c.span[i]
			if gp, gerr := collectives.NewPlan(gc, alg, n, c.chunk); gerr == nil { // a span of size-1 dimensions only has no phases: the plain one
				plan, err = gp, nil
			}
		}
		if err != nil || c.folded && collectives.CheckEquivariant(plan) != nil {
			return res, false
		}
		plans = append(plans, plan)
	}
	if c.folded && collectives.CheckEquivariant(layout) != nil {
		return res, false
	}
	k := rtl.NewKernel()
	net, err := torus.Build(k, s, c.links, c.folded)
	require.NoError(t, err)
	net.SetPerPacket(perPacket)
	if packets {
		net.SetObserver(observe.Func(func(e observe.Event) {
			res.packets = append(res.packets, fmt.Sprintf("%d %d %d link %d %d→%d c%d p%d o%d #%d %dB", e.Kind, e.Cycle, e.End, e.Link, e.Src, e.Dst, e.Chunk, e.Phase, e.Op, e.Index, e.Bytes))
		}))
	}
	byNPU := make([][]string, s.N())
	e, err := NewEngine(k, net, layout, c.cfg, &Hooks{Observer: observe.Func(func(e observe.Event) {
		byNPU[e.NPU] = append(byNPU[e.NPU], fmt.Sprintf("%d-%d npu %d c%d p%d o%d %s %dB fsm %d", e.Cycle, e.End, e.NPU, e.Chunk, e.Phase, e.Op, e.What, e.Bytes, e.FSM))
	}), Interrupt: func(npu, chunk int, at rtl.Cycle) {
		byNPU[npu] = append(byNPU[npu], fmt.Sprintf("%d irq %d", at, chunk))
	}})
	if err != nil {
		return res, false // an SRAM too small for the layout, too few FSMs, …
	}
	e.r.reference, e.r.checks = reference, !reference
	e.SetOrder(afi.FIFO)
	if c.lifo {
		e.SetOrder(afi.LIFO)
	}
	at := rtl.Cycle(0)
	for i, plan := range plans {
		at += c.issueGaps[i]
		if err := e.Issue(at, plan, func(now rtl.Cycle) { res.ends = append(res.ends, now) }); err != nil {
			return res, false
		}
	}
	k.SetStallEvents(2_000_000)
	k.Run()
	if err := e.Stuck(); err != nil {
		res.stuck = err.Error()
	}
	st := e.Stats(k.Now())
	res.programs = len(e.r.infos)
	res.events, st.Events = st.Events, 0
	res.stats = fmt.Sprintf("%+v", *st)
	slices.Sort(res.packets)
	res.steps = slices.Concat(byNPU...)
	for _, l := range net.Links {
		res.links = append(res.links, fmt.Sprintf("%s: %d packets, %d B, busy %s, idle %v", l, l.Packets(), l.Bytes(), l.BusyCycles().RatString(), l.Idle()))
	}
	return res, true
}

// requireSameRun fails unless run got saw what run want saw: the same
// stall report, collective ends, statistics, link totals, packets and
// sub-steps.
func requireSameRun(t *testing.T, name string, want, got incResult) {
	t.Helper()
	require.Equal(t, want.stuck, got.stuck, name)
	require.Equal(t, want.ends, got.ends, name)
	require.Equal(t, want.stats, got.stats, name)
	require.Equal(t, want.links, got.links, name)
	require.Equal(t, len(want.packets), len(got.packets), name)
	for j := range want.packets {
		require.Equal(t, want.packets[j], got.packets[j], "%s: packet %d", name, j)
	}
	require.Equal(t, len(want.steps), len(got.steps), name)
	for j := range want.steps {
		require.Equal(t, want.steps[j], got.steps[j], "%s: sub-step %d", name, j)
	}
}

// The incremental bookkeeping (the FSMs with work, the packets in transit,
// DMA pieces without events of their own, admission and room granted ahead
// retried only after a change) starts every sub-step, sends and
// receives every packet and ends every collective at the same cycle as the
// reference path, which visits every FSM and port at every kick and has
// an event for every DMA piece, on random configurations: shapes, full and
// folded networks, algorithms, sizes, chunks and messages, all-to-alls
// beside the layout's collectives, link rates, latencies, buffers and
// credit latencies (zero too), SRAM sizes, banks and ports, ALUs, FSMs and
// every policy (notice, prefetch, partition, FSM split). The incremental
// run also checks, at every kick, its set of FSMs with work against a scan
// of every FSM, and that an admission or a grant of room ahead it skipped
// could not have happened.
func TestIncrementalKickMatchesReference(t *testing.T) {
	compareOnRandomRuns(t, 7, "the incremental path spares events",
		func(c incRun) (incResult, bool) { return incTrace(t, c, true) },
		func(c incRun) (incResult, bool) { return incTrace(t, c, false) })
}

// compareOnRandomRuns runs random configurations (40, 10 with -short) the
// way want runs them and the way got does, and fails unless each saw the
// same (requireSameRun), got with no more events than want, and with fewer
// on more than half of them (with -short, on some; spares says what spares
// them).
func compareOnRandomRuns(t *testing.T, seed uint64, spares string, want, got func(incRun) (incResult, bool)) {
	r := rand.New(rand.NewPCG(seed, 11))
	n := 40
	if testing.Short() {
		n = 10
	}
	ran, fewer := 0, 0
	for i := 0; ran < n && i < 20*n; i++ {
		c := randomIncRun(r)
		ref, ok := want(c)
		if !ok {
			continue
		}
		res, _ := got(c)
		ran++
		name := fmt.Sprintf("config %d: %+v", i, c)
		requireSameRun(t, name, ref, res)
		require.LessOrEqual(t, res.events, ref.events, name)
		if res.events < ref.events {
			fewer++
		}
	}
	require.Equal(t, n, ran, "configurations ACE accepts")
	if testing.Short() {
		// The first ten are too few to hold to the share: some spared.
		require.Positive(t, fewer, spares)
		return
	}
	require.Greater(t, fewer, n/2, spares)
}

// Unobserved, where NPUs' kicks commute within a cycle, ACE spares
// more: it collects its links' packets itself (fabric.Collector: a
// packet has no arrival event, only a kick at its arrival cycle), and the
// ends of its sub-steps other than DMA pieces have no events of their
// own (run.quietFx: the node's kick applies them). On the random
// configurations of TestIncrementalKickMatchesReference, without a packet
// observer, every sub-step starts and ends at the same cycle on every
// NPU, every collective ends at the same cycle, and every link carries
// the same packets and bytes in the same busy time as on the reference
// path with an arrival event per packet (fabric.Network.SetPerPacket).
func TestUnobservedMatchesReference(t *testing.T) {
	compareOnRandomRuns(t, 13, "collected packets and ends applied by kicks spare events",
		func(c incRun) (incResult, bool) { return incTraceOn(t, c, true, true, false) },
		func(c incRun) (incResult, bool) { return incTraceOn(t, c, false, false, false) })
}

// asideTrace runs the machine's all-reduce of size bytes beside a
// reduce-scatter and an all-gather on topo, on the reference path or the
// incremental one (its checks on, checkAside among them), and returns each
// NPU's sub-steps in order, the collectives' ends, the statistics, every
// link's totals and how many ops were set aside.
func asideTrace(t *testing.T, topo string, size int64, reference bool) (incResult, int64) {
	t.Helper()
	k, net, m := buildOn(t, topo)
	layout := kindPlan(t, m, collectives.OpAllReduce, nil, nil, 65536)
	var res incResult
	byNPU := make([][]string, m.N())
	e, err := NewEngine(k, net, layout, Default(), &Hooks{Observer: observe.Func(func(e observe.Event) {
		byNPU[e.NPU] = append(byNPU[e.NPU], fmt.Sprintf("%d-%d c%d p%d o%d %s %dB fsm %d", e.Cycle, e.End, e.Chunk, e.Phase, e.Op, e.What, e.Bytes, e.FSM))
	})})
	require.NoError(t, err)
	e.r.reference, e.r.checks = reference, !reference
	for i, p := range []*collectives.Plan{
		kindPlan(t, m, collectives.OpAllReduce, nil, nil, size),
		kindPlan(t, m, collectives.OpReduceScatter, nil, nil, size/2),
		kindPlan(t, m, collectives.OpAllGather, nil, nil, size/2),
	} {
		require.NoError(t, e.Issue(rtl.Cycle(700*i), p, func(now rtl.Cycle) { res.ends = append(res.ends, now) }))
	}
	k.Run()
	require.NoError(t, e.Stuck())
	st := e.Stats(k.Now())
	st.Events = 0
	res.stats = fmt.Sprintf("%+v", *st)
	for _, s := range byNPU {
		res.steps = append(res.steps, s...)
	}
	for _, l := range net.Links {
		res.links = append(res.links, fmt.Sprintf("%s: %d packets, %d B, busy %s", l, l.Packets(), l.Bytes(), l.BusyCycles().RatString()))
	}
	return res, e.r.asides
}

// Ops held up by a full output port, set aside until its link starts a
// packet (setAside), start every sub-step at the cycle the reference path
// does, which walks every op of every FSM's chunk at every kick: on the
// DGX-1, whose ring's ports stay full (most of a walk's ops find none),
// on a two-tier switch fabric and on a torus. The run must set ops aside,
// or it shows nothing.
func TestSetAsideMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		topo string
		size int64
	}{
		{"dgx1", 1 << 20},
		{"switch:4x4", 512 << 10},
		{"4x2x2", 1 << 20},
	} {
		t.Run(tc.topo, func(t *testing.T) {
			want, none := asideTrace(t, tc.topo, tc.size, true)
			require.Zero(t, none, "the reference path sets nothing aside")
			got, asides := asideTrace(t, tc.topo, tc.size, false)
			requireSameRun(t, tc.topo, want, got)
			require.Positive(t, asides, "ops set aside")
		})
	}
}

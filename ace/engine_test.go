package ace

import (
	"math/big"
	"runtime"
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

func setup(t testing.TB, topo string, op collectives.CollectiveOp, alg string, payload, chunk int64) (*rtl.Kernel, *fabric.Network, *collectives.Plan) {
	t.Helper()
	s, err := torus.Parse(topo)
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: op, MessageBytes: 8192}, alg, payload, chunk)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	return k, net, plan
}

func runChecked(t *testing.T, topo string, op collectives.CollectiveOp, alg string, payload, chunk int64) *Result {
	t.Helper()
	k, net, plan := setup(t, topo, op, alg, payload, chunk)
	dc, err := verify.NewDataCheck(plan)
	require.NoError(t, err)
	res, err := Run(k, net, plan, Default(), &Hooks{Init: dc.Hook, Observer: dc})
	require.NoError(t, err)
	require.NoError(t, dc.Result())
	return res
}

func TestACECarriesDataCorrectly(t *testing.T) {
	tests := []struct {
		topo           string
		op             collectives.CollectiveOp
		alg            string
		payload, chunk int64
	}{
		{"4x1x1", collectives.OpAllReduce, "hierarchical", 4096, 65536},
		{"4x2x2", collectives.OpAllReduce, "hierarchical", 300_000, 65536},
		{"2x3x4", collectives.OpAllReduce, "hierarchical", 100_003, 16384},
		{"4x2x2", collectives.OpAllToAll, "direct", 100_000, 16384},
		{"2x3x4", collectives.OpAllToAll, "direct", 50_001, 8192},
		{"4x2x2", collectives.OpAllReduce, "tree", 50_000, 8192},
		{"4x2x2", collectives.OpAllReduce, "halving-doubling", 50_000, 8192},
		{"4x2x2", collectives.OpReduceScatter, "hierarchical", 50_000, 8192},
		// 64 KB chunks: 1 KB results, whose terminal partition Little's
		// law alone would make smaller than one result. 512 KiB: 64 NPUs
		// × 2^19 B is the data check's 2^25 values (verify.MaxCheckValues).
		{"4x4x4", collectives.OpReduceScatter, "hierarchical", 1 << 19, 65536},
		{"4x2x2", collectives.OpAllGather, "hierarchical", 50_000, 8192},
	}
	for _, tc := range tests {
		t.Run(tc.topo+"/"+tc.op.String()+"/"+tc.alg, func(t *testing.T) {
			runChecked(t, tc.topo, tc.op, tc.alg, tc.payload, tc.chunk)
		})
	}
}

// ACE reads every payload byte from memory once (TX DMA) and writes it once
// (RX DMA); every NPU of 4x4x4 sends 2.25 × the payload.
func TestACEMemoryTrafficIsThePayload(t *testing.T) {
	const payload = 1 << 20
	k, net, plan := setup(t, "4x4x4", collectives.OpAllReduce, "hierarchical", payload, 65536)
	res, err := Run(k, net, plan, Default(), nil)
	require.NoError(t, err)
	for npu := range res.MemRead {
		require.Equal(t, int64(payload), res.MemRead[npu], "NPU %d reads", npu)
		require.Equal(t, int64(payload), res.MemWrite[npu], "NPU %d writes", npu)
		require.Equal(t, int64(payload*9/4), res.BytesSent[npu], "NPU %d sends", npu)
	}
	require.Greater(t, res.Utilization, 0.9)
}

// With --partition paper, partitions follow the paper's heuristic
// (bandwidth × initial chunk size; terminal = last phase). On 4x4x4 with 64 KB chunks the phases' payload
// link bandwidths are 2·188, 2·23.5, 2·23.5, 2·188 GB/s and their initial
// chunks 64, 16, 16, 16 KB, so the weights are 376·64 : 47·16 : 47·16 :
// 376·16 : 376·16 = 24064 : 752 : 752 : 6016 : 6016 of 37600, i.e. of 4 MiB
// (4194304 B): 2684354, 83886, 83886, 671088, 671088 (rounded down).
func TestPartitionsFollowTheHeuristic(t *testing.T) {
	k, net, plan := setup(t, "4x4x4", collectives.OpAllReduce, "hierarchical", 65536, 65536)
	cfg := Default()
	cfg.Partition = PartitionPaper
	res, err := Run(k, net, plan, cfg, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{2684354, 83886, 83886, 671088, 671088}, res.Partitions)
	require.Equal(t, 16, sum(res.FSMsPerPhase))
}

// By default partitions follow Little's law (docs/ace-model.md): phase i's
// share ∝ T_i × V_i, T_i the time a chunk alone holds its room, V_i its
// view; the terminal partition's ∝ (R / D) × R. Rates in B/cycle at
// 1245 MHz: DMA D = 128e9/1.245e9 = 25600/249, intra link 0.94 × 200 GB/s
// = 37600/249, inter 4700/249. With 64 KB chunks and 8 KB messages
// (notices granted ahead: no entry cost):
//
//	local reduce-scatter T1 = 65536·249/25600 (TX DMA, 637.44)
//	    + 3 steps × (90 + 8192·249/37600) = 637.44 + 3 × 144.2502 = 1070.1906
//	vertical all-reduce, ring of 4: 6 steps of 2 KB: T2 = 6 × (500 + 2048·249/4700) = 3651.0026
//	    ring of 8 (4x8x4): 14 steps of 1 KB: T2 = 14 × (500 + 1024·249/4700) = 7759.5030
//	horizontal all-reduce, ring of 4: T3 = 3651.0026
//	local all-gather T4 = 3 × 144.2502 = 432.7506; terminal R/D = 637.44
//
// Weights T·V with views 64, 16, 16, 64 KB and a 64 KB result, scaled to
// 4 MiB and rounded down (Python's fractions, not this code):
// 4x4x4 → 1131830, 965321, 965321, 457675, 674154;
// 4x8x4 → 898998, 1629564, 766742, 363525, 535472.
func TestPartitionsFollowLittlesLaw(t *testing.T) {
	for _, tc := range []struct {
		topo string
		want []int64
	}{
		{"4x4x4", []int64{1131830, 965321, 965321, 457675, 674154}},
		{"4x8x4", []int64{898998, 1629564, 766742, 363525, 535472}},
	} {
		t.Run(tc.topo, func(t *testing.T) {
			s, err := torus.Parse(tc.topo)
			require.NoError(t, err)
			k := rtl.NewKernel()
			net, err := torus.Build(k, s, torus.DefaultLinks(), true)
			require.NoError(t, err)
			plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}, "hierarchical", 1<<20, 65536)
			require.NoError(t, err)
			e, err := NewEngine(k, net, plan, Default(), nil)
			require.NoError(t, err)
			require.Equal(t, tc.want, e.Stats(1).Partitions)
		})
	}
}

// The SRAM's ports follow the rule the paper uses for the NPU–AFI bus: reads
// get every outgoing link plus the RX DMA, writes every incoming link plus
// the TX DMA. In B/cycle at 1245 MHz, with 64 B ports on 4 banks (256
// B/cycle per port per bank): on 4x4x4, 4x8x4 and 4x2x2 two intra links of
// 37600/249 and four inter links of 4700/249 each way, plus the DMA's
// 25600/249 (128 GB/s): 119600/249 = 480.3 B/cycle → ⌈480.3/256⌉ = 2 per
// bank. On 4x1x1 (two intra links only): 100800/249 = 404.8 → 2. With
// 128 B ports (512 B/cycle per port on 4 banks): ⌈480.3/512⌉ = 1. With
// 900 GB/s given to communication the DMA runs at the 500 GB/s bus,
// 100000/249: 194000/249 = 779.1 → ⌈3.04⌉ = 4. The literal reading is 1.
func TestSRAMPortsFollowTheLinks(t *testing.T) {
	for _, tc := range []struct {
		topo string
		cfg  func(*Config)
		want int
	}{
		{"4x4x4", func(*Config) {}, 2},
		{"4x8x4", func(*Config) {}, 2},
		{"4x2x2", func(*Config) {}, 2},
		{"4x1x1", func(*Config) {}, 2},
		{"4x4x4", func(c *Config) { c.PortBytes = 128 }, 1},
		{"4x4x4", func(c *Config) { c.CommMemGBps = big.NewRat(900, 1) }, 4},
		{"4x4x4", func(c *Config) { c.PortsPerBank = 1 }, 1},
	} {
		s, err := torus.Parse(tc.topo)
		require.NoError(t, err)
		net, err := torus.Build(rtl.NewKernel(), s, torus.DefaultLinks(), false)
		require.NoError(t, err)
		cfg := Default()
		tc.cfg(&cfg)
		for _, npu := range []int{0, s.N() - 1} {
			rd, wr, err := cfg.Ports(net, npu)
			require.NoError(t, err)
			require.Equal(t, [2]int{tc.want, tc.want}, [2]int{rd, wr}, "%s NPU %d", tc.topo, npu)
		}
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// Every partition holds at least one chunk: under either rule a partition
// whose share falls short gets exactly its need and the others share the
// rest. 512 KiB on 4x4x4 gives the paper's heuristic a 16 KB view's worth
// only by that floor (its proportional share is 512 KiB / 50 = 10485 B).
// An SRAM smaller than one chunk in every partition (64 + 16 + 16 + 64 KB
// views and a 64 KB result = 229376 B) names that minimum; too few FSMs
// name the phase count.
func TestACERefusesImpossibleConfigurations(t *testing.T) {
	for _, rule := range []string{PartitionLittle, PartitionPaper} {
		k, net, plan := setup(t, "4x4x4", collectives.OpAllReduce, "hierarchical", 65536, 65536)
		cfg := Default()
		cfg.SRAMBytes, cfg.Partition = 512<<10, rule
		res, err := Run(k, net, plan, cfg, nil)
		require.NoError(t, err, rule)
		for i, need := range []int64{65536, 16384, 16384, 65536, 65536} {
			require.GreaterOrEqual(t, res.Partitions[i], need, "%s partition %d", rule, i)
		}
		require.LessOrEqual(t, sum64(res.Partitions), int64(512<<10))
		k, net, plan = setup(t, "4x4x4", collectives.OpAllReduce, "hierarchical", 65536, 65536)
		cfg.SRAMBytes = 229375
		_, err = Run(k, net, plan, cfg, nil)
		require.ErrorContains(t, err, "at least 229376 bytes", rule)
	}
	k, net, plan := setup(t, "4x4x4", collectives.OpAllReduce, "hierarchical", 65536, 65536)
	cfg := Default()
	cfg.FSMs = 3
	_, err := Run(k, net, plan, cfg, nil)
	require.ErrorContains(t, err, "use at least 4")
}

func sum64(xs []int64) int64 {
	n := int64(0)
	for _, x := range xs {
		n += x
	}
	return n
}

// A program whose send was turned into a receive leaves its peers waiting:
// the run reports who waits on what instead of hanging.
func TestACEReportsAStuckRun(t *testing.T) {
	k, net, plan := setup(t, "4x1x1", collectives.OpAllReduce, "hierarchical", 4096, 65536)
	plan.Program(0, 0, 4096).Ops[0].Kind = collectives.Recv // changed on purpose
	_, err := Run(k, net, plan, Default(), nil)
	require.ErrorContains(t, err, "stopped making progress")
	require.ErrorContains(t, err, "waits for packets from NPU")
}

// BenchmarkACEAllReduce16MiB4x4x4 runs the paper's Fig. 5 point at 16 MiB on
// ACE and reports the network bandwidth per NPU.
func BenchmarkACEAllReduce16MiB4x4x4(b *testing.B) {
	for i := 0; i < b.N; i++ {
		k, net, plan := setup(b, "4x4x4", collectives.OpAllReduce, "hierarchical", 16<<20, 65536)
		res, err := Run(k, net, plan, Default(), nil)
		require.NoError(b, err)
		b.ReportMetric(float64(res.Events), "events")
		b.ReportMetric(float64(res.BytesSent[0])/(float64(res.Cycles)/rtl.ClockHz)/1e9, "GB/s/NPU")
	}
}

// The same ACE run twice, and under GOMAXPROCS 1 and 2, moves the same
// packets over the same links at the same cycles.
func TestACEIsDeterministic(t *testing.T) {
	hash := func() (uint64, rtl.Cycle) {
		k, net, plan := setup(t, "4x2x2", collectives.OpAllReduce, "hierarchical", 1<<20, 65536)
		tr := observe.NewHash(observe.PacketSent, observe.PacketReceived)
		net.SetObserver(tr)
		res, err := Run(k, net, plan, Default(), nil)
		require.NoError(t, err)
		return tr.Sum(), res.Cycles
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	h1, c1 := hash()
	h2, c2 := hash()
	runtime.GOMAXPROCS(2)
	h3, c3 := hash()
	require.Equal(t, h1, h2)
	require.Equal(t, h1, h3)
	require.Equal(t, c1, c2)
	require.Equal(t, c1, c3)
}

// ACE raises one interrupt per chunk per NPU when the chunk is back in
// memory, and one per NPU for the collective after its last chunk; the last
// collective interrupt is the run's end.
func TestACECompletionInterrupts(t *testing.T) {
	k, net, plan := setup(t, "4x2x2", collectives.OpAllReduce, "hierarchical", 5*65536, 65536)
	chunkIRQ := map[[2]int]rtl.Cycle{}
	collIRQ := map[int]rtl.Cycle{}
	res, err := Run(k, net, plan, Default(), &Hooks{Interrupt: func(npu, chunk int, at rtl.Cycle) {
		if chunk < 0 {
			collIRQ[npu] = at
			return
		}
		_, dup := chunkIRQ[[2]int{npu, chunk}]
		require.False(t, dup, "chunk %d on NPU %d interrupted twice", chunk, npu)
		chunkIRQ[[2]int{npu, chunk}] = at
	}})
	require.NoError(t, err)
	require.Len(t, chunkIRQ, 16*5)
	require.Len(t, collIRQ, 16)
	var last rtl.Cycle
	for npu, at := range collIRQ {
		for c := 0; c < 5; c++ {
			require.LessOrEqual(t, chunkIRQ[[2]int{npu, c}], at)
		}
		last = max(last, at)
	}
	require.Equal(t, res.Cycles, last)
}

// The all-to-all of npu.TestAllToAllRelaysCostMemoryOnTheBaseline (1x8x1,
// C per NPU, every NPU relaying 9·C/8 for others) on ACE: relayed packets
// are absorbed in SRAM and sent on, so memory sees only the TX DMA of the
// buffer (C) and the RX DMA of the result (C), against 2C each way on the
// baseline.
func TestAllToAllRelaysStayInSRAM(t *testing.T) {
	const c = 64 << 10
	k, net, plan := setup(t, "1x8x1", collectives.OpAllToAll, "direct", c, 65536)
	res, err := Run(k, net, plan, Default(), nil)
	require.NoError(t, err)
	for npu := range res.MemRead {
		require.Equal(t, int64(c), res.MemRead[npu], "NPU %d reads", npu)
		require.Equal(t, int64(c), res.MemWrite[npu], "NPU %d writes", npu)
		require.Equal(t, int64(7*c/8), res.BytesSent[npu], "NPU %d sends", npu)
	}
}

// Several collectives in flight share ACE: two all-reduces issued together
// take longer than one alone and less than two back to back; each raises
// its own completion interrupt on every NPU.
func TestEngineRunsCollectivesConcurrently(t *testing.T) {
	k, net, plan := setup(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 512<<10, 65536)
	alone, err := Run(k, net, plan, Default(), nil)
	require.NoError(t, err)

	k, net, plan = setup(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 512<<10, 65536)
	_, _, small := setup(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 100_000, 65536)
	whole := 0
	e, err := NewEngine(k, net, plan, Default(), &Hooks{Interrupt: func(_, chunk int, _ rtl.Cycle) {
		if chunk < 0 {
			whole++
		}
	}})
	require.NoError(t, err)
	e.SetOrder(afi.FIFO)
	var a, b rtl.Cycle
	require.NoError(t, e.Issue(0, plan, func(now rtl.Cycle) { a = now }))
	require.NoError(t, e.Issue(0, small, func(now rtl.Cycle) { b = now }))
	require.Equal(t, 2, e.Unfinished())
	k.Run()
	require.NoError(t, e.Stuck())
	require.Zero(t, e.Unfinished())
	require.Equal(t, 2*8, whole, "one interrupt per collective per NPU")
	require.Greater(t, max(a, b), alone.Cycles)
	require.Less(t, a, 2*alone.Cycles)
	require.Less(t, a, b, "FIFO: the small one loads after the big one")
	st := e.Stats(max(a, b))
	for i := range st.MemRead {
		require.Equal(t, int64(512<<10+100_000), st.MemRead[i], "NPU %d reads both payloads once", i)
	}
}

// LIFO: a small collective issued while a big one is loading overtakes the
// big one's chunks that no NPU has loaded yet, so it finishes sooner than
// under FIFO.
func TestEngineLIFOServesTheLatestFirst(t *testing.T) {
	fifo := smallAfterBig(t, "4x2x1", 4<<20, 64<<10, 2000, Default(), false)
	lifo := smallAfterBig(t, "4x2x1", 4<<20, 64<<10, 2000, Default(), true)
	require.Less(t, lifo, fifo)
}

// smallAfterBig issues an all-reduce of big bytes at cycle 0 and one of
// small bytes at cycle at on one engine (one NPU standing for all:
// fold_test.go shows it gives the full network's cycles) and returns the
// cycle the small one finishes.
func smallAfterBig(t *testing.T, topo string, big, small int64, at rtl.Cycle, cfg Config, lifo bool) rtl.Cycle {
	t.Helper()
	_, _, bp := setup(t, topo, collectives.OpAllReduce, "hierarchical", big, 65536)
	_, _, sp := setup(t, topo, collectives.OpAllReduce, "hierarchical", small, 65536)
	k := rtl.NewKernel()
	net, err := torus.Build(k, torus.ShapeOf(bp.Machine), torus.DefaultLinks(), true)
	require.NoError(t, err)
	e, err := NewEngine(k, net, bp, cfg, nil)
	require.NoError(t, err)
	e.SetOrder(orderOf(lifo))
	var end rtl.Cycle
	require.NoError(t, e.Issue(0, bp, nil))
	require.NoError(t, e.Issue(at, sp, func(now rtl.Cycle) { end = now }))
	k.Run()
	require.NoError(t, e.Stuck())
	return end
}

// LIFO keeps its effect however large the SRAM: with --prefetch fsm the TX
// DMA loads only while fewer chunks wait for an FSM than ACE has FSMs, so
// the big collective's chunks are not all in SRAM (where nothing can
// overtake them) when the small one arrives, and the small one finishes at
// the same cycle with 4 MiB and 32 MiB. With --prefetch room the big one
// fills the larger SRAM first and the small one waits behind it.
func TestLIFOHoldsWithMoreSRAM(t *testing.T) {
	finish := func(sram int64, prefetch string) rtl.Cycle {
		cfg := Default()
		cfg.SRAMBytes, cfg.Prefetch = sram, prefetch
		return smallAfterBig(t, "4x2x2", 8<<20, 256<<10, 20000, cfg, true)
	}
	small4, small32 := finish(4<<20, PrefetchFSM), finish(32<<20, PrefetchFSM)
	room4, room32 := finish(4<<20, PrefetchRoom), finish(32<<20, PrefetchRoom)
	t.Logf("fsm: %d %d; room: %d %d", small4, small32, room4, room32)
	require.Equal(t, small4, small32)
	require.Greater(t, room32, room4)
	require.Less(t, small32, room32)
}

// ACE's utilisation within spans: an all-reduce issued at cycle 5000 on an
// idle ACE holds a chunk from then until its last result is back in
// memory, the cycle it is done (one chunk is admitted as soon as it is
// issued, and each next one before the last is written back), so ACE is
// utilised in none of [0, 5000) and in all of [5000, done); within the
// whole run the spans weighted by their length give Result.Utilization.
func TestUtilizationWithinSpans(t *testing.T) {
	_, _, plan := setup(t, "4x2x2", collectives.OpAllReduce, "hierarchical", 256<<10, 65536)
	k := rtl.NewKernel()
	net, err := torus.Build(k, torus.ShapeOf(plan.Machine), torus.DefaultLinks(), true)
	require.NoError(t, err)
	e, err := NewEngine(k, net, plan, Default(), nil)
	require.NoError(t, err)
	const at = 5000
	var end rtl.Cycle
	require.NoError(t, e.Issue(at, plan, func(now rtl.Cycle) { end = now }))
	k.Run()
	require.NoError(t, e.Stuck())
	require.Greater(t, end, rtl.Cycle(at))
	before, during := rtl.Span{From: 0, To: at}, rtl.Span{From: at, To: end}
	require.Equal(t, 0.0, e.UtilizationWithin([]rtl.Span{before}))
	require.Equal(t, 1.0, e.UtilizationWithin([]rtl.Span{during}))
	require.Equal(t, 0.0, e.UtilizationWithin([]rtl.Span{{From: end, To: end + 100}}))
	require.Equal(t, 0.0, e.UtilizationWithin(nil))
	whole := e.Stats(end).Utilization
	require.InDelta(t, float64(end-at)/float64(end), whole, 1e-12)
	require.InDelta(t, whole, e.UtilizationWithin([]rtl.Span{before, during}), 1e-12)
}

// orderOf is afi.LIFO when lifo is set, else afi.FIFO.
func orderOf(lifo bool) afi.Order {
	if lifo {
		return afi.LIFO
	}
	return afi.FIFO
}

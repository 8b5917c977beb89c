package npu

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

func commOpt() BaselineConfig { return DefaultBaseline(6, big.NewRat(450, 1)) }

// One 4 KB chunk all-reduced on a 4-NPU local ring (4x1x1): reduce-scatter
// then all-gather, both ways, so each lane carries 2 KB in blocks of 512 B.
// Per lane and NPU (Section VI-A, counted op by op):
//
//	reduce-scatter: send own block                  1 read  × 512
//	                2 forwards of a reduction        2 reads × 512 each
//	                last block: reduce, keep result  2 reads + 1 write × 512
//	all-gather:     send own reduced block          1 read  × 512
//	                2 forwards of a received block   1 read  × 512 each
//	every receive (3 + 3): RX DMA writes            1 write × 512 each
//
// reads = (1 + 2 + 2 + 2 + 1 + 1 + 1) × 512 = 5120 per lane, 10240 for two;
// writes = (1 + 6) × 512 = 3584 per lane, 7168 for two; sent = 6 × 512 × 2
// = 6144: 1.67 reads per byte sent (1.5 for long rings: 2 in reduce-scatter
// steps after the first, 1 in all-gather).
func TestBaselineMemoryTrafficOfARingAllReduce(t *testing.T) {
	k, net, plan := setup(t, "4x1x1", 4096, 65536, 8192)
	res, err := RunBaseline(k, net, plan, commOpt())
	require.NoError(t, err)
	for i := range res.MemRead {
		require.Equal(t, int64(10240), res.MemRead[i], "NPU %d reads", i)
		require.Equal(t, int64(7168), res.MemWrite[i], "NPU %d writes", i)
		require.Equal(t, int64(6144), res.BytesSent[i], "NPU %d sent", i)
	}
	require.Positive(t, res.CommSMBusy)
	require.Less(t, res.CommSMBusy, 1.0)
}

// The same all-reduce with the SMs the only limit: 1 SM moves 64 B/cycle,
// a 512 B block that forwards a reduction loads 1024 B = 16 cycles of SM
// time, where the ideal endpoint's step is 95 cycles (TestOneChunk…
// LocalRing): the baseline is slower than the ideal, and more SMs make it
// faster until the link binds.
func TestBaselineSlowerThanIdealAndSMsHelp(t *testing.T) {
	run := func(sms int) rtl.Cycle {
		k, net, plan := setup(t, "4x1x1", 64<<10, 65536, 8192)
		res, err := RunBaseline(k, net, plan, DefaultBaseline(sms, big.NewRat(900, 1)))
		require.NoError(t, err)
		return res.Cycles
	}
	k, net, plan := setup(t, "4x1x1", 64<<10, 65536, 8192)
	ideal, err := RunIdeal(k, net, plan, DefaultIdeal())
	require.NoError(t, err)
	one, six := run(1), run(6)
	require.Greater(t, one, six)
	require.Greater(t, six, ideal.Cycles)
}

// A direct all-to-all on an 8-NPU vertical ring (1x8x1): each NPU sends
// C/8 to each of the other seven, the shortest way round (a tie, 4 hops,
// goes Plus). From NPU 0 the destinations are 1 and 7 (no relay), 2 and 6
// (1 relay each), 3 and 5 (2 each), 4 (3): 9 relays of C/8 per source, so by
// symmetry every NPU relays 9·C/8. On the baseline a relay is written to the
// intermediate NPU's memory and read back by its SMs: reads = 7·C/8 (own
// sends) + 9·C/8 = 2C, writes = 7·C/8 (received) + 9·C/8 = 2C per NPU. ACE
// absorbs relays in its SRAM: it reads C (TX DMA of the whole buffer) and
// writes C (RX DMA), half the baseline's traffic
// (ace.TestAllToAllRelaysStayInSRAM checks ACE's side).
func TestAllToAllRelaysCostMemoryOnTheBaseline(t *testing.T) {
	const c = 64 << 10
	s, err := torus.Parse("1x8x1")
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllToAll, MessageBytes: 8192}, "direct", c, 65536)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	dc, err := verify.NewDataCheck(plan)
	require.NoError(t, err)
	cfg := commOpt()
	cfg.Data, cfg.Observer = &DataHooks{Init: dc.Hook}, dc
	res, err := RunBaseline(k, net, plan, cfg)
	require.NoError(t, err)
	require.NoError(t, dc.Result())
	for i := range res.MemRead {
		require.Equal(t, int64(2*c), res.MemRead[i], "NPU %d reads", i)
		require.Equal(t, int64(2*c), res.MemWrite[i], "NPU %d writes", i)
		require.Equal(t, int64(7*c/8), res.BytesSent[i], "NPU %d sent", i)
	}
}

// The baseline carries real values through memory and the SMs correctly
// for every kind of collective.
func TestBaselineCarriesDataCorrectly(t *testing.T) {
	for _, tc := range []struct {
		topo string
		op   collectives.CollectiveOp
		alg  string
		size int64
	}{
		{"4x2x2", collectives.OpAllReduce, "hierarchical", 200_000},
		{"2x3x2", collectives.OpAllReduce, "ring", 50_001},
		{"4x2x1", collectives.OpAllReduce, "tree", 40_000},
		{"4x2x2", collectives.OpReduceScatter, "hierarchical", 100_000},
		{"4x2x2", collectives.OpAllGather, "hierarchical", 100_000},
		{"4x2x2", collectives.OpAllToAll, "direct", 100_000},
		{"2x3x4", collectives.OpAllToAll, "direct", 50_001},
	} {
		t.Run(tc.topo+"/"+tc.op.String()+"/"+tc.alg, func(t *testing.T) {
			s, err := torus.Parse(tc.topo)
			require.NoError(t, err)
			plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: tc.op, MessageBytes: 8192}, tc.alg, tc.size, 16384)
			require.NoError(t, err)
			k := rtl.NewKernel()
			net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
			require.NoError(t, err)
			dc, err := verify.NewDataCheck(plan)
			require.NoError(t, err)
			cfg := DefaultBaseline(2, big.NewRat(128, 1))
			cfg.Data, cfg.Observer = &DataHooks{Init: dc.Hook}, dc
			_, err = RunBaseline(k, net, plan, cfg)
			require.NoError(t, err)
			require.NoError(t, dc.Result())
		})
	}
}

func TestBaselineRejectsBadConfigurations(t *testing.T) {
	for _, tc := range []struct {
		cfg  BaselineConfig
		want string
	}{
		{DefaultBaseline(0, big.NewRat(450, 1)), "--comm-sms"},
		{DefaultBaseline(6, nil), "--comm-mem-bw"},
		{DefaultBaseline(6, big.NewRat(0, 1)), "--comm-mem-bw"},
	} {
		k, net, plan := setup(t, "4x1x1", 4096, 65536, 8192)
		_, err := RunBaseline(k, net, plan, tc.cfg)
		require.ErrorContains(t, err, tc.want)
	}
}

// The library's latencies (docs/baseline-model.md) on the 4 KB all-reduce
// of a 4-NPU local ring: each lane is one chain of dependent steps, 3
// reduce-scatter receives then 3 all-gather receives, each message usable
// only StepCycles after its last packet is in memory; the collective
// starts LaunchCycles after its issue. Both lanes are delayed alike, so
// nothing else moves: the run takes exactly launch + 2(4 − 1) × step
// longer, NCCL's baseLat + nsteps × hwLat for a ring all-reduce, and
// moves the same bytes.
func TestLibraryLatenciesAddNCCLsRingFormula(t *testing.T) {
	for _, tc := range []struct {
		name         string
		launch, step rtl.Cycle
	}{
		{"launch only", 1000, 0},
		{"step only", 0, 100},
		{"both", 1000, 100},
		{"NCCL's Simple protocol", NCCLLaunchCycles, NCCLStepCycles},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, net, plan := setup(t, "4x1x1", 4096, 65536, 8192)
			bare, err := RunBaseline(k, net, plan, commOpt())
			require.NoError(t, err)
			k, net, plan = setup(t, "4x1x1", 4096, 65536, 8192)
			cfg := commOpt()
			cfg.Library = Library{LaunchCycles: tc.launch, StepCycles: tc.step}
			res, err := RunBaseline(k, net, plan, cfg)
			require.NoError(t, err)
			require.Equal(t, bare.Cycles+tc.launch+6*tc.step, res.Cycles)
			require.Equal(t, bare.MemRead, res.MemRead)
			require.Equal(t, bare.MemWrite, res.MemWrite)
		})
	}
}

// NCCL's 8.4 µs and 3.4 µs at Table V's 1245 MHz: 8.4e-6 × 1.245e9 =
// 10458 and 3.4e-6 × 1.245e9 = 4233 cycles, both exact.
func TestNCCLLatenciesInCycles(t *testing.T) {
	require.Equal(t, rtl.Cycle(10458), NCCLLaunchCycles)
	require.Equal(t, rtl.Cycle(4233), NCCLStepCycles)
	bad := commOpt()
	bad.Library.StepCycles = -1
	require.ErrorContains(t, bad.Validate(), "baseline.step")
}

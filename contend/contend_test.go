package contend

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

func q(a, b int64) *big.Rat { return big.NewRat(a, b) }

// gbps is g GB/s in bytes per cycle.
func gbps(g int64) *big.Rat { return npu.MemBytesPerCycle(q(g, 1)) }

// system is a Table VI system's sharing; applied records the rates given
// to communication.
func system(p Policy, commSMs int, comm int64, applied *[][2]rtl.Rate) Config {
	return Config{
		Policy:  p,
		Compute: npu.Compute{SMs: npu.SMs - commSMs, MemGBps: q(npu.MemoryGBps-comm, 1)},
		Comm: Comm{SMs: commSMs, GBps: q(comm, 1), Apply: func(r, w rtl.Rate) {
			*applied = append(*applied, [2]rtl.Rate{r, w})
		}},
	}
}

// runKernel runs w from cycle 0 with communication busy over [from, to)
// (from < 0: never) and returns the cycle it ends.
func runKernel(t *testing.T, cfg Config, w Kernel, from, to rtl.Cycle) rtl.Cycle {
	t.Helper()
	k := rtl.NewKernel()
	n, err := New(k, cfg)
	require.NoError(t, err)
	end := rtl.Cycle(-1)
	require.NoError(t, n.Run(0, w, func(now rtl.Cycle) { end = now }))
	if from >= 0 {
		k.Schedule(from, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { n.SetCommBusy(now, true) }), 0, 0)
		k.Schedule(to, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { n.SetCommBusy(now, false) }), 0, 0)
	}
	k.Run()
	return end
}

// memOnly is a kernel that moves 900 cycles' worth of Table V's memory.
func memOnly() Kernel { return Kernel{{SM: new(big.Rat), Mem: q(900, 1)}} }

func TestAKernelSlowsByWhatCommunicationTakes(t *testing.T) {
	var applied [][2]rtl.Rate
	for _, tc := range []struct {
		name     string
		cfg      Config
		w        Kernel
		from, to rtl.Cycle
		want     rtl.Cycle
	}{
		// Alone, the whole memory: 900 cycles under both policies' share
		// of an ideal endpoint (communication uses no memory).
		{"alone", system(Share, 0, 0, &applied), memOnly(), -1, 0, 900},
		// ACE busy throughout: compute's weight 772 of 772 + 128 + 128 =
		// 1028, so 900 × 1028 / 772 = 1198.4 → 1199.
		{"ace throughout", system(Share, 0, 128, &applied), memOnly(), 0, 5000, 1199},
		// ACE busy over [300, 600): 300 cycles at 772/1028 do 225.29 of
		// the work; the other 374.71 at full speed from 600 end at 974.71
		// → 975: slowed by exactly 300 × 256/1028 = 74.7 cycles, what
		// ACE's DMA took.
		{"ace a while", system(Share, 0, 128, &applied), memOnly(), 300, 600, 975},
		// Under partition compute has its 772 GB/s whatever ACE does:
		// 900 × 900/772 = 1049.2 → 1050 either way.
		{"partition alone", system(Partition, 0, 128, &applied), memOnly(), -1, 0, 1050},
		{"partition beside ace", system(Partition, 0, 128, &applied), memOnly(), 0, 5000, 1050},
		// CommOpt busy throughout: three weights of 450, a third each:
		// 2700 cycles.
		{"commopt throughout", system(Share, 6, 450, &applied), memOnly(), 0, 5000, 2700},
		// FLOPs only, CommOpt holding 6 SMs: 800 × 80/74 = 864.9 → 865;
		// alone on 80 SMs, 800.
		{"sms held", system(Share, 6, 450, &applied), Kernel{{SM: q(800, 1), Mem: new(big.Rat)}}, 0, 5000, 865},
		{"sms free", system(Share, 6, 450, &applied), Kernel{{SM: q(800, 1), Mem: new(big.Rat)}}, -1, 0, 800},
		// A compute-bound kernel (SM 800, Mem 400) wants 400/800 of the
		// memory on 80 SMs, i.e. 450 GB/s, and with ACE busy gets min(its
		// want, its share 676) = its want: 800, unslowed.
		{"compute-bound beside ace", system(Share, 0, 128, &applied), Kernel{{SM: q(800, 1), Mem: q(400, 1)}}, 0, 5000, 800},
		// Two segments (ASTRA-sim's rule, m = 1/2 of 1000 cycles) under
		// partition with 74 SMs and 450 GB/s: 500 × 80/74 + 500 × 900/450
		// = 540.54 + 1000 = 1540.5 → 1541, one rounding.
		{"scaled partition", system(Partition, 6, 450, &applied), Scaled(q(1000, 1), q(1, 2)), -1, 0, 1541},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, runKernel(t, tc.cfg, tc.w, tc.from, tc.to))
		})
	}
}

// Communication's rates: CommOpt busy beside a memory-bound kernel gets
// 300 GB/s each way (20000/83 B/cycle); when the kernel ends, 450 each
// way (30000/83), under its SMs' 384 B/cycle of loads.
func TestCommunicationGetsItsShare(t *testing.T) {
	var applied [][2]rtl.Rate
	cfg := system(Share, 6, 450, &applied)
	cfg.Comm.ReadLimit = q(6*64, 1)
	k := rtl.NewKernel()
	n, err := New(k, cfg)
	require.NoError(t, err)
	n.SetCommBusy(0, true)
	require.Equal(t, [][2]rtl.Rate{{{Num: 30000, Den: 83}, {Num: 30000, Den: 83}}}, applied)
	require.NoError(t, n.Run(0, memOnly(), func(rtl.Cycle) {}))
	k.Run()
	want300 := rtl.Rate{Num: 20000, Den: 83}
	want450 := rtl.Rate{Num: 30000, Den: 83}
	require.Equal(t, [][2]rtl.Rate{{want450, want450}, {want300, want300}, {want450, want450}}, applied)
}

// The roofline kernel under partition takes npu.Compute.KernelCycles, the
// rule it replaces, on the systems of Table VI.
func TestRooflineMatchesKernelCycles(t *testing.T) {
	for _, c := range []npu.Compute{{SMs: 80, MemGBps: q(900, 1)}, {SMs: 74, MemGBps: q(450, 1)}, {SMs: 78, MemGBps: q(772, 1)}} {
		for _, w := range [][2]int64{{1e9, 0}, {0, 1e6}, {3e10, 5e7}, {123456789, 98765432}, {1, 1}} {
			var applied [][2]rtl.Rate
			cfg := system(Partition, npu.SMs-c.SMs, npu.MemoryGBps-900, &applied)
			cfg.Compute = c
			got := runKernel(t, cfg, Roofline(w[0], w[1]), -1, 0)
			require.Equal(t, rtl.Cycle(c.KernelCycles(w[0], w[1])), got, "%v on %d SMs", w, c.SMs)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	p, err := ParsePolicy("Partition")
	require.NoError(t, err)
	require.Equal(t, Partition, p)
	_, err = ParsePolicy("fair")
	require.ErrorContains(t, err, "share, partition")
}

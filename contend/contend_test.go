package contend

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

func q(a, b int64) *big.Rat { return big.NewRat(a, b) }

// system is a Table VI system's sharing with communication's memory as
// one read and one write serializer (returned) on one NPU; applied records
// the rates given to communication.
func system(p Policy, commSMs int, comm int64, applied *[][2]rtl.Rate) (Config, *rtl.Serializer, *rtl.Serializer) {
	half := RateOf(new(big.Rat).Quo(fullMemory(), q(2, 1)))
	rd, wr := rtl.NewSerializer(half), rtl.NewSerializer(half)
	cfg := Config{
		Policy:  p,
		Compute: npu.Compute{SMs: npu.SMs - commSMs, MemGBps: q(npu.MemoryGBps-comm, 1)},
		Comm: Comm{SMs: commSMs, GBps: q(comm, 1), Memory: []*rtl.Serializer{rd, wr}, NPUs: 1,
			Apply: func(r, w rtl.Rate) {
				*applied = append(*applied, [2]rtl.Rate{r, w})
				rd.SetRate(r)
				wr.SetRate(w)
			}},
	}
	return cfg, rd, wr
}

// at runs f at cycle c.
func at(k *rtl.Kernel, c rtl.Cycle, f func(now rtl.Cycle)) {
	k.Schedule(c, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { f(now) }), 0, 0)
}

// memOnly is a kernel that moves 900 cycles' worth of Table V's memory,
// 900 × 60000/83 B.
func memOnly() Kernel { return Kernel{{SM: new(big.Rat), Mem: q(900, 1)}} }

// stream is communication busy from cycle from to until, reading bytes
// from from on (0: none).
type stream struct {
	from, until rtl.Cycle
	bytes       int64
}

func TestAKernelSlowsByWhatCommunicationTakes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  Policy
		commSMs int
		comm    int64
		w       Kernel
		s       *stream
		want    rtl.Cycle
	}{
		// Alone, the whole memory: 900 cycles.
		{"alone", Share, 0, 0, memOnly(), nil, 900},
		// CommOpt (weights 450 each: a third of 60000/83 B/cycle, 20000/83,
		// for its reads beside the kernel) reads 60000 B from cycle 100: 249
		// cycles, [100, 349). The kernel moves 100 cycles' worth at the
		// full rate, then 249 × 2/3 = 166 cycles' worth, then the other
		// 634 from 349: ends at 983, 83 cycles late, the time the memory
		// takes to move communication's 60000 B (60000 / (60000/83)).
		{"commopt reads 60000 B", Share, 6, 450, memOnly(), &stream{100, 2000, 60000}, 983},
		// Busy but moving nothing: compute takes the whole memory, 900.
		{"commopt idle in flight", Share, 6, 450, memOnly(), &stream{100, 2000, 0}, 900},
		// Under partition compute has its 450 GB/s whatever communication
		// does: 900 × 900/450 = 1800.
		{"partition", Partition, 6, 450, memOnly(), &stream{100, 2000, 60000}, 1800},
		// FLOPs only, CommOpt holding 6 SMs throughout: 800 × 80/74 =
		// 864.9 → 865; alone on 80 SMs, 800.
		{"sms held", Share, 6, 450, Kernel{{SM: q(800, 1), Mem: new(big.Rat)}}, &stream{0, 5000, 0}, 865},
		{"sms free", Share, 6, 450, Kernel{{SM: q(800, 1), Mem: new(big.Rat)}}, nil, 800},
		// Held over [100, 500) only: 100 + 400 × 74/80 = 470 SM-cycles by
		// 500, the other 330 on 80 SMs: 830.
		{"sms held a while", Share, 6, 450, Kernel{{SM: q(800, 1), Mem: new(big.Rat)}}, &stream{100, 500, 0}, 830},
		// A compute-bound kernel (SM 800, Mem 400 cycles' worth): its bytes,
		// slowed by the 83 cycles of the stream, are in by 483; its FLOPs
		// do 100 SM-cycles on 80 SMs, then the other 700 on the 74 that
		// CommOpt leaves from 100: 700 × 80/74 = 756.8, so 856.8 → 857.
		{"compute-bound", Share, 6, 450, Kernel{{SM: q(800, 1), Mem: q(400, 1)}}, &stream{100, 2000, 60000}, 857},
		// Two segments (ASTRA-sim's rule, m = 1/2 of 1000 cycles) under
		// partition with 74 SMs and 450 GB/s: 500 × 80/74 + 500 × 900/450
		// = 540.54 + 1000 = 1540.5 → 1541, one rounding.
		{"scaled partition", Partition, 6, 450, Scaled(q(1000, 1), q(1, 2)), nil, 1541},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var applied [][2]rtl.Rate
			cfg, rd, _ := system(tc.policy, tc.commSMs, tc.comm, &applied)
			k := rtl.NewKernel()
			n, err := New(k, cfg)
			require.NoError(t, err)
			end := rtl.Cycle(-1)
			require.NoError(t, n.Run(0, tc.w, func(now rtl.Cycle) { end = now }))
			if s := tc.s; s != nil {
				at(k, s.from, func(now rtl.Cycle) {
					n.SetCommBusy(now, true)
					if s.bytes > 0 {
						rd.Start(now, s.bytes)
					}
				})
				at(k, s.until, func(now rtl.Cycle) { n.SetCommBusy(now, false) })
			}
			k.Run()
			require.Equal(t, tc.want, end)
		})
	}
}

// Communication's rates: CommOpt busy alone gets half the memory each way
// (weights 450:450; 30000/83 B/cycle, under its SMs' 384 B/cycle of
// loads); beside a memory-bound kernel a third, 300 GB/s (20000/83 B/cycle);
// when the kernel ends, half again.
func TestCommunicationGetsItsShare(t *testing.T) {
	var applied [][2]rtl.Rate
	cfg, _, _ := system(Share, 6, 450, &applied)
	cfg.Comm.ReadLimit = q(6*64, 1)
	k := rtl.NewKernel()
	n, err := New(k, cfg)
	require.NoError(t, err)
	n.SetCommBusy(0, true)
	half := rtl.Rate{Num: 30000, Den: 83}
	third := rtl.Rate{Num: 20000, Den: 83}
	require.Equal(t, [][2]rtl.Rate{{half, half}}, applied)
	require.NoError(t, n.Run(0, memOnly(), func(rtl.Cycle) {}))
	k.Run()
	require.Equal(t, [][2]rtl.Rate{{half, half}, {third, third}, {half, half}}, applied)
}

// The roofline kernel under partition takes npu.Compute.KernelCycles, the
// rule it replaces, on the systems of Table VI.
func TestRooflineMatchesKernelCycles(t *testing.T) {
	for _, c := range []npu.Compute{{SMs: 80, MemGBps: q(900, 1)}, {SMs: 74, MemGBps: q(450, 1)}, {SMs: 78, MemGBps: q(772, 1)}} {
		for _, w := range [][2]int64{{1e9, 0}, {0, 1e6}, {3e10, 5e7}, {123456789, 98765432}, {1, 1}} {
			k := rtl.NewKernel()
			n, err := New(k, Config{Policy: Partition, Compute: c})
			require.NoError(t, err)
			got := rtl.Cycle(-1)
			require.NoError(t, n.Run(0, Roofline(w[0], w[1]), func(now rtl.Cycle) { got = now }))
			k.Run()
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

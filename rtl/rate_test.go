package rtl

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRateGBps(t *testing.T) {
	eff := big.NewRat(94, 100)
	tests := []struct {
		name     string
		gbps     *big.Rat
		eff      *big.Rat
		num, den int64
	}{
		// 25e9 × 0.94 / 1.245e9 = 23.5e9/1.245e9 = 23500/1245 = 4700/249.
		{"inter-package", big.NewRat(25, 1), eff, 4700, 249},
		// 200e9 × 0.94 / 1.245e9 = 188000/1245 = 37600/249.
		{"intra-package", big.NewRat(200, 1), eff, 37600, 249},
		// 900e9 / 1.245e9 = 900000/1245 = 60000/83.
		{"memory", big.NewRat(900, 1), big.NewRat(1, 1), 60000, 83},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := RateGBps(tc.gbps, tc.eff)
			require.NoError(t, err)
			require.Equal(t, Rate{tc.num, tc.den}, r)
		})
	}
	_, err := RateGBps(big.NewRat(0, 1), eff)
	require.ErrorContains(t, err, "must be positive")
	_, err = NewRate(big.NewRat(1, 1<<40), ClockHz)
	require.ErrorContains(t, err, "too fine")
}

// Back-to-back packets on 0.94 × 25 GB/s: the n-th packet of 256 B ends at
// exactly ceil(n × 256 × 249 / 4700) cycles, with no drift over a long run.
func TestSerializerExactOverLongRun(t *testing.T) {
	s := NewSerializer(Rate{4700, 249})
	var end Cycle
	const packets = 1_000_000
	for i := 1; i <= packets; i++ {
		end = s.Start(0, 256)
		if i == 1 {
			// 256 × 249 / 4700 = 63744/4700 = 13.56… → cycle 14.
			require.Equal(t, Cycle(14), end)
		}
	}
	// 256e6 × 249 / 4700 = 63744000000/4700 = 13562553.19… → 13562554.
	require.Equal(t, Cycle(13562554), end)
	require.Equal(t, big.NewRat(256*packets*249, 4700), s.BusyCycles())
	// Rounding each packet to whole cycles would have given 14 × 1e6 = 14000000.
}

func TestSerializerIdleGapsStartAtReady(t *testing.T) {
	s := NewSerializer(Rate{4700, 249})
	// First packet ready at 100: ends at 100 + 13.56 → 114.
	require.Equal(t, Cycle(114), s.Start(100, 256))
	require.False(t, s.FreeBy(113))
	require.Equal(t, Cycle(114), s.FreeAt())
	// Ready at 110, while busy until 113.56: starts at 113.56, ends 127.12 → 128.
	require.Equal(t, Cycle(128), s.Start(110, 256))
	// Ready at 200, idle since 127.12: starts at 200, ends 213.56 → 214.
	require.Equal(t, Cycle(214), s.Start(200, 256))
	require.True(t, s.FreeBy(214))
	// Busy time is 3 × 13.56… = 3 × 63744/4700 cycles.
	require.Equal(t, big.NewRat(3*63744, 4700), s.BusyCycles())
}

func TestCeilRat(t *testing.T) {
	for _, tc := range []struct {
		x    *big.Rat
		want int64
	}{{big.NewRat(6, 3), 2}, {big.NewRat(7, 3), 3}, {big.NewRat(722*83, 60000), 1}, {big.NewRat(-7, 3), -2}, {big.NewRat(0, 1), 0}} {
		require.Equal(t, tc.want, CeilRat(tc.x), tc.x.RatString())
	}
}

// A rate change keeps the transfer under way and times the next at the new
// rate: 10 B at 4 B/cycle from 0 end at 2.5 (cycle 3); at 2 B/cycle from
// cycle 1 the next 10 B start at 2.5 and end at 7.5 (cycle 8); busy 2.5 +
// 5 = 7.5 cycles. Then at 3 B/cycle, idle from 7.5: ready at 8, 9 B end at
// 11.
func TestSerializerSetRateKeepsTheTransferUnderWay(t *testing.T) {
	s := NewSerializer(Rate{Num: 4, Den: 1})
	require.Equal(t, Cycle(3), s.Start(0, 10))
	s.SetRate(Rate{Num: 2, Den: 1})
	require.Equal(t, Cycle(2), s.FreeCycle())
	require.Equal(t, Cycle(8), s.Start(1, 10))
	require.Zero(t, s.BusyCycles().Cmp(big.NewRat(15, 2)))
	s.SetRate(Rate{Num: 3, Den: 1})
	require.Equal(t, Cycle(11), s.Start(8, 9))
	require.Zero(t, s.BusyCycles().Cmp(big.NewRat(21, 2)))
}

// A transfer's time is worked out again after a rate change, for the
// size of the one before it too: 4 B at 2 B/cycle end at 2; at 1/3
// B/cycle (Num 1, Den 3) 4 B take 12 cycles, to 14; at 2 B/cycle again,
// 2 cycles, to 16. A transfer of nothing ready at 2 after the first
// change ends, exactly, where it starts: 2 cycles, 2 units of 1/1.
func TestSerializerTimesASizeAfreshAfterARateChange(t *testing.T) {
	s := NewSerializer(Rate{Num: 2, Den: 1})
	require.Equal(t, Cycle(2), s.Start(0, 4))
	s.SetRate(Rate{Num: 1, Den: 3})
	// 0 bytes take no time at any rate: ready at 2, free at 2, done at 2
	// (not 2 plus the stride of 4 B at the old rate).
	require.Equal(t, Cycle(2), s.Start(2, 0))
	require.Equal(t, int64(2), s.FreeExact())
	require.Equal(t, Cycle(14), s.Start(2, 4))
	s.SetRate(Rate{Num: 2, Den: 1})
	require.Equal(t, Cycle(16), s.Start(14, 4))
}

// An end that the new unit cannot express is rounded up within its cycle:
// 1 B at 3 B/cycle ends at 1/3; at 2 B/cycle (unit 1/2) it is free at
// 1/2, still in cycle 0, so the next 1 B ends at 1.
func TestSerializerSetRateRoundsUpWithinTheCycle(t *testing.T) {
	s := NewSerializer(Rate{Num: 3, Den: 1})
	s.Start(0, 1)
	s.SetRate(Rate{Num: 2, Den: 1})
	require.True(t, s.FreeWithin(0))
	require.Equal(t, Cycle(1), s.Start(0, 1))
}

// Rounding up to the new unit would reach the next cycle: 2 B at 3 B/cycle
// end at 2/3; in halves that is 4/3 → 2 halves, cycle 1. The end stays in
// cycle 0 (its last half), so a transfer ready in cycle 0 still follows
// it there: 1 B from 1/2 at 2 B/cycle ends at 1.
func TestSerializerSetRateStaysInItsCycle(t *testing.T) {
	s := NewSerializer(Rate{Num: 3, Den: 1})
	s.Start(0, 2)
	s.SetRate(Rate{Num: 2, Den: 1})
	require.True(t, s.FreeWithin(0))
	require.Equal(t, Cycle(0), s.FreeCycle())
	require.Equal(t, Cycle(1), s.Start(0, 1))
}

// The serializer keeps its end in whole cycles without dividing (Start,
// FreeAt); on random rates, sizes, ready cycles and rate changes every
// end must be ⌈exact end⌉, the exact end worked out independently with
// big.Rat (start = max(ready, previous end), end = start + n / rate).
func TestSerializerEndsAgreeWithExactArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	for run := 0; run < 200; run++ {
		rate := Rate{Num: 1 + r.Int64N(50_000), Den: 1 + r.Int64N(1000)}
		s := NewSerializer(rate)
		free := new(big.Rat) // the exact end of the last transfer, in cycles
		ready := Cycle(0)
		for i := 0; i < 300; i++ {
			if r.IntN(40) == 0 {
				// A rate change keeps the transfer under way's end; the
				// reference takes the serializer's own rounded end
				// (SetRate's rule is tested on its own above).
				rate = Rate{Num: 1 + r.Int64N(50_000), Den: 1 + r.Int64N(1000)}
				s.SetRate(rate)
				free = big.NewRat(s.freeAt, rate.Num)
				require.Equal(t, CeilRat(free), int64(s.FreeAt()))
			}
			ready += Cycle(r.IntN(3)) * Cycle(r.IntN(20))
			n := []int64{256, 256, 256, 1 + r.Int64N(256), 1 + r.Int64N(1<<20)}[r.IntN(5)]
			start := new(big.Rat).SetInt64(int64(ready))
			if free.Cmp(start) > 0 {
				start = free
			}
			free = new(big.Rat).Add(start, big.NewRat(n*rate.Den, rate.Num))
			end := s.Start(ready, n)
			require.Equal(t, CeilRat(free), int64(end), "run %d transfer %d", run, i)
			require.Equal(t, end, s.FreeAt())
			require.Equal(t, s.FreeBy(end), true)
			require.Equal(t, s.FreeBy(end-1), free.Cmp(new(big.Rat).SetInt64(int64(end-1))) <= 0)
		}
	}
}

// Reset also moves a serializer on to the timing of a Shadow's Mark: the
// shadow's transfers, done ahead, as if s had done them.
func TestSerializerTakesAShadowsTiming(t *testing.T) {
	s := NewSerializer(Rate{Num: 3, Den: 1})
	sh := s.Shadow()
	require.Equal(t, Cycle(4), sh.Start(2, 6)) // [2, 4)
	s.Reset(sh.Mark())
	require.Equal(t, Cycle(4), s.FreeAt())
	require.Equal(t, big.NewRat(2, 1), s.BusyCycles())
	require.False(t, s.Watched())
	s.Watch(func(Cycle, int64, int64, Cycle, Rate, int64) {})
	require.True(t, s.Watched())
}

// Reset undoes the transfers started since a Mark: the end, the busy time
// and the next transfer's start are what they were.
func TestSerializerResetsToAMark(t *testing.T) {
	s := NewSerializer(Rate{Num: 3, Den: 1})
	s.Start(2, 4) // [2, 3 1/3)
	m := s.Mark()
	s.Start(0, 9) // [3 1/3, 6 1/3)
	require.Equal(t, Cycle(7), s.FreeAt())
	s.Reset(m)
	require.Equal(t, Cycle(4), s.FreeAt())
	require.Equal(t, big.NewRat(4, 3), s.BusyCycles())
	// 2 bytes after [2, 3 1/3): [3 1/3, 4) ends in cycle 4.
	require.Equal(t, Cycle(4), s.Start(0, 2))
	start, end := s.LastSpan()
	require.Equal(t, [2]int64{10, 12}, [2]int64{start, end})
}

// Steps gives the end cycles of transfers back to back, and Run does
// them, as the exact arithmetic says: on random rates, after random
// transfers, k transfers of n bytes from the exact end F end at
// ⌈F + i·n/rate⌉ (i = 1 … k), worked out with big.Rat; after Run the end,
// the busy time and the last span are those of the k-th, and a watcher
// sees each transfer's span.
func TestSerializerRunsTransfersBackToBack(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for run := 0; run < 300; run++ {
		rate := Rate{Num: 1 + r.Int64N(50_000), Den: 1 + r.Int64N(1000)}
		s := NewSerializer(rate)
		var spans [][2]int64
		if r.IntN(3) == 0 {
			s.Watch(func(_ Cycle, start, end int64, _ Cycle, _ Rate, _ int64) { spans = append(spans, [2]int64{start, end}) })
		}
		for i := r.IntN(4); i > 0; i-- {
			s.Start(Cycle(r.IntN(100)), 1+r.Int64N(1000))
		}
		busy := s.BusyCycles()
		spans = spans[:0]
		free := big.NewRat(s.FreeExact(), rate.Num)
		k, n := r.Int64N(50), []int64{256, 1 + r.Int64N(5000)}[r.IntN(2)]
		d := big.NewRat(n*rate.Den, rate.Num)
		steps := s.Steps(n)
		for i := int64(1); i <= k; i++ {
			end := new(big.Rat).Add(free, new(big.Rat).Mul(d, big.NewRat(i, 1)))
			require.Equal(t, CeilRat(end), int64(steps.Next()), "run %d transfer %d", run, i)
		}
		s.Run(k, n)
		kd := new(big.Rat).Mul(d, big.NewRat(k, 1))
		end := new(big.Rat).Add(free, kd)
		require.Equal(t, CeilRat(end), int64(s.FreeAt()), "run %d", run)
		require.Zero(t, new(big.Rat).Add(busy, kd).Cmp(s.BusyCycles()))
		require.Zero(t, big.NewRat(s.FreeExact(), rate.Num).Cmp(end))
		if k > 0 {
			start, _ := s.LastSpan()
			require.Zero(t, big.NewRat(start, rate.Num).Cmp(new(big.Rat).Sub(end, d)))
		}
		if s.Watched() {
			require.Len(t, spans, int(k))
			for i, sp := range spans {
				require.Equal(t, s.FreeExact()-(k-int64(i))*n*rate.Den, sp[0])
			}
		}
	}
}

// A Stride moves an instant on as adding its units and rounding up again
// does: on random instants, strides and cycle lengths, Add of RoundUp(v)
// is RoundUp(v + d), and RoundUp's slack lies in [0, num).
func TestStrideAddsWhatRoundingUpGives(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 11))
	for range 10_000 {
		num := 1 + r.Int64N(1<<31-1)
		v, d := r.Int64N(1<<40), r.Int64N(1<<40)
		c, sl := RoundUp(v, num)
		require.True(t, sl >= 0 && sl < num, "slack %d of %d", sl, num)
		require.Equal(t, v, c*num-sl)
		gc, gs := NewStride(d, num).Add(c, sl)
		wc, ws := RoundUp(v+d, num)
		require.Equal(t, [2]int64{wc, ws}, [2]int64{gc, gs}, "v %d d %d num %d", v, d, num)
	}
}

// A bandwidth whose rate is too fine a fraction is refused with the reason
// and the nearest whole GB/s that fit, at the edge of the bound: at
// efficiency 0.94, 2462 GB/s is 462856/249 B/cycle (462856 × 249 =
// 115251144, inside 115292150), 2464 GB/s is 463232/249 (115344768, over;
// 2463 and 2466, multiples of 3, are over 83 and fit); 5000 GB/s is
// 940000/249, while 4998 GB/s (313208/83) and 5001 GB/s (313400/83) fit,
// as does 4980 GB/s (940 B/cycle).
func TestRateGBpsTooFineSaysWhyAndWhatFits(t *testing.T) {
	eff := big.NewRat(94, 100)
	tests := []struct {
		name string
		gbps *big.Rat
		want string // "" : accepted
	}{
		{"inside the bound", big.NewRat(2462, 1), ""},
		{"two more is over the bound", big.NewRat(2464, 1), "2464GB/s at efficiency 0.94 is 463232/249 B/cycle at 1245 MHz, too fine a fraction for acemu's exact time: acemu keeps time exactly in units of 1/463232 cycle and multiplies it by 249, and for 20000000000 cycles (16 s at 1245 MHz) to fit 64 bits 463232 × 249 must be at most 115292150; give 2463GB/s or 2466GB/s, the nearest whole GB/s that fit"},
		{"a round bandwidth", big.NewRat(5000, 1), "give 4998GB/s or 5001GB/s, the nearest whole GB/s that fit"},
		{"a multiple of 249 GB/s", big.NewRat(4980, 1), ""},
		{"the top of the links' range", big.NewRat(100000, 1), "give 99932GB/s or 100015GB/s"},
		{"too many digits", big.NewRat(3333333333, 100000000), "33.33333333GB/s at efficiency 0.94 is 52222222217/2075000000 B/cycle at 1245 MHz, too fine a fraction for acemu's exact time: its numerator and denominator must each stay below 2^31; give 33GB/s or 34GB/s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RateGBps(tc.gbps, eff)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A memory-sharing rate's Num can be near 2^31 (contend.RateOf), and
// MaxCycle × 2^31 does not fit 64 bits: such a serializer moves the base
// its exact time counts from. Up to MaxCycle its ends, FreeBy, FreeWithin,
// FreeCycle, busy time and watched spans must agree with big.Rat, for
// rates up to the largest exact ones, with jumps of idle time, back-to-back
// runs and a rate change on the way.
func TestSerializerStaysExactToMaxCycleAtFineRates(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate Rate
	}{
		{"largest exact fraction", Rate{Num: 1<<31 - 1, Den: 1<<31 - 3}},
		{"a pinned run's sharing rate", Rate{Num: 1609148125, Den: 6246912}},
		{"the least sharing rate", Rate{Num: 1, Den: 1 << 20}},
		{"a link rate at the product bound", Rate{Num: maxRateProduct, Den: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(tc.rate.Num)))
			rate := tc.rate
			s := NewSerializer(rate)
			var seen *big.Rat // the last watched span's end, in cycles
			var done Cycle    // and the cycle it was said to end by
			s.Watch(func(base Cycle, start, end int64, by Cycle, r Rate, _ int64) {
				seen = new(big.Rat).Add(big.NewRat(int64(base), 1), big.NewRat(end, r.Num))
				done = by
			})
			free, busy := new(big.Rat), new(big.Rat)
			ready := Cycle(0)
			for i := 0; ready < MaxCycle-MaxCycle/50; i++ {
				if i == 100 {
					rate = Rate{Num: rate.Num - 1, Den: rate.Den}
					s.SetRate(rate)
					free = big.NewRat(int64(s.FreeAt()), 1) // idle by now: see below
				}
				ready += Cycle(r.Int64N(MaxCycle / 100))
				n := 1 + r.Int64N(1<<20)
				start := new(big.Rat).SetInt64(int64(ready))
				if free.Cmp(start) > 0 {
					start = free
				}
				d := big.NewRat(n*rate.Den, rate.Num)
				free = new(big.Rat).Add(start, d)
				busy.Add(busy, d)
				end := s.Start(ready, n)
				require.Equal(t, CeilRat(free), int64(end), "transfer %d at cycle %d", i, ready)
				require.Equal(t, free, seen, "the watched end of transfer %d", i)
				require.Equal(t, CeilRat(free), int64(done), "the watched end cycle of transfer %d", i)
				floor := new(big.Rat).SetInt64(int64(end - 1))
				require.Equal(t, free.Cmp(floor) <= 0, s.FreeBy(end-1))
				require.Equal(t, free.Cmp(new(big.Rat).SetInt64(int64(end))) < 0, s.FreeWithin(end-1))
				require.True(t, s.FreeWithin(end))
				k := 1 + r.Int64N(5)
				s.Run(k, n)
				free.Add(free, new(big.Rat).Mul(d, big.NewRat(k, 1)))
				busy.Add(busy, new(big.Rat).Mul(d, big.NewRat(k, 1)))
				require.Equal(t, CeilRat(free), int64(s.FreeAt()))
				require.Equal(t, CeilRat(free)-1+boolInt(free.IsInt()), int64(s.FreeCycle()))
				if i == 99 {
					ready = s.FreeAt() + 1 // idle before the rate changes
				}
			}
			require.Equal(t, busy, s.BusyCycles())
			if tc.rate.Num*tc.rate.Den <= maxRateProduct {
				require.Zero(t, s.base, "a rate NewRate accepts never moves the base before MaxCycle")
			} else {
				require.NotZero(t, s.base)
			}
		})
	}
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// A transfer too long for a serializer's exact time stops the run with an
// Overflow (turned into an error by RecoverOverflow), never a wrapped time.
func TestSerializerRefusesATransferBeyond64Bits(t *testing.T) {
	s := NewSerializer(Rate{Num: 1<<31 - 1, Den: 1<<31 - 3})
	err := func() (err error) {
		defer RecoverOverflow(&err)
		s.Start(0, 1<<40)
		return nil
	}()
	require.ErrorContains(t, err, "beyond 64 bits")
}

// TimeIn rounds once, half up, from the integer cycles at 1245 MHz (a
// cycle is 200/249 ns).
func TestCycleTimeIn(t *testing.T) {
	for _, c := range []struct {
		c         Cycle
		perSecond int64
		want      int64
	}{
		{0, 1e9, 0},
		{1245, 1e9, 1000},     // a µs
		{249, 1e9, 200},       // 249 cycles are 200 ns exactly
		{1, 1e9, 1},           // 0.803 ns
		{450628, 1e7, 3620},   // 3619.502 tenths of a µs
		{894612, 1e7, 7186},   // 7185.638
		{62, 1e7, 0},          // 0.498
		{63, 1e7, 1},          // 0.506
		{3, 1e10, 24},         // 24.096 tenths of a ns
		{1_245_000_000, 1, 1}, // a second
		{1_867_499_999, 1, 1}, // 1.49999 s
		{1_867_500_000, 1, 2}, // 1.5 s exactly: half up
	} {
		require.Equal(t, c.want, c.c.TimeIn(c.perSecond), "%d cycles in 1/%d s", c.c, c.perSecond)
	}
}

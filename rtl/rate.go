package rtl

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"strings"

	"github.com/acemu/acemu/units"
)

// ClockHz is the NPU clock of the ACE platform (Table V): 1245 MHz. One Cycle
// is 1/ClockHz seconds.
const ClockHz = 1_245_000_000

// Rate is an exact bandwidth in bytes per cycle, the fraction Num/Den in
// lowest terms. 0.94 × 25 GB/s at 1245 MHz is 4700/249 B/cycle, not 18.88.
type Rate struct {
	Num, Den int64
}

// maxRatePart bounds Num and Den so that time arithmetic in sub-cycle units
// (cycles × Num, bytes × Den) stays far inside int64 for any realistic run.
const maxRatePart = 1 << 31

// NewRate returns bytesPerSecond/clockHz bytes per cycle, exactly. It fails
// when the rate is not positive or its fraction needs more than 31 bits.
func NewRate(bytesPerSecond *big.Rat, clockHz int64) (Rate, error) {
	if bytesPerSecond.Sign() <= 0 {
		return Rate{}, fmt.Errorf("bandwidth %s B/s: must be positive", bytesPerSecond.RatString())
	}
	if clockHz <= 0 {
		return Rate{}, fmt.Errorf("clock %d Hz: must be positive", clockHz)
	}
	r := new(big.Rat).Quo(bytesPerSecond, new(big.Rat).SetInt64(clockHz))
	num, den := r.Num(), r.Denom()
	if why := tooFine(num, den); why != "" {
		return Rate{}, fmt.Errorf("bandwidth %s B/s at %d Hz is %s B/cycle: %w: %s", bytesPerSecond.RatString(), clockHz, r.RatString(), errTooFine, why)
	}
	return Rate{Num: num.Int64(), Den: den.Int64()}, nil
}

// tooFine returns why a rate of num/den B/cycle (in lowest terms) is too
// fine a fraction to keep time exactly with, or "" when it is not.
func tooFine(num, den *big.Int) string {
	if !num.IsInt64() || !den.IsInt64() || num.Int64() >= maxRatePart || den.Int64() >= maxRatePart {
		return "its numerator and denominator must each stay below 2^31"
	}
	if p := num.Int64() * den.Int64(); p > maxRateProduct {
		return fmt.Sprintf("acemu keeps time exactly in units of 1/%d cycle and multiplies it by %d, and for %d cycles (%s) to fit 64 bits %d × %d must be at most %d", num.Int64(), den.Int64(), int64(MaxCycle), MaxCycleText, num.Int64(), den.Int64(), int64(maxRateProduct))
	}
	return ""
}

// maxRateProduct bounds a rate's Num × Den so that MaxCycle × Num × Den,
// the largest product of time arithmetic, stays inside int64 with room to
// spare (a factor 4).
const maxRateProduct = (1<<63 - 1) / 4 / MaxCycle

// RateGBps returns the payload rate of a link of gbps GB/s (10^9 B/s, as the
// paper counts) at the given efficiency (a fraction such as 94/100), at the
// NPU clock.
//
// A bandwidth whose rate is too fine a fraction to keep time exactly with
// (NewRate) is refused with the reason and the nearest whole GB/s below
// and above it that fit: the fraction's size depends on how the bandwidth
// divides 1245 MHz, not on how round it is (5000 GB/s at efficiency 0.94
// is 940000/249 B/cycle, too fine; 4980 GB/s is 940 B/cycle).
func RateGBps(gbps, efficiency *big.Rat) (Rate, error) {
	r, err := rateGBps(gbps, efficiency)
	if !errors.Is(err, errTooFine) {
		return r, err
	}
	x := new(big.Rat).Mul(gbps, big.NewRat(1_000_000_000, ClockHz))
	x.Mul(x, efficiency)
	return Rate{}, fmt.Errorf("%s at efficiency %s is %s B/cycle at 1245 MHz, %w: %s; give %s (docs/bad-input.md, \"Limits\")",
		units.FormatBandwidth(gbps), decimal(efficiency), x.RatString(), errTooFine, tooFine(x.Num(), x.Denom()), nearestFits(gbps, efficiency))
}

// decimal writes x as a decimal of up to 9 digits after the point, without
// trailing zeros (0.94, 1), or as a fraction when it has more.
func decimal(x *big.Rat) string {
	return strings.TrimSuffix(units.FormatBandwidth(x), "GB/s")
}

// errTooFine is the reason NewRate refuses a rate whose fraction is too
// fine to keep time exactly with.
var errTooFine = errors.New("too fine a fraction for acemu's exact time")

// rateGBps is the rate of gbps GB/s at the efficiency, at the NPU clock.
func rateGBps(gbps, efficiency *big.Rat) (Rate, error) {
	bps := new(big.Rat).Mul(gbps, big.NewRat(1_000_000_000, 1))
	bps.Mul(bps, efficiency)
	return NewRate(bps, ClockHz)
}

// maxFitSearch bounds how many whole GB/s nearestFits tries each way.
const maxFitSearch = 200_000

// nearestFits returns, for a bandwidth whose rate NewRate refuses, the
// nearest whole GB/s below and above it whose rates it accepts, as text
// for a message ("4980GB/s or 5229GB/s").
func nearestFits(gbps, efficiency *big.Rat) string {
	fits := func(g int64) bool {
		_, err := rateGBps(big.NewRat(g, 1), efficiency)
		return err == nil
	}
	floor := new(big.Int).Quo(gbps.Num(), gbps.Denom())
	var found []string
	if floor.IsInt64() {
		for g := floor.Int64(); g >= 1 && g > floor.Int64()-maxFitSearch; g-- {
			if fits(g) {
				found = append(found, fmt.Sprintf("%dGB/s", g))
				break
			}
		}
		for g := floor.Int64() + 1; g < floor.Int64()+maxFitSearch; g++ {
			if fits(g) {
				found = append(found, fmt.Sprintf("%dGB/s", g))
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return "a smaller bandwidth"
	case 1:
		return found[0] + ", the nearest whole GB/s that fits"
	}
	return found[0] + " or " + found[1] + ", the nearest whole GB/s that fit"
}

// MustRateGBps is RateGBps for constants known to be valid; it panics otherwise.
func MustRateGBps(gbps, efficiency *big.Rat) Rate {
	r, err := RateGBps(gbps, efficiency)
	if err != nil {
		panic(err)
	}
	return r
}

// Rat returns the rate as a big.Rat in bytes per cycle.
func (r Rate) Rat() *big.Rat { return big.NewRat(r.Num, r.Den) }

// BytesPerSecond returns the rate in bytes per second at ClockHz, as a float
// for reports.
func (r Rate) BytesPerSecond() float64 {
	return float64(r.Num) / float64(r.Den) * ClockHz
}

// String prints the rate as a fraction and in GB/s.
func (r Rate) String() string {
	return fmt.Sprintf("%d/%d B/cycle (%.3f GB/s)", r.Num, r.Den, r.BytesPerSecond()/1e9)
}

// Serializer moves bytes at an exact Rate, one transfer after another, like
// the transmitter of a link or a DMA engine. Time inside it is kept in units
// of 1/Num cycle, so back-to-back transfers start at the exact fractional
// cycle the previous one ended: over any run the bytes moved are exactly
// rate × time, never a rounded bytes-per-cycle.
//
// Instants are counted from a base cycle, 0 until a time × Num would pass
// 2^61 (rebaseUnits): a memory-sharing rate's Num can be near 2^31, and
// 2 × 10^10 cycles × 2^31 does not fit 64 bits, so such a serializer moves
// its base on as time goes by. A rate accepted by NewRate (Num × Den ≤
// maxRateProduct) never moves it before MaxCycle.
type Serializer struct {
	rate      Rate
	base      int64 // the cycle instants count from
	limit     int64 // the most cycles from base an instant may lie: rebaseUnits / Num
	freeAt    int64 // when the last transfer ends, in 1/Num cycle units from base
	busy      int64 // transfer time since busyPast, in 1/Num cycle units
	lastStart int64 // when the last transfer started, in 1/Num cycle units from base
	// freeAt as whole cycles, kept without division on the hot path:
	// endCycle = ⌈freeAt / Num⌉ and slack = endCycle×Num − freeAt, in
	// [0, Num). Start moves them on by a transfer's n × Den units, lastD,
	// as a Stride (both worked out once per transfer size, lastN).
	endCycle, slack int64
	lastN, lastD    int64
	stride          Stride
	busyPast        *big.Rat // transfer time at earlier rates or bases, in cycles (nil: none)
	watch           func(base Cycle, start, end int64, done Cycle, r Rate, n int64)
}

// rebaseUnits bounds an instant in units of 1/Num cycle from a
// serializer's base: 2^61 − 1, so that an instant plus a transfer of as
// long again still fits 64 bits.
const rebaseUnits = 1<<61 - 1

// Watch calls f at every transfer started, with its exact span in units of
// 1/r.Num cycle from cycle base (the instant base × r.Num + start), the
// cycle by which it has ended (that end rounded up to a whole cycle,
// which Start returns), its rate r and its bytes n (nil: no one
// watches). It replaces any watcher set before.
func (s *Serializer) Watch(f func(base Cycle, start, end int64, done Cycle, r Rate, n int64)) {
	s.watch = f
}

// Shadow returns a copy of s that no one watches, to work out ahead what
// transfers would do without changing s.
func (s *Serializer) Shadow() Serializer {
	c := *s
	c.watch = nil
	return c
}

// SerializerMark is a serializer's timing at one instant (Mark): enough
// to go back to it (Reset).
type SerializerMark struct {
	base, freeAt, busy, lastStart, endCycle, slack int64
}

// Mark returns s's timing now, for Reset.
func (s *Serializer) Mark() SerializerMark {
	return SerializerMark{s.base, s.freeAt, s.busy, s.lastStart, s.endCycle, s.slack}
}

// Reset gives s the timing of m, a Mark of s or of a Shadow of s taken
// at s's rate: back to it (the transfers started since are undone), or on
// to a shadow's transfers done ahead (a watcher of s sees none of them).
func (s *Serializer) Reset(m SerializerMark) {
	if m.base != s.base {
		// Only a rate finer than NewRate's moves the base before MaxCycle.
		panic(Overflow(fmt.Sprintf("a serializer at %s went back to a mark taken before its exact time was rebased at cycle %d", s.rate, s.base)))
	}
	s.freeAt, s.busy, s.lastStart, s.endCycle, s.slack = m.freeAt, m.busy, m.lastStart, m.endCycle, m.slack
}

// Watched reports whether someone watches s's transfers (Watch).
func (s *Serializer) Watched() bool { return s.watch != nil }

// NewSerializer returns an idle serializer of the given rate.
func NewSerializer(r Rate) *Serializer {
	if r.Num <= 0 || r.Den <= 0 {
		panic("rtl: serializer rate must be positive")
	}
	return &Serializer{rate: r, limit: rebaseUnits / r.Num}
}

// Rate returns the serializer's rate.
func (s *Serializer) Rate() Rate { return s.rate }

// FreeBy reports whether the last transfer has ended by the start of cycle
// now, so that a transfer ready at now would start without waiting.
func (s *Serializer) FreeBy(now Cycle) bool { return s.endCycle <= int64(now) }

// FreeWithin reports whether the last transfer ends before cycle now is
// over, so that a transfer ready during cycle now can follow it at the exact
// (possibly fractional) instant it ends.
func (s *Serializer) FreeWithin(now Cycle) bool {
	return s.endCycle <= int64(now) || s.endCycle == int64(now)+1 && s.slack > 0
}

// FreeCycle returns the cycle during which the last transfer ends.
func (s *Serializer) FreeCycle() Cycle {
	if s.slack > 0 {
		return Cycle(s.endCycle - 1)
	}
	return Cycle(s.endCycle)
}

// FreeAt returns the first cycle at or after which the serializer is idle
// (the end of the last transfer, rounded up to a whole cycle).
func (s *Serializer) FreeAt() Cycle { return Cycle(s.endCycle) }

// Start begins a transfer of n bytes that is ready at cycle ready: it starts
// at the later of ready and the end of the previous transfer. It returns the
// cycle by which the last byte has left (the exact end rounded up).
func (s *Serializer) Start(ready Cycle, n int64) Cycle {
	s.prepare(int64(ready))
	start := (int64(ready) - s.base) * s.rate.Num
	if s.freeAt > start {
		start = s.freeAt
	} else {
		s.endCycle, s.slack = int64(ready), 0
	}
	if n != s.lastN {
		d := s.units(n, 1)
		s.lastN, s.lastD, s.stride = n, d, NewStride(d, s.rate.Num)
	}
	d := s.lastD
	s.endCycle, s.slack = s.stride.Add(s.endCycle, s.slack)
	s.lastStart = start
	s.freeAt = start + d
	s.busy += d
	if s.watch != nil {
		s.watch(Cycle(s.base), start, s.freeAt, Cycle(s.endCycle), s.rate, n)
	}
	return Cycle(s.endCycle)
}

// units returns the time of k transfers of n bytes, k × n × Den in units
// of 1/Num cycle, and stops the run with an Overflow when it would take
// the serializer's instants beyond what 64 bits hold.
func (s *Serializer) units(k, n int64) int64 {
	hi, d := bits.Mul64(uint64(k), uint64(n))
	if hi == 0 {
		hi, d = bits.Mul64(d, uint64(s.rate.Den))
	}
	if hi != 0 || d > rebaseUnits {
		s.tooLong(k, n)
	}
	return int64(d)
}

// tooLong stops the run: k transfers of n bytes take longer than the
// serializer's exact time holds (apart, so that units is inlined).
func (s *Serializer) tooLong(k, n int64) {
	panic(Overflow(fmt.Sprintf("%d transfers of %d bytes at %s take a serializer's exact time beyond 64 bits", k, n, s.rate)))
}

// prepare makes room for transfers ready at cycle ready: instants stay
// within rebaseUnits of the base (at most 2^62 with a transfer added).
func (s *Serializer) prepare(ready int64) {
	if ready-s.base > s.limit || s.freeAt > rebaseUnits {
		s.rebase(ready)
	}
}

// rebase moves the base on towards cycle ready, where a transfer is about
// to start, folding the busy time into busyPast: to ready itself when the
// serializer is idle by then, else to the cycle the last transfer started.
func (s *Serializer) rebase(ready int64) {
	if s.busy != 0 {
		if s.busyPast == nil {
			s.busyPast = new(big.Rat)
		}
		s.busyPast.Add(s.busyPast, big.NewRat(s.busy, s.rate.Num))
		s.busy = 0
	}
	if s.endCycle <= ready { // idle: Start restarts from ready
		s.base, s.freeAt, s.lastStart = ready, 0, 0
		return
	}
	c := s.lastStart / s.rate.Num
	s.base += c
	s.lastStart -= c * s.rate.Num
	s.freeAt -= c * s.rate.Num
	if ready-s.base > s.limit || s.freeAt > rebaseUnits {
		panic(Overflow(fmt.Sprintf("a transfer at %s spans more cycles than a serializer's exact time holds", s.rate)))
	}
}

// Run does k transfers of n bytes back to back, the first starting at
// the end of the last transfer: what k calls of Start do for transfers
// each ready by the instant the one before it ends.
func (s *Serializer) Run(k, n int64) {
	if k <= 0 {
		return
	}
	if s.watch != nil {
		for range k {
			s.Start(s.FreeCycle(), n) // ready by the end before
		}
		return
	}
	s.prepare(int64(s.FreeCycle()))
	d := s.units(1, n)
	kd := s.units(k, n)
	s.lastStart = s.freeAt + kd - d
	s.freeAt += kd
	s.busy += kd
	s.endCycle, s.slack = RoundUp(s.freeAt, s.rate.Num)
	s.endCycle += s.base
}

// Stride is a fixed time of d units of 1/num cycle, kept as dq whole
// cycles and dr units, that moves an instant held as a whole cycle and a
// slack (the instant is cycle × num − slack, slack in [0, num)) on
// without division.
type Stride struct{ dq, dr, num int64 }

// NewStride returns the stride of d ≥ 0 units at num units a cycle.
func NewStride(d, num int64) Stride { return Stride{dq: d / num, dr: d % num, num: num} }

// Add returns the instant (cycle, slack) moved on by the stride: the
// instant plus d is (cycle + dq) × num + (dr − slack), with dr − slack in
// (−num, num).
func (s Stride) Add(cycle, slack int64) (int64, int64) {
	cycle += s.dq
	x := s.dr - slack
	if x > 0 {
		return cycle + 1, s.num - x
	}
	return cycle, -x
}

// RoundUp returns the instant v ≥ 0, in units of 1/num cycle, as a whole
// cycle and a slack: ⌈v / num⌉ and ⌈v / num⌉ × num − v, in [0, num).
func RoundUp(v, num int64) (cycle, slack int64) {
	cycle = ceilDiv(v, num)
	return cycle, cycle*num - v
}

// Steps are the end cycles of transfers of one size back to back from
// where a serializer stands (Serializer.Steps), worked out one after
// another without division.
type Steps struct {
	cycle, slack int64
	stride       Stride
}

// Steps returns the end cycles of transfers of n bytes back to back from
// the end of the last transfer, for Next; s does not change.
func (s *Serializer) Steps(n int64) Steps {
	return Steps{cycle: s.endCycle, slack: s.slack, stride: NewStride(n*s.rate.Den, s.rate.Num)}
}

// Next returns the cycle by which the next transfer has ended (its exact
// end rounded up), as Start would.
func (t *Steps) Next() Cycle {
	t.cycle, t.slack = t.stride.Add(t.cycle, t.slack)
	return Cycle(t.cycle)
}

// FreeExact returns the exact end of the last transfer, in units of
// 1/Num cycle (Rate().Num units a cycle).
func (s *Serializer) FreeExact() int64 { return s.absolute(s.freeAt) }

// LastSpan returns when the last transfer started and ended, exactly, in
// units of 1/Num cycle (Rate().Num units a cycle).
func (s *Serializer) LastSpan() (start, end int64) {
	return s.absolute(s.lastStart), s.absolute(s.freeAt)
}

// absolute returns the instant v, in units from the base, in units from
// cycle 0, and stops the run with an Overflow when that does not fit 64
// bits (only rates finer than NewRate's, long after cycle 0).
func (s *Serializer) absolute(v int64) int64 {
	if s.base == 0 {
		return v
	}
	return s.rebased(v)
}

// rebased is absolute for a serializer whose base has moved (apart, so
// that absolute's test is inlined).
func (s *Serializer) rebased(v int64) int64 {
	hi, b := bits.Mul64(uint64(s.base), uint64(s.rate.Num))
	if hi != 0 || b > 1<<62 || v > 1<<62 {
		panic(Overflow(fmt.Sprintf("cycle %d at %s is beyond 64 bits in a serializer's exact time", s.base, s.rate)))
	}
	return int64(b) + v
}

// TransferCycles returns the exact time n bytes take, as a fraction of cycles.
func (s *Serializer) TransferCycles(n int64) *big.Rat { return big.NewRat(n*s.rate.Den, s.rate.Num) }

// BusyCycles returns the total time spent transferring, exactly, in cycles.
func (s *Serializer) BusyCycles() *big.Rat {
	b := big.NewRat(s.busy, s.rate.Num)
	if s.busyPast != nil {
		b.Add(b, s.busyPast)
	}
	return b
}

// SetRate makes transfers that start from now on move at r. A transfer
// under way keeps the end it was given (its caller has scheduled it): the
// serializer stays busy until then, that instant rounded up to the new
// rate's unit of 1/r.Num cycle, or, where that would reach the next
// cycle, to the last unit of the cycle it ends in (so FreeWithin and
// FreeCycle see the same cycle as before); the busy time counted so far
// is kept exactly.
func (s *Serializer) SetRate(r Rate) {
	if r.Num <= 0 || r.Den <= 0 {
		panic("rtl: serializer rate must be positive")
	}
	if r == s.rate {
		return
	}
	if s.busy != 0 {
		if s.busyPast == nil {
			s.busyPast = new(big.Rat)
		}
		s.busyPast.Add(s.busyPast, big.NewRat(s.busy, s.rate.Num))
		s.busy = 0
	}
	s.freeAt = rescaleWithin(s.freeAt, s.rate.Num, r.Num)
	s.lastStart = rescaleWithin(s.lastStart, s.rate.Num, r.Num)
	s.rate, s.limit = r, rebaseUnits/r.Num
	s.endCycle, s.slack = RoundUp(s.freeAt, r.Num)
	s.endCycle += s.base
	s.lastN, s.lastD = -1, 0 // no size's stride at the new rate yet, 0 bytes included
}

// rescaleWithin returns ⌈t × to / from⌉ for t ≥ 0 (an instant in units of
// 1/from cycle, returned in units of 1/to), but, when t is inside a cycle,
// no later than that cycle's last unit.
func rescaleWithin(t, from, to int64) int64 {
	x := new(big.Int).Mul(big.NewInt(t), big.NewInt(to))
	q, m := new(big.Int).QuoRem(x, big.NewInt(from), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if t%from != 0 {
		last := new(big.Int).Mul(big.NewInt(t/from+1), big.NewInt(to))
		last.Sub(last, big.NewInt(1))
		if q.Cmp(last) > 0 {
			q = last
		}
	}
	if !q.IsInt64() {
		panic(Overflow("a serializer's exact time no longer fits 64 bits"))
	}
	return q.Int64()
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// CeilRat returns ⌈x⌉ for a rational x, which must fit in int64.
func CeilRat(x *big.Rat) int64 {
	q, m := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		panic(fmt.Sprintf("rtl: %s rounds up to %s, beyond int64", x.RatString(), q))
	}
	return q.Int64()
}

// GBps is bytes moved over cycles at ClockHz, in GB/s (10^9 B/s); 0 over
// no cycles. Every bandwidth a report gives is this one computation.
func GBps(bytes int64, cycles Cycle) float64 {
	if cycles <= 0 {
		return 0
	}
	return float64(bytes) / (float64(cycles) / ClockHz) / 1e9
}

// TimeIn is cycle count c at the NPU clock in units of 1/perSecond of a
// second (1e9: nanoseconds; 1e7: tenths of a microsecond), rounded to the
// nearest, half up, in exact integer arithmetic: c·perSecond/ClockHz with
// the fraction in lowest terms (200/249 ns a cycle at 1245 MHz). Rounding
// once from the integer count, no float can put a value on the wrong side
// of a half. c·2·perSecond/gcd must fit an int64.
func (c Cycle) TimeIn(perSecond int64) int64 {
	num, den := perSecond, int64(ClockHz)
	g, r := num, den
	for r != 0 {
		g, r = r, g%r
	}
	num, den = num/g, den/g
	return (int64(c)*2*num + den) / (2 * den)
}

// Package contend decides how compute and communication share one NPU: its
// SMs and its memory (the ACE paper, Section III: an all-reduce slows
// beside a GEMM or an embedding lookup, and they slow beside it). It runs
// the NPU's compute kernels, one at a time, at the rates their share gives
// them, and tells the communication endpoint the memory rates its share
// gives it, whenever either side starts or stops. The policies and their
// reasons are in docs/memory-system.md.
//
// Time is exact: a kernel's progress is a rational and its rates change
// only at whole cycles; it ends at the first whole cycle its work is done.
package contend

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/acemu/acemu/memsys"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// Policy is how compute and communication share the NPU.
type Policy int

const (
	// Partition is Table VI's split as hard limits: compute keeps its SMs
	// and memory share, communication its own, whatever the other does.
	// The zero value, so that a caller that says nothing keeps the split.
	Partition Policy = iota
	// Share is one memory of 900 GB/s (reads and writes together) and one
	// set of SMs drawn on by both sides at once: Table VI's shares are the
	// weights when all want more, and what one side leaves the other takes
	// (docs/memory-system.md). The command line's default.
	Share
)

// Policies lists the policies' names, the command line's default first.
func Policies() []string { return []string{"share", "partition"} }

// policies maps the names to the policies.
var policies = map[string]Policy{"share": Share, "partition": Partition}

// String returns the policy's name as --memory-policy spells it.
func (p Policy) String() string {
	switch p {
	case Share:
		return "share"
	case Partition:
		return "partition"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy reads a policy's name.
func ParsePolicy(s string) (Policy, error) {
	if p, ok := policies[strings.ToLower(s)]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("memory policy %q: use one of %s (docs/memory-system.md)", s, strings.Join(Policies(), ", "))
}

// Segment is a stretch of a kernel's work, in cycles of the whole NPU: SM
// is its FLOP time on all 80 SMs, Mem its memory time at 900 GB/s. A
// segment progresses at the pace of the slower of the two on what it is
// given (a roofline); either may be zero, not both.
type Segment struct {
	SM, Mem *big.Rat
}

// Kernel is a compute kernel: its segments, run in order.
type Kernel []Segment

// Roofline is a kernel of flops FLOPs moving bytes bytes, one segment:
// SM = flops / (80 × 100000/83), Mem = bytes / (60000/83) (Table V).
func Roofline(flops, bytes int64) Kernel {
	if flops == 0 && bytes == 0 {
		return nil
	}
	sm := big.NewRat(flops, 1)
	sm.Quo(sm, new(big.Rat).Mul(npu.FLOPsPerSMCycle(), big.NewRat(npu.SMs, 1)))
	mem := new(big.Rat).Quo(big.NewRat(bytes, 1), fullMemory())
	return Kernel{{SM: sm, Mem: mem}}
}

// Scaled is a kernel that takes t cycles on the whole NPU, a share m of
// them bound by memory and the rest by the SMs, one after the other: the
// scaling rule of ASTRA-sim compute times (docs/astrasim-workloads.md).
func Scaled(t, m *big.Rat) Kernel {
	var k Kernel
	sm := new(big.Rat).Mul(t, new(big.Rat).Sub(big.NewRat(1, 1), m))
	if sm.Sign() > 0 {
		k = append(k, Segment{SM: sm, Mem: new(big.Rat)})
	}
	if mem := new(big.Rat).Mul(t, m); mem.Sign() > 0 {
		k = append(k, Segment{SM: new(big.Rat), Mem: mem})
	}
	return k
}

// Stretched is the roofline kernel of flops FLOPs and bytes bytes
// stretched to take t cycles on the whole NPU (t > 0), one segment: SM =
// t · tc/tr and Mem = t · tm/tr, where tc and tm are the roofline's FLOP
// and memory times and tr the larger. With no work it is the kernel at the
// ridge, SM = Mem = t: bound by both. It is how a time from a workload
// file runs when its pass's shape is known, or not
// (docs/astrasim-workloads.md, "Converting the times").
func Stretched(t *big.Rat, flops, bytes int64) Kernel {
	r := Roofline(flops, bytes)
	if r == nil {
		return Kernel{{SM: new(big.Rat).Set(t), Mem: new(big.Rat).Set(t)}}
	}
	s := r[0]
	tr := s.SM
	if s.Mem.Cmp(tr) > 0 {
		tr = s.Mem
	}
	f := new(big.Rat).Quo(t, tr)
	return Kernel{{SM: new(big.Rat).Mul(s.SM, f), Mem: new(big.Rat).Mul(s.Mem, f)}}
}

// Alone is how long k takes, exactly, with c's SMs and memory to itself
// and nothing else running: each segment at the pace of the slower of its
// two, max(SM · 80/SMs, Mem · 900/MemGBps), summed. c must be valid.
func (k Kernel) Alone(c npu.Compute) *big.Rat {
	t := new(big.Rat)
	smScale := big.NewRat(npu.SMs, int64(c.SMs))
	memScale := new(big.Rat).Quo(big.NewRat(npu.MemoryGBps, 1), c.MemGBps)
	for _, s := range k {
		a := new(big.Rat).Mul(s.SM, smScale)
		if b := new(big.Rat).Mul(s.Mem, memScale); b.Cmp(a) > 0 {
			a = b
		}
		t.Add(t, a)
	}
	return t
}

// fullMemory is Table V's 900 GB/s in bytes per cycle (60000/83).
func fullMemory() *big.Rat { return npu.MemBytesPerCycle(big.NewRat(npu.MemoryGBps, 1)) }

// Comm is communication's side of the NPU.
type Comm struct {
	// SMs is what communication holds while a collective is in flight.
	SMs int
	// GBps is its memory allotment per direction in Table VI (its weight
	// under Share); zero when it uses no memory (the ideal endpoint).
	GBps *big.Rat
	// ReadLimit and WriteLimit are the most its reads and writes can use,
	// in bytes per cycle (nil: no limit of their own).
	ReadLimit, WriteLimit *big.Rat
	// Apply gives the endpoint its memory rates for reads and writes; nil
	// when it uses no memory.
	Apply func(read, write rtl.Rate)
	// Memory is the serializers through which it moves bytes to and from
	// memory, on the NPUs the endpoint simulates, and NPUs how many those
	// are: under Share compute gets what they leave, on average over the
	// NPUs.
	Memory []*rtl.Serializer
	NPUs   int
	// Follow, when set, is called by New with a function that makes
	// communication hold sms SMs from cycle now, with read and write
	// limits Limits gives: the endpoint calls it when a collective runs on
	// SMs of its own (afi.IssueOptions.SMs, LIBRA's per-collective thread
	// allocation, docs/libra.md), before it starts. Under Share compute
	// then has the rest while a collective is in flight; under Partition
	// compute keeps its SMs whatever communication does, so a change is
	// refused.
	Follow func(set func(now rtl.Cycle, sms int) error)
	// Limits is ReadLimit and WriteLimit with sms communication SMs (nil:
	// the same for any number).
	Limits func(sms int) (read, write *big.Rat)
}

// Config is one NPU's sharing.
type Config struct {
	Policy Policy
	// Compute is what compute keeps under Partition (Table VI).
	Compute npu.Compute
	Comm    Comm
	// Observer, when set, sees every kernel start and end
	// (observe.KernelStart, observe.KernelEnd).
	Observer observe.Observer
}

// NPU shares one NPU between its compute kernels and communication.
type NPU struct {
	k   *rtl.Kernel
	cfg Config
	mem *big.Rat // the memory, bytes per cycle

	commBusy bool
	read     rtl.Rate // the rates last given to communication
	write    rtl.Rate
	watched  []*watcher

	running   bool
	kern      Kernel
	seg       int
	smLeft    *big.Rat // SM-cycles (on 80 SMs) of kern[seg] to do
	bytesLeft *big.Rat // bytes of kern[seg] to move
	at        *big.Rat // the time progress is accounted to (whole cycles under Share)
	pending   *big.Rat // communication's bytes under way past at, per NPU (Share)
	pendEnd   *big.Rat // when the last of them ends
	gen       int64
	done      func(rtl.Cycle)
	started   rtl.Cycle
	// perTransfer: the watchers keep every transfer apart, and every
	// arbitration shares the memory anew: the reference joined transfers
	// (watcher.started) and arbitrations spared (arbitrate) are compared
	// with.
	perTransfer bool
	joined      int64   // transfers the watchers joined to the one before
	shared      sharing // the last arbitration's claims
}

// New returns the sharing of one NPU driven by k.
func New(k *rtl.Kernel, cfg Config) (*NPU, error) {
	if err := cfg.Compute.Validate(); err != nil {
		return nil, fmt.Errorf("compute resources: %w", err)
	}
	if cfg.Comm.SMs < 0 || cfg.Comm.SMs > npu.SMs {
		return nil, fmt.Errorf("communication SMs %d: the NPU has %d", cfg.Comm.SMs, npu.SMs)
	}
	if cfg.Comm.GBps == nil {
		cfg.Comm.GBps = new(big.Rat)
	}
	if cfg.Comm.GBps.Sign() < 0 || cfg.Comm.GBps.Cmp(big.NewRat(npu.MemoryGBps, 1)) > 0 {
		return nil, fmt.Errorf("communication memory %s GB/s: must be in [0, %d]", cfg.Comm.GBps.RatString(), npu.MemoryGBps)
	}
	n := &NPU{k: k, cfg: cfg, mem: fullMemory(), smLeft: new(big.Rat), bytesLeft: new(big.Rat), at: new(big.Rat),
		pending: new(big.Rat), pendEnd: new(big.Rat)}
	if cfg.Policy == Share && len(cfg.Comm.Memory) > 0 {
		if cfg.Comm.NPUs < 1 {
			return nil, fmt.Errorf("communication's memory on %d NPUs: at least one", cfg.Comm.NPUs)
		}
		for _, s := range cfg.Comm.Memory {
			w := &watcher{n: n}
			s.Watch(w.started)
			n.watched = append(n.watched, w)
		}
	}
	if cfg.Comm.Follow != nil {
		cfg.Comm.Follow(n.SetCommSMs)
	}
	return n, nil
}

// SetCommSMs makes communication hold sms SMs from cycle now (Comm.Follow):
// under Share, compute runs on the rest while a collective is in flight,
// its progress up to now at the SMs it had. Under Partition compute keeps
// its SMs (Config.Compute), so another number than the configuration's is
// refused: 80 SMs would be shared by more than 80.
func (n *NPU) SetCommSMs(now rtl.Cycle, sms int) error {
	if sms < 0 || sms > npu.SMs {
		return fmt.Errorf("communication SMs %d: the NPU has %d", sms, npu.SMs)
	}
	if sms == n.cfg.Comm.SMs {
		return nil
	}
	if n.cfg.Policy == Partition {
		return fmt.Errorf("communication on %d SMs under the partition memory policy, where compute keeps its %d SMs whatever communication does: a collective's own SMs (LIBRA's thread allocation, docs/libra.md) need --memory-policy share",
			sms, n.cfg.Compute.SMs)
	}
	n.advance(now)
	n.cfg.Comm.SMs = sms
	if l := n.cfg.Comm.Limits; l != nil {
		n.cfg.Comm.ReadLimit, n.cfg.Comm.WriteLimit = l(sms)
	}
	n.shared.set = false // communication's limits moved: arbitrate again
	n.settle(now)
	return nil
}

// ComputeSMs is the SMs compute runs on now.
func (n *NPU) ComputeSMs() int {
	if n.cfg.Policy == Partition {
		return n.cfg.Compute.SMs
	}
	if n.commBusy {
		return npu.SMs - n.cfg.Comm.SMs
	}
	return npu.SMs
}

// SetCommBusy says, at cycle now, whether a collective is in flight.
func (n *NPU) SetCommBusy(now rtl.Cycle, busy bool) {
	if busy == n.commBusy {
		return
	}
	if n.cfg.Policy == Partition {
		n.commBusy = busy // nothing compute has depends on it
		return
	}
	n.advance(now)
	n.commBusy = busy
	n.settle(now)
}

// Run starts kernel w at cycle now (no other running); done is called at
// the cycle it ends. A kernel with no work ends at once, without a call.
func (n *NPU) Run(now rtl.Cycle, w Kernel, done func(now rtl.Cycle)) error {
	if n.running {
		return fmt.Errorf("a compute kernel started at cycle %d while another runs", now)
	}
	for _, s := range w {
		if s.SM.Sign() < 0 || s.Mem.Sign() < 0 || (s.SM.Sign() == 0 && s.Mem.Sign() == 0) {
			return fmt.Errorf("a compute kernel segment of %s SM-cycles and %s memory-cycles: one must be positive, neither negative", s.SM.RatString(), s.Mem.RatString())
		}
	}
	if len(w) == 0 {
		return nil
	}
	n.commUsed(now) // what communication moved before the kernel is not its business
	n.running, n.kern, n.done = true, w, done
	n.at.SetInt64(int64(now))
	n.started = now
	if o := n.cfg.Observer; o != nil {
		o.Observe(observe.Event{Kind: observe.KernelStart, Cycle: now})
	}
	n.load(0)
	n.settle(now)
	return nil
}

// load makes segment i the current one.
func (n *NPU) load(i int) {
	n.seg = i
	if i < len(n.kern) {
		n.smLeft.Set(n.kern[i].SM)
		n.bytesLeft.Mul(n.kern[i].Mem, n.mem)
	}
}

// limit is the most memory segment s can use, in bytes per cycle, on sms
// SMs: the pace its FLOPs allow; nil when it has no FLOPs to pace it.
func (n *NPU) limit(s Segment, sms int) *big.Rat {
	if s.SM.Sign() == 0 {
		return nil
	}
	l := new(big.Rat).Mul(s.Mem, n.mem)
	l.Mul(l, big.NewRat(int64(sms), npu.SMs))
	return l.Quo(l, s.SM)
}

// smRate is the SM-cycles compute does per cycle now: its SMs / 80.
func (n *NPU) smRate() *big.Rat { return big.NewRat(int64(n.ComputeSMs()), npu.SMs) }

// segTime is how long the current segment's rest takes at constant rates
// sm (SM-cycles per cycle) and mem (bytes per cycle); nil: never.
func (n *NPU) segTime(sm, mem *big.Rat) *big.Rat {
	t := new(big.Rat)
	if n.smLeft.Sign() > 0 {
		if sm.Sign() == 0 {
			return nil
		}
		t.Quo(n.smLeft, sm)
	}
	if n.bytesLeft.Sign() > 0 {
		if m := new(big.Rat).Quo(n.bytesLeft, mem); m.Cmp(t) > 0 {
			t = m
		}
	}
	return t
}

// sub sets x to max(x − y, 0).
func sub(x, y *big.Rat) {
	x.Sub(x, y)
	if x.Sign() < 0 {
		x.SetInt64(0)
	}
}

// advance accounts the kernel's progress up to cycle now. Under Partition
// the rates are constant between events, so a segment that ends inside
// the span hands the rest of it to the next, exactly. Under Share the SMs
// do their part at their rate, and the memory moves compute's bytes at
// whatever communication's transfers left of it over the span (the whole
// memory less what they moved: compute takes every byte left, as early as
// it can); a segment that ends inside the span is seen to end at now.
func (n *NPU) advance(now rtl.Cycle) {
	if !n.running {
		n.commUsed(now)
		return
	}
	t := big.NewRat(int64(now), 1)
	if t.Cmp(n.at) <= 0 {
		return
	}
	sm := n.smRate()
	if n.cfg.Policy == Partition {
		mem := npu.MemBytesPerCycle(n.cfg.Compute.MemGBps)
		for n.seg < len(n.kern) {
			d := n.segTime(sm, mem)
			left := new(big.Rat).Sub(t, n.at)
			if d != nil && d.Cmp(left) <= 0 {
				n.at.Add(n.at, d)
				n.load(n.seg + 1)
				continue
			}
			sub(n.smLeft, left.Mul(left, sm))
			sub(n.bytesLeft, new(big.Rat).Mul(new(big.Rat).Sub(t, n.at), mem))
			break
		}
		n.at.Set(t)
		return
	}
	dt := new(big.Rat).Sub(t, n.at)
	avail := new(big.Rat).Mul(n.mem, dt)
	sub(avail, n.commUsed(now))
	sub(n.smLeft, dt.Mul(dt, sm))
	sub(n.bytesLeft, avail)
	n.at.Set(t)
	if n.smLeft.Sign() == 0 && n.bytesLeft.Sign() == 0 {
		n.load(n.seg + 1)
	}
}

// settle rearbitrates at cycle now (progress accounted to now), ends the
// kernel if it is done and otherwise schedules its next look.
func (n *NPU) settle(now rtl.Cycle) {
	n.gen++
	if n.running && n.seg >= len(n.kern) {
		n.running, n.kern = false, nil
		if o := n.cfg.Observer; o != nil {
			o.Observe(observe.Event{Kind: observe.KernelEnd, Cycle: n.started, End: now})
		}
		n.done(now) // may start the next kernel, which arbitrates
		if !n.running {
			n.arbitrate()
		}
		return
	}
	n.arbitrate()
	if !n.running {
		return
	}
	sm := n.smRate()
	var next *big.Rat
	if n.cfg.Policy == Partition {
		next = n.segTime(sm, npu.MemBytesPerCycle(n.cfg.Compute.MemGBps))
		if next != nil {
			next.Add(next, n.at)
		}
	} else {
		// The first of the segment's parts to end, each as early as it can:
		// the SMs' exactly; the bytes' on the memory less communication's
		// transfers under way (those not yet made can only delay it, and
		// the next look finds them).
		if n.smLeft.Sign() > 0 && sm.Sign() > 0 {
			next = new(big.Rat).Quo(n.smLeft, sm)
		}
		if n.bytesLeft.Sign() > 0 {
			b := new(big.Rat).Add(n.bytesLeft, n.pending)
			b.Quo(b, n.mem)
			if new(big.Rat).Sub(n.pendEnd, n.at).Cmp(b) > 0 {
				b.Quo(n.bytesLeft, n.mem)
			}
			if next == nil || b.Cmp(next) < 0 {
				next = b
			}
		}
		if next != nil {
			next.Add(next, n.at)
		}
	}
	if next == nil {
		return // the SMs are all communication's: resumes when it lets go
	}
	n.k.Schedule(rtl.Cycle(max(rtl.CeilRat(next), int64(now))), n, 0, n.gen)
}

// arbitrate gives communication its memory rates under Share: weighted
// max-min over the claims of now (docs/memory-system.md).
func (n *NPU) arbitrate() {
	if n.cfg.Policy == Partition || !n.commBusy || n.cfg.Comm.GBps.Sign() == 0 || n.cfg.Comm.Apply == nil {
		return
	}
	var claims []memsys.Claim
	compute, l := false, (*big.Rat)(nil)
	if n.running && n.seg < len(n.kern) && n.bytesLeft.Sign() > 0 {
		if l = n.limit(n.kern[n.seg], n.ComputeSMs()); l == nil || l.Sign() > 0 {
			compute = true
			w := new(big.Rat).Sub(big.NewRat(npu.MemoryGBps, 1), n.cfg.Comm.GBps)
			claims = append(claims, memsys.Claim{Weight: w, Limit: l})
		}
	}
	// The same claims as at the last arbitration give the same rates,
	// which communication has had since (memsys.Share depends on nothing
	// else; the memory and communication's weight do not change, and
	// SetCommSMs, which moves its limits, clears the record).
	m := &n.shared
	if m.set && !n.perTransfer && m.compute == compute && (!compute || sameRat(m.limit, l)) {
		return
	}
	*m = sharing{set: true, compute: compute, limit: l}
	c := len(claims)
	claims = append(claims, memsys.Claim{Weight: n.cfg.Comm.GBps, Limit: n.cfg.Comm.ReadLimit},
		memsys.Claim{Weight: n.cfg.Comm.GBps, Limit: n.cfg.Comm.WriteLimit})
	got := memsys.Share(n.mem, claims)
	rd, wr := RateOf(got[c]), RateOf(got[c+1])
	if rd != n.read || wr != n.write {
		n.read, n.write = rd, wr
		n.cfg.Comm.Apply(rd, wr)
	}
}

// sharing is compute's claim at the last arbitration (NPU.arbitrate):
// whether it claimed and its limit, nil for none.
type sharing struct {
	set, compute bool
	limit        *big.Rat
}

// sameRat reports whether a and b are both nil or of the same value.
func sameRat(a, b *big.Rat) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Cmp(b) == 0
}

// Handle looks at the kernel at its event.
func (n *NPU) Handle(now rtl.Cycle, _ int32, gen int64) {
	if gen != n.gen || !n.running {
		return
	}
	n.advance(now)
	n.settle(now)
}

// watcher keeps one memory serializer's transfers that have not ended,
// and the bytes of those that ended since the last look.
type watcher struct {
	n     *NPU
	q     []transfer
	head  int
	whole int64    // bytes of ended transfers never looked at
	part  *big.Rat // the rest of ended transfers looked at while under way
}

// transfer is one of them, or several back to back at one rate (started
// joins them): its span in units of 1/num cycle from cycle base, the
// cycle by which it has ended (its end rounded up, done), its bytes, and
// the bytes already counted (nil: none).
type transfer struct {
	base, start, end, done, num, den, bytes int64
	counted                                 *big.Rat
}

// endedBy reports whether the transfer has ended by cycle now: its end,
// base × num + end in units of 1/num cycle, is at most now × num, which
// is now ≥ ⌈base + end / num⌉, the cycle the serializer gave (done).
func (tr *transfer) endedBy(now int64) bool { return now >= tr.done }

// started records a transfer, first setting aside those already over, so
// that the queue holds only transfers under way or to come.
//
// A transfer that starts the instant the last one queued ends, at the
// same rate and from the same base, joins it: a serializer's transfer of
// n bytes spans n × Den units (rtl.Serializer.Start), so over transfers
// back to back at one rate the bytes moved by any instant are (instant −
// start) / Den, which is what commUsed works out for the joined transfer
// (its share of the span gone by, times its bytes): the same exact
// rationals as transfer by transfer, with one entry for a stretch of
// packets instead of one each. A joined transfer ends when its last part
// does, and its parts ended before are counted then, as bytes moved by
// that instant, which commUsed has counted already or counts then.
func (w *watcher) started(base rtl.Cycle, start, end int64, done rtl.Cycle, r rtl.Rate, bytes int64) {
	if now := int64(w.n.k.Now()); w.head < len(w.q) && w.q[w.head].endedBy(now) {
		w.retire(now)
	}
	if n := len(w.q); n > w.head && !w.n.perTransfer {
		if tr := &w.q[n-1]; tr.end == start && tr.base == int64(base) && tr.num == r.Num && tr.den == r.Den {
			tr.end, tr.done = end, int64(done)
			tr.bytes += bytes
			w.n.joined++
			return
		}
	}
	w.q = append(w.q, transfer{base: int64(base), start: start, end: end, done: int64(done), num: r.Num, den: r.Den, bytes: bytes})
}

// retire moves the transfers ended by cycle now out of the queue, keeping
// the bytes not yet counted. Transfers on one serializer end in order.
func (w *watcher) retire(now int64) {
	for w.head < len(w.q) && w.q[w.head].endedBy(now) {
		tr := &w.q[w.head]
		if tr.counted == nil {
			w.whole += tr.bytes
		} else {
			if w.part == nil {
				w.part = new(big.Rat)
			}
			w.part.Add(w.part, new(big.Rat).Sub(big.NewRat(tr.bytes, 1), tr.counted))
		}
		w.head++
	}
	if w.head > 0 && w.head*2 >= len(w.q) {
		w.q = w.q[:copy(w.q, w.q[w.head:])]
		w.head = 0
	}
}

// commUsed returns the bytes communication's transfers moved, per NPU,
// since the last call and up to cycle now, and sets n.pending and
// n.pendEnd to what they still have to move after now and when they end.
func (n *NPU) commUsed(now rtl.Cycle) *big.Rat {
	used := new(big.Rat)
	var whole int64
	n.pending.SetInt64(0)
	n.pendEnd.SetInt64(int64(now))
	for _, w := range n.watched {
		w.retire(int64(now))
		whole += w.whole
		w.whole = 0
		if w.part != nil {
			used.Add(used, w.part)
			w.part = nil
		}
		for i := w.head; i < len(w.q); i++ {
			tr := &w.q[i]
			// Not ended (retired above): now − base is within its span.
			if e := (int64(now) - tr.base) * tr.num; tr.start < e {
				// Under way: the share of its span gone by now.
				moved := big.NewRat(e-tr.start, tr.end-tr.start)
				moved.Mul(moved, big.NewRat(tr.bytes, 1))
				if tr.counted == nil {
					tr.counted = new(big.Rat)
				}
				used.Add(used, new(big.Rat).Sub(moved, tr.counted))
				tr.counted = moved
				n.pending.Add(n.pending, new(big.Rat).Sub(big.NewRat(tr.bytes, 1), moved))
			} else {
				n.pending.Add(n.pending, big.NewRat(tr.bytes, 1))
			}
			end := big.NewRat(tr.end, tr.num)
			if end.Add(end, big.NewRat(tr.base, 1)); end.Cmp(n.pendEnd) > 0 {
				n.pendEnd = end
			}
		}
	}
	used.Add(used, big.NewRat(whole, 1))
	if len(n.watched) > 0 {
		npus := big.NewRat(int64(n.cfg.Comm.NPUs), 1)
		used.Quo(used, npus)
		n.pending.Quo(n.pending, npus)
	}
	return used
}

// RateOf is x bytes per cycle (positive) as an exact rtl.Rate, or rounded
// down to a multiple of 2^-20 B/cycle when its fraction is too fine for
// one (docs/memory-system.md); never below 2^-20.
func RateOf(x *big.Rat) rtl.Rate {
	num, den := x.Num(), x.Denom()
	if num.IsInt64() && den.IsInt64() && num.Int64() < 1<<31 && den.Int64() < 1<<31 && num.Sign() > 0 {
		return rtl.Rate{Num: num.Int64(), Den: den.Int64()}
	}
	const unit = 1 << 20
	q := new(big.Int).Mul(num, big.NewInt(unit))
	q.Quo(q, den)
	v := max(q.Int64(), 1)
	r := big.NewRat(v, unit)
	return rtl.Rate{Num: r.Num().Int64(), Den: r.Denom().Int64()}
}

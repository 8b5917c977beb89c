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
}

// Config is one NPU's sharing.
type Config struct {
	Policy Policy
	// Compute is what compute keeps under Partition (Table VI); under Share
	// its memory share is the weight of compute's claims.
	Compute npu.Compute
	Comm    Comm
}

// NPU shares one NPU between its compute kernels and communication.
type NPU struct {
	k   *rtl.Kernel
	cfg Config
	mem *big.Rat // the memory, bytes per cycle

	commBusy bool
	read     rtl.Rate // the rates last given to communication
	write    rtl.Rate

	running bool
	kern    Kernel
	seg     int
	frac    *big.Rat // share of kern[seg] done
	alloc   *big.Rat // compute's memory, bytes per cycle (Share)
	last    rtl.Cycle
	gen     int64
	done    func(rtl.Cycle)
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
	return &NPU{k: k, cfg: cfg, mem: fullMemory(), frac: new(big.Rat), alloc: new(big.Rat)}, nil
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
	n.advance(now)
	n.commBusy = busy
	n.arbitrate()
	n.schedule(now)
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
	n.running, n.kern, n.seg, n.done, n.last = true, w, 0, done, now
	n.frac.SetInt64(0)
	n.arbitrate()
	n.schedule(now)
	return nil
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

// rate is the share of segment s done per cycle now.
func (n *NPU) rate(s Segment) *big.Rat {
	sms := n.ComputeSMs()
	var r *big.Rat
	if s.SM.Sign() > 0 {
		r = big.NewRat(int64(sms), npu.SMs)
		r.Quo(r, s.SM)
	}
	if s.Mem.Sign() > 0 {
		var a *big.Rat
		if n.cfg.Policy == Partition {
			a = npu.MemBytesPerCycle(n.cfg.Compute.MemGBps)
		} else {
			a = new(big.Rat).Set(n.alloc)
		}
		if l := n.limit(s, sms); l != nil && l.Cmp(a) < 0 {
			a = l
		}
		m := a.Quo(a, new(big.Rat).Mul(n.mem, s.Mem))
		if r == nil || m.Cmp(r) < 0 {
			r = m
		}
	}
	return r
}

// advance accounts the kernel's progress from n.last to now, crossing into
// later segments at the exact instant each ends.
func (n *NPU) advance(now rtl.Cycle) {
	if !n.running || now <= n.last {
		n.last = max(n.last, now)
		return
	}
	dt := big.NewRat(int64(now-n.last), 1)
	for n.seg < len(n.kern) && dt.Sign() > 0 {
		r := n.rate(n.kern[n.seg])
		if r.Sign() == 0 {
			break
		}
		need := new(big.Rat).Sub(big.NewRat(1, 1), n.frac)
		need.Quo(need, r)
		if need.Cmp(dt) <= 0 {
			dt.Sub(dt, need)
			n.seg++
			n.frac.SetInt64(0)
			continue
		}
		n.frac.Add(n.frac, r.Mul(r, dt))
		dt.SetInt64(0)
	}
	n.last = now
}

// arbitrate shares the memory by the policy among the claims of now and
// gives communication its rates.
func (n *NPU) arbitrate() {
	n.alloc.SetInt64(0)
	if n.cfg.Policy == Partition {
		return
	}
	var claims []memsys.Claim
	kernel := -1
	if n.running && n.seg < len(n.kern) && n.kern[n.seg].Mem.Sign() > 0 {
		if l := n.limit(n.kern[n.seg], n.ComputeSMs()); l == nil || l.Sign() > 0 {
			kernel = len(claims)
			w := new(big.Rat).Sub(big.NewRat(npu.MemoryGBps, 1), n.cfg.Comm.GBps)
			claims = append(claims, memsys.Claim{Weight: w, Limit: l})
		}
	}
	comm := -1
	if n.commBusy && n.cfg.Comm.GBps.Sign() > 0 && n.cfg.Comm.Apply != nil {
		comm = len(claims)
		claims = append(claims, memsys.Claim{Weight: n.cfg.Comm.GBps, Limit: n.cfg.Comm.ReadLimit},
			memsys.Claim{Weight: n.cfg.Comm.GBps, Limit: n.cfg.Comm.WriteLimit})
	}
	got := memsys.Share(n.mem, claims)
	if kernel >= 0 {
		n.alloc.Set(got[kernel])
	}
	if comm >= 0 {
		rd, wr := RateOf(got[comm]), RateOf(got[comm+1])
		if rd != n.read || wr != n.write {
			n.read, n.write = rd, wr
			n.cfg.Comm.Apply(rd, wr)
		}
	}
}

// schedule sets the next event: the end of the kernel's segment at its
// current rate, observed at the whole cycle it falls in or after.
func (n *NPU) schedule(now rtl.Cycle) {
	n.gen++
	if !n.running {
		return
	}
	if n.seg >= len(n.kern) {
		n.k.Schedule(now, n, 0, n.gen)
		return
	}
	r := n.rate(n.kern[n.seg])
	if r.Sign() == 0 {
		return // resumes when communication lets go (SetCommBusy)
	}
	t := new(big.Rat).Sub(big.NewRat(1, 1), n.frac)
	t.Quo(t, r)
	n.k.Schedule(now+rtl.Cycle(rtl.CeilRat(t)), n, 0, n.gen)
}

// Handle advances the kernel at its event.
func (n *NPU) Handle(now rtl.Cycle, _ int32, gen int64) {
	if gen != n.gen || !n.running {
		return
	}
	n.advance(now)
	if n.seg >= len(n.kern) {
		n.running, n.kern = false, nil
		n.gen++
		n.arbitrate()
		n.done(now)
		return
	}
	n.arbitrate()
	n.schedule(now)
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

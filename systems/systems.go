package systems

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/acemu/acemu/npu"
)

// Kind is the kind of endpoint that runs a system's collectives.
type Kind int

const (
	// Ideal is the ideal endpoint: a received message is processed in one
	// cycle at no SM or memory cost, so the network alone limits
	// communication.
	Ideal Kind = iota
	// ACE is the Accelerator Collectives Engine: collectives run in the
	// engine's SRAM, ALUs and FSMs; only its DMA uses memory bandwidth.
	ACE
	// Baseline is the GPU-like endpoint: communication SMs move every
	// message through memory and reduce in the SMs.
	Baseline
)

// String returns the kind's name: "ideal", "ace" or "baseline".
func (k Kind) String() string {
	switch k {
	case Ideal:
		return "ideal"
	case ACE:
		return "ace"
	case Baseline:
		return "baseline"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// System is one endpoint configuration of Table VI: what communication
// gets, what compute gets, and whether they overlap.
type System struct {
	// Name is the preset's name, as the --system flag spells it.
	Name string
	// Kind is the endpoint that runs the collectives.
	Kind Kind
	// CommSMs is the number of SMs given to communication (0 for ACE and
	// the ideal endpoint).
	CommSMs int
	// CommMemGBps is the memory bandwidth given to communication, per
	// direction, in GB/s (10^9 B/s), exact. It is nil only for the baseline
	// preset before its values are given.
	CommMemGBps *big.Rat
	// ComputeSMs is the number of SMs left to compute.
	ComputeSMs int
	// ComputeMemGBps is the memory bandwidth left to compute, in GB/s.
	ComputeMemGBps *big.Rat
	// Overlap is whether communication runs alongside compute. It is false
	// only for baseline-nooverlap, which issues all collectives as one
	// operation at the end of back-prop.
	Overlap bool
	// Libra is how LIBRA's baseline chooses the SMs (and the fusion) of
	// this system's weight-gradient all-reduces (LibraNone: every
	// collective runs on CommSMs).
	Libra Libra
	// Help is a one-line description for the command's help.
	Help string
}

// Libra is which of LIBRA's programmes plans a system's collectives
// ("LIBRA: Contention-Aware GPU Thread Allocation for Data Parallel
// Training in High Speed Networks", §IV; docs/libra.md).
type Libra int

const (
	// LibraNone: not LIBRA's; every collective on the system's SMs.
	LibraNone Libra = iota
	// LibraAllocate is LIBRA-M: thread allocation for a fixed fusion plan
	// (§IV-A, libra.Allocate), every layer its own group.
	LibraAllocate
	// LibraFuse is LIBRA: thread allocation co-optimised with tensor
	// fusion (§IV-B, libra.Fuse).
	LibraFuse
)

// String names the programme: "", "LIBRA-M" or "LIBRA".
func (l Libra) String() string {
	switch l {
	case LibraAllocate:
		return "LIBRA-M"
	case LibraFuse:
		return "LIBRA"
	}
	return ""
}

func gb(n int64) *big.Rat { return big.NewRat(n, 1) }

// presets returns fresh copies of the systems, in Table VI's order, then
// the baseline without defaults.
func presets() []System {
	return []System{
		{
			Name: "baseline-nooverlap", Kind: Baseline,
			CommSMs: npu.SMs, CommMemGBps: gb(npu.MemoryGBps),
			ComputeSMs: npu.SMs, ComputeMemGBps: gb(npu.MemoryGBps),
			Overlap: false,
			Help:    "baseline, no overlap: all collectives run after back-prop on all 80 SMs and 900 GB/s; compute has the whole NPU before them",
		},
		{
			Name: "baseline-commopt", Kind: Baseline,
			CommSMs: 6, CommMemGBps: gb(450),
			ComputeSMs: 74, ComputeMemGBps: gb(450),
			Overlap: true,
			Help:    "baseline tuned for communication: 6 SMs and 450 GB/s for collectives; compute keeps 74 SMs and 450 GB/s",
		},
		{
			Name: "baseline-compopt", Kind: Baseline,
			CommSMs: 2, CommMemGBps: gb(128),
			ComputeSMs: 78, ComputeMemGBps: gb(772),
			Overlap: true,
			Help:    "baseline tuned for compute: 2 SMs and 128 GB/s for collectives; compute keeps 78 SMs and 772 GB/s",
		},
		{
			Name: "ace", Kind: ACE,
			CommSMs: 0, CommMemGBps: gb(128),
			ComputeSMs: npu.SMs, ComputeMemGBps: gb(772),
			Overlap: true,
			Help:    "ACE: collectives on the engine beside the AFI, no SMs and 128 GB/s for its DMA; compute keeps 80 SMs and 772 GB/s",
		},
		{
			Name: "ideal", Kind: Ideal,
			CommSMs: 0, CommMemGBps: gb(0),
			ComputeSMs: npu.SMs, ComputeMemGBps: gb(npu.MemoryGBps),
			Overlap: true,
			Help:    "ideal endpoint: a received message is processed in 1 cycle with no SMs or memory; compute keeps 80 SMs and 900 GB/s",
		},
		{
			Name: "baseline", Kind: Baseline,
			Overlap: true,
			Help:    "baseline with your own split: give --comm-sms and --comm-mem-bw; compute keeps the rest of the 80 SMs and 900 GB/s",
		},
		libra("baseline-libra", LibraAllocate, "LIBRA-M: the baseline, each layer's all-reduce chained, one at a time, on the SMs (1, 2, 4 or 8) LIBRA's programme gives it from contention measured on this run's platform; 450 GB/s; --memory-policy share"),
		libra("baseline-libra-fusion", LibraFuse, "LIBRA: as baseline-libra, layers fused into at most 10 groups with their SMs by LIBRA's co-optimisation; 450 GB/s; --memory-policy share"),
	}
}

// libra is a LIBRA baseline (docs/libra.md, "Connected to acemu"): its
// own SMs 8, R's largest, and baseline-commopt's memory share, 450 GB/s.
func libra(name string, l Libra, help string) System {
	return System{Name: name, Kind: Baseline, CommSMs: 8, CommMemGBps: gb(450), ComputeSMs: npu.SMs - 8, ComputeMemGBps: gb(npu.MemoryGBps - 450),
		Overlap: true, Libra: l, Help: help}
}

// Names returns the systems' names: Table VI's five in the paper's order
// (baseline-nooverlap, baseline-commopt, baseline-compopt, ace, ideal),
// then baseline, then LIBRA's baselines (baseline-libra,
// baseline-libra-fusion).
func Names() []string {
	ps := presets()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// Lookup returns the preset called name. The baseline preset comes without
// communication resources: set them with With before using it. An unknown
// name is an error listing the valid ones.
func Lookup(name string) (System, error) {
	for _, p := range presets() {
		if p.Name == name {
			return p, nil
		}
	}
	return System{}, fmt.Errorf("unknown system %q: use one of %s", name, strings.Join(Names(), ", "))
}

// With returns s with communication given commSMs SMs and commMemGBps GB/s
// of memory bandwidth, and compute's resources recomputed: for systems that
// overlap, compute gets 80 − commSMs SMs and 900 − commMemGBps GB/s; for
// baseline-nooverlap, compute keeps the whole NPU. A nil commSMs or
// commMemGBps keeps s's value (an explicit zero is a value: ACE and the
// ideal endpoint use 0 SMs; a baseline and ACE's memory refuse 0). ACE
// and the ideal endpoint use no SMs for communication, and the ideal
// endpoint no memory either, so they refuse other values. The result is validated; on error
// s is returned unchanged with an error naming the bad value and the fix.
// s is not modified, and the result shares no memory with s or commMemGBps.
func (s System) With(commSMs *int, commMemGBps *big.Rat) (System, error) {
	out := s.clone()
	if commSMs != nil {
		n := *commSMs
		switch {
		case s.Kind == Ideal && n != 0:
			return s, fmt.Errorf("%s: --comm-sms %d: the ideal endpoint uses no SMs for communication (Table VI); drop --comm-sms or choose a baseline system", s.Name, n)
		case s.Kind == ACE && n != 0:
			return s, fmt.Errorf("%s: --comm-sms %d: ACE runs collectives on its own engine and uses no SMs (Table VI); drop --comm-sms or choose a baseline system", s.Name, n)
		case s.Kind == Baseline && n < 1:
			return s, s.smsOutOfRange(n)
		}
		out.CommSMs = n
	}
	if commMemGBps != nil {
		if s.Kind == Ideal {
			return s, fmt.Errorf("%s: --comm-mem-bw %s GB/s: the ideal endpoint uses no memory bandwidth for communication (Table VI); drop --comm-mem-bw or choose ace or a baseline system", s.Name, fmtGBps(commMemGBps))
		}
		out.CommMemGBps = new(big.Rat).Set(commMemGBps)
	}
	if err := out.validateComm(); err != nil {
		return s, err
	}
	out.ComputeSMs, out.ComputeMemGBps = out.derivedCompute()
	if err := out.Validate(); err != nil {
		return s, err
	}
	return out, nil
}

// Validate reports whether s is a usable system: communication's SMs and
// memory bandwidth within the NPU's 80 SMs and 900 GB/s and fitting its
// kind (a baseline needs at least one SM and some bandwidth; ACE needs
// bandwidth for its DMA and no SMs; the ideal endpoint needs neither), and
// compute's resources valid (npu.Compute.Validate). Its errors name the
// bad value and the fix.
func (s System) Validate() error {
	if err := s.validateComm(); err != nil {
		return err
	}
	c := s.Compute()
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	return nil
}

// Compute returns the resources s leaves to compute.
func (s System) Compute() npu.Compute {
	var mem *big.Rat
	if s.ComputeMemGBps != nil {
		mem = new(big.Rat).Set(s.ComputeMemGBps)
	}
	return npu.Compute{SMs: s.ComputeSMs, MemGBps: mem}
}

// derivedCompute is what compute gets under Table VI's rule: the rest of
// the NPU when communication overlaps it, the whole NPU when it does not.
func (s System) derivedCompute() (int, *big.Rat) {
	full := gb(npu.MemoryGBps)
	if !s.Overlap || s.CommMemGBps == nil {
		return npu.SMs, full
	}
	return npu.SMs - s.CommSMs, full.Sub(full, s.CommMemGBps)
}

// validateComm checks communication's share for s's kind.
func (s System) validateComm() error {
	maxSMs, memRange := npu.SMs, fmt.Sprintf("(0, %d]", npu.MemoryGBps)
	if s.Overlap {
		// Compute runs alongside and needs at least one SM and some bandwidth.
		maxSMs, memRange = npu.SMs-1, fmt.Sprintf("(0, %d)", npu.MemoryGBps)
	}
	switch s.Kind {
	case Ideal:
		if s.CommSMs != 0 {
			return fmt.Errorf("%s: %d communication SMs: the ideal endpoint uses none (Table VI); set 0", s.Name, s.CommSMs)
		}
		if s.CommMemGBps != nil && s.CommMemGBps.Sign() != 0 {
			return fmt.Errorf("%s: %s GB/s of communication memory bandwidth: the ideal endpoint uses none (Table VI); set 0", s.Name, fmtGBps(s.CommMemGBps))
		}
		return nil
	case ACE:
		if s.CommSMs != 0 {
			return fmt.Errorf("%s: %d communication SMs: ACE uses none (Table VI); drop --comm-sms", s.Name, s.CommSMs)
		}
		if s.CommMemGBps == nil {
			return fmt.Errorf("%s: no memory bandwidth for ACE's DMA: pass --comm-mem-bw, a value in %s GB/s (Table VI: 128GB/s)", s.Name, memRange)
		}
	case Baseline:
		var missing []string
		if s.CommSMs == 0 {
			missing = append(missing, "--comm-sms")
		}
		if s.CommMemGBps == nil {
			missing = append(missing, "--comm-mem-bw")
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s: the baseline has no default communication resources: pass --comm-sms (1..%d) and --comm-mem-bw (in %s GB/s, e.g. 450GB/s); missing %s",
				s.Name, maxSMs, memRange, strings.Join(missing, " and "))
		}
		if s.CommSMs < 1 || s.CommSMs > maxSMs {
			return s.smsOutOfRange(s.CommSMs)
		}
	default:
		return fmt.Errorf("%s: unknown kind %s: use a preset from Lookup (%s)", s.Name, s.Kind, strings.Join(Names(), ", "))
	}
	// ACE and baseline: communication moves data through memory.
	m := s.CommMemGBps
	if m.Sign() <= 0 {
		return fmt.Errorf("%s: --comm-mem-bw %s GB/s: %s moves data through memory and needs a positive bandwidth; use a value in %s GB/s", s.Name, fmtGBps(m), s.Kind, memRange)
	}
	limit := gb(npu.MemoryGBps)
	if c := m.Cmp(limit); c > 0 || (c == 0 && s.Overlap) {
		why := fmt.Sprintf("the NPU–memory bus is %d GB/s", npu.MemoryGBps)
		if s.Overlap {
			why += " and compute, running alongside, needs some of it"
		}
		return fmt.Errorf("%s: --comm-mem-bw %s GB/s: too much; %s, so use a value in %s GB/s", s.Name, fmtGBps(m), why, memRange)
	}
	return nil
}

// smsOutOfRange is the error for n communication SMs on baseline s,
// outside 1 to the most it can take.
func (s System) smsOutOfRange(n int) error {
	maxSMs, why := npu.SMs, "the NPU has 80 SMs"
	if s.Overlap {
		maxSMs, why = npu.SMs-1, "the NPU has 80 SMs and compute, running alongside, needs at least one"
	}
	return fmt.Errorf("%s: --comm-sms %d: out of range; the baseline's collectives run on SMs and %s, so use 1..%d", s.Name, n, why, maxSMs)
}

// clone returns s sharing no memory with it.
func (s System) clone() System {
	if s.CommMemGBps != nil {
		s.CommMemGBps = new(big.Rat).Set(s.CommMemGBps)
	}
	if s.ComputeMemGBps != nil {
		s.ComputeMemGBps = new(big.Rat).Set(s.ComputeMemGBps)
	}
	return s
}

// fmtGBps formats a bandwidth: an integer as is, a fraction in decimal
// (up to 6 places) with its exact value when the decimal is rounded.
func fmtGBps(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	d := strings.TrimRight(r.FloatString(6), "0")
	if back, ok := new(big.Rat).SetString(d); ok && back.Cmp(r) == 0 {
		return d
	}
	return d + " (" + r.RatString() + ")"
}

// WithACEMemory is s with ACE's memory share gbps when s is ACE (the
// platform's ace.mem_bw), and s unchanged otherwise: the one place the
// ACE design point's memory reaches the system that runs it.
func (s System) WithACEMemory(gbps *big.Rat) (System, error) {
	if s.Kind != ACE || gbps == nil || (s.CommMemGBps != nil && s.CommMemGBps.Cmp(gbps) == 0) {
		return s, nil
	}
	return s.With(nil, gbps)
}

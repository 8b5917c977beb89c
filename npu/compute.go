package npu

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/rtl"
)

// The NPU of the ACE platform (Table V of the ACE paper).
const (
	// SMs is the number of streaming multiprocessors of the NPU.
	SMs = 80
	// ClockHz is the NPU clock, 1245 MHz (the same clock as rtl.ClockHz).
	ClockHz = rtl.ClockHz
	// SMLoadStoreBytes is the load/store width of one SM in bytes per
	// cycle (≈ 80 GB/s per SM at 1245 MHz).
	SMLoadStoreBytes = 64
	// MemoryGBps is the NPU–memory bus bandwidth in GB/s (10^9 B/s).
	MemoryGBps = 900
	// PeakFLOPS is the NPU's FP16 peak, 120 TFLOPS.
	PeakFLOPS = 120e12
)

// FLOPsPerSMCycle returns the FLOPs one SM completes per cycle, exactly:
// PeakFLOPS / (SMs × ClockHz) = 120e12 / 99.6e9 = 1_200_000/996 = 100000/83
// ≈ 1204.819. It is a fresh value the caller may modify.
func FLOPsPerSMCycle() *big.Rat {
	return big.NewRat(PeakFLOPS, SMs*ClockHz)
}

// MemBytesPerCycle returns gbps GB/s (10^9 B/s) in bytes per NPU cycle,
// exactly: gbps × 1e9 / ClockHz (900 GB/s = 60000/83 ≈ 722.9 B/cycle).
func MemBytesPerCycle(gbps *big.Rat) *big.Rat {
	r := new(big.Rat).Mul(gbps, big.NewRat(1_000_000_000, 1))
	return r.Quo(r, big.NewRat(ClockHz, 1))
}

// Compute is the part of the NPU left to computation: the SMs and the
// memory bandwidth (GB/s) that communication does not use (Table VI).
// Kernel times follow a roofline on these resources (a documented
// modelling choice, docs/baseline-model.md; see KernelCycles).
type Compute struct {
	// SMs is the number of SMs running compute kernels, 1..80.
	SMs int
	// MemGBps is the memory bandwidth available to compute in GB/s
	// (10^9 B/s), exact; in (0, 900].
	MemGBps *big.Rat
}

// FullNPU returns the whole NPU given to compute: 80 SMs and 900 GB/s.
func FullNPU() Compute {
	return Compute{SMs: SMs, MemGBps: big.NewRat(MemoryGBps, 1)}
}

// Validate reports whether c describes resources the NPU has: 1..80 SMs and
// a memory bandwidth in (0, 900] GB/s. Its errors name the bad value and
// the fix.
func (c Compute) Validate() error {
	if c.SMs < 1 || c.SMs > SMs {
		return fmt.Errorf("compute SMs %d: out of range; the NPU has %d SMs and compute needs at least one, so use 1..%d", c.SMs, SMs, SMs)
	}
	if c.MemGBps == nil {
		return fmt.Errorf("compute memory bandwidth not set: give compute a bandwidth in (0, %d] GB/s", MemoryGBps)
	}
	if c.MemGBps.Sign() <= 0 {
		return fmt.Errorf("compute memory bandwidth %s GB/s: must be positive; use a value in (0, %d] GB/s", c.MemGBps.RatString(), MemoryGBps)
	}
	if c.MemGBps.Cmp(big.NewRat(MemoryGBps, 1)) > 0 {
		return fmt.Errorf("compute memory bandwidth %s GB/s: exceeds the NPU–memory bus of %d GB/s; use at most %d GB/s", c.MemGBps.RatString(), MemoryGBps, MemoryGBps)
	}
	return nil
}

// KernelCycles returns the cycles a kernel of flops FLOPs that moves bytes
// bytes to and from memory takes on c, by a roofline:
//
//	t = max(⌈flops / (SMs × FLOPsPerSMCycle)⌉, ⌈bytes / MemBytesPerCycle(MemGBps)⌉)
//
// computed exactly in rational arithmetic and rounded up to whole cycles.
// A kernel with no work takes 0 cycles. Each term counts only when its work
// is not zero, so a pure-memory or pure-compute kernel is bounded by one
// resource alone.
//
// It panics if flops or bytes is negative, if c is not valid (see
// Validate) while there is work to do, or if the result does not fit in an
// int64: all are programming errors, not inputs to recover from.
func (c Compute) KernelCycles(flops, bytes int64) int64 {
	if flops == 0 && bytes == 0 {
		return 0
	}
	// ⌈max(a, b)⌉ = max(⌈a⌉, ⌈b⌉): one rounding of the exact time.
	return rtl.CeilRat(c.KernelTime(flops, bytes))
}

// KernelTime is KernelCycles before rounding: the exact roofline time
// max(flops / (SMs × FLOPsPerSMCycle), bytes / MemBytesPerCycle(MemGBps)),
// each term only when its work is not zero. It panics as KernelCycles does.
func (c Compute) KernelTime(flops, bytes int64) *big.Rat {
	if flops < 0 || bytes < 0 {
		panic(fmt.Sprintf("npu: kernel with %d FLOPs and %d bytes: work must not be negative", flops, bytes))
	}
	t := new(big.Rat)
	if flops == 0 && bytes == 0 {
		return t
	}
	if err := c.Validate(); err != nil {
		panic("npu: KernelCycles on invalid compute resources: " + err.Error())
	}
	if flops > 0 {
		rate := FLOPsPerSMCycle()
		rate.Mul(rate, big.NewRat(int64(c.SMs), 1))
		t = maxRat(t, new(big.Rat).Quo(big.NewRat(flops, 1), rate))
	}
	if bytes > 0 {
		t = maxRat(t, new(big.Rat).Quo(big.NewRat(bytes, 1), MemBytesPerCycle(c.MemGBps)))
	}
	return t
}

func maxRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

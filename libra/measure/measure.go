// Package measure measures LIBRA's contention curves on acemu's own model
// ("LIBRA: Contention-Aware GPU Thread Allocation for Data Parallel
// Training in High Speed Networks", Liu et al., Algorithm 2, steps 1–3):
// at each allocation of communication SMs, a computation alone and beside
// all-reduces, and an all-reduce beside computation and alone, each on a
// fresh simulation of the run's machine and platform with the SM-driven
// baseline endpoint under the shared memory policy. The measured points
// become the curves g, p and q of libra.Model (tabulated; Fit adds Eq 5
// and 6's parameters beside them). docs/libra.md, "Connected to acemu",
// gives the choices.
package measure

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/libra"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// SMs is LIBRA's R = {128, 256, …, 4096} threads (§V-A) as SMs, ⌈r/512⌉
// (docs/libra.md, [choice] "Threads to SMs"): {1, 2, 4, 8}.
var SMs = []int{1, 2, 4, 8}

// MemGBps is communication's memory weight under the shared policy for
// LIBRA's baseline: baseline-commopt's 450 GB/s of Table VI
// (docs/libra.md, [choice] "Memory share").
const MemGBps = 450

// Setup is what the curves are measured on.
type Setup struct {
	// Sim is the run's assembly: its machine, links, AFI (chunks,
	// algorithms) and library; System and Fold are set per measurement.
	Sim sim.Setup
	// Full simulates every NPU even where one could stand for all.
	Full bool
	// MemGBps is communication's memory weight (nil: MemGBps).
	MemGBps *big.Rat
	// Compute is the computation, kernels run one after the other (the
	// backward pass's: Backward).
	Compute []contend.Kernel
	// Bytes is the reference all-reduce's size per NPU, padded as the
	// training loop pads it.
	Bytes int64
	// StartupBytes is the size per NPU of the all-reduce whose time alone
	// is the start-up a (one element per NPU).
	StartupBytes int64
	// SMs is the set R of allocations, ascending, each once (nil: SMs).
	SMs []int
}

// Point is what was measured at one allocation, in cycles.
type Point struct {
	SMs int `json:"sms"`
	// Overlapped is g: the computation beside all-reduces on SMs SMs.
	Overlapped rtl.Cycle `json:"compute_overlapped_cycles"`
	// CommOverlapped is p + a: the reference all-reduce beside
	// computation; CommAlone is q + a: alone.
	CommOverlapped rtl.Cycle `json:"allreduce_overlapped_cycles"`
	CommAlone      rtl.Cycle `json:"allreduce_alone_cycles"`
}

// Curves are the measured points and the model they give.
type Curves struct {
	// Alone is b_0: the computation with the whole NPU, communication
	// idle.
	Alone rtl.Cycle `json:"compute_alone_cycles"`
	// Startup is a: the start-up all-reduce's time alone on R's largest
	// allocation.
	Startup rtl.Cycle `json:"startup_cycles"`
	// Bytes is the reference all-reduce's size per NPU.
	Bytes int64 `json:"bytes"`
	// Sent is what an NPU sent for it (alone, on R's largest allocation):
	// ĉ of Eq (3) for the run's algorithm, measured; Eq (4)'s ring would
	// send 2(N−1)/N of Bytes.
	Sent   int64   `json:"sent_bytes"`
	Points []Point `json:"points"`
}

// Measure measures the curves of s.
func Measure(s Setup) (*Curves, error) {
	if s.Sim.Machine == nil {
		return nil, errors.New("measure: no machine")
	}
	if len(s.Compute) == 0 {
		return nil, errors.New("measure: no computation to measure the contention on: the workload has no backward compute")
	}
	if s.Bytes <= 0 || s.StartupBytes <= 0 {
		return nil, fmt.Errorf("measure: all-reduces of %d and %d bytes: both must be positive; the workload has no weight-gradient all-reduce", s.Bytes, s.StartupBytes)
	}
	if s.SMs == nil {
		s.SMs = SMs
	}
	ok := len(s.SMs) > 0 && s.SMs[0] >= 1 && s.SMs[len(s.SMs)-1] <= npu.SMs-1
	for i := 1; i < len(s.SMs) && ok; i++ {
		ok = s.SMs[i] > s.SMs[i-1]
	}
	if !ok {
		return nil, fmt.Errorf("measure: allocations %v: give communication SMs ascending, each once, in 1..%d (compute keeps at least one)", s.SMs, npu.SMs-1)
	}
	if s.MemGBps == nil {
		s.MemGBps = big.NewRat(MemGBps, 1)
	}
	s.Sim.AFI = s.Sim.AFIConfig()
	c := &Curves{Bytes: s.Bytes}
	var err error
	top := s.SMs[len(s.SMs)-1]
	if c.Alone, _, _, err = s.run(top, false, 0); err != nil {
		return nil, fmt.Errorf("the computation alone: %w", err)
	}
	if _, c.Startup, _, err = s.run(top, false, s.StartupBytes); err != nil {
		return nil, fmt.Errorf("the start-up all-reduce of %d bytes: %w", s.StartupBytes, err)
	}
	for _, r := range s.SMs {
		p := Point{SMs: r}
		if p.Overlapped, _, _, err = s.run(r, true, -s.Bytes); err != nil {
			return nil, fmt.Errorf("the computation beside all-reduces on %d SMs: %w", r, err)
		}
		if _, p.CommOverlapped, _, err = s.run(r, true, s.Bytes); err != nil {
			return nil, fmt.Errorf("an all-reduce on %d SMs beside the computation: %w", r, err)
		}
		if _, p.CommAlone, c.Sent, err = s.run(r, false, s.Bytes); err != nil {
			return nil, fmt.Errorf("an all-reduce on %d SMs alone: %w", r, err)
		}
		if p.CommOverlapped <= c.Startup || p.CommAlone <= c.Startup {
			return nil, fmt.Errorf("an all-reduce of %d bytes on %d SMs took %d cycles beside computation and %d alone, no more than the start-up's %d: a reference size this small measures no transmission; measure on a larger workload",
				s.Bytes, r, p.CommOverlapped, p.CommAlone, c.Startup)
		}
		c.Points = append(c.Points, p)
	}
	return c, nil
}

// run is one measurement on a fresh simulation with sms communication
// SMs: with compute, the kernels (once, and all-reduces of -bytes back to
// back for as long as they run, when bytes < 0; over and over for as long
// as the all-reduce of bytes runs, when bytes > 0); without, the
// kernels alone (bytes 0) or the all-reduce alone. It returns when the
// kernels ended (their first pass), how long the all-reduce of bytes > 0
// took, and the bytes an NPU sent.
func (s Setup) run(sms int, compute bool, bytes int64) (kernels, comm rtl.Cycle, sent int64, err error) {
	defer rtl.RecoverOverflow(&err)
	base, err := systems.Lookup("baseline")
	if err != nil {
		return 0, 0, 0, err
	}
	sys, err := base.With(&sms, s.MemGBps)
	if err != nil {
		return 0, 0, 0, err
	}
	sys.Name = fmt.Sprintf("baseline on %d SMs", sms)
	st := s.Sim
	st.System = sys
	size := max(bytes, -bytes)
	if size > 0 {
		plan, err := st.AFI.Plan(collectives.OpAllReduce, size)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("an all-reduce of %d bytes: %w", size, err)
		}
		st.Fold = sim.Foldable(st.Machine, s.Full, plan) == nil
	} else {
		st.Fold = sim.Foldable(st.Machine, s.Full) == nil
	}
	rn, err := sim.New(st)
	if err != nil {
		return 0, 0, 0, err
	}
	k := rn.Kernel
	n, err := contend.New(k, contend.Config{Policy: contend.Share, Compute: sys.Compute(), Comm: rn.Endpoint.Side()})
	if err != nil {
		return 0, 0, 0, err
	}
	var fail error
	kernelsDone, commDone := false, false
	// The kernels, in order; again from the first while the all-reduce
	// runs (bytes > 0).
	var next func(i int) func(now rtl.Cycle)
	next = func(i int) func(now rtl.Cycle) {
		return func(now rtl.Cycle) {
			if i == len(s.Compute) {
				if kernels == 0 {
					kernels, kernelsDone = now, true
				}
				if bytes <= 0 || commDone {
					return
				}
				i = 0
			}
			if err := n.Run(now, s.Compute[i], next(i+1)); err != nil && fail == nil {
				fail = err
			}
			if len(s.Compute[i]) == 0 { // no work: ends at once, without a call
				next(i + 1)(now)
			}
		}
	}
	var issue func(now rtl.Cycle)
	issue = func(now rtl.Cycle) {
		n.SetCommBusy(now, true)
		start := now
		_, err := rn.AFI.IssueWith(now, collectives.OpAllReduce, size, afi.IssueOptions{Done: func(end rtl.Cycle) {
			if bytes > 0 {
				comm, commDone = end-start, true
			}
			if bytes < 0 && !kernelsDone {
				issue(end) // the next, at once: one in flight
				return
			}
			n.SetCommBusy(end, false)
		}})
		if err != nil && fail == nil {
			fail = err
		}
	}
	if bytes != 0 {
		issue(0)
	}
	if compute || bytes == 0 {
		next(0)(0)
	}
	k.Run()
	if fail != nil {
		return 0, 0, 0, fail
	}
	if err := rn.Endpoint.Stuck(); err != nil {
		return 0, 0, 0, err
	}
	if err := k.StallError(); err != nil {
		return 0, 0, 0, err
	}
	return kernels, comm, rn.Endpoint.Metrics(k.Now()).BytesSent, nil
}

// point returns the point measured at r SMs.
func (c *Curves) point(r int) (Point, error) {
	for _, p := range c.Points {
		if p.SMs == r {
			return p, nil
		}
	}
	var have []int
	for _, p := range c.Points {
		have = append(have, p.SMs)
	}
	return Point{}, fmt.Errorf("no curve measured at %d SMs (measured: %v)", r, have)
}

// Model returns LIBRA's contention model of the measured points, in
// cycles (docs/libra.md, [choice] "What is measured"): g(b, r) = b·g_r/b_0,
// p(c, r) = (t_r − a)·c/C with t_r the reference all-reduce's time beside
// computation, q likewise with its time alone, a the start-up, C the
// reference size; r is a number of SMs of Points.
func (c *Curves) Model() *libra.Model {
	return &libra.Model{
		G: libra.ComputeFunc(func(b float64, r int) (float64, error) {
			p, err := c.point(r)
			if err != nil {
				return 0, err
			}
			return b * float64(p.Overlapped) / float64(c.Alone), nil
		}),
		P:       c.comm(func(p Point) rtl.Cycle { return p.CommOverlapped }),
		Q:       c.comm(func(p Point) rtl.Cycle { return p.CommAlone }),
		Startup: float64(c.Startup),
	}
}

// comm is the transmission curve of the times of (p or q).
func (c *Curves) comm(of func(Point) rtl.Cycle) libra.CommCurve {
	return libra.CommFunc(func(bytes int64, r int) (float64, error) {
		p, err := c.point(r)
		if err != nil {
			return 0, err
		}
		return float64(of(p)-c.Startup) * float64(bytes) / float64(c.Bytes), nil
	})
}

// SMs returns the allocations measured, ascending.
func (c *Curves) SMs() []int {
	var out []int
	for _, p := range c.Points {
		out = append(out, p.SMs)
	}
	return out
}

// Backward is w's backward pass as the training loop runs it (layer L−1
// to 0: a layer's weight-gradient kernel, its all-reduce issued, then its
// input-gradient kernel but layer 0's), timed by t (the whole NPU:
// docs/libra.md, [choice] "Per-layer b and c"): its kernels in order, and
// LIBRA's layers in backward order, layer i being w's layer L−1−i, with b
// the compute between the gradients of the layer before and its own
// (its weight-gradient kernel after the input-gradient kernel of the
// layer above it) and c its weight-gradient all-reduce's bytes (0 for
// none).
func Backward(w *workload.Workload, t train.Timer) (kernels []contend.Kernel, layers []libra.Layer, err error) {
	L := len(w.Layers)
	var carry int64 // the input-gradient compute of the layer above
	for l := L - 1; l >= 0; l-- {
		layer := &w.Layers[l]
		wt, err := t.Cycles(layer.WtGrad)
		if err != nil {
			return nil, nil, fmt.Errorf("layer %s's weight gradient: %w", layer.Name, err)
		}
		var c int64
		if layer.WtGradComm.Type == workload.CommAllReduce {
			c = layer.WtGradComm.Bytes
		}
		layers = append(layers, libra.Layer{Compute: carry + wt, Grad: c})
		if k := t.Kernel(layer.WtGrad); len(k) > 0 {
			kernels = append(kernels, k)
		}
		carry = 0
		if l == 0 {
			break
		}
		if carry, err = t.Cycles(layer.InGrad); err != nil {
			return nil, nil, fmt.Errorf("layer %s's input gradient: %w", layer.Name, err)
		}
		if k := t.Kernel(layer.InGrad); len(k) > 0 {
			kernels = append(kernels, k)
		}
	}
	return kernels, layers, nil
}

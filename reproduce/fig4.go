package reproduce

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
)

// Fig4Kernel is a compute kernel of the ACE paper's Section III
// microbenchmark (Fig. 4(a)) on the modelled NPU.
type Fig4Kernel struct {
	Name string `json:"name"`
	// FLOPs and Bytes are its work (FP16 elements, the modelled NPU's).
	FLOPs int64 `json:"flops"`
	Bytes int64 `json:"bytes"`
	// PaceGBps, when set, is the memory bandwidth the kernel uses alone,
	// the pace its SMs issue its accesses at (nil: the roofline).
	PaceGBps *big.Rat `json:"-"`
}

// Kernel is k as work for the NPU.
func (k Fig4Kernel) Kernel() contend.Kernel {
	if k.PaceGBps == nil {
		return contend.Roofline(k.FLOPs, k.Bytes)
	}
	// Its SMs take, on all 80, the time its bytes take at its pace; its
	// bytes alone would take bytes / 900 GB/s.
	mem := new(big.Rat).Quo(big.NewRat(k.Bytes, 1), npu.MemBytesPerCycle(big.NewRat(npu.MemoryGBps, 1)))
	sm := new(big.Rat).Quo(big.NewRat(k.Bytes, 1), npu.MemBytesPerCycle(k.PaceGBps))
	return contend.Kernel{{SM: sm, Mem: mem}}
}

// Fig4Kernels are the paper's two kernels (Section III):
//   - GEMM 1000: two 1000 × 1000 matrices multiplied, 2 × 1000³ FLOPs,
//     three matrices of 1000² FP16 elements read or written (6 MB);
//   - EmbLookup 10000: a table of 100000 × 64, 28 look-ups per sample,
//     batch 10000: 10000 × 28 rows of 64 FP16 elements read (35.84 MB) and
//     one pooled row of 64 written per sample (1.28 MB), at the 429.2 GB/s
//     the paper measured it to use (a gather is paced by its SMs' accesses,
//     not by the memory's peak); its 10000 × 28 × 64 additions are FLOPs.
func Fig4Kernels() []Fig4Kernel {
	return []Fig4Kernel{
		{Name: "GEMM 1000", FLOPs: 2 * 1000 * 1000 * 1000, Bytes: 3 * 1000 * 1000 * 2},
		{Name: "EmbLookup 10000", FLOPs: 10000 * 28 * 64, Bytes: 10000*28*64*2 + 10000*64*2, PaceGBps: big.NewRat(4292, 10)},
	}
}

// Fig4Paper are the paper's all-reduce slowdowns beside each of
// Fig4Kernels (Section III, Fig. 4(a): NCCL's 100 MB all-reduce on 8
// V100s over NVSwitch), by kernel name.
var Fig4Paper = map[string]float64{"GEMM 1000": 1.16, "EmbLookup 10000": 1.42}

// Fig4Options chooses the reproduction: an all-reduce of Size bytes per NPU
// alone and beside each kernel, on each topology and system, with the
// memory shared by Policy.
type Fig4Options struct {
	Topos   []string
	Size    int64
	Systems []string
	Kernels []Fig4Kernel
	Policy  contend.Policy
	ACE     ace.Config
	// Links are the platform's links.* keys (LinkKeys): the runs' links
	// take them.
	Links   map[string]string
	Workers int
	// Progress, if set, is told how many of the runs have finished.
	Progress func(done, total int)
	// Keep is where its runs are kept.
	Keep Keep
}

// DefaultFig4 is the paper's 100 MB all-reduce beside its two kernels, on
// Table VI's three overlapping systems and the ideal endpoint, on 4x2x2
// and 4x4x4, the memory shared (contend.Share).
func DefaultFig4() Fig4Options {
	return Fig4Options{
		Topos:   []string{"4x2x2", "4x4x4"},
		Size:    100_000_000,
		Systems: []string{"baseline-commopt", "baseline-compopt", "ace", "ideal"},
		Kernels: Fig4Kernels(),
		Policy:  contend.Share,
		ACE:     ace.Default(),
	}
}

// Fig4Row is the all-reduce on one system and topology beside one kernel
// (Kernel "" for the all-reduce alone).
type Fig4Row struct {
	Topo   string `json:"topo"`
	System string `json:"system"`
	Kernel string `json:"kernel"`
	// CommCycles is the all-reduce's time; CommSlowdown is it over the
	// all-reduce's time alone.
	CommCycles   int64   `json:"allreduce_cycles"`
	CommSlowdown float64 `json:"allreduce_slowdown"`
	// KernelAlone is the kernel's time alone on the NPU; KernelBeside the
	// time of the kernel that started with the all-reduce; KernelSlowdown
	// their ratio.
	KernelAlone    int64   `json:"kernel_alone_cycles,omitempty"`
	KernelBeside   int64   `json:"kernel_beside_cycles,omitempty"`
	KernelSlowdown float64 `json:"kernel_slowdown,omitempty"`
	// Kernels is how many ran back to back while the all-reduce was in
	// flight.
	Kernels int `json:"kernels,omitempty"`
}

// Fig4Result is the reproduction.
type Fig4Result struct {
	Policy string    `json:"memory_policy"`
	Size   int64     `json:"allreduce_bytes"`
	Rows   []Fig4Row `json:"rows"`
}

// Fig4 runs the microbenchmark of the ACE paper's Section III on the
// modelled NPU: the all-reduce is issued at cycle 0 and the kernel starts
// with it and runs again, back to back, until the all-reduce is done
// (the paper's loop posts the collective between two runs of the kernel
// and waits for it; here the kernel is beside it for its whole life).
func Fig4(o Fig4Options) (*Fig4Result, error) {
	if o.Size < 1 || len(o.Topos) == 0 || len(o.Systems) == 0 {
		return nil, fmt.Errorf("fig4: give a positive size, topologies and systems")
	}
	type job struct {
		topo   string
		sys    systems.System
		kernel *Fig4Kernel
	}
	var jobs []job
	for _, t := range o.Topos {
		for _, name := range o.Systems {
			s, err := systems.Lookup(name)
			if err == nil {
				s, err = s.WithACEMemory(o.ACE.CommMemGBps)
			}
			if err != nil {
				return nil, err
			}
			if !s.Overlap {
				return nil, fmt.Errorf("fig4: %s does not run communication beside compute", name)
			}
			jobs = append(jobs, job{t, s, nil})
			for i := range o.Kernels {
				jobs = append(jobs, job{t, s, &o.Kernels[i]})
			}
		}
	}
	// The sweep's description: every run's topology, system and kernel,
	// and what they all share.
	type keptJob struct {
		Topo   string      `json:"topo"`
		System string      `json:"system"`
		Kernel *Fig4Kernel `json:"kernel,omitempty"`
		Pace   string      `json:"pace_gbps,omitempty"`
	}
	desc := struct {
		Size   int64             `json:"size"`
		Policy string            `json:"policy"`
		ACE    ace.Config        `json:"ace"`
		Links  map[string]string `json:"links,omitempty"`
		Jobs   []keptJob         `json:"jobs"`
	}{Size: o.Size, Policy: o.Policy.String(), ACE: o.ACE, Links: o.Links}
	for _, j := range jobs {
		kj := keptJob{Topo: j.topo, System: j.sys.Name, Kernel: j.kernel}
		if j.kernel != nil && j.kernel.PaceGBps != nil {
			kj.Pace = j.kernel.PaceGBps.RatString()
		}
		desc.Jobs = append(desc.Jobs, kj)
	}
	rows, err := kept(o.Keep, "fig4", desc, len(jobs), o.Workers, o.Progress, func(i int) (Fig4Row, error) {
		r, err := fig4One(o, jobs[i].topo, jobs[i].sys, jobs[i].kernel)
		if err != nil {
			err = fmt.Errorf("fig4: %s on %s: %w", jobs[i].sys.Name, jobs[i].topo, err)
		}
		return r, err
	})
	if err != nil {
		return nil, err
	}
	alone := map[[2]string]int64{}
	for _, r := range rows {
		if r.Kernel == "" {
			alone[[2]string{r.Topo, r.System}] = r.CommCycles
		}
	}
	for i := range rows {
		rows[i].CommSlowdown = float64(rows[i].CommCycles) / float64(alone[[2]string{rows[i].Topo, rows[i].System}])
	}
	return &Fig4Result{Policy: o.Policy.String(), Size: o.Size, Rows: rows}, nil
}

// fig4One runs the all-reduce on sys beside kernel (nil: alone).
func fig4One(o Fig4Options, topo string, sys systems.System, kernel *Fig4Kernel) (_ Fig4Row, err error) {
	defer rtl.RecoverOverflow(&err)
	r := Fig4Row{Topo: topo, System: sys.Name}
	mach, err := topology.Parse(topo)
	if err != nil {
		return r, err
	}
	cfg := afi.DefaultConfig(mach.Machine)
	size := compare.PaddedBytes(o.Size, mach.Machine.N())
	plan, err := cfg.Plan(collectives.OpAllReduce, size)
	if err != nil {
		return r, err
	}
	layout, err := sim.Layout(cfg)
	if err != nil {
		return r, err
	}
	links, err := linkSettings(o.Links)
	if err != nil {
		return r, err
	}
	rn, err := sim.New(sim.Setup{Machine: mach, Links: links, System: sys, AFI: cfg, Fold: sim.Foldable(mach, false, plan, layout) == nil,
		Layout: layout, ACE: o.ACE, Order: afi.LIFO})
	if err != nil {
		return r, err
	}
	k, ep, a := rn.Kernel, rn.Endpoint, rn.AFI
	sh, err := contend.New(k, contend.Config{Policy: o.Policy, Compute: sys.Compute(), Comm: ep.Side()})
	if err != nil {
		return r, err
	}
	commDone := false
	var runErr error
	sh.SetCommBusy(0, true)
	if _, err := a.Issue(0, collectives.OpAllReduce, size, func(now rtl.Cycle) {
		r.CommCycles, commDone = int64(now), true
		sh.SetCommBusy(now, false)
	}); err != nil {
		return r, err
	}
	if kernel != nil {
		r.Kernel = kernel.Name
		w := kernel.Kernel()
		var start rtl.Cycle
		var next func(now rtl.Cycle)
		next = func(now rtl.Cycle) {
			if r.Kernels == 1 && r.KernelBeside == 0 {
				r.KernelBeside = int64(now - start)
			}
			if commDone {
				return
			}
			start = now
			r.Kernels++
			if err := sh.Run(now, w, next); err != nil && runErr == nil {
				runErr = err
				k.Halt()
			}
		}
		next(0)
		if r.KernelAlone, err = kernelAlone(o.Policy, sys.Compute(), w); err != nil {
			return r, err
		}
	}
	k.Run()
	if runErr != nil {
		return r, runErr
	}
	if err := ep.Stuck(); err != nil {
		return r, errors.Join(k.StallError(), err)
	}
	if err := k.StallError(); err != nil {
		return r, err
	}
	if !commDone {
		return r, fmt.Errorf("the all-reduce did not finish")
	}
	if r.KernelBeside == 0 && kernel != nil {
		// The all-reduce ended before the first kernel did: it is still
		// the kernel that started with it.
		r.KernelBeside = r.CommCycles
		return r, fmt.Errorf("the all-reduce (%d cycles) ended before the first %s did; give a larger size", r.CommCycles, kernel.Name)
	}
	if r.KernelAlone > 0 {
		r.KernelSlowdown = float64(r.KernelBeside) / float64(r.KernelAlone)
	}
	return r, nil
}

// kernelAlone is w's time on an NPU with nothing beside it.
func kernelAlone(p contend.Policy, c npu.Compute, w contend.Kernel) (int64, error) {
	k := rtl.NewKernel()
	sh, err := contend.New(k, contend.Config{Policy: p, Compute: c})
	if err != nil {
		return 0, err
	}
	end := rtl.Cycle(-1)
	if err := sh.Run(0, w, func(now rtl.Cycle) { end = now }); err != nil {
		return 0, err
	}
	k.Run()
	return int64(end), nil
}

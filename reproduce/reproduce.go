// Package reproduce runs the sweeps behind the ACE paper's figures from the
// model: Fig. 5 (network bandwidth of a 64 MiB all-reduce as the memory
// bandwidth given to communication grows, baseline vs ACE vs ideal) and
// Fig. 6 (baseline network bandwidth as communication SMs grow). Points run
// in parallel across cores, each in its own simulation, and come back in a
// fixed order, so the results are the same on any number of cores.
package reproduce

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
)

// Endpoint names the endpoint of a point.
type Endpoint string

// The endpoints a sweep compares.
const (
	Ideal    Endpoint = "ideal"
	ACE      Endpoint = "ace"
	Baseline Endpoint = "baseline"
)

// Spec is one simulation: a hierarchical all-reduce of Size bytes per NPU
// on Topo, on an endpoint with the given communication resources.
type Spec struct {
	Topo        string
	Size        int64
	Endpoint    Endpoint
	CommSMs     int   // baseline only
	CommMemGBps int64 // baseline and ACE
	// ACE is ACE's design point (its memory share is CommMemGBps); zero:
	// ace.Default().
	ACE ace.Config `json:"-"`
	// Algorithm is the all-reduce's algorithm; empty: the default
	// (hierarchical). Chunk is its chunk; zero: the platform's (64 KiB).
	Algorithm string `json:",omitempty"`
	Chunk     int64  `json:",omitempty"`
	// Links are platform keys the run's links take (links.tier0.bandwidth
	// and the like) beside the default platform's.
	Links map[string]string `json:"-"`
}

// Point is a Spec and what it measured.
type Point struct {
	Spec
	Cycles      int64   `json:"cycles"`
	NetworkGBps float64 `json:"network_gbps_per_npu"`
	MemRead     int64   `json:"mem_read_bytes_per_npu"`
	MemWrite    int64   `json:"mem_write_bytes_per_npu"`
	// BytesSent is what an NPU injected into the network as a source.
	BytesSent  int64   `json:"bytes_sent_per_npu"`
	CommSMBusy float64 `json:"comm_sm_busy"`
}

// Run simulates every spec, up to workers at once (0: GOMAXPROCS), and
// returns the points in the order of specs; progress, if not nil, is told
// how many have finished.
func Run(specs []Spec, workers int, progress func(done, total int)) ([]Point, error) {
	return RunKept(specs, workers, progress, Keep{})
}

// wrapSpec names the spec an error is of.
func wrapSpec(s Spec, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s on %s (%d SMs, %d GB/s): %w", s.Endpoint, s.Topo, s.CommSMs, s.CommMemGBps, err)
}

// system is the endpoint a spec runs on. A sweep gives communication any
// share of the NPU, up to all of it (no compute runs beside a lone
// collective), so it is built directly rather than from a Table VI preset,
// whose overrides keep some of the NPU for compute.
func (s Spec) system() (systems.System, error) {
	mem := big.NewRat(s.CommMemGBps, 1)
	switch s.Endpoint {
	case Ideal:
		return systems.System{Name: "ideal", Kind: systems.Ideal}, nil
	case ACE:
		return systems.System{Name: "ace", Kind: systems.ACE, CommMemGBps: mem}, nil
	case Baseline:
		return systems.System{Name: "baseline", Kind: systems.Baseline, CommSMs: s.CommSMs, CommMemGBps: mem}, nil
	}
	return systems.System{}, fmt.Errorf("unknown endpoint %q", s.Endpoint)
}

// one runs a single spec: one collective on an idle network.
func one(s Spec) (Point, error) {
	p := Point{Spec: s}
	mach, err := topology.Parse(s.Topo)
	if err != nil {
		return p, err
	}
	sys, err := s.system()
	if err != nil {
		return p, err
	}
	cfg := afi.DefaultConfig(mach.Machine)
	if s.Chunk > 0 {
		cfg.ChunkBytes = s.Chunk
	}
	if s.Algorithm != "" {
		cfg.Algorithms = map[collectives.CollectiveOp]string{collectives.OpAllReduce: s.Algorithm}
	}
	plan, err := cfg.Plan(collectives.OpAllReduce, s.Size)
	if err != nil {
		return p, err
	}
	links, err := linkSettings(s.Links)
	if err != nil {
		return p, err
	}
	rn, err := sim.New(sim.Setup{Machine: mach, Links: links, System: sys, Fold: sim.Foldable(mach, false, plan) == nil, Layout: plan, ACE: s.ACE})
	if err != nil {
		return p, err
	}
	m, err := rn.One(plan)
	if err != nil {
		return p, err
	}
	p.MemRead, p.MemWrite, p.CommSMBusy, p.BytesSent = m.MemRead, m.MemWrite, m.CommSMBusy, m.BytesSent
	p.Cycles = int64(m.Cycles)
	p.NetworkGBps = m.NetworkGBps()
	return p, nil
}

// Fig5Options chooses the Fig. 5 sweep.
type Fig5Options struct {
	Topos   []string // default 4x2x2 and 4x4x4 (16 and 64 NPUs)
	Size    int64    // default 64 MiB
	MemGBps []int64  // memory bandwidth points, GB/s, in any order (the rows are sorted)
	// BaselineSMs drives the baseline (default 80: every SM, so that memory
	// bandwidth alone limits it, as in the paper's Fig. 5).
	BaselineSMs int
	Workers     int
	ACE         ace.Config // ACE's design point but for its memory share
	// Links are the platform's links.* keys that differ from Table V's
	// (LinkKeys): every run's links take them.
	Links map[string]string
	// Progress, if set, is told how many of the sweep's runs have finished.
	Progress func(done, total int)
	// Keep is where its runs are kept.
	Keep Keep
}

// DefaultFig5 is the paper's Fig. 5 sweep.
func DefaultFig5() Fig5Options {
	return Fig5Options{
		Topos: []string{"4x2x2", "4x4x4"}, Size: 64 << 20, BaselineSMs: 80, ACE: ace.Default(),
		MemGBps: []int64{32, 64, 96, 128, 160, 192, 256, 320, 384, 450, 512, 640, 768, 900},
	}
}

// Fig5Row is one memory bandwidth on one topology.
type Fig5Row struct {
	Topo       string  `json:"topology"`
	MemGBps    int64   `json:"comm_mem_gbps"`
	BaselineBW float64 `json:"baseline_network_gbps_per_npu"`
	ACEBW      float64 `json:"ace_network_gbps_per_npu"`
	IdealBW    float64 `json:"ideal_network_gbps_per_npu"`
	// BaselineOfIdeal and ACEOfIdeal are their network bandwidths as
	// fractions of the ideal endpoint's.
	BaselineOfIdeal float64 `json:"baseline_fraction_of_ideal"`
	ACEOfIdeal      float64 `json:"ace_fraction_of_ideal"`
}

// Threshold is, for one topology, the least memory bandwidth (or SM count)
// of the sweep at which an endpoint reaches 90 % of the ideal endpoint's
// network bandwidth, whatever order the sweep's points were given in; 0
// when no point does.
type Threshold struct {
	Topo     string  `json:"topology"`
	Baseline int64   `json:"baseline"`
	ACE      int64   `json:"ace,omitempty"`
	Ratio    float64 `json:"ratio,omitempty"` // baseline / ACE, when both reach it
}

// Fig5Result is the whole sweep.
type Fig5Result struct {
	Size       int64       `json:"size_bytes"`
	Rows       []Fig5Row   `json:"rows"`
	Thresholds []Threshold `json:"mem_gbps_to_reach_90pct_of_ideal"`
}

// Target is the share of the ideal network bandwidth the figures'
// thresholds use (Section VI-A: "90 % of the ideal").
const Target = 0.9

// Fig5 runs the Fig. 5 sweep.
func Fig5(o Fig5Options) (*Fig5Result, error) {
	if len(o.Topos) == 0 || len(o.MemGBps) == 0 || o.Size <= 0 || o.BaselineSMs < 1 {
		return nil, fmt.Errorf("fig5: need topologies, memory points, a size and at least one SM")
	}
	// The rows, and so the thresholds (the least point reaching the
	// target), are in order of the resource, however the points were given.
	o.MemGBps = slices.Sorted(slices.Values(o.MemGBps))
	var specs []Spec
	for _, t := range o.Topos {
		specs = append(specs, Spec{Topo: t, Size: o.Size, Endpoint: Ideal, Links: o.Links})
		for _, m := range o.MemGBps {
			if m <= 0 || m > npu.MemoryGBps {
				return nil, fmt.Errorf("fig5: memory bandwidth %d GB/s: give 1 to %d GB/s (the NPU's memory, Table V)", m, npu.MemoryGBps)
			}
			specs = append(specs, Spec{Topo: t, Size: o.Size, Endpoint: Baseline, CommSMs: o.BaselineSMs, CommMemGBps: m, Links: o.Links},
				Spec{Topo: t, Size: o.Size, Endpoint: ACE, CommMemGBps: m, ACE: o.ACE, Links: o.Links})
		}
	}
	pts, err := RunKept(specs, o.Workers, o.Progress, o.Keep)
	if err != nil {
		return nil, err
	}
	res := &Fig5Result{Size: o.Size}
	i := 0
	for _, t := range o.Topos {
		ideal := pts[i].NetworkGBps
		i++
		th := Threshold{Topo: t}
		for _, m := range o.MemGBps {
			b, a := pts[i].NetworkGBps, pts[i+1].NetworkGBps
			i += 2
			res.Rows = append(res.Rows, Fig5Row{Topo: t, MemGBps: m, BaselineBW: b, ACEBW: a, IdealBW: ideal,
				BaselineOfIdeal: b / ideal, ACEOfIdeal: a / ideal})
			if th.Baseline == 0 && b >= Target*ideal {
				th.Baseline = m
			}
			if th.ACE == 0 && a >= Target*ideal {
				th.ACE = m
			}
		}
		if th.Baseline > 0 && th.ACE > 0 {
			th.Ratio = float64(th.Baseline) / float64(th.ACE)
		}
		res.Thresholds = append(res.Thresholds, th)
	}
	return res, nil
}

// Fig6Options chooses the Fig. 6 sweep.
type Fig6Options struct {
	Topos []string
	Size  int64
	SMs   []int // SM counts, in any order (the rows are sorted)
	// MemGBps is the memory bandwidth given to the baseline's communication
	// (default 900: all of it, so that the SMs alone limit it).
	MemGBps int64
	Workers int
	// Links are the platform's links.* keys (LinkKeys), as Fig5Options'.
	Links map[string]string
	// Progress, if set, is told how many of the sweep's runs have finished.
	Progress func(done, total int)
	// Keep is where its runs are kept.
	Keep Keep
}

// DefaultFig6 is the paper's Fig. 6 sweep.
func DefaultFig6() Fig6Options {
	return Fig6Options{Topos: []string{"4x2x2", "4x4x4"}, Size: 64 << 20, SMs: []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16}, MemGBps: 900}
}

// Fig6Row is one SM count on one topology.
type Fig6Row struct {
	Topo       string  `json:"topology"`
	SMs        int     `json:"comm_sms"`
	BaselineBW float64 `json:"baseline_network_gbps_per_npu"`
	IdealBW    float64 `json:"ideal_network_gbps_per_npu"`
	OfIdeal    float64 `json:"baseline_fraction_of_ideal"` // network bandwidth as a fraction of the ideal endpoint's
	SMBusy     float64 `json:"comm_sm_busy"`
	MemReadBW  float64 `json:"mem_read_gbps"`
}

// Fig6Result is the whole sweep.
type Fig6Result struct {
	Size       int64       `json:"size_bytes"`
	MemGBps    int64       `json:"comm_mem_gbps"`
	Rows       []Fig6Row   `json:"rows"`
	Thresholds []Threshold `json:"sms_to_reach_90pct_of_ideal"`
}

// Fig6 runs the Fig. 6 sweep.
func Fig6(o Fig6Options) (*Fig6Result, error) {
	if len(o.Topos) == 0 || len(o.SMs) == 0 || o.Size <= 0 {
		return nil, fmt.Errorf("fig6: need topologies, SM counts and a size")
	}
	if o.MemGBps <= 0 || o.MemGBps > npu.MemoryGBps {
		return nil, fmt.Errorf("fig6: memory bandwidth %d GB/s (--fig6-mem): give 1 to %d GB/s (the NPU's memory, Table V)", o.MemGBps, npu.MemoryGBps)
	}
	// Rows and thresholds in order of SM count, as in Fig5.
	o.SMs = slices.Sorted(slices.Values(o.SMs))
	var specs []Spec
	for _, t := range o.Topos {
		specs = append(specs, Spec{Topo: t, Size: o.Size, Endpoint: Ideal, Links: o.Links})
		for _, n := range o.SMs {
			if n < 1 || n > npu.SMs {
				return nil, fmt.Errorf("fig6: %d SMs: use 1..%d", n, npu.SMs)
			}
			specs = append(specs, Spec{Topo: t, Size: o.Size, Endpoint: Baseline, CommSMs: n, CommMemGBps: o.MemGBps, Links: o.Links})
		}
	}
	pts, err := RunKept(specs, o.Workers, o.Progress, o.Keep)
	if err != nil {
		return nil, err
	}
	res := &Fig6Result{Size: o.Size, MemGBps: o.MemGBps}
	i := 0
	for _, t := range o.Topos {
		ideal := pts[i].NetworkGBps
		i++
		th := Threshold{Topo: t}
		for _, n := range o.SMs {
			p := pts[i]
			i++
			res.Rows = append(res.Rows, Fig6Row{Topo: t, SMs: n, BaselineBW: p.NetworkGBps, IdealBW: ideal,
				OfIdeal: p.NetworkGBps / ideal, SMBusy: p.CommSMBusy, MemReadBW: rtl.GBps(p.MemRead, rtl.Cycle(p.Cycles))})
			if th.Baseline == 0 && p.NetworkGBps >= Target*ideal {
				th.Baseline = int64(n)
			}
		}
		res.Thresholds = append(res.Thresholds, th)
	}
	return res, nil
}

// LinkKeys are p's links.* keys whose values differ from the default
// platform's (Table V's): what a figure's lone collectives take from the
// platform (Spec.Links).
func LinkKeys(p platform.Platform) map[string]string {
	d := platform.Default()
	out := map[string]string{}
	for _, q := range platform.Params() {
		if v := q.Get(&p); strings.HasPrefix(q.Key, "links.") && v != q.Get(&d) {
			out[q.Key] = v
		}
	}
	return out
}

// linkSettings are the default platform's links with keys (platform
// keys: links.tier0.bandwidth and the like) set, in key order.
func linkSettings(keys map[string]string) (topology.LinkSettings, error) {
	pf := platform.Default()
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if err := pf.Set(k, keys[k]); err != nil {
			return topology.LinkSettings{}, err
		}
	}
	return pf.LinkSettings()
}

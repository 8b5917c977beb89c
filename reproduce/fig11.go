package reproduce

import (
	"fmt"
	"slices"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
	"github.com/acemu/acemu/topology"
)

// Fig11Options chooses the scaling study of the ACE paper's Fig. 11
// (Section VI-C): the comparator's five systems training every workload on
// every torus size.
type Fig11Options struct {
	Trained
}

// Fig11Baselines are the baselines of Fig. 11(b), in the paper's order.
var Fig11Baselines = []string{"baseline-nooverlap", "baseline-commopt", "baseline-compopt"}

// Fig11Systems are the systems every point runs: the baselines, ACE and
// the ideal system (Table VI).
var Fig11Systems = append(slices.Clone(Fig11Baselines), "ace", "ideal")

// DefaultFig11 is the paper's three workloads in the default compute
// regime on 16, 32, 64 and 128 NPUs (docs/validation.md, "Scaling: Fig. 11"
// says why these sizes).
func DefaultFig11() Fig11Options {
	return Fig11Options{Trained{Platform: platform.Default(),
		Workloads: []string{"resnet50", "gnmt", "dlrm"},
		Topos:     []string{"4x2x2", "4x4x2", "4x4x4", "4x8x4"}}}
}

// Fig11System is one system's run at one size and workload.
type Fig11System struct {
	Name string `json:"name"`
	// TotalCycles is the run (every iteration), ComputeCycles and
	// ExposedCycles its compute and exposed communication (the paper's
	// Fig. 11(a)).
	TotalCycles   int64 `json:"total_cycles"`
	ComputeCycles int64 `json:"compute_cycles"`
	ExposedCycles int64 `json:"exposed_comm_cycles"`
	// FractionOfIdeal is the ideal system's time over this one's.
	FractionOfIdeal float64 `json:"fraction_of_ideal"`
	// NetworkGBps is its effective network bandwidth: bytes sent per NPU
	// over the run's time.
	NetworkGBps float64 `json:"effective_network_gbps_per_npu"`
	// ACESpeedup is, for a baseline, its time over ACE's (a point of the
	// paper's Fig. 11(b)), and BandwidthRatio ACE's effective network
	// bandwidth over its own, measured.
	ACESpeedup     float64 `json:"ace_speedup,omitempty"`
	BandwidthRatio float64 `json:"ace_bandwidth_ratio,omitempty"`
}

// Fig11Row is one workload on one torus size.
type Fig11Row struct {
	Workload string        `json:"workload"`
	Topo     string        `json:"topology"`
	NPUs     int           `json:"npus"`
	Systems  []Fig11System `json:"systems"` // in Fig11Systems' order
	// Best is the baseline with the shortest run, and OverBest ACE's
	// speed-up over it.
	Best     string  `json:"best_baseline"`
	OverBest float64 `json:"ace_over_best_baseline"`
}

// System returns the row's run of the system called name.
func (r Fig11Row) System(name string) Fig11System {
	i := slices.IndexFunc(r.Systems, func(s Fig11System) bool { return s.Name == name })
	if i < 0 {
		return Fig11System{Name: name}
	}
	return r.Systems[i]
}

// Versus is one of Section VI-C's averages beside the paper's (0 where the
// paper gives none).
type Versus struct {
	What  string  `json:"what"`
	Acemu float64 `json:"acemu"`
	Paper float64 `json:"paper,omitempty"`
}

// Fig11Result is the study: every row, then the paper's averages formed
// from them as Section VI-C forms its own (docs/validation.md).
type Fig11Result struct {
	Rows []Fig11Row `json:"rows"`
	// FractionOfIdeal is, per system but the ideal, its fraction of ideal
	// averaged over every size and workload.
	FractionOfIdeal []Versus `json:"mean_fraction_of_ideal"`
	// OverBest is, per workload, ACE's speed-up over the best baseline,
	// the mean over sizes then the maximum.
	OverBest []Versus `json:"ace_over_best_baseline"`
	// Bandwidth is ACE's effective network bandwidth over every
	// baseline's, over every point of Fig. 11(b) (each baseline, size and
	// workload): the mean and maximum of the speed-ups (the paper's
	// reading: every system injects the same traffic), then the mean and
	// maximum of the measured ratio of bytes per second.
	Bandwidth []Versus `json:"ace_bandwidth_over_baselines"`
}

// The paper's figures (Section VI-C): "BaselineNoOverlap,
// BaselineCommOpt, BaselineCompOpt and ACE achieves the 68.5%, 49.9%,
// 75.7%, and 91% of the ideal system performance"; "ACE achieves 1.41×
// (up to 1.51×), 1.12× (up to 1.17×), and 1.13× (up to 1.19×) speedup in
// iteration time for ResNet-50, GNMT, and DLRM"; "ACE can improve the
// effective network utilization by 1.44× (up to 2.67) over all
// baselines".
var (
	paperFig11OfIdeal = map[string]float64{"baseline-nooverlap": 0.685, "baseline-commopt": 0.499, "baseline-compopt": 0.757, "ace": 0.91}
	// mean, max
	paperFig11OverBest  = map[string][2]float64{"resnet50": {1.41, 1.51}, "gnmt": {1.12, 1.17}, "dlrm": {1.13, 1.19}}
	paperFig11Bandwidth = [2]float64{1.44, 2.67}
)

// Fig11 runs the study, runs in parallel and results in a fixed order.
func Fig11(o Fig11Options) (*Fig11Result, error) {
	if len(o.Workloads) == 0 || len(o.Topos) == 0 {
		return nil, fmt.Errorf("fig11 needs at least one workload and topology")
	}
	pts, err := o.train("fig11", nil, Fig11Systems, nil)
	if err != nil {
		return nil, err
	}
	return Fig11Of(pts, o.Workloads)
}

// Fig11Of is the study formed from its points, however they were run
// (each a run of Fig11Systems on a workload and topology; Trained.Run):
// a row per point, in the points' order, and Section VI-C's averages over
// the workloads given.
func Fig11Of(pts []sweep.PointResult, workloads []string) (*Fig11Result, error) {
	res := &Fig11Result{}
	for _, p := range pts {
		row, err := fig11Row(p)
		if err != nil {
			return nil, fmt.Errorf("fig11: %s on %s: %w", p.Workload, p.Topology, err)
		}
		res.Rows = append(res.Rows, row)
	}
	res.average(workloads)
	return res, nil
}

// fig11Row is one point's row.
func fig11Row(p sweep.PointResult) (Fig11Row, error) {
	m, err := topology.Parse(p.Topology)
	if err != nil {
		return Fig11Row{}, err
	}
	r := Fig11Row{Workload: p.Workload, Topo: p.Topology, NPUs: m.Machine.N()}
	for _, s := range p.Systems {
		if s.TotalCycles <= 0 {
			return r, fmt.Errorf("%s ran no cycles", s.Name)
		}
		r.Systems = append(r.Systems, Fig11System{Name: s.Name, TotalCycles: s.TotalCycles, ComputeCycles: s.TotalCompute,
			ExposedCycles: s.TotalExposedComm, NetworkGBps: s.NetworkGBps})
	}
	ace, ideal := r.System("ace"), r.System("ideal")
	if ace.TotalCycles == 0 || ideal.TotalCycles == 0 {
		return r, fmt.Errorf("no ACE or ideal run")
	}
	for i := range r.Systems {
		s := &r.Systems[i]
		s.FractionOfIdeal = float64(ideal.TotalCycles) / float64(s.TotalCycles)
		if !slices.Contains(Fig11Baselines, s.Name) {
			continue
		}
		s.ACESpeedup = float64(s.TotalCycles) / float64(ace.TotalCycles)
		if s.NetworkGBps > 0 {
			s.BandwidthRatio = ace.NetworkGBps / s.NetworkGBps
		}
		if r.Best == "" || s.TotalCycles < r.System(r.Best).TotalCycles {
			r.Best, r.OverBest = s.Name, s.ACESpeedup
		}
	}
	return r, nil
}

// average forms Section VI-C's averages from the rows: arithmetic means
// over rows (and, for the bandwidth, over baselines too), maxima over the
// same.
func (res *Fig11Result) average(workloads []string) {
	for _, name := range append(slices.Clone(Fig11Baselines), "ace") {
		var pct []float64
		for _, r := range res.Rows {
			pct = append(pct, r.System(name).FractionOfIdeal)
		}
		res.FractionOfIdeal = append(res.FractionOfIdeal, Versus{What: name, Acemu: mean(pct), Paper: paperFig11OfIdeal[name]})
	}
	for _, w := range workloads {
		var over []float64
		for _, r := range res.Rows {
			if r.Workload == w {
				over = append(over, r.OverBest)
			}
		}
		p := paperFig11OverBest[w]
		res.OverBest = append(res.OverBest, Versus{What: w + " mean", Acemu: mean(over), Paper: p[0]},
			Versus{What: w + " max", Acemu: slices.Max(over), Paper: p[1]})
	}
	var speedup, measured []float64
	for _, r := range res.Rows {
		for _, b := range Fig11Baselines {
			s := r.System(b)
			speedup = append(speedup, s.ACESpeedup)
			measured = append(measured, s.BandwidthRatio)
		}
	}
	res.Bandwidth = []Versus{
		{What: "mean", Acemu: mean(speedup), Paper: paperFig11Bandwidth[0]},
		{What: "max", Acemu: slices.Max(speedup), Paper: paperFig11Bandwidth[1]},
		{What: "measured mean", Acemu: mean(measured)},
		{What: "measured max", Acemu: slices.Max(measured)},
	}
}

// mean is the arithmetic mean of xs (0 for none).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

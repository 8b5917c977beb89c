package compare

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/libra"
	"github.com/acemu/acemu/libra/measure"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// LIBRA's settings (§V-A of "LIBRA: Contention-Aware GPU Thread
// Allocation for Data Parallel Training in High Speed Networks"): at most
// LibraGroups tensor groups, the backward computation cut into
// LibraChunks chunks.
const (
	LibraGroups = 10
	LibraChunks = 150
)

// LibraPlan is a LIBRA system's plan for a run (docs/libra.md): the
// contention curves measured on the run's platform, the groups of layers
// whose weight-gradient all-reduces are fused, each on its SMs, and the
// backward time the model predicts for it.
type LibraPlan struct {
	// Programme is "LIBRA-M" (libra.Allocate, every layer its own group)
	// or "LIBRA" (libra.Fuse).
	Programme string          `json:"programme"`
	Curves    *measure.Curves `json:"curves"`
	// Fit is Eq (5) and (6) fitted to the curves, beside them (the
	// programmes use the measured points).
	Fit measure.Fit `json:"fit"`
	// Layers are LIBRA's layers in backward order: b in cycles, c in
	// bytes (measure.Backward).
	Layers []libra.Layer `json:"-"`
	Groups []LibraGroup  `json:"groups"`
	// Predicted is the model's backward time of the plan in cycles (T-hat
	// of Theorem 1, libra.Evaluate); Bound the programme's T(K, Z).
	Predicted float64 `json:"predicted_backward_cycles"`
	Bound     float64 `json:"programme_backward_cycles"`
	// Fixed is the model's backward time, every layer its own group, with
	// one allocation for all, for each allocation of R (libra.Evaluate):
	// the fixed allocations the programmes are to beat.
	Fixed []LibraFixed `json:"fixed"`
}

// LibraFixed is the model's backward time with every all-reduce on SMs.
type LibraFixed struct {
	SMs       int     `json:"sms"`
	Predicted float64 `json:"predicted_backward_cycles"`
}

// LibraGroup is one group: the workload's layers (forward indices, in
// backward order) whose weight-gradient all-reduces are fused into one,
// its bytes per NPU and its SMs.
type LibraGroup struct {
	Layers []int `json:"layers"`
	Bytes  int64 `json:"bytes"`
	SMs    int   `json:"sms"`
}

// checkLibra refuses, before any run, a LIBRA system where its plan has
// no meaning: LIBRA schedules the weight-gradient all-reduces of data
// parallelism, chained, one in flight, with SMs taken from compute.
func checkLibra(o Options) error {
	for _, s := range o.Systems {
		if s.Libra == systems.LibraNone {
			continue
		}
		switch {
		case s.Kind != systems.Baseline:
			return fmt.Errorf("%s: LIBRA's plan gives SMs to the SM-driven baseline's collectives, and this system is %s", s.Name, s.Kind)
		case o.Trace != nil:
			return fmt.Errorf("%s: a Chakra trace issues its own collectives; LIBRA's plan is for a workload's weight-gradient all-reduces (--workload)", s.Name)
		case o.Memory != contend.Share:
			return refused(fmt.Errorf("%s: under --memory-policy %s compute keeps its SMs whatever communication does, so there is no contention for LIBRA to plan; use --memory-policy share (docs/libra.md)", s.Name, o.Memory))
		case o.scheduleOf(s.Name) != train.ScheduleLayerwise:
			return fmt.Errorf("%s: LIBRA issues its groups' all-reduces chained, one at a time, in its own fusion; drop the %s schedule for it", s.Name, o.scheduleOf(s.Name))
		}
		w := o.Workload
		hasAR := false
		for _, l := range w.Layers {
			if l.FwdComm.Type != workload.CommNone || l.InGradComm.Type != workload.CommNone ||
				(l.WtGradComm.Type != workload.CommNone && l.WtGradComm.Type != workload.CommAllReduce) {
				return fmt.Errorf("%s: layer %s of %s has collectives other than a weight-gradient all-reduce; LIBRA plans data parallelism's all-reduces, one in flight at a time, so run it on a data-parallel workload", s.Name, l.Name, w.Name)
			}
			hasAR = hasAR || (l.WtGradComm.Type == workload.CommAllReduce && l.WtGradComm.Bytes > 0)
		}
		if !hasAR {
			return fmt.Errorf("%s: %s has no weight-gradient all-reduce for LIBRA to plan", s.Name, w.Name)
		}
	}
	return nil
}

// libraMeasured is what LIBRA's systems of one comparison plan on: the
// workload's layers for LIBRA and the contention curves measured on o's
// machine and platform with communication's memory weight.
type libraMeasured struct {
	layers []libra.Layer
	curves *measure.Curves
}

// libraMeasure measures, once for every LIBRA system of o with the same
// memory weight (the curves depend on nothing else of the system), what
// their programmes plan on; keyed by the weight's RatString.
func libraMeasure(o Options) (map[string]libraMeasured, error) {
	out := map[string]libraMeasured{}
	for _, sys := range o.Systems {
		key := libraKey(sys)
		if _, done := out[key]; done || sys.Libra == systems.LibraNone {
			continue
		}
		w, m := o.Workload, o.Machine.Machine
		timer, err := train.NewTimer(w.CycleHz, train.Config{Compute: npu.FullNPU(), MemBoundShare: o.MemBoundShare, ComputeSpeed: o.ComputeSpeed})
		if err != nil {
			return nil, err
		}
		kernels, layers, err := measure.Backward(w, timer)
		if err != nil {
			return nil, err
		}
		curves, err := measure.Measure(measure.Setup{
			Sim:     simSetup(o),
			Full:    o.Full,
			MemGBps: new(big.Rat).Set(sys.CommMemGBps),
			Compute: kernels, Bytes: PaddedBytes(train.OneShotBytes(w), m.N()), StartupBytes: PaddedBytes(1, m.N()),
		})
		if err != nil {
			return nil, fmt.Errorf("%s: LIBRA's contention curves: %w", sys.Name, err)
		}
		out[key] = libraMeasured{layers: layers, curves: curves}
	}
	return out, nil
}

// libraKey is sys's key in libraMeasure's map: its memory weight.
func libraKey(sys systems.System) string {
	if sys.CommMemGBps == nil {
		return ""
	}
	return sys.CommMemGBps.RatString()
}

// libraPlan runs sys's programme on the curves and layers measured for
// it (libraMeasure).
func libraPlan(o Options, sys systems.System, ms libraMeasured) (*LibraPlan, error) {
	w, curves, layers := o.Workload, ms.curves, ms.layers
	var err error
	model := curves.Model()
	p := &LibraPlan{Programme: sys.Libra.String(), Curves: curves, Layers: layers}
	if p.Fit, err = curves.Fit(); err != nil {
		return nil, err
	}
	for _, r := range curves.SMs() {
		all := make([]int, len(layers))
		for i := range all {
			all[i] = r
		}
		b, err := libra.Evaluate(model, layers, all)
		if err != nil {
			return nil, fmt.Errorf("every all-reduce on %d SMs: %w", r, err)
		}
		p.Fixed = append(p.Fixed, LibraFixed{SMs: r, Predicted: b.Total})
	}
	L := len(w.Layers)
	var groups [][2]int // first and last of LIBRA's layers, 0-based
	var threads []int
	switch sys.Libra {
	case systems.LibraAllocate:
		if groups, err = fixedGroups(w, o.Fusion); err != nil {
			return nil, err
		}
		fused := make([]libra.Layer, len(groups))
		for i, g := range groups {
			for j := g[0]; j <= g[1]; j++ {
				fused[i].Compute += layers[j].Compute
				fused[i].Grad += layers[j].Grad
			}
		}
		a, err := libra.Allocate(model, fused, curves.SMs(), LibraChunks)
		if err != nil {
			return nil, fmt.Errorf("LIBRA-M's allocation: %w", err)
		}
		threads, p.Bound, p.Predicted = a.Threads, a.Time, a.Hat.Total
	case systems.LibraFuse:
		f, err := libra.Fuse(model, layers, curves.SMs(), LibraGroups, LibraChunks)
		if err != nil {
			return nil, fmt.Errorf("LIBRA's fusion and allocation: %w", err)
		}
		for _, g := range f.Groups {
			groups = append(groups, [2]int{g.First - 1, g.Last - 1})
			threads = append(threads, g.Threads)
		}
		p.Bound, p.Predicted = f.Time, f.Hat.Total
	default:
		return nil, fmt.Errorf("%s: not a LIBRA system", sys.Name)
	}
	hasAR := func(l int) bool { return w.Layers[l].WtGradComm.Type == workload.CommAllReduce }
	for i, g := range groups { // a group without an all-reduce has nothing to issue
		var lg LibraGroup
		for j := g[0]; j <= g[1]; j++ {
			if hasAR(L - 1 - j) {
				lg.Layers = append(lg.Layers, L-1-j)
				lg.Bytes += layers[j].Grad
			}
		}
		if len(lg.Layers) > 0 {
			lg.SMs = threads[i]
			p.Groups = append(p.Groups, lg)
		}
	}
	return p, nil
}

// apply makes the training loop run the plan: the weight-gradient
// all-reduces chained in the order back-prop produces them, one in flight
// (LIBRA's "communication tasks launched sequentially", §III-B: the
// MXNet-MPI paper's DepCha, train.IssueDepCha, with no gradient copies),
// fused in the plan's groups, each on its SMs (train.Bucket.SMs). It
// replaces any --policy and --fusion, which the other systems keep.
func (p *LibraPlan) apply(tc *train.Config) {
	tc.Issue = train.IssuePolicy{Kind: train.IssueDepCha, Keys: train.KeysBackward}
	tc.Fusion = train.Fusion{}
	for _, g := range p.Groups {
		tc.Fusion.Buckets = append(tc.Fusion.Buckets, train.Bucket{Layers: g.Layers, SMs: g.SMs})
	}
}

// simSetup is the assembly of o's runs, its system left to set: the
// machine, links, AFI, library and order the comparison runs with.
func simSetup(o Options) sim.Setup {
	return sim.Setup{Machine: o.Machine, Links: o.Links, AFI: o.afiConfig(), Library: o.Library, Order: o.Order}
}

// libraPlans makes each LIBRA system's plan on its measured curves, by
// system name. On a folded run (fold) it also says why a plan's fused
// all-reduces would not let one NPU stand for all, or nil when each
// does: Run then runs the comparison in full.
func libraPlans(o Options, fold bool) (plans map[string]*LibraPlan, why, err error) {
	for _, s := range o.Systems {
		if s.Libra == systems.LibraNone {
			continue
		}
		p, err := libraPlan(o, s, o.libra[libraKey(s)])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		if fold && why == nil {
			if why, err = p.whyNotFold(o); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
			}
			if why != nil {
				why = fmt.Errorf("%s: %w", s.Name, why)
			}
		}
		if plans == nil {
			plans = map[string]*LibraPlan{}
		}
		plans[s.Name] = p
	}
	return plans, why, nil
}

// whyNotFold is why p's fused all-reduces would not let one NPU stand for
// all on o's machine, or nil: the comparison decides to fold on the
// layers' all-reduces and all of them fused, not on the groups between.
// err is a group that cannot be planned.
func (p *LibraPlan) whyNotFold(o Options) (why, err error) {
	cfg := o.afiConfig()
	for _, g := range p.Groups {
		plan, err := cfg.Plan(collectives.OpAllReduce, PaddedBytes(g.Bytes, cfg.Machine.N()))
		if err != nil {
			return nil, fmt.Errorf("LIBRA's group of layers %v: %w", g.Layers, err)
		}
		if why := sim.Foldable(o.Machine, false, plan); why != nil {
			return fmt.Errorf("LIBRA's group of layers %v (%d bytes): %w", g.Layers, g.Bytes, why), nil
		}
	}
	return nil, nil
}

// fixedGroups is LIBRA-M's fixed fusion plan, as ranges of LIBRA's
// layers (0-based, in backward order): the buckets fusion makes of w's
// weight-gradient all-reduces (--fusion, train.WtGradBuckets), each with
// the layers without one before it in back-prop, the layers after the
// last bucket a group of compute alone; without fusion, every layer its
// own group.
func fixedGroups(w *workload.Workload, f train.Fusion) ([][2]int, error) {
	L := len(w.Layers)
	buckets, err := train.WtGradBuckets(w, f)
	if err != nil {
		return nil, err
	}
	var groups [][2]int
	if buckets == nil {
		for i := range L {
			groups = append(groups, [2]int{i, i})
		}
		return groups, nil
	}
	next := 0 // the first of LIBRA's layers not in a group yet
	for _, b := range buckets {
		end := next
		for _, l := range b.Layers {
			end = max(end, L-1-l)
		}
		for j := next; j <= end; j++ {
			if l := L - 1 - j; w.Layers[l].WtGradComm.Type == workload.CommAllReduce && !slices.Contains(b.Layers, l) {
				return nil, fmt.Errorf("LIBRA-M's fixed plan: the fusion's bucket of layers %v leaves out layer %s between them; LIBRA fuses consecutive layers", b.Layers, w.Layers[l].Name)
			}
		}
		groups = append(groups, [2]int{next, end})
		next = end + 1
	}
	if next < L {
		groups = append(groups, [2]int{next, L - 1})
	}
	return groups, nil
}

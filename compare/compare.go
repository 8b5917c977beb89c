// Package compare runs one training workload on several of Table VI's
// systems and sets them side by side: the comparator behind `acemu --topo
// 4x8x4 --workload resnet50`. Each system runs in its own simulation (its
// own kernel and network), in parallel across cores; the results do not
// depend on how many run at once.
package compare

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/par"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/workload"
)

// Options chooses a comparison.
type Options struct {
	// Machine is the machine the run is on (what --topo named: a torus,
	// dgx1, a switch fabric, a file); Links are the platform's links it is
	// built with (zero: the default platform's).
	Machine  *topology.Spec
	Links    topology.LinkSettings
	Workload *workload.Workload
	// Trace, when set, is a Chakra execution trace run in place of
	// Workload (docs/chakra.md), every NPU simulated; Workload is then
	// not read.
	Trace      *Trace
	Systems    []systems.System
	Iterations int       // 0: train.DefaultIterations
	Order      afi.Order // which collective in flight goes first (zero: LIFO, the ACE paper, Section V)
	// Schedule is when the overlapping systems issue their weight-gradient
	// all-reduces (train.Config.Schedule; zero: layer-wise, the ACE
	// paper's; docs/training-loop.md).
	Schedule train.Schedule
	// Schedules, when set, gives systems their own schedule, by system
	// name, overriding Schedule: for comparing schedules side by side.
	Schedules map[string]train.Schedule
	// WholeOneShot names the systems whose one-shot all-reduce (under a
	// one-shot schedule) runs as one chunk, pipelined inside its algorithm
	// (a tree's pieces, the C-Cube paper's one-shot collective), rather
	// than in the platform's chunks.
	WholeOneShot map[string]bool
	ACE          ace.Config
	// Algorithms names the algorithm per collective (afi.Config.Algorithms;
	// missing ones: collectives.DefaultAlgorithm).
	Algorithms map[collectives.CollectiveOp]string
	// Library is what the baselines' communication library pays beyond
	// bandwidth (npu.Library; zero: nothing).
	Library npu.Library
	Workers int // 0: GOMAXPROCS
	// Full simulates every NPU even when the workload's collectives would
	// let one NPU stand for all (see Fold); the results are the same.
	Full bool
	// Series keeps each system's network utilisation per window
	// (SystemResult.NetworkUtilization); the mean and peak are always
	// reported.
	Series bool
	// Memory is how compute and communication share each NPU
	// (docs/memory-system.md); the zero value is contend.Partition.
	Memory contend.Policy
	// ChunkBytes and MessageBytes are the AFI's chunk and message (0: the
	// AFI's defaults); the platform configuration sets them.
	ChunkBytes, MessageBytes int64
	// MemBoundShare is the memory-bound share of ASTRA-sim compute times
	// (train.Config.MemBoundShare; nil: derived from each pass's shape).
	MemBoundShare *big.Rat
	// ComputeSpeed is how many times faster than Table V compute runs
	// (train.Config.ComputeSpeed; nil: 1).
	ComputeSpeed *big.Rat
	// Micro is how a MICRO workload issues its collectives
	// (train.Config.Micro).
	Micro train.Micro
	// Issue and Fusion are how the overlapping systems issue and fuse
	// data parallelism's weight-gradient all-reduces (train.Config.Issue,
	// train.Config.Fusion; zero: each when its gradients exist, unfused).
	Issue  train.IssuePolicy
	Fusion train.Fusion
	// Observe, when set, gives each system's run its observers (systems
	// run in parallel, each its own), given the system's network: Packets
	// sees the links' packets, Work the endpoint's work, the collectives
	// and the compute kernels.
	Observe func(system string, net *fabric.Network) observe.Observers
	// Finished, when set, is given each system's result as soon as it has
	// one (systems run in parallel: from several goroutines), before the
	// comparison's own figures (% of ideal, speed-ups) exist.
	Finished func(r SystemResult)
	// Progress, when set, is told how far each system's run has gone in
	// simulated cycles, of an estimated total (train.Config.Progress):
	// first when the system starts, last when it ends (done = total).
	// Systems run in parallel: it is called from several goroutines.
	Progress func(system string, done, total int64)
	// KeepMetrics keeps each system's training-loop metrics in its result
	// (SystemResult.Metrics): per iteration, layer and pass, for acemu
	// --per-layer.
	KeepMetrics bool
	// libra is what LIBRA's systems plan on, measured once per comparison
	// before the systems run (libraMeasure), and libraPlans their plans by
	// system name, made once from it (libraPlans); kinds the kinds of
	// collective the run issues, for ACE's layout (kindsOf), listed once by
	// Run.
	libra      map[string]libraMeasured
	libraPlans map[string]*LibraPlan
	kinds      []afi.Kind
	// LinkStats keeps what each link carried in each system's result
	// (SystemResult.LinkStats), with its busiest window of WindowCycles:
	// for acemu --links.
	LinkStats bool
}

// afiConfig is the AFI's configuration on the run's machine.
func (o Options) afiConfig() afi.Config {
	c := afi.DefaultConfig(o.Machine.Machine)
	if o.ChunkBytes > 0 {
		c.ChunkBytes = o.ChunkBytes
	}
	if o.MessageBytes > 0 {
		c.MessageBytes = o.MessageBytes
	}
	c.Algorithms = o.Algorithms
	return c
}

// ErrRefused is what a comparison returns (errors.Is) when a system it
// runs refuses the setup it is given, though the setup is valid for
// others: LIBRA under a memory policy with no contention to plan. The
// choices' sweep
// (validation.RunChoices) records the figure as not run, with the
// reason, rather than stopping.
var ErrRefused = errors.New("a system refuses the setup")

// refusedError is an error that is also ErrRefused.
type refusedError struct{ err error }

func (e refusedError) Error() string { return e.err.Error() }

func (e refusedError) Unwrap() error { return e.err }

// Is makes a refusedError ErrRefused.
func (e refusedError) Is(target error) bool { return target == ErrRefused }

// refused marks err as a system's refusal of its setup (ErrRefused).
func refused(err error) error { return refusedError{err} }

// WindowCycles is the window of the network utilisation series: 1 K
// cycles (Section V, Fig. 10: "averaged over 1K cycles"), read as 1000.
const WindowCycles = 1000

// MaxSeriesWindows bounds a per-window series (Options.Series): 10^7
// windows is 10^10 cycles (8 s of simulated time), two series of 80 MB of
// floats per system and a CSV of some 300 MB; a longer run reports its
// mean and peak without the series. A run with a series is stopped as
// soon as its simulated time passes the bound (at its first event
// train.ProgressCycles past the last report), before the series is made
// (docs/bad-input.md, "Limits"). It is not refused ahead: the loop's
// compute estimate times a baseline's kernels with the memory bandwidth
// left to compute by partition, which sharing can better, so it is no
// lower bound on the run.
const MaxSeriesWindows = 10_000_000

// maxSeriesCycles is the run MaxSeriesWindows windows cover.
const maxSeriesCycles = MaxSeriesWindows * WindowCycles

// errSeriesTooLong says a run that reached cycle cycles, past
// maxSeriesCycles, is too long for its utilisation series.
func errSeriesTooLong(cycles int64) error {
	return fmt.Errorf("the utilisation series (--timeseries, --plot) keeps one value per window of %d cycles (Section V, Fig. 10), at most %d windows (%d cycles, docs/bad-input.md \"Limits\"), and the run passed cycle %d, so it was stopped; run fewer iterations, or without --timeseries and --plot (the mean and peak utilisation are reported either way)",
		WindowCycles, MaxSeriesWindows, int64(maxSeriesCycles), cycles)
}

// ElementBytes is the size of a gradient element (FP16), the unit the
// training loop pads its collectives with.
const ElementBytes = 2

// PaddedBytes is the size a training collective of n bytes is issued with
// on npus NPUs: rounded up to a whole element per NPU (npus × ElementBytes),
// as data-parallel frameworks pad flattened gradient buffers to a multiple
// of the world size so that every rank's shard is the same (docs/training-
// loop.md). At most 2·npus-1 bytes are added.
func PaddedBytes(n int64, npus int) int64 {
	u := int64(npus) * ElementBytes
	return (n + u - 1) / u * u
}

// SystemResult is one system's run.
type SystemResult struct {
	Name       string `json:"name"`
	Iterations int    `json:"iterations"`
	// Means per iteration, in cycles.
	IterationCycles   float64 `json:"iteration_cycles"`
	ComputeCycles     float64 `json:"compute_cycles"`
	ExposedCommCycles float64 `json:"exposed_comm_cycles"`
	// Totals over the run, in cycles.
	TotalCycles      int64   `json:"total_cycles"`
	TotalCompute     int64   `json:"total_compute_cycles"`
	TotalExposedComm int64   `json:"total_exposed_comm_cycles"`
	PerIteration     []int64 `json:"iteration_cycles_each"`
	// FractionOfIdeal is the ideal system's time over this one's (1 for
	// the ideal); nil, and absent from the JSON, when no ideal system ran,
	// so that no reader takes a missing comparison for a fraction of 0.
	FractionOfIdeal *float64 `json:"fraction_of_ideal,omitempty"`
	ExposedShare    float64  `json:"exposed_comm_share"`
	Collectives     int      `json:"collectives"`
	CollectiveBytes int64    `json:"collective_bytes_per_npu"`
	BytesSentPerNPU int64    `json:"bytes_sent_per_npu"`
	NetworkGBps     float64  `json:"effective_network_gbps_per_npu"`
	MemReadPerNPU   int64    `json:"mem_read_bytes_per_npu"`
	MemWritePerNPU  int64    `json:"mem_write_bytes_per_npu"`
	CommMemGBps     float64  `json:"comm_mem_used_gbps"`
	CommSMBusy      float64  `json:"comm_sm_busy"`
	// ACEUtilization is the share of the run ACE held at least one chunk
	// (ace.Result.Utilization); ACEForwardUtilization and
	// ACEBackpropUtilization the same within the forward passes and
	// within back-propagation (docs/validation.md, "ACE utilisation by
	// pass"). ACE only.
	ACEUtilization         *float64 `json:"ace_utilization,omitempty"`
	ACEForwardUtilization  *float64 `json:"ace_forward_utilization,omitempty"`
	ACEBackpropUtilization *float64 `json:"ace_backprop_utilization,omitempty"`
	// ForwardCycles and BackpropCycles split TotalCycles by pass: every
	// iteration's forward pass (its start to the start of its
	// back-propagation) and its back-propagation (train.Metrics.Passes).
	ForwardCycles  int64 `json:"forward_pass_cycles"`
	BackpropCycles int64 `json:"backprop_pass_cycles"`
	// Schedule is the system's training schedule (Options.Schedule,
	// Options.Schedules) when it is not the default, layer-wise, which
	// leaves it out, as does a system that does not overlap, which runs
	// the same under every schedule (train.Config.Schedule).
	Schedule string `json:"schedule,omitempty"`
	// Network utilisation: the share of link time spent carrying packets,
	// over the run and in the busiest window of WindowCycles; with
	// Options.Series, per window.
	LinkUtilization     float64   `json:"mean_link_utilization"`
	PeakLinkUtilization float64   `json:"peak_link_utilization"`
	NetworkUtilization  []float64 `json:"network_utilization,omitempty"`
	// ComputeUtilization is, with Options.Series, the share of each window
	// the NPU spent running compute kernels (the paper's Fig. 10 shows it
	// beside the network's).
	ComputeUtilization []float64 `json:"compute_utilization,omitempty"`
	Events             uint64    `json:"events"`
	// MicroCycles are a MICRO workload's collectives' times in cycles,
	// each from its issue to its completion, in issue order
	// (train.Metrics.Micro); absent for other kinds.
	MicroCycles []int64 `json:"micro_collective_cycles,omitempty"`
	// Libra is a LIBRA system's plan (systems.Libra): its measured
	// curves, groups and SMs, and the backward time its model predicts;
	// nil for the others.
	Libra *LibraPlan `json:"libra,omitempty"`
	// Metrics is the training loop's account of the run, per iteration,
	// layer and pass, with Options.KeepMetrics; nil without. It is not
	// part of the report's JSON.
	Metrics *train.Metrics `json:"-"`
	// LinkStats is what each link carried over the run, with
	// Options.LinkStats (on a folded network NPU 0's links); nil without.
	// It is not part of the report's JSON.
	LinkStats []fabric.LinkStat `json:"-"`
}

// Report is the comparison.
type Report struct {
	Topology string `json:"topology"`
	NPUs     int    `json:"npus"`
	Workload string `json:"workload"`
	Policy   string `json:"priority"`
	// Memory is the memory policy (docs/memory-system.md).
	Memory string `json:"memory_policy"`
	// Schedule is the training loop's schedule (train.Schedule) when it is
	// not the default, layer-wise, which leaves it out.
	Schedule string `json:"schedule,omitempty"`
	// IssuePolicy and Fusion are the issue policy (train.IssuePolicy, with
	// its key order and copies) and tensor fusion when they are not the
	// defaults (eager, none), which leave them out.
	IssuePolicy string `json:"issue_policy,omitempty"`
	Fusion      string `json:"fusion,omitempty"`
	// Folded is true when one NPU stood for all (Fold); the numbers are
	// those of the full simulation.
	Folded  bool           `json:"folded"`
	Systems []SystemResult `json:"systems"`
	// SpeedupOfACE is, per other system, its time over ACE's.
	SpeedupOfACE map[string]float64 `json:"speedup_of_ace,omitempty"`
}

// Run runs the comparison.
func Run(o Options) (*Report, error) {
	if (o.Workload == nil && o.Trace == nil) || len(o.Systems) == 0 {
		return nil, fmt.Errorf("compare: need a workload and at least one system")
	}
	if o.Machine == nil {
		return nil, fmt.Errorf("compare: no machine to run on")
	}
	for _, name := range slices.Sorted(maps.Keys(o.Schedules)) {
		if !slices.ContainsFunc(o.Systems, func(s systems.System) bool { return s.Name == name }) {
			return nil, fmt.Errorf("compare: a schedule (%s) for system %s, which is not among the systems compared", o.Schedules[name], name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.WholeOneShot)) {
		if !slices.ContainsFunc(o.Systems, func(s systems.System) bool { return s.Name == name && s.Overlap && o.scheduleOf(name).OneShot() }) {
			return nil, fmt.Errorf("compare: a whole one-shot all-reduce for system %s, which is not among the systems compared that overlap under a one-shot schedule (baseline-nooverlap fuses its own all-reduce in the platform's chunks)", name)
		}
	}
	if err := checkLibra(o); err != nil {
		return nil, err
	}
	fold := false
	var why error // why the workload's collectives do not let one NPU stand for all
	name := ""
	if o.Trace != nil {
		if o.Trace.Set == nil {
			return nil, fmt.Errorf("compare: a trace with no ranks")
		}
		if err := checkTrace(o); err != nil {
			return nil, err
		}
		name = o.Trace.Set.Name
		why = fmt.Errorf("a Chakra trace runs every rank on its own NPU")
	} else {
		name = o.Workload.Name
	}
	list, err := o.collectives()
	if err != nil {
		return nil, err
	}
	if o.Trace == nil && sim.Foldable(o.Machine, o.Full) == nil {
		if why, err = whyNotFold(o.Machine, o.afiConfig(), list); err != nil {
			return nil, err
		}
		if why == nil && slices.ContainsFunc(o.Systems, func(s systems.System) bool { return s.Kind == systems.ACE }) {
			why, err = layoutWhyNot(o.Machine, o.afiConfig()) // ACE lays out for it on every NPU
			if err != nil {
				return nil, err
			}
		}
		fold = why == nil
	}
	if err := checkSimulated(o, list, fold); err != nil {
		return nil, err
	}
	if o.libra, err = libraMeasure(o); err != nil {
		return nil, err
	}
	// LIBRA's fused groups are all-reduces the layers' list does not have:
	// one that would not let one NPU stand for all runs the comparison in
	// full (the same numbers, only slower).
	plans, libraWhy, err := libraPlans(o, fold)
	if err != nil {
		return nil, err
	}
	o.libraPlans = plans
	if libraWhy != nil {
		fold, why = false, libraWhy
		if err := checkSimulated(o, list, fold); err != nil {
			return nil, err
		}
	}
	o.kinds = kindsOf(list)
	res := make([]SystemResult, len(o.Systems))
	if i, err := par.Do(len(o.Systems), o.Workers, func(i int) (err error) {
		res[i], err = runSystem(o, o.Systems[i], fold)
		if err == nil && o.Finished != nil {
			o.Finished(res[i])
		}
		return err
	}); err != nil {
		if why != nil && errors.Is(err, machine.ErrTooManyNPUs) { // refused for its size: say why it is not folded
			err = fmt.Errorf("%w; this workload cannot be folded: %v", err, why)
		}
		return nil, fmt.Errorf("%s: %w", o.Systems[i].Name, err)
	}
	rep := &Report{Topology: o.Machine.Machine.Name, NPUs: o.Machine.Machine.N(), Workload: name, Policy: o.Order.String(), Memory: o.Memory.String(), Folded: fold, Systems: res}
	if o.Schedule != train.ScheduleLayerwise {
		rep.Schedule = o.Schedule.String()
	}
	rep.IssuePolicy, rep.Fusion = IssueText(o.Issue), FusionText(o.Fusion)
	var ideal, aceT int64
	for _, r := range res {
		switch r.Name {
		case "ideal":
			ideal = r.TotalCycles
		case "ace":
			aceT = r.TotalCycles
		}
	}
	for i := range rep.Systems {
		if ideal > 0 && rep.Systems[i].TotalCycles > 0 {
			f := float64(ideal) / float64(rep.Systems[i].TotalCycles)
			rep.Systems[i].FractionOfIdeal = &f
		}
	}
	if aceT > 0 {
		rep.SpeedupOfACE = map[string]float64{}
		for _, r := range res {
			if r.Name != "ace" {
				rep.SpeedupOfACE[r.Name] = float64(r.TotalCycles) / float64(aceT)
			}
		}
	}
	return rep, nil
}

// commOf maps a workload's collective to the collectives package's.
func commOf(t workload.CommType) (collectives.CollectiveOp, error) {
	switch t {
	case workload.CommAllReduce:
		return collectives.OpAllReduce, nil
	case workload.CommAllGather:
		return collectives.OpAllGather, nil
	case workload.CommReduceScatter:
		return collectives.OpReduceScatter, nil
	case workload.CommAllToAll:
		return collectives.OpAllToAll, nil
	}
	return 0, fmt.Errorf("collective %s: nothing to run", t)
}

// checkSimulated refuses, before the run, a workload whose largest
// collective would hold more chunk×NPU pairs than a run keeps within
// acemu's memory bound (collectives.CheckSimulated): its chunks times the
// NPUs simulated one by one (1 when folded).
func checkSimulated(o Options, list []issued, fold bool) error {
	cfg := o.afiConfig()
	npus := cfg.Machine.N()
	simulated := npus
	if fold {
		simulated = 1
	}
	if simulated > machine.MaxFullNPUs {
		return nil // refused by the run, saying why it is not folded
	}
	for _, c := range list {
		n := PaddedBytes(c.Bytes, c.group.NPUs(npus))
		chunk := cfg.ChunkBytes
		if c.whole {
			chunk = n
		}
		what := fmt.Sprintf("%s: a %s of %d bytes in chunks of %d", c.what, c.Type, n, chunk)
		if err := collectives.CheckSimulated(what, (n+chunk-1)/chunk, simulated); err != nil {
			return err
		}
	}
	return nil
}

// collectives lists what the run issues: a trace's collectives, each on
// its process group's listed groups (Trace.collectives), else the
// training loop's (issued).
func (o Options) collectives() ([]issued, error) {
	if o.Trace != nil {
		return o.Trace.collectives()
	}
	return o.issued()
}

// issued is a collective the training loop issues, whose it is for
// messages ("layer conv1", "the one-shot all-reduce"), and whether it runs
// as one chunk (Options.WholeOneShot).
type issued struct {
	workload.Comm
	group train.Group
	what  string
	whole bool
}

// IssueText names an issue policy for the report and the screen, with
// its key order and copies: "funnel, keys in backward order, copies at
// 16 GB/s"; "" for the default, eager.
func IssueText(p train.IssuePolicy) string {
	if p.Kind == train.IssueEager && p.CopyGBps == nil {
		return ""
	}
	s := p.String()
	if p.Kind != train.IssueEager {
		s += ", keys in " + p.Keys.String() + " order"
	}
	if p.CopyGBps != nil {
		s += ", gradient copies at " + units.FormatBandwidth(p.CopyGBps)
	}
	return s
}

// FusionText names tensor fusion for the report: "" for none.
func FusionText(f train.Fusion) string {
	if !f.On() {
		return ""
	}
	return f.String()
}

// scheduleOf is the schedule system runs under.
func (o Options) scheduleOf(system string) train.Schedule {
	if s, ok := o.Schedules[system]; ok {
		return s
	}
	return o.Schedule
}

// issued lists the collectives the training loop issues for o's workload
// on o's systems: every layer's forward and input-gradient collectives;
// its weight-gradient all-reduces where a system issues them layer by
// layer (an overlapping one under the layer-wise schedule), else one
// all-reduce of them all (BaselineNoOverlap's fused one, a one-shot
// schedule's: train.OneShotBytes), as the platform's chunks or as one
// chunk (Options.WholeOneShot) as the systems run it; its other
// weight-gradient collectives.
func (o Options) issued() ([]issued, error) {
	var layerwise, fused, whole bool
	for _, s := range o.Systems {
		switch {
		case s.Libra != systems.LibraNone: // its groups, up to all of them fused
			layerwise, fused = true, true
		case s.Overlap && !o.scheduleOf(s.Name).OneShot():
			layerwise = true
		case s.Overlap && o.WholeOneShot[s.Name]:
			whole = true
		default:
			fused = true
		}
	}
	w, m := o.Workload, o.Machine.Machine
	layers, err := train.LayerCollectives(w, m)
	if err != nil {
		return nil, fmt.Errorf("workload %s on %s: %w", w.Name, m.Name, err)
	}
	fusedARs, err := train.FusedAllReduces(w, m)
	if err != nil {
		return nil, err
	}
	if len(fusedARs) == 0 { // a kind that fuses nothing (MICRO) issues them layer by layer on every system
		layerwise = true
	}
	out := layerIssued(w, layers, layerwise && !o.Fusion.On())
	if layerwise && o.Fusion.On() {
		buckets, err := train.WtGradBuckets(w, o.Fusion)
		if err != nil {
			return nil, err
		}
		for _, b := range buckets {
			out = append(out, issued{Comm: b.AllReduce(w), what: fmt.Sprintf("the fused all-reduce of layers %s to %s", w.Layers[b.Layers[0]].Name, w.Layers[b.Layers[len(b.Layers)-1]].Name)})
		}
	}
	const what = "the all-reduce of every layer's weight gradients at the end of back-prop"
	for _, f := range fusedARs {
		if fused {
			out = append(out, issued{Comm: f.Comm, group: f.Group, what: what})
		}
		if whole && f.Group.All() {
			out = append(out, issued{Comm: f.Comm, what: what + ", as one chunk", whole: true})
		}
	}
	return out, nil
}

// WhyNotFold reports whether one NPU can stand for every NPU of
// cfg.Machine when w runs there: nil when every collective of w, padded
// (PaddedBytes) and cut as the AFI cuts it, runs the same program on every
// NPU up to a translation of the machine (collectives.CheckEquivariant),
// else why not (the first that does not). The comparator then simulates
// one NPU on a folded network (torus.BuildFoldedNetwork), which gives the
// full simulation's numbers exactly at 1/N of its cost (tests in npu, ace
// and here compare the two). err is a collective that cannot be planned.
func WhyNotFold(m *topology.Spec, cfg afi.Config, w *workload.Workload) (why, err error) {
	layers, err := train.LayerCollectives(w, m.Machine)
	if err != nil {
		return nil, err
	}
	return whyNotFold(m, cfg, layerIssued(w, layers, true))
}

// layerIssued is the loop's layer collectives as the checks list them,
// the weight-gradient all-reduces only with wtAR (a system issues them
// layer by layer).
func layerIssued(w *workload.Workload, layers []train.Issued, wtAR bool) []issued {
	var out []issued
	for _, c := range layers {
		if c.Pass != train.PassWtGrad || c.Comm.Type != workload.CommAllReduce || wtAR {
			out = append(out, issued{Comm: c.Comm, group: c.Group, what: "layer " + w.Layers[c.Layer].Name})
		}
	}
	return out
}

// whyNotFold is WhyNotFold for the collectives listed (Options.issued).
func whyNotFold(m *topology.Spec, cfg afi.Config, list []issued) (why, err error) {
	shape := cfg.Machine
	seen := map[string]bool{}
	for _, c := range list {
		op, err := commOf(c.Type)
		if err != nil {
			return nil, err
		}
		n := PaddedBytes(c.Bytes, c.group.NPUs(shape.N()))
		pc := cfg
		if c.whole {
			pc.ChunkBytes = n
		}
		key := fmt.Sprint(op, n, pc.ChunkBytes, c.group.Span, collectives.FormatGroups(c.group.Groups)) // the group itself: String names only its shape
		if seen[key] {
			continue
		}
		seen[key] = true
		plan, err := pc.PlanOn(op, n, c.group.Span, c.group.Groups)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.what, err)
		}
		if why := sim.Foldable(m, false, plan); why != nil {
			return fmt.Errorf("%s: %w", c.what, why), nil
		}
	}
	return nil, nil
}

// layoutWhyNot is why ACE's layout (sim.Layout) does not let one NPU
// stand for all; nil when it does.
func layoutWhyNot(m *topology.Spec, cfg afi.Config) (why, err error) {
	layout, err := sim.Layout(cfg)
	if err != nil {
		return nil, err
	}
	if why := sim.Foldable(m, false, layout); why != nil {
		return fmt.Errorf("ACE's layout: %w", why), nil
	}
	return nil, nil
}

// comm is the training loop's view of the AFI.
type comm struct {
	a    *afi.Interface
	npus int
	// whole: the one-shot all-reduce runs as one chunk
	// (Options.WholeOneShot).
	whole bool
}

func (c comm) Issue(now rtl.Cycle, t workload.CommType, bytes int64, done func(now rtl.Cycle)) error {
	return c.IssueWith(now, t, bytes, train.IssueOptions{Done: done})
}

// IssueWith issues the collective padded (PaddedBytes, to a whole element
// per NPU of its group) over its group, its progress reported as the AFI
// reports it (afi.IssueOptions.Progress), on the communication SMs it asks
// for (a fusion plan's Bucket.SMs, LIBRA's allocation: the baseline runs
// it on them, ACE and the ideal endpoint refuse; afi.IssueOptions.SMs).
func (c comm) IssueWith(now rtl.Cycle, t workload.CommType, bytes int64, o train.IssueOptions) error {
	op, err := commOf(t)
	if err != nil {
		return err
	}
	padded := PaddedBytes(bytes, o.Group.NPUs(c.npus))
	ao := afi.IssueOptions{Done: o.Done, Progress: o.Progress, Group: o.Group.Span, Groups: o.Group.Groups, SMs: o.SMs}
	if o.OneShot && c.whole {
		ao.ChunkBytes = padded
	}
	_, err = c.a.IssueWith(now, op, padded, ao)
	return err
}

// kindsOf lists the kinds of collective of list (Options.issued), each
// kind and group once in the order they first appear, for ACE's layout
// (afi.Config.Kinds: its partitions are sized by the average of their
// chunks).
func kindsOf(list []issued) []afi.Kind {
	var out []afi.Kind
	seen := map[string]bool{}
	for _, c := range list {
		op, err := commOf(c.Type)
		if err != nil {
			continue
		}
		k := afi.Kind{Op: op, Group: c.group.Span, Groups: c.group.Groups}
		if key := fmt.Sprint(k); !seen[key] {
			seen[key] = true
			out = append(out, k)
		}
	}
	return out
}

// runSystem runs the workload on one system.
func runSystem(o Options, sys systems.System, fold bool) (_ SystemResult, err error) {
	defer rtl.RecoverOverflow(&err)
	r := SystemResult{Name: sys.Name}
	if s := o.scheduleOf(sys.Name); s != train.ScheduleLayerwise && sys.Overlap { // BaselineNoOverlap runs as under every schedule
		r.Schedule = s.String()
	}
	cfg := o.afiConfig()
	if sys.Kind == systems.ACE {
		cfg.Kinds = o.kinds
	}
	setup := sim.Setup{Machine: o.Machine, Links: o.Links, System: sys, AFI: cfg, Fold: fold, ACE: o.ACE,
		Library: o.Library, Order: o.Order, Windows: WindowCycles, LinkWindows: o.LinkStats}
	if o.Observe != nil {
		setup.Observe = func(net *fabric.Network) (observe.Observers, error) { return o.Observe(sys.Name, net), nil }
	}
	rn, err := sim.New(setup)
	if err != nil {
		return r, err
	}
	k, net, ep, a, obs := rn.Kernel, rn.Net, rn.Endpoint, rn.AFI, rn.Work
	// The NPU's compute per window, from the training loop's kernels.
	var compute *rtl.Windows
	trainObs := obs
	var tooLong error // the series' bound passed: the run was stopped
	stop := func(cycle int64) {
		if cycle > maxSeriesCycles && tooLong == nil {
			tooLong = errSeriesTooLong(cycle)
			k.Halt()
		}
	}
	if o.Series {
		compute = rtl.NewWindows(WindowCycles, 1)
		trainObs = observe.Join(obs, observe.Func(func(e observe.Event) {
			if e.Kind == observe.KernelEnd {
				if stop(int64(e.End)); tooLong == nil { // a kernel ending past the bound counts no windows
					compute.Add(int64(e.Cycle), int64(e.End))
				}
			}
		}))
	}
	tc := train.Config{DropLayers: !o.KeepMetrics, Compute: sys.Compute(), Overlap: sys.Overlap, Iterations: o.Iterations, Schedule: o.scheduleOf(sys.Name), Policy: o.Memory, Comm: ep.Side(), MemBoundShare: o.MemBoundShare, ComputeSpeed: o.ComputeSpeed, Observer: trainObs,
		Machine: o.Machine.Machine, Micro: o.Micro, Issue: o.Issue, Fusion: o.Fusion}
	if sys.Libra != systems.LibraNone {
		r.Libra = o.libraPlans[sys.Name]
		r.Libra.apply(&tc)
	}
	if p := o.Progress; p != nil {
		tc.Progress = func(done, total int64) { p(sys.Name, done, total) }
	}
	if o.Series {
		// The loop's progress reports look on every train.ProgressCycles
		// cycles without changing the run's events or results.
		p := tc.Progress
		tc.Progress = func(done, total int64) {
			if p != nil {
				p(done, total)
			}
			stop(done)
		}
	}
	var m *train.Metrics
	if o.Trace != nil {
		m, err = runTrace(o, k, ep, a, tc)
	} else {
		m, err = train.Run(k, o.Workload, tc, comm{a, o.Machine.Machine.N(), o.WholeOneShot[sys.Name]})
	}
	if tooLong != nil {
		return r, tooLong
	}
	if err != nil {
		if serr := ep.Stuck(); serr != nil {
			return r, fmt.Errorf("%w\n%v", err, serr)
		}
		return r, err
	}
	if o.KeepMetrics {
		r.Metrics = m
	}
	n := float64(len(m.Iterations))
	r.Iterations = len(m.Iterations)
	r.TotalCycles, r.TotalCompute, r.TotalExposedComm = m.TotalCycles, m.ComputeCycles, m.ExposedCommCycles
	r.IterationCycles = float64(m.TotalCycles) / n
	r.ComputeCycles = float64(m.ComputeCycles) / n
	r.ExposedCommCycles = float64(m.ExposedCommCycles) / n
	for _, it := range m.Iterations {
		r.PerIteration = append(r.PerIteration, it.IterationCycles)
	}
	if m.TotalCycles > 0 {
		r.ExposedShare = float64(m.ExposedCommCycles) / float64(m.TotalCycles)
	}
	r.Collectives, r.CollectiveBytes = m.Collectives, m.CollectiveBytes
	for _, c := range m.Micro {
		r.MicroCycles = append(r.MicroCycles, c.Cycles())
	}
	cycles := rtl.Cycle(m.TotalCycles)
	em := ep.Metrics(cycles)
	r.BytesSentPerNPU, r.MemReadPerNPU, r.MemWritePerNPU, r.CommSMBusy = em.BytesSent, em.MemRead, em.MemWrite, em.CommSMBusy
	fwd, back := m.Passes()
	if o.Trace == nil { // a trace has no passes (docs/chakra.md, "In the comparator")
		r.ForwardCycles, r.BackpropCycles = int64(rtl.TotalLen(fwd)), int64(rtl.TotalLen(back))
	}
	if em.ACE != nil {
		u := em.ACE.Utilization
		r.ACEUtilization = &u
		if o.Trace == nil {
			uf, _ := ep.ACEUtilizationWithin(fwd)
			ub, _ := ep.ACEUtilizationWithin(back)
			r.ACEForwardUtilization, r.ACEBackpropUtilization = &uf, &ub
		}
	}
	r.NetworkGBps, r.CommMemGBps = em.NetworkGBps(), em.CommMemGBps()
	if cycles > 0 && len(net.Links) > 0 {
		r.LinkUtilization = fabric.MeanUtilization(net.Links, cycles)
		r.PeakLinkUtilization = net.PeakLinkUtilization(cycles)
		if o.Series {
			if cycles > maxSeriesCycles { // ended between two progress reports
				return r, errSeriesTooLong(int64(cycles))
			}
			r.NetworkUtilization = net.LinkUtilization(cycles)
		}
	}
	if o.LinkStats {
		r.LinkStats = net.LinkStats(cycles)
	}
	if compute != nil && cycles > 0 {
		nw := int((cycles + WindowCycles - 1) / WindowCycles)
		r.ComputeUtilization = make([]float64, nw)
		for i := range r.ComputeUtilization {
			if compute.Idle(i) {
				continue // 0, without a big.Rat for it
			}
			w := min(int64(WindowCycles), int64(cycles)-int64(i)*WindowCycles)
			b, _ := compute.Busy(i).Float64()
			r.ComputeUtilization[i] = b / float64(w)
		}
	}
	r.Events = k.Events()
	return r, nil
}

package train

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/workload"
)

// Comm runs collectives on every NPU at once. Issue submits one at cycle
// now, of bytes bytes per NPU; done must be called from a kernel event, at
// the cycle the collective has completed on every NPU, exactly once.
// Priority among queued collectives (LIFO, FIFO) is the Comm's business:
// the loop only says when each one is issued and waits where it must.
type Comm interface {
	Issue(now rtl.Cycle, op workload.CommType, bytes int64, done func(now rtl.Cycle)) error
}

// MaxLayerIterations bounds layers × iterations of one run: what a run
// keeps grows with them (each collective issued, each iteration's
// metrics), some 770 B a layer and iteration over the five systems of a
// comparison with a collective per layer (measured: 100 layers × 200 and
// × 400 iterations on 2x2x1, the collector held tight), so 10^6 is some
// 0.8 GB (docs/bad-input.md, "Limits").
const MaxLayerIterations = 1_000_000

// DefaultIterations is the number of training iterations when
// Config.Iterations is 0: the paper simulates two (Section V).
const DefaultIterations = 2

// Config says how the loop runs a workload.
type Config struct {
	// DropLayers drops each iteration's Layers (Iteration.Layers) once it
	// has ended, for a caller that reads none: they are what grows with
	// layers × iterations (some 150 B a layer and pass an iteration).
	DropLayers bool
	// Compute is the part of the NPU left to compute
	// (systems.System.Compute()): it times roofline work and scales
	// ASTRA-sim times.
	Compute npu.Compute
	// Overlap is whether communication runs alongside compute. False is
	// BaselineNoOverlap (Table VI): the weight-gradient all-reduces of an
	// iteration are not issued per layer but as one all-reduce of their
	// total size at the end of back-prop, which the loop waits for, and
	// every other collective is waited for as soon as it is issued.
	Overlap bool
	// Iterations is the number of training iterations; 0 means
	// DefaultIterations.
	Iterations int
	// Schedule is when data parallelism's weight-gradient all-reduces are
	// issued and what the next forward pass waits for; the zero value,
	// ScheduleLayerwise, is the ACE paper's. It applies only with
	// Overlap; ScheduleOneShotChained needs a ProgressComm.
	Schedule Schedule
	// Issue is how data parallelism's weight-gradient all-reduces reach
	// the Comm (IssuePolicy, docs/training-loop.md "Issue policies"); the
	// zero value issues each as soon as its gradients exist. Fusion fuses
	// them into buckets (zero: none). Both apply only with Overlap and
	// ScheduleLayerwise: without overlap BaselineNoOverlap fuses them all.
	Issue  IssuePolicy
	Fusion Fusion
	// MemBoundShare, when set, is the memory-bound share m ∈ [0, 1] of
	// every timed pass (ASTRA-sim compute times): cycles = ⌈t ×
	// ClockHz/CycleHz × ((1−m)·80/SMs + m·900/MemGBps)⌉. Nil derives it
	// from each pass's shape (docs/astrasim-workloads.md, "Converting the
	// times"). It does not affect roofline (FLOPs/bytes) work.
	MemBoundShare *big.Rat
	// ComputeSpeed is how many times faster than Table V's NPU compute
	// runs (docs/sweeps.md, "Compute speed"): every compute kernel takes
	// 1/ComputeSpeed of its time, its SM-bound and its memory-bound parts
	// alike, while communication's resources stay as they are. Nil means 1.
	ComputeSpeed *big.Rat
	// Policy is how compute and communication share the NPU
	// (docs/memory-system.md); the zero value, contend.Partition, keeps
	// Compute for the whole run. Under contend.Share compute's kernels and
	// communication (Comm, below) draw on one memory and one set of SMs:
	// communication is busy while a collective is in flight.
	Policy contend.Policy
	// Comm is communication's side of the NPU under contend.Share.
	Comm contend.Comm
	// Observer, when set, sees every compute kernel start and end, and
	// every wait for communication (observe.Stall).
	Observer observe.Observer
	// Machine is the machine the Comm runs collectives on: model and
	// hybrid parallelism's groups are its dimensions (NewCommunicators,
	// docs/parallelism.md). Nil serves kinds whose collectives all run
	// over every NPU (DATA, HYBRID_DLRM, MICRO, MODEL,
	// DISTRIBUTED_INFERENCE).
	Machine *machine.Machine
	// Micro is how a MICRO workload issues its collective
	// (docs/parallelism.md, "MICRO"): the zero value, MicroBackToBack,
	// one after another, one an iteration; MicroConcurrent all at once.
	Micro Micro
	// Progress, when set, is told how far the run has gone in simulated
	// time, for a progress bar: done is the cycles since the loop started,
	// total an estimate of the cycles the run takes (the compute alone
	// until the first iteration ends, then the mean iteration so far times
	// the iterations), always more than done until the run ends, when done
	// and total are both its length. It is called at the start, about every
	// ProgressCycles cycles of simulated time (long collectives included),
	// and at the end; done never goes back. It only looks on: the run's
	// events and results are the same without it.
	Progress func(done, total int64)
}

// ProgressCycles is how often, in simulated cycles, Config.Progress is
// told how far the run has gone: 2^14 cycles (13 µs at 1245 MHz), about
// 1200 reports for two iterations of the built-in ResNet-50.
const ProgressCycles = 1 << 14

// Pass is a kind of compute the loop runs, or, for a LayerPass, one of
// the waits at the end of an iteration that belong to no layer.
type Pass int

// The passes of a layer.
const (
	// PassForward is a layer's forward compute.
	PassForward Pass = iota
	// PassInGrad is a layer's input-gradient compute.
	PassInGrad
	// PassWtGrad is a layer's weight-gradient compute.
	PassWtGrad
	// PassUpdate is a layer's weight update, before its forward compute
	// from the second iteration on.
	PassUpdate
	// PassEndOfBackProp is no compute: the wait at the end of back-prop
	// for BaselineNoOverlap's fused all-reduce, which is no layer's, or
	// the issue there of the one-shot schedules' all-reduce (Schedule).
	PassEndOfBackProp
	// PassEndOfRun is no compute: the last iteration's wait for every
	// collective still outstanding.
	PassEndOfRun
)

// String names the pass: "forward", "input-gradient", "weight-gradient",
// "update", "end-of-back-prop", "end-of-run".
func (p Pass) String() string {
	switch p {
	case PassForward:
		return "forward"
	case PassInGrad:
		return "input-gradient"
	case PassWtGrad:
		return "weight-gradient"
	case PassUpdate:
		return "update"
	case PassEndOfBackProp:
		return "end-of-back-prop"
	case PassEndOfRun:
		return "end-of-run"
	}
	return fmt.Sprintf("Pass(%d)", int(p))
}

// Breakdown splits compute cycles by pass.
type Breakdown struct {
	// Forward, InGrad, WtGrad and Update are the cycles spent in each pass.
	Forward, InGrad, WtGrad, Update int64
}

// Total returns the sum of the passes' cycles.
func (b Breakdown) Total() int64 { return b.Forward + b.InGrad + b.WtGrad + b.Update }

func (b *Breakdown) add(p Pass, c int64) {
	switch p {
	case PassForward:
		b.Forward += c
	case PassInGrad:
		b.InGrad += c
	case PassWtGrad:
		b.WtGrad += c
	case PassUpdate:
		b.Update += c
	}
}

// CommStats counts issued collectives and their per-NPU bytes.
type CommStats struct {
	// Count is the number of collectives issued.
	Count int
	// Bytes is the sum of their sizes per NPU.
	Bytes int64
}

// Stall is one interval in which the loop waited for communication: the
// exposed communication of the paper.
type Stall struct {
	// Iteration is the iteration it belongs to, from 0.
	Iteration int
	// Phase is where the loop was: "forward", "back-prop", "end of
	// back-prop" (no-overlap's fused all-reduce) or "end of run" (the last
	// iteration's outstanding collectives).
	Phase string
	// Layer is the layer where the loop waited (index, from 0) and
	// LayerName its name; -1 and "" at the end of back-prop or of the run.
	// The wait is before the layer's compute in the pass, or, when After
	// is set, right after it: a collective that a system without overlap
	// waits for as soon as it is issued.
	Layer     int
	LayerName string
	After     bool
	// Waiting describes the collectives the loop waited for.
	Waiting string
	// From and To bound the wait: To − From cycles, To > From.
	From, To rtl.Cycle
}

// String says where the loop waited and for what: "iteration 1,
// back-prop, before layer conv3 (12): all-reduce of 1 MB issued at …".
func (s Stall) String() string {
	where := fmt.Sprintf("iteration %d, %s", s.Iteration+1, s.Phase)
	if s.Layer >= 0 {
		rel := "before"
		if s.After {
			rel = "after"
		}
		where += fmt.Sprintf(", %s layer %s (%d)", rel, s.LayerName, s.Layer)
	}
	return where + ": " + s.Waiting
}

// Cycles returns the length of the stall.
func (s Stall) Cycles() int64 { return int64(s.To - s.From) }

// Iteration is the metrics of one training iteration.
type Iteration struct {
	// Start and End are the cycles the iteration began and ended: it ends
	// when its back-prop is done (for no-overlap, with the fused
	// all-reduce) and, for the last iteration, when every collective is.
	Start, End rtl.Cycle
	// BackStart is the cycle its back-propagation began: its forward pass
	// is [Start, BackStart), forward computes, weight updates and the
	// waits before them; its back-propagation [BackStart, End), with the
	// waits at its end.
	BackStart rtl.Cycle
	// ComputeCycles is the cycles spent computing, ExposedCommCycles the
	// cycles spent waiting for collectives, and IterationCycles their sum,
	// which equals End − Start (the loop checks it).
	ComputeCycles, ExposedCommCycles, IterationCycles int64
	// Compute splits ComputeCycles by pass.
	Compute Breakdown
	// Collectives and CollectiveBytes count the collectives issued in the
	// iteration and their per-NPU bytes; ByType splits them by collective.
	Collectives     int
	CollectiveBytes int64
	ByType          map[workload.CommType]CommStats
	// Stalls are the iteration's waits, in order; their cycles add up to
	// ExposedCommCycles.
	Stalls []Stall
	// Layers are the iteration's steps per layer and pass, in the order
	// the loop ran them; their compute adds up to Compute, pass by pass,
	// and their exposed communication to ExposedCommCycles.
	Layers []LayerPass
}

// LayerPass is what one pass of one layer took in an iteration: its
// compute, the loop's waits for communication there, and the collective
// the pass issued (docs/training-loop.md, "Per layer and pass"). Every
// pass the loop runs has one, a pass of no time too; PassEndOfBackProp
// and PassEndOfRun have one when the loop waits there.
type LayerPass struct {
	// Layer is the layer's index, from 0, and LayerName its name; -1 and
	// "" for PassEndOfBackProp and PassEndOfRun.
	Layer     int
	LayerName string
	// Pass is the compute pass, or one of the waits at the end.
	Pass Pass
	// ComputeCycles is the pass's compute.
	ComputeCycles int64
	// ExposedCommCycles is the time the loop waited for communication at
	// this layer and pass (the stalls with this Layer): before the pass's
	// compute (the update's: for the layer's weight-gradient collective
	// of the previous iteration; the forward's: for forward collectives;
	// the weight gradient's, first of the layer's back-prop: for
	// collectives of the layers after it), or right after it, for a
	// collective waited for as soon as it is issued (no overlap).
	ExposedCommCycles int64
	// Collective is the layer's collective of this pass (FwdComm,
	// InGradComm or WtGradComm; for PassEndOfBackProp the fused
	// all-reduce), CommNone when none was issued; CollectiveBytes its
	// bytes per NPU as the workload gives them, and CollectiveCycles the
	// cycles from its issue to its completion on every NPU, which may
	// fall in a later iteration. DLRM's back-prop all-to-all is layer
	// 0's input-gradient collective though issued during layer
	// lb+1's pass.
	Collective       workload.CommType
	CollectiveBytes  int64
	CollectiveCycles int64
	// Instance is 0, or for a pass a layer runs again in the iteration
	// which time it is: 1 for a FWD_IN_BCKWD recomputation of its forward
	// pass, the repeat for a concurrent MICRO collective
	// (docs/parallelism.md), the group for BaselineNoOverlap's fused
	// all-reduces of a hybrid kind, one per data-parallel group.
	Instance int
}

// Metrics is what Run reports: per iteration and in all.
type Metrics struct {
	// Workload is the workload's name.
	Workload string
	// Iterations are the iterations in order.
	Iterations []Iteration
	// Start and End are the cycles the run began and ended.
	Start, End rtl.Cycle
	// ComputeCycles, ExposedCommCycles and TotalCycles are summed over the
	// iterations; TotalCycles = ComputeCycles + ExposedCommCycles = End −
	// Start.
	ComputeCycles, ExposedCommCycles, TotalCycles int64
	// Compute splits ComputeCycles by pass.
	Compute Breakdown
	// Collectives, CollectiveBytes and ByType are summed over the
	// iterations.
	Collectives     int
	CollectiveBytes int64
	ByType          map[workload.CommType]CommStats
	// Micro lists a MICRO workload's collectives in issue order, each
	// with its own time (docs/parallelism.md, "MICRO"); nil for other
	// kinds.
	Micro []MicroCollective
}

// Passes returns the run's forward passes and back-propagations, one
// span of each per iteration (Iteration.BackStart): together they tile
// the run.
func (m *Metrics) Passes() (forward, backprop []rtl.Span) {
	for _, it := range m.Iterations {
		forward = append(forward, rtl.Span{From: it.Start, To: it.BackStart})
		backprop = append(backprop, rtl.Span{From: it.BackStart, To: it.End})
	}
	return forward, backprop
}

// Run runs cfg.Iterations training iterations of w on the kernel k,
// issuing collectives through comm, and returns the metrics. It schedules
// its first step at k.Now(), calls k.Run(), and halts the kernel as soon as
// the loop is done (later events stay scheduled). The rules are in
// docs/training-loop.md.
//
// w must be valid (workload.Workload.Validate); every parallelism of
// ASTRA-sim 1.0 runs, DATA and HYBRID_DLRM as docs/training-loop.md says
// and the others as docs/parallelism.md does. Errors are wrapped with the
// workload's name and, for a failure during the run, the iteration, pass
// and layer: a Comm whose Issue fails, a done called twice or at the wrong
// cycle, and a kernel that runs out of events while the loop still waits
// for a collective (a Comm that never completes one), which names the
// collective instead of hanging.
func Run(k *rtl.Kernel, w *workload.Workload, cfg Config, comm Comm) (m *Metrics, err error) {
	defer rtl.RecoverOverflow(&err)
	if k == nil || w == nil || comm == nil {
		return nil, errors.New("train: Run needs a kernel, a workload and a Comm")
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	lp, err := newLoop(k, w, cfg, comm)
	if err != nil {
		return nil, fmt.Errorf("train: workload %s: %w", w.Name, err)
	}
	k.Schedule(k.Now(), lp, evStep, 0)
	lp.resume = true
	if cfg.Progress != nil {
		lp.report(k.Now())
		k.Watch(ProgressCycles, lp.report)
		defer k.Watch(0, nil)
	}
	k.Run()
	if lp.err != nil {
		return nil, fmt.Errorf("train: workload %s: %w", w.Name, lp.err)
	}
	if err := k.StallError(); err != nil {
		return nil, fmt.Errorf("train: workload %s: %w\n%v", w.Name, err, lp.stuck())
	}
	if !lp.finished {
		return nil, fmt.Errorf("train: workload %s: %w", w.Name, lp.stuck())
	}
	m, err = lp.metrics()
	if err != nil {
		return nil, fmt.Errorf("train: workload %s: %w", w.Name, err)
	}
	if p := cfg.Progress; p != nil {
		p(m.TotalCycles, m.TotalCycles)
	}
	return m, nil
}

// timer turns a pass's work into cycles on the compute resources.
type timer struct {
	compute npu.Compute
	// clock is ClockHz/CycleHz, converting a cycle count of the
	// workload's clock to NPU cycles (docs/astrasim-workloads.md); nil when
	// the workload has no cycles.
	clock *big.Rat
	// m is Config.MemBoundShare: nil when each timed pass's share is
	// derived from its shape.
	m *big.Rat
	// speed is Config.ComputeSpeed; nil for 1.
	speed *big.Rat
}

func newTimer(w *workload.Workload, cfg Config) (timer, error) {
	return newTimerAt(w.CycleHz, cfg)
}

// newTimerAt is newTimer for work timed in cycles of cycleHz (0: none).
func newTimerAt(cycleHz int64, cfg Config) (timer, error) {
	t := timer{compute: cfg.Compute}
	if err := cfg.Compute.Validate(); err != nil {
		return t, fmt.Errorf("compute resources: %w", err)
	}
	if m := cfg.MemBoundShare; m != nil {
		if m.Sign() < 0 || m.Cmp(big.NewRat(1, 1)) > 0 {
			return t, fmt.Errorf("memory-bound share %s: must be in [0, 1]", m.RatString())
		}
		t.m = new(big.Rat).Set(m)
	}
	if s := cfg.ComputeSpeed; s != nil {
		if s.Sign() <= 0 {
			return t, fmt.Errorf("compute speed %s: must be positive", s.RatString())
		}
		if s.Cmp(big.NewRat(1, 1)) != 0 {
			t.speed = new(big.Rat).Set(s)
		}
	}
	if cycleHz != 0 {
		t.clock = big.NewRat(npu.ClockHz, cycleHz)
	}
	return t, nil
}

// Timer times a compute pass by the loop's rules (docs/training-loop.md,
// "Compute time of a pass"), for a caller that runs passes of its own
// (a Chakra trace's compute nodes, package chakra/runner): roofline work
// by the roofline on Config.Compute, timed work stretched over its shape
// or at the ridge, or split by Config.MemBoundShare, and
// Config.ComputeSpeed, exactly as the loop runs its passes.
type Timer struct{ t timer }

// NewTimer returns the timer of cfg's Compute, MemBoundShare and
// ComputeSpeed for work whose Cycles count cycles of cycleHz (0: work
// has no cycles, only FLOPs and bytes).
func NewTimer(cycleHz int64, cfg Config) (Timer, error) {
	t, err := newTimerAt(cycleHz, cfg)
	return Timer{t}, err
}

// Kernel is work as a kernel for the NPU (contend.NPU.Run); none for no
// work.
func (t Timer) Kernel(work workload.Work) contend.Kernel { return t.t.kernel(work) }

// Cycles is what work takes alone on the compute resources, rounded up
// once; 0 for no work, which the loop skips.
func (t Timer) Cycles(work workload.Work) (int64, error) { return t.t.cycles(work) }

// kernel returns work as a kernel for the NPU (contend): the roofline for
// FLOPs/bytes alone; for a cycle count, the time stretched over the
// roofline of its shape (none: the ridge) or, with a memory-bound share
// set, split by it (docs/astrasim-workloads.md); none for no work.
func (t timer) kernel(work workload.Work) contend.Kernel {
	var k contend.Kernel
	switch {
	case work.Cycles == 0:
		k = contend.Roofline(work.FLOPs, work.Bytes)
	case t.m != nil:
		k = contend.Scaled(new(big.Rat).Mul(big.NewRat(work.Cycles, 1), t.clock), t.m)
	default:
		k = contend.Stretched(new(big.Rat).Mul(big.NewRat(work.Cycles, 1), t.clock), work.FLOPs, work.Bytes)
	}
	if t.speed != nil {
		for i := range k {
			k[i].SM.Quo(k[i].SM, t.speed)
			k[i].Mem.Quo(k[i].Mem, t.speed)
		}
	}
	return k
}

// cycles returns the NPU cycles of work alone on compute's partition: the
// roofline for FLOPs/bytes, the rule of kernel for cycle counts, rounded
// up once.
func (t timer) cycles(work workload.Work) (int64, error) {
	if work.Cycles == 0 {
		if t.speed == nil {
			return t.compute.KernelCycles(work.FLOPs, work.Bytes), nil
		}
		// The roofline's time, exact, made shorter, rounded up once.
		x := t.compute.KernelTime(work.FLOPs, work.Bytes)
		x.Quo(x, t.speed)
		return ceilRat(x)
	}
	if t.clock == nil {
		return 0, fmt.Errorf("%d cycles with no clock (CycleHz 0)", work.Cycles)
	}
	c, err := ceilRat(t.kernel(work).Alone(t.compute))
	if err != nil {
		return 0, fmt.Errorf("%d cycles: %w", work.Cycles, err)
	}
	return c, nil
}

// ceilRat is ⌈x⌉ for x ≥ 0, or an error beyond int64.
func ceilRat(x *big.Rat) (int64, error) {
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("%s NPU cycles, beyond int64", q)
	}
	return q.Int64(), nil
}

// evStep is the loop's one event: start, or resume after a wait.
const evStep int32 = 0

// Phases of a wait, as Stall.Phase reports them.
const (
	phaseForward = "forward"
	phaseBack    = "back-prop"
	phaseEndBack = "end of back-prop"
	phaseEndRun  = "end of run"
)

type opKind uint8

const (
	opIterStart opKind = iota
	opBackStart
	opCompute
	opIssue
	opWait
	opWaitAll
	opWaitFinal
	opPush     // a keyed all-reduce's gradients exist (IssuePolicy)
	opWaitMain // the keyed policy's issuing thread has passed upto keys
	opIterEnd
)

// op is one step of the loop's program, built before the run.
type op struct {
	kind   opKind
	iter   int
	layer  int            // -1 when the op is not a layer's
	phase  string         // waits
	after  bool           // waits: right after layer's compute, not before it
	pass   Pass           // compute
	kernel contend.Kernel // compute
	colls  []int          // issue: one; wait: those to wait for
	upto   int64          // opWaitFinal: the bytes of colls[0] to wait for, from its start; opWaitMain: the keys
	cell   int            // compute, waits: its LayerPass in the iteration's Layers
}

// collective is one collective of the program.
type collective struct {
	typ          workload.CommType
	bytes        int64
	group        Group
	iter, layer  int  // layer -1 for the fused all-reduce
	inst         int  // its cell's LayerPass.Instance
	pass         Pass // the pass whose collective it is; PassEndOfBackProp for the fused all-reduce
	cell         int  // its LayerPass in iteration iter's Layers
	fusedLayers  int
	oneShot      bool // the one-shot all-reduce of its iteration (Schedule)
	issued, done bool
	issuedAt     rtl.Cycle
	doneAt       rtl.Cycle
	// final is how many bytes from its start the Comm has reported final
	// on every NPU (IssueOptions.Progress: the one-shot all-reduce under
	// gradient queuing).
	final int64
	// key is its number in its iteration under a keyed policy, -1
	// otherwise; pushed, copyAsked and copied are how far its gradients
	// and their copy have got (dispatcher); sms the communication SMs its
	// bucket asks for (Bucket.SMs).
	key                       int
	pushed, copyAsked, copied bool
	sms                       int
}

// what names the collective's kind for messages: its pass, "fused
// weight-gradient" or "one-shot weight-gradient".
func (c *collective) what() string {
	if c.oneShot {
		return "one-shot weight-gradient"
	}
	if c.pass == PassEndOfBackProp || c.fusedLayers > 1 {
		return "fused weight-gradient"
	}
	return c.pass.String()
}

// loop runs the program on the kernel.
type loop struct {
	k    *rtl.Kernel
	w    *workload.Workload
	comm Comm
	// ops is the program of the iteration under way: b writes each
	// iteration's when the one before ends, so that the program's memory
	// does not grow with the iterations.
	ops   []op
	b     *builder
	colls []collective
	pc    int

	iters []Iteration
	start rtl.Cycle

	npu       *contend.NPU
	d         *dispatcher // the keyed issue policy's, or nil
	inflight  int         // collectives issued and not done
	computing bool
	computeAt rtl.Cycle // when the current kernel started
	waiting   bool
	waitFrom  rtl.Cycle
	waitIDs   []int // the collectives not done when the wait began
	waitUpto  int64 // for an opWaitFinal, the bytes it waits for; else -1
	resume    bool  // an evStep is scheduled
	finished  bool
	err       error
	progress  func(done, total int64) // Config.Progress
	observer  observe.Observer        // Config.Observer
	// dropLayers is Config.DropLayers.
	dropLayers bool
	// estimate is the run's estimated length in cycles, for progress: the
	// compute alone, then the mean iteration so far times the iterations.
	estimate int64
}

func newLoop(k *rtl.Kernel, w *workload.Workload, cfg Config, comm Comm) (*loop, error) {
	n := cfg.Iterations
	if n == 0 {
		n = DefaultIterations
	}
	if n < 0 {
		return nil, fmt.Errorf("iterations %d: must be at least 1 (0 means %d)", cfg.Iterations, DefaultIterations)
	}
	if li := int64(len(w.Layers)) * int64(n); li > MaxLayerIterations {
		return nil, fmt.Errorf("%d layers × %d iterations is %d, more than %d (what a run keeps grows with them, docs/bad-input.md \"Limits\"); run at most %d iterations of this workload",
			len(w.Layers), n, li, MaxLayerIterations, max(1, MaxLayerIterations/int64(len(w.Layers))))
	}
	lastBottom := -1
	if w.Parallelism == workload.ParallelismHybridDLRM {
		lb, err := w.DLRMLastBottomLayer()
		if err != nil {
			return nil, err
		}
		lastBottom = lb
	}
	comms, err := NewCommunicators(w, cfg.Machine)
	if err != nil {
		return nil, err
	}
	if err := checkComm(w, comms, comm); err != nil {
		return nil, err
	}
	recompute, err := w.Recomputations()
	if err != nil {
		return nil, err
	}
	if !dataLike(w.Parallelism) && cfg.Schedule != ScheduleLayerwise && cfg.Schedule.valid() {
		return nil, fmt.Errorf("schedule %s: the one-shot schedules are data parallelism's (the C-Cube paper, Section II-B), and %s is not: run it under %s", cfg.Schedule, w.Parallelism, ScheduleLayerwise)
	}
	buckets, err := checkIssue(w, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Micro != MicroBackToBack && cfg.Micro != MicroConcurrent {
		return nil, fmt.Errorf("micro %d: use MicroBackToBack or MicroConcurrent", cfg.Micro)
	}
	iters := n
	if w.Parallelism == workload.ParallelismMicro && cfg.Micro == MicroConcurrent {
		iters = 1 // every collective in one
	}
	t, err := newTimer(w, cfg)
	if err != nil {
		return nil, err
	}
	oneShot, upto, err := scheduleOf(w, cfg, comm)
	if err != nil {
		return nil, err
	}
	lp := &loop{k: k, w: w, comm: comm, start: k.Now(), iters: make([]Iteration, iters), progress: cfg.Progress, observer: cfg.Observer, dropLayers: cfg.DropLayers}
	var kernels observe.Observer
	if cfg.Observer != nil {
		kernels = kernelNamer{lp}
	}
	sh, err := contend.New(k, contend.Config{Policy: cfg.Policy, Compute: cfg.Compute, Comm: cfg.Comm, Observer: kernels})
	if err != nil {
		return nil, err
	}
	lp.npu = sh
	b := builder{lp: lp, t: t, overlap: cfg.Overlap, oneShot: oneShot, upto: upto, dlrm: lastBottom >= 0, lastBottom: lastBottom, kernels: map[workload.Work]contend.Kernel{},
		comms: comms, dataLike: dataLike(w.Parallelism), recompute: map[int]int{}, micro: 1}
	if !b.dataLike {
		if b.fused, err = FusedAllReduces(w, cfg.Machine); err != nil {
			return nil, err
		}
	}
	if iters != n {
		b.micro = n
	}
	if cfg.Overlap && buckets != nil {
		b.buckets = buckets
		b.bucketOf = make([]int, len(w.Layers))
		for i, bk := range b.buckets {
			for _, l := range bk.Layers {
				b.bucketOf[l] = i
			}
		}
	}
	if cfg.Overlap && cfg.Issue.keyed() {
		lp.d, b.keyed = newDispatcher(lp, cfg.Issue), true
	}
	for _, r := range recompute {
		b.recompute[r.At] = r.From
	}
	if err := b.build(iters); err != nil {
		return nil, err
	}
	lp.estimate = b.total
	lp.b = &b
	return lp, nil
}

// checkIssue checks cfg.Issue and cfg.Fusion against w and the schedule
// (they are data parallelism's, under the layer-wise schedule) and
// returns the fusion's buckets (WtGradBuckets).
func checkIssue(w *workload.Workload, cfg Config) ([]Bucket, error) {
	if err := cfg.Issue.Check(); err != nil {
		return nil, err
	}
	buckets, err := WtGradBuckets(w, cfg.Fusion)
	if err != nil || !cfg.Issue.keyed() && !cfg.Fusion.On() {
		return buckets, err
	}
	what := "issue policy " + cfg.Issue.String()
	if !cfg.Issue.keyed() {
		what = "tensor fusion (" + cfg.Fusion.String() + ")"
	}
	switch {
	case !dataLike(w.Parallelism):
		return nil, fmt.Errorf("%s: it orders data parallelism's weight-gradient all-reduces, and %s is %s; run it with issue policy %s and no fusion (docs/training-loop.md, \"Issue policies\")",
			what, w.Name, w.Parallelism, IssueEager)
	case cfg.Schedule != ScheduleLayerwise:
		return nil, fmt.Errorf("%s: schedule %s already fuses every weight-gradient all-reduce into one; use schedule %s, or issue policy %s and no fusion",
			what, cfg.Schedule, ScheduleLayerwise, IssueEager)
	}
	return buckets, nil
}

// scheduleOf checks cfg.Schedule and says whether the loop issues the
// one-shot all-reduce (an overlapping system under a one-shot schedule)
// and, for gradient queuing, the bytes of it each layer's update waits to
// be final (LayerEnds; nil: they wait for the whole all-reduce).
func scheduleOf(w *workload.Workload, cfg Config, comm Comm) (oneShot bool, upto []int64, err error) {
	s := cfg.Schedule
	if !s.valid() {
		return false, nil, fmt.Errorf("schedule %s: use one of %s", s, strings.Join(Schedules(), ", "))
	}
	if !cfg.Overlap || !s.OneShot() {
		return false, nil, nil // BaselineNoOverlap fuses its own (docs/training-loop.md)
	}
	total := OneShotBytes(w)
	if s != ScheduleOneShotChained || total == 0 {
		return true, nil, nil
	}
	if _, ok := comm.(ProgressComm); !ok {
		return false, nil, fmt.Errorf("schedule %s: gradient queuing needs a Comm that reports how much of a collective is final as it completes (train.ProgressComm), and this one (%T) does not; use schedule %s", s, comm, ScheduleOneShot)
	}
	return true, LayerEnds(w), nil
}

// kernelNamer passes the NPU's events on to the loop's observer, its
// kernels named by the compute op that runs them: the NPU reports a
// kernel's start and end while the loop is at that op
// (observe.KernelStart, observe.KernelEnd).
type kernelNamer struct{ lp *loop }

func (kn kernelNamer) Observe(e observe.Event) {
	lp := kn.lp
	if (e.Kind == observe.KernelStart || e.Kind == observe.KernelEnd) && lp.pc < len(lp.ops) {
		if o := &lp.ops[lp.pc]; o.kind == opCompute {
			name := lp.w.Layers[o.layer].Name
			if name == "" {
				name = fmt.Sprintf("layer %d", o.layer)
			}
			e.What, e.Step, e.Op = name+" "+o.pass.String(), o.iter, o.layer
		}
	}
	lp.observer.Observe(e)
}

// builder writes the loop's program.
type builder struct {
	lp      *loop
	t       timer
	overlap bool
	// oneShot is whether back-prop ends with the one-shot all-reduce
	// (Schedule); upto, when not nil, is the bytes of it each layer's
	// update waits to be final (LayerEnds), by which the next forward pass
	// waits layer by layer (gradient queuing).
	oneShot    bool
	upto       []int64
	dlrm       bool
	lastBottom int
	computed   int64 // compute cycles emitted so far
	// cells indexes the current iteration's Layers by layer, pass and
	// instance; inst is the instance cells are now made for
	// (LayerPass.Instance).
	cells map[[3]int]int
	inst  int
	// kernels holds the compute kernel of each work, made once: the
	// contend.NPU only reads a kernel, so iterations share them.
	kernels map[workload.Work]contend.Kernel
	// dry is set while build checks every iteration's compute ahead,
	// writing no program; prevWt is the weight-gradient collective of the
	// previous iteration per layer, or -1; iters is the run's iterations.
	dry    bool
	prevWt []int
	// prevShot is the one-shot all-reduce of the previous iteration, or -1.
	prevShot int
	iters    int
	total    int64 // the whole run's compute cycles, found by build
	// comms are the groups of the workload's collectives; dataLike is
	// whether its kind is DATA or HYBRID_DLRM (the data-parallel program,
	// dataIteration); recompute maps a FWD_IN_BCKWD initiating layer to
	// its checkpoint; micro is a MICRO workload's collectives when they
	// run concurrently.
	comms     *Communicators
	dataLike  bool
	fused     []Issued // the hybrid kinds' fused all-reduces without overlap (FusedAllReduces)
	recompute map[int]int
	micro     int
	// keyed is whether a keyed policy issues the weight-gradient
	// all-reduces (lp.d); buckets are the fusion plan (WtGradBuckets, nil:
	// one a layer), bucketOf each layer's bucket (read only for layers
	// with a weight-gradient all-reduce); iterKeys the
	// iteration's keyed collectives in the order back-prop pushes them.
	keyed    bool
	buckets  []Bucket
	bucketOf []int
	iterKeys []int
}

func (b *builder) emit(o op) {
	if !b.dry {
		b.lp.ops = append(b.lp.ops, o)
	}
}

// compute emits the compute of a pass, if it takes any time.
func (b *builder) compute(it, l int, p Pass, work workload.Work) error {
	c, err := b.t.cycles(work)
	if err != nil {
		return fmt.Errorf("layer %d (%s) %s compute: %w", l, b.lp.w.Layers[l].Name, p, err)
	}
	if b.computed += c; c > rtl.MaxCycle || b.computed > rtl.MaxCycle {
		return fmt.Errorf("layer %d (%s) %s compute: the run's compute reaches %d cycles, beyond the %d cycles (%s of simulated time) acemu simulates; shorten the compute times or run fewer iterations",
			l, b.lp.w.Layers[l].Name, p, b.computed, rtl.MaxCycle, rtl.MaxCycleText)
	}
	cell := b.cell(it, l, p) // a pass of no time is run too, in no time
	if c > 0 && !b.dry {
		kern, ok := b.kernels[work]
		if !ok { // every iteration runs the same kernels: one copy serves them all
			kern = b.t.kernel(work)
			b.kernels[work] = kern
		}
		b.emit(op{kind: opCompute, iter: it, layer: l, pass: p, kernel: kern, cell: cell})
	}
	return nil
}

// cell returns the index of layer l's pass p (l = -1: the end's waits)
// in iteration it's Layers, adding it the first time.
func (b *builder) cell(it, l int, p Pass) int {
	if b.dry {
		return -1
	}
	k := [3]int{l, int(p), b.inst}
	if i, ok := b.cells[k]; ok {
		return i
	}
	lp := LayerPass{Layer: l, Pass: p, Instance: b.inst}
	if l >= 0 {
		lp.LayerName = b.lp.w.Layers[l].Name
	}
	layers := &b.lp.iters[it].Layers
	*layers = append(*layers, lp)
	b.cells[k] = len(*layers) - 1
	return len(*layers) - 1
}

// issue emits the issue, during layer at's compute (-1: none), of a new
// collective of layer l's pass p (-1 and PassEndOfBackProp: the fused
// all-reduce) and returns its id.
func (b *builder) issue(it, at, l int, p Pass, c workload.Comm) int {
	var g Group
	if l >= 0 && p != PassEndOfBackProp {
		g, _ = b.comms.Of(l, p)
	}
	return b.issueOn(it, at, l, p, c, g)
}

// issueOn is issue over group g.
func (b *builder) issueOn(it, at, l int, p Pass, c workload.Comm, g Group) int {
	if b.dry {
		return -1
	}
	id := b.newCollective(it, l, p, c, g)
	b.emit(op{kind: opIssue, iter: it, layer: at, colls: []int{id}})
	return id
}

// newCollective adds a collective of layer l's pass p and returns its id.
func (b *builder) newCollective(it, l int, p Pass, c workload.Comm, g Group) int {
	id := len(b.lp.colls)
	b.lp.colls = append(b.lp.colls, collective{typ: c.Type, bytes: c.Bytes, group: g, iter: it, inst: b.inst, layer: l, pass: p, cell: b.cell(it, l, p), key: -1})
	return id
}

// wtGradAllReduce emits what layer l's weight-gradient all-reduce takes
// under a fusion plan or a keyed policy, once its compute has ended: the
// issue, or the push to the dispatcher, of its own all-reduce or, when l
// closes a bucket, of the bucket's; nothing when l's bucket closes
// further down. Each layer's collective (for its update's wait) is set in
// prevWt.
func (b *builder) wtGradAllReduce(it, l int) {
	bk := Bucket{Layers: []int{l}}
	if b.buckets != nil {
		if bk = b.buckets[b.bucketOf[l]]; bk.Layers[len(bk.Layers)-1] != l {
			return
		}
	}
	if b.dry {
		return
	}
	layers, sms := bk.Layers, bk.SMs
	id := b.newCollective(it, l, PassWtGrad, bk.AllReduce(b.lp.w), Group{})
	col := &b.lp.colls[id]
	col.fusedLayers, col.sms = len(layers), sms
	for _, f := range layers {
		b.prevWt[f] = id
	}
	if !b.keyed {
		b.emit(op{kind: opIssue, iter: it, layer: l, colls: []int{id}})
		return
	}
	b.iterKeys = append(b.iterKeys, id)
	b.emit(op{kind: opPush, iter: it, layer: l, colls: []int{id}})
}

// numberKeys gives the iteration's keyed collectives their keys, in the
// policy's key order, and hands them to the dispatcher.
func (b *builder) numberKeys() {
	if b.dry || !b.keyed {
		return
	}
	if b.lp.d.pol.Keys == KeysForward {
		slices.Reverse(b.iterKeys)
	}
	for k, id := range b.iterKeys {
		b.lp.colls[id].key = k
	}
	b.lp.d.keys = append(b.lp.d.keys, b.iterKeys...)
	b.iterKeys = b.iterKeys[:0]
}

// wait emits a wait for ids (none: nothing) before layer l's pass p.
func (b *builder) wait(it, l int, p Pass, phase string, ids []int) {
	if len(ids) > 0 {
		b.emit(op{kind: opWait, iter: it, layer: l, phase: phase, colls: ids, cell: b.cell(it, l, p)})
	}
}

// waitOneShot emits, before layer l's update in iteration it, the wait
// for the previous iteration's one-shot all-reduce (Schedule): without
// gradient queuing, for all of it before layer 0's; with it, for the bytes
// up to layer l's last to be final (LayerEnds), before each layer's that
// has gradients.
func (b *builder) waitOneShot(it, l int) {
	id := b.prevShot
	switch {
	case id < 0:
	case b.upto == nil:
		if l == 0 {
			b.wait(it, l, PassUpdate, phaseForward, []int{id})
		}
	case b.upto[l] > 0:
		b.emit(op{kind: opWaitFinal, iter: it, layer: l, phase: phaseForward, colls: []int{id}, upto: b.upto[l], cell: b.cell(it, l, PassUpdate)})
	}
}

// update emits, from the second iteration on, layer l's wait for its
// weight-gradient collective of the iteration before and its weight
// update.
func (b *builder) update(it, l int) error {
	layer := &b.lp.w.Layers[l]
	if id := b.prevWt[l]; id >= 0 {
		b.wait(it, l, PassUpdate, phaseForward, []int{id})
	}
	if layer.UpdateCycles > 0 { // a delay, with its shape when known
		u := layer.UpdateShape
		u.Cycles = layer.UpdateCycles
		if err := b.compute(it, l, PassUpdate, u); err != nil {
			return err
		}
	}
	if b.lp.w.Source == workload.BuiltinSource {
		return b.compute(it, l, PassUpdate, workload.BuiltinUpdateWork(layer))
	}
	return nil
}

// block emits a wait for collective id right after layer l's pass p that
// issued it (no overlap).
func (b *builder) block(it, l int, p Pass, phase string, id int) {
	b.emit(op{kind: opWait, iter: it, layer: l, phase: phase, colls: []int{id}, after: true, cell: b.cell(it, l, p)})
}

// build checks the compute of n iterations, refusing a run whose compute
// alone goes beyond MaxCycle before it starts, and writes the first
// iteration's program (docs/training-loop.md); the loop has the others
// written as it goes (next). b.total is then the whole run's compute.
func (b *builder) build(n int) error {
	b.iters, b.dry = n, true
	b.prevWt = make([]int, len(b.lp.w.Layers))
	for it := 0; it < n; it++ {
		if err := b.iteration(it); err != nil {
			return err
		}
	}
	b.total = b.computed
	b.dry, b.computed = false, 0 // the program's iterations count it again
	return b.iteration(0)
}

// next replaces the program with iteration it's, once the iteration
// before has ended.
func (b *builder) next(it int) error {
	b.lp.ops, b.lp.pc = b.lp.ops[:0], 0
	return b.iteration(it)
}

// iteration writes iteration it of the program: the data-parallel one
// (DATA, HYBRID_DLRM), MICRO's, or the model and hybrid kinds'
// (docs/parallelism.md).
func (b *builder) iteration(it int) error {
	switch {
	case b.dataLike:
		return b.dataIteration(it)
	case b.lp.w.Parallelism == workload.ParallelismMicro:
		return b.microIteration(it)
	}
	return b.hybridIteration(it)
}

// dataIteration writes iteration it of the data-parallel program.
func (b *builder) dataIteration(it int) error {
	w := b.lp.w
	L := len(w.Layers)
	n := b.iters
	prevWt := b.prevWt // the weight-gradient collective of the previous iteration, or -1
	if it == 0 {
		for i := range prevWt {
			prevWt[i] = -1
		}
		b.prevShot = -1
	}
	{
		b.emit(op{kind: opIterStart, iter: it, layer: -1})
		b.cells = map[[3]int]int{}
		if k := b.lp.d; it > 0 && !b.dry && k != nil && k.pol.Kind != IssueDepCha && len(k.keys) > 0 {
			// The issuing thread pushes the forward pass once it has
			// passed the last iteration's keys (Funnel, ConCum).
			b.emit(op{kind: opWaitMain, iter: it, layer: 0, phase: phaseForward, upto: int64(len(k.keys)), cell: b.cell(it, 0, PassUpdate)})
		}

		// Forward pass, layer 0 to L-1.
		var pending, dlrmPending []int // forward collectives still to wait for
		for l := 0; l < L; l++ {
			layer := &w.Layers[l]
			if it > 0 {
				b.waitOneShot(it, l)
				if err := b.update(it, l); err != nil {
					return err
				}
			}
			if b.dlrm && l == b.lastBottom+1 {
				b.wait(it, l, PassForward, phaseForward, dlrmPending)
				dlrmPending = nil
			}
			b.wait(it, l, PassForward, phaseForward, pending)
			pending = nil
			if err := b.compute(it, l, PassForward, layer.Fwd); err != nil {
				return err
			}
			if layer.FwdComm.Type != workload.CommNone {
				id := b.issue(it, l, l, PassForward, layer.FwdComm)
				switch {
				case !b.overlap:
					b.block(it, l, PassForward, phaseForward, id)
				case b.dlrm && l <= b.lastBottom:
					dlrmPending = append(dlrmPending, id)
				default:
					pending = append(pending, id)
				}
			}
		}

		// Back-prop, layer L-1 to 0.
		b.emit(op{kind: opBackStart, iter: it, layer: -1})
		pending = append(pending, dlrmPending...) // empty: lastBottom ≤ L-2
		var fused workload.Comm
		fusedLayers := 0
		var deferred []int // no-overlap: other weight-gradient collectives
		embIG := -1        // DLRM: the embedding's back-prop all-to-all
		for l := L - 1; l >= 0; l-- {
			layer := &w.Layers[l]
			b.wait(it, l, PassWtGrad, phaseBack, pending)
			pending = nil
			if l == 0 && embIG >= 0 {
				b.wait(it, l, PassWtGrad, phaseBack, []int{embIG})
			}
			if err := b.compute(it, l, PassWtGrad, layer.WtGrad); err != nil {
				return err
			}
			if c := layer.WtGradComm; c.Type != workload.CommNone {
				switch {
				case b.oneShot && c.Type == workload.CommAllReduce:
					fused.Type = workload.CommAllReduce
					fused.Bytes += c.Bytes
					fusedLayers++
				case b.overlap && c.Type == workload.CommAllReduce && (b.keyed || b.buckets != nil):
					b.wtGradAllReduce(it, l)
				case b.overlap:
					prevWt[l] = b.issue(it, l, l, PassWtGrad, c)
				case c.Type == workload.CommAllReduce:
					fused.Type = workload.CommAllReduce
					fused.Bytes += c.Bytes
					fusedLayers++
				default:
					deferred = append(deferred, l)
				}
			}
			if l == 0 {
				break // layer 0 has no input gradient to compute or send
			}
			if err := b.compute(it, l, PassInGrad, layer.InGrad); err != nil {
				return err
			}
			if c := layer.InGradComm; c.Type != workload.CommNone {
				id := b.issue(it, l, l, PassInGrad, c)
				if b.overlap {
					pending = append(pending, id)
				} else {
					b.block(it, l, PassInGrad, phaseBack, id)
				}
			}
			if c := w.Layers[0].InGradComm; b.dlrm && l == b.lastBottom+1 && c.Type != workload.CommNone {
				id := b.issue(it, l, 0, PassInGrad, c)
				if b.overlap {
					embIG = id
				} else {
					b.block(it, l, PassInGrad, phaseBack, id)
				}
			}
		}

		b.numberKeys()
		if b.oneShot {
			b.prevShot = -1
			if fusedLayers > 0 { // issued now, waited for by the next forward pass
				b.prevShot = b.issue(it, -1, -1, PassEndOfBackProp, fused)
				if !b.dry {
					b.lp.colls[b.prevShot].fusedLayers, b.lp.colls[b.prevShot].oneShot = fusedLayers, true
				}
			}
		}
		if !b.overlap {
			var ids []int
			if fusedLayers > 0 {
				id := b.issue(it, -1, -1, PassEndOfBackProp, fused)
				if !b.dry {
					b.lp.colls[id].fusedLayers = fusedLayers
				}
				ids = append(ids, id)
			}
			for _, l := range deferred {
				ids = append(ids, b.issue(it, -1, l, PassWtGrad, w.Layers[l].WtGradComm))
			}
			b.wait(it, -1, PassEndOfBackProp, phaseEndBack, ids)
		}
		if it == n-1 {
			b.emit(op{kind: opWaitAll, iter: it, layer: -1, phase: phaseEndRun, cell: b.cell(it, -1, PassEndOfRun)})
		}
		b.emit(op{kind: opIterEnd, iter: it, layer: -1})
	}
	return nil
}

// Handle runs the loop's events.
func (lp *loop) Handle(now rtl.Cycle, _ int32, _ int64) {
	lp.resume = false
	lp.step(now)
}

// computeDone ends the current compute op at now (called by the NPU at
// the kernel's last cycle) and goes on.
func (lp *loop) computeDone(now rtl.Cycle) {
	lp.k.Progress()
	o := &lp.ops[lp.pc]
	it := &lp.iters[o.iter]
	c := int64(now - lp.computeAt)
	it.ComputeCycles += c
	it.Compute.add(o.pass, c)
	it.Layers[o.cell].ComputeCycles += c
	lp.computing = false
	lp.advance()
	lp.step(now)
}

// fail records the first error and stops the kernel.
func (lp *loop) fail(err error) {
	if lp.err == nil {
		lp.err = err
	}
	lp.k.Halt()
}

// advance moves to the next op.
func (lp *loop) advance() { lp.pc++ }

// report tells Config.Progress how far the run has gone at now: the
// estimate, or just beyond now where the run has outgrown it.
func (lp *loop) report(now rtl.Cycle) {
	done := int64(now - lp.start)
	lp.progress(done, max(lp.estimate, done+1))
}

// step runs ops until one takes time (compute) or blocks (a wait).
func (lp *loop) step(now rtl.Cycle) {
	for lp.err == nil && !lp.computing && lp.pc < len(lp.ops) {
		o := &lp.ops[lp.pc]
		it := &lp.iters[o.iter]
		switch o.kind {
		case opIterStart:
			it.Start = now
			it.ByType = map[workload.CommType]CommStats{}
		case opBackStart:
			it.BackStart = now
		case opCompute:
			lp.computing, lp.computeAt = true, now
			if err := lp.npu.Run(now, o.kernel, lp.computeDone); err != nil {
				lp.fail(fmt.Errorf("%s: %w", lp.where(o), err))
			}
			return
		case opIssue:
			if err := lp.issueNow(now, o.colls[0]); err != nil {
				lp.fail(fmt.Errorf("%s: issue the %s: %w", lp.where(o), lp.describe(o.colls[0]), err))
				return
			}
		case opPush:
			lp.d.push(now, o.colls[0])
		case opWait, opWaitAll, opWaitFinal, opWaitMain:
			ids := o.colls
			switch o.kind {
			case opWaitAll:
				ids = lp.undone()
			case opWaitMain:
				ids = lp.d.keys[min(lp.d.firstUndone(), int(o.upto)):o.upto] // those in flight, and those the thread has yet to pass
			}
			if !lp.ready(o, ids) {
				if !lp.waiting {
					lp.waiting, lp.waitFrom, lp.waitUpto = true, now, -1
					if o.kind == opWaitFinal {
						lp.waitUpto = o.upto
					}
					lp.waitIDs = lp.waitIDs[:0]
					for _, id := range ids {
						if !lp.colls[id].done {
							lp.waitIDs = append(lp.waitIDs, id)
						}
					}
				}
				return
			}
			if lp.waiting {
				lp.waiting = false
				if now > lp.waitFrom {
					it.ExposedCommCycles += int64(now - lp.waitFrom)
					it.Layers[o.cell].ExposedCommCycles += int64(now - lp.waitFrom)
					st := lp.stall(o, now)
					it.Stalls = append(it.Stalls, st)
					if obs := lp.observer; obs != nil {
						obs.Observe(observe.Event{Kind: observe.Stall, Cycle: st.From, End: st.To, What: st.String()})
					}
				}
			}
		case opIterEnd:
			it.End = now
			it.IterationCycles = int64(it.End - it.Start)
			if sum := it.ComputeCycles + it.ExposedCommCycles; sum != it.IterationCycles {
				lp.fail(fmt.Errorf("iteration %d: compute %d + exposed communication %d = %d cycles, but it took %d (cycles %d to %d): the loop lost track of time",
					o.iter+1, it.ComputeCycles, it.ExposedCommCycles, sum, it.IterationCycles, it.Start, it.End))
				return
			}
			// The iterations so far, at their mean, for the rest.
			lp.estimate = int64(now-lp.start) * int64(len(lp.iters)) / int64(o.iter+1)
			if lp.dropLayers {
				it.Layers = nil
			}
			if next := o.iter + 1; next < len(lp.iters) {
				if err := lp.b.next(next); err != nil {
					lp.fail(fmt.Errorf("iteration %d: %w", next+1, err))
				}
				continue
			}
		}
		lp.advance()
	}
	if lp.err == nil && lp.pc == len(lp.ops) && !lp.finished {
		lp.finished = true
		lp.k.Halt()
	}
}

// issueNow counts collective id in its iteration and issues it at now.
func (lp *loop) issueNow(now rtl.Cycle, id int) error {
	c := &lp.colls[id]
	it := &lp.iters[c.iter]
	c.issued, c.issuedAt = true, now
	it.Collectives++
	it.CollectiveBytes += c.bytes
	if it.Layers != nil { // nil: dropped (Config.DropLayers)
		lc := &it.Layers[c.cell]
		lc.Collective, lc.CollectiveBytes = c.typ, c.bytes
	}
	s := it.ByType[c.typ]
	s.Count++
	s.Bytes += c.bytes
	it.ByType[c.typ] = s
	if lp.inflight++; lp.inflight == 1 {
		lp.npu.SetCommBusy(now, true)
	}
	return lp.issue(now, id)
}

// issue issues collective id at now through the Comm: the one-shot
// all-reduce, where the Comm is a ProgressComm, marked as the one-shot
// and under gradient queuing with its progress reported, and a collective
// over a group with its group (IssueWith); every other with Issue.
func (lp *loop) issue(now rtl.Cycle, id int) error {
	c := &lp.colls[id]
	pc, ok := lp.comm.(ProgressComm)
	if !ok && c.sms > 0 {
		return fmt.Errorf("the collective asks for %d communication SMs of its own (a fusion plan's Bucket.SMs), and this Comm (%T) takes no options (train.ProgressComm); drop the plan's SMs", c.sms, lp.comm)
	}
	if !ok || !c.oneShot && c.group.All() && c.sms == 0 {
		return lp.comm.Issue(now, c.typ, c.bytes, lp.doneFunc(id))
	}
	o := IssueOptions{Done: lp.doneFunc(id), OneShot: c.oneShot, Group: c.group, SMs: c.sms}
	if c.oneShot && lp.b.upto != nil {
		o.Progress = lp.progressFunc(id)
	}
	return pc.IssueWith(now, c.typ, c.bytes, o)
}

// ready reports whether wait o, for the collectives ids, is over: all
// of them done, or for opWaitFinal its bytes reported final.
func (lp *loop) ready(o *op, ids []int) bool {
	switch o.kind {
	case opWaitFinal:
		return lp.colls[o.colls[0]].final >= o.upto
	case opWaitMain:
		return int64(lp.d.passed()) >= o.upto
	}
	return lp.allDone(ids)
}

// progressFunc returns the progress callback of collective id
// (IssueOptions.Progress).
func (lp *loop) progressFunc(id int) func(now rtl.Cycle, bytes int64) {
	return func(now rtl.Cycle, bytes int64) {
		c := &lp.colls[id]
		switch {
		case c.done || bytes <= c.final:
			after := fmt.Sprintf("after %d B", c.final)
			if c.done {
				after += " and its end"
			}
			lp.fail(fmt.Errorf("the Comm reported %d B of the %s final at cycle %d, %s: what is final must grow with each report, before the collective is done",
				bytes, lp.describe(id), now, after))
			return
		case now != lp.k.Now() || now < c.issuedAt:
			lp.fail(fmt.Errorf("the Comm reported %d B of the %s (issued at cycle %d) final at cycle %d, but the kernel is at cycle %d: progress must be reported from an event at the cycle it is made",
				bytes, lp.describe(id), c.issuedAt, now, lp.k.Now()))
			return
		}
		c.final = bytes
		if lp.waitUpto >= 0 && bytes >= lp.waitUpto { // the wait for these bytes is over
			lp.wake(now)
		}
	}
}

// wake schedules the loop's step at now if it waits and none is scheduled.
func (lp *loop) wake(now rtl.Cycle) {
	if lp.waiting && !lp.resume {
		lp.resume = true
		lp.k.Schedule(now, lp, evStep, 0)
	}
}

// doneFunc returns the completion callback of collective id.
func (lp *loop) doneFunc(id int) func(now rtl.Cycle) {
	return func(now rtl.Cycle) {
		c := &lp.colls[id]
		switch {
		case c.oneShot && lp.b.upto != nil && c.final < c.bytes:
			lp.fail(fmt.Errorf("the Comm reported the %s done at cycle %d with only %d B of it reported final: all of it must be before the collective is done", lp.describe(id), now, c.final))
			return
		case c.done:
			lp.fail(fmt.Errorf("the Comm reported the %s done twice (again at cycle %d)", lp.describe(id), now))
			return
		case now != lp.k.Now() || now < c.issuedAt:
			lp.fail(fmt.Errorf("the Comm reported the %s (issued at cycle %d) done at cycle %d, but the kernel is at cycle %d: done must be called from an event at the cycle it completes",
				lp.describe(id), c.issuedAt, now, lp.k.Now()))
			return
		}
		c.done, c.doneAt = true, now
		if l := lp.iters[c.iter].Layers; l != nil { // nil: dropped (Config.DropLayers)
			l[c.cell].CollectiveCycles = int64(now - c.issuedAt)
		}
		if lp.inflight--; lp.inflight == 0 {
			lp.npu.SetCommBusy(now, false)
		}
		if c.key >= 0 {
			lp.d.done(now)
		}
		lp.wake(now)
	}
}

func (lp *loop) allDone(ids []int) bool {
	for _, id := range ids {
		if !lp.colls[id].done {
			return false
		}
	}
	return true
}

// undone returns the collectives issued, or pushed to a keyed policy's
// dispatcher, and not yet done.
func (lp *loop) undone() []int {
	var ids []int
	for id := range lp.colls {
		if c := &lp.colls[id]; (c.issued || c.pushed) && !c.done {
			ids = append(ids, id)
		}
	}
	return ids
}

// stall describes the wait o that ends at now.
func (lp *loop) stall(o *op, now rtl.Cycle) Stall {
	s := Stall{Iteration: o.iter, Phase: o.phase, Layer: o.layer, After: o.after, From: lp.waitFrom, To: now}
	if o.layer >= 0 {
		s.LayerName = lp.w.Layers[o.layer].Name
	}
	var parts []string
	for _, id := range lp.waitIDs {
		parts = append(parts, lp.finalOf()+lp.describe(id))
	}
	s.Waiting = strings.Join(parts, "; ")
	return s
}

// finalOf says which bytes the loop waits for ("the first 300 B of
// the "), or "" when it waits for whole collectives.
func (lp *loop) finalOf() string {
	if lp.waitUpto < 0 {
		return ""
	}
	return fmt.Sprintf("the first %d B of the ", lp.waitUpto)
}

// describe names collective id for messages.
func (lp *loop) describe(id int) string {
	c := &lp.colls[id]
	if c.layer < 0 {
		layers := "layers"
		if c.fusedLayers == 1 {
			layers = "layer"
		}
		return fmt.Sprintf("%s %s of %d B (%d %s) of iteration %d", c.what(), c.typ, c.bytes, c.fusedLayers, layers, c.iter+1)
	}
	if c.fusedLayers > 1 { // a bucket (Fusion)
		return fmt.Sprintf("%s %s of %d B (%d layers, the last layer %d (%s)) of iteration %d", c.what(), c.typ, c.bytes, c.fusedLayers, c.layer, lp.w.Layers[c.layer].Name, c.iter+1)
	}
	return fmt.Sprintf("%s %s of %d B of layer %d (%s) of iteration %d", c.what(), c.typ, c.bytes, c.layer, lp.w.Layers[c.layer].Name, c.iter+1)
}

// where says where op o is in the schedule.
func (lp *loop) where(o *op) string {
	s := fmt.Sprintf("iteration %d", o.iter+1)
	if o.phase != "" {
		s += ", " + o.phase
	} else if o.kind == opCompute {
		s += ", " + o.pass.String() + " compute"
	}
	if o.layer >= 0 {
		s += ", "
		switch {
		case o.after:
			s += "after "
		case o.kind == opWait || o.kind == opWaitFinal:
			s += "before "
		}
		s += fmt.Sprintf("layer %d (%s)", o.layer, lp.w.Layers[o.layer].Name)
	}
	return s
}

// stuck explains why the kernel stopped before the loop finished.
func (lp *loop) stuck() error {
	now := lp.k.Now()
	why := "the kernel ran out of events"
	if n := lp.k.Pending(); n > 0 {
		why = fmt.Sprintf("the kernel was halted with %d events pending", n)
	}
	if lp.pc >= len(lp.ops) {
		return fmt.Errorf("%s at cycle %d with the loop at its end but not finished", why, now)
	}
	o := &lp.ops[lp.pc]
	if lp.waiting {
		var parts []string
		for _, id := range lp.waitIDs {
			if !lp.colls[id].done {
				c := &lp.colls[id]
				what := fmt.Sprintf("the %s, issued at cycle %d", lp.describe(id), c.issuedAt)
				if !c.issued { // held by the keyed policy
					what = fmt.Sprintf("the %s, not issued: %s", lp.describe(id), lp.d.why(id))
				}
				if lp.waitUpto >= 0 {
					what = fmt.Sprintf("%s%s, issued at cycle %d, of which %d B were reported final", lp.finalOf(), lp.describe(id), c.issuedAt, c.final)
				}
				parts = append(parts, what)
			}
		}
		if len(parts) == 0 { // every collective waited for is done, but the loop was not resumed
			return fmt.Errorf("%s at cycle %d; the loop has waited since cycle %d (%s) for collectives all reported done, and was never resumed",
				why, now, lp.waitFrom, lp.where(o))
		}
		never := "it done"
		if lp.waitUpto >= 0 {
			never = "those bytes final"
		}
		return fmt.Errorf("%s at cycle %d; the loop has waited since cycle %d (%s) for %s: the Comm never reported %s",
			why, now, lp.waitFrom, lp.where(o), strings.Join(parts, "; "), never)
	}
	return fmt.Errorf("%s at cycle %d with the loop unfinished (%s)", why, now, lp.where(o))
}

// metrics sums the iterations and checks that they tile the run.
func (lp *loop) metrics() (*Metrics, error) {
	m := &Metrics{Workload: lp.w.Name, Iterations: lp.iters, Start: lp.start, ByType: map[workload.CommType]CommStats{}}
	m.End = lp.iters[len(lp.iters)-1].End
	for _, it := range lp.iters {
		m.ComputeCycles += it.ComputeCycles
		m.ExposedCommCycles += it.ExposedCommCycles
		m.TotalCycles += it.IterationCycles
		m.Compute.Forward += it.Compute.Forward
		m.Compute.InGrad += it.Compute.InGrad
		m.Compute.WtGrad += it.Compute.WtGrad
		m.Compute.Update += it.Compute.Update
		m.Collectives += it.Collectives
		m.CollectiveBytes += it.CollectiveBytes
		for t, s := range it.ByType {
			a := m.ByType[t]
			a.Count += s.Count
			a.Bytes += s.Bytes
			m.ByType[t] = a
		}
	}
	if lp.w.Parallelism == workload.ParallelismMicro {
		for i := range lp.colls {
			c := &lp.colls[i]
			m.Micro = append(m.Micro, MicroCollective{Iteration: c.iter + c.inst, Layer: c.layer, LayerName: lp.w.Layers[c.layer].Name, Type: c.typ, Bytes: c.bytes, Issued: c.issuedAt, Done: c.doneAt})
		}
	}
	if m.TotalCycles != int64(m.End-m.Start) || m.TotalCycles != m.ComputeCycles+m.ExposedCommCycles {
		return nil, fmt.Errorf("the iterations add up to %d cycles (compute %d + exposed %d) but the run took %d (cycles %d to %d)",
			m.TotalCycles, m.ComputeCycles, m.ExposedCommCycles, m.End-m.Start, m.Start, m.End)
	}
	return m, nil
}

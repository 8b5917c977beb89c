package afi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// Engine runs collectives on every NPU of a network: ace.Engine for ACE,
// npu.Engine for the ideal and baseline endpoints. Issue starts a
// collective at a cycle; done is called when it has finished everywhere.
type Engine interface {
	Issue(now rtl.Cycle, plan *collectives.Plan, done func(now rtl.Cycle)) error
	// IssueWith is Issue with what IssueOptions adds: progress, a
	// communicator, a chunk and a priority.
	IssueWith(now rtl.Cycle, plan *collectives.Plan, o IssueOptions) error
}

// IssueOptions is what an issuer may ask of a collective beyond its plan.
type IssueOptions struct {
	// Done is called when the collective has finished on every NPU.
	Done func(now rtl.Cycle)
	// Progress, if set, hears, as they grow, how many bytes from the
	// collective's start hold their final values on every NPU (on ACE:
	// are back in memory), after the cycle's events and before Done:
	// chunk by chunk, and piece by piece within a chunk where its
	// algorithm declares pieces (a pipelined tree's: collectives.Program's
	// Finals) and the endpoint writes each where it stays (the ideal
	// endpoint and the baseline). What the C-Cube paper's gradient
	// queuing consumes.
	Progress func(now rtl.Cycle, bytes int64)
	// Group names the dimensions of the collective's communicator
	// (collectives.Config.Span: each NPU's group of them combines its
	// data); empty, every NPU. Interface plans by it; an engine is given
	// the plan, which carries it.
	Group []string
	// Groups, when not nil, is the communicator as listed groups of NPUs
	// (collectives.Config.Groups: an equal partition, each group's
	// members in ring order, each group combining its own data); it
	// excludes Group. Interface plans by it too.
	Groups [][]int
	// ChunkBytes, when positive, is the chunk this collective is cut into
	// instead of the interface's (Config.ChunkBytes): a collective as long
	// as its payload runs as one chunk, pipelined inside its algorithm (a
	// tree's pieces: the C-Cube paper's one-shot all-reduce).
	ChunkBytes int64
	// Priority orders the collective among those in flight, lower first
	// (their messages at a port, their chunks for ACE's SRAM); equal
	// priorities follow the engine's Order. Zero for every collective:
	// the Order alone.
	Priority int32
	// SMs, when positive, is the number of communication SMs this
	// collective runs with in place of the system's: a thread allocation
	// per collective, as LIBRA launches each all-reduce with its own
	// ("LIBRA: Contention-Aware GPU Thread Allocation for Data Parallel
	// Training in High Speed Networks", §III-B; docs/libra.md). Only the
	// SM-driven baseline has SMs to give, and it changes them only while
	// no other collective is in flight on it; 0: the system's.
	SMs int
}

// Key is the order in which a collective's work goes, lower first: its
// priority, then its place in the issue order under o (the newest first
// under LIFO). Every engine ranks collectives by it.
func (o Order) Key(priority int32, id int) int64 {
	k := int64(id)
	if o == LIFO {
		k = -k
	}
	return int64(priority)<<40 + k
}

// Config is how the AFI cuts the collectives it is given (Table III).
type Config struct {
	// Machine is the machine the collectives run on.
	Machine      *machine.Machine
	ChunkBytes   int64 // initial chunk (64 KB)
	MessageBytes int64 // largest message (8 KB)
	// Algorithms names the algorithm per collective; missing ones use
	// collectives.DefaultAlgorithm.
	Algorithms map[collectives.CollectiveOp]string
	// Kinds are the collectives a workload will issue, when known before
	// the run: ACE sizes its SRAM partitions by the average of their
	// chunks, and divides its FSMs by the average time of their phases
	// (the ACE paper, Section IV-I, footnote 9; docs/ace-model.md,
	// "Several kinds of collective"). Empty: ACE's layout alone. The
	// other endpoints ignore it.
	Kinds []Kind
}

// Kind is a collective a workload issues, as ACE's layout needs to know
// it: its operation and communicator (IssueOptions.Group or Groups, at
// most one of them; neither: every NPU).
type Kind struct {
	Op     collectives.CollectiveOp
	Group  []string
	Groups [][]int
}

// KindPlans are the plans of one chunk of each of c.Kinds, cut as c says.
func (c Config) KindPlans() ([]*collectives.Plan, error) {
	var out []*collectives.Plan
	for _, k := range c.Kinds {
		p, err := c.PlanOn(k.Op, c.ChunkBytes, k.Group, k.Groups)
		if err != nil {
			return nil, fmt.Errorf("a kind of collective named for ACE's layout: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// DefaultConfig is Table III/V's chunk and message on machine m.
func DefaultConfig(m *machine.Machine) Config {
	return Config{Machine: m, ChunkBytes: 64 << 10, MessageBytes: 8 << 10}
}

// Handle names a collective the NPU issued.
type Handle int

// Interface is the NPU–AFI command interface (Section IV-G): the NPU issues
// a command per collective (its type and size; the address range is
// implied: every NPU's buffer of that size) and gets a handle; the
// completion interrupt arrives as the done callback. Plans are built once
// per (collective, size, communicator) and reused.
type Interface struct {
	cfg      Config
	eng      Engine
	plans    map[planKey]*collectives.Plan
	issued   int
	inFlight int
	obs      observe.Observer
}

// SetObserver makes o see every collective issued and completed
// (observe.CollectiveIssued, observe.CollectiveDone: Coll is its handle,
// Bytes its size per NPU, What its operation).
func (a *Interface) SetObserver(o observe.Observer) { a.obs = o }

type planKey struct {
	op    collectives.CollectiveOp
	bytes int64
	group string // the communicator's dimensions, as given, comma-separated
	// groups is the communicator's listed groups, as given, braced
	// (collectives.FormatGroups: {0,5,10,15/1,6,11,12}); "" for none.
	groups string
	chunk  int64 // the chunk, where an issue gives its own (IssueOptions.ChunkBytes); 0 for the interface's
}

// New returns the command interface of eng.
func New(cfg Config, eng Engine) (*Interface, error) {
	if cfg.ChunkBytes < 1 || cfg.MessageBytes < 1 {
		return nil, fmt.Errorf("afi: chunk of %d B and message of %d B: both must be positive", cfg.ChunkBytes, cfg.MessageBytes)
	}
	if eng == nil {
		return nil, fmt.Errorf("afi: no engine")
	}
	return &Interface{cfg: cfg, eng: eng, plans: map[planKey]*collectives.Plan{}}, nil
}

// Plan returns the plan of a collective of op and bytes per NPU cut as c
// says.
func (c Config) Plan(op collectives.CollectiveOp, bytes int64) (*collectives.Plan, error) {
	return c.PlanOn(op, bytes, nil, nil)
}

// PlanOn is Plan for a communicator: of the dimensions group
// (collectives.Config.Span), or of the listed groups of NPUs groups
// (collectives.Config.Groups), at most one of them; neither: every NPU.
func (c Config) PlanOn(op collectives.CollectiveOp, bytes int64, group []string, groups [][]int) (*collectives.Plan, error) {
	alg := c.Algorithms[op]
	if alg == "" {
		alg = collectives.DefaultAlgorithm(op)
	}
	p, err := collectives.NewPlan(collectives.Config{Machine: c.Machine, Op: op, MessageBytes: c.MessageBytes, Span: group, Groups: groups}, alg, bytes, c.ChunkBytes)
	if err != nil {
		return nil, fmt.Errorf("afi: %s of %d B: %w", op, bytes, err)
	}
	return p, nil
}

// Plan returns the plan the interface uses for a collective of op and
// bytes per NPU, built once per (op, bytes).
func (a *Interface) Plan(op collectives.CollectiveOp, bytes int64) (*collectives.Plan, error) {
	return a.PlanOn(op, bytes, nil, nil)
}

// PlanOn is Plan for a communicator of the dimensions group or the listed
// groups of NPUs groups (Config.PlanOn), built once per (collective,
// size, communicator).
func (a *Interface) PlanOn(op collectives.CollectiveOp, bytes int64, group []string, groups [][]int) (*collectives.Plan, error) {
	return a.planOn(op, bytes, group, groups, 0)
}

// planOn is PlanOn with the chunk an issue gives (0: the interface's).
func (a *Interface) planOn(op collectives.CollectiveOp, bytes int64, group []string, groups [][]int, chunk int64) (*collectives.Plan, error) {
	key := planKey{op: op, bytes: bytes, group: strings.Join(group, ","), chunk: chunk}
	if groups != nil { // braced: an empty list (refused) is not the absence of one
		key.groups = "{" + collectives.FormatGroups(groups) + "}"
	}
	if p, ok := a.plans[key]; ok {
		return p, nil
	}
	cfg := a.cfg
	if chunk > 0 {
		cfg.ChunkBytes = chunk
	}
	p, err := cfg.PlanOn(op, bytes, group, groups)
	if err != nil {
		return nil, err
	}
	a.plans[key] = p
	return p, nil
}

// Issue sends the command for a collective of op and bytes per NPU at
// cycle now; done, if not nil, is its completion interrupt.
func (a *Interface) Issue(now rtl.Cycle, op collectives.CollectiveOp, bytes int64, done func(now rtl.Cycle)) (Handle, error) {
	return a.IssueWith(now, op, bytes, IssueOptions{Done: done})
}

// IssueWith is Issue with IssueOptions (Engine.IssueWith).
func (a *Interface) IssueWith(now rtl.Cycle, op collectives.CollectiveOp, bytes int64, o IssueOptions) (Handle, error) {
	done := o.Done
	if o.ChunkBytes < 0 {
		return -1, fmt.Errorf("afi: %s of %d B: a chunk of %d B; give a positive chunk, or 0 for the interface's", op, bytes, o.ChunkBytes)
	}
	p, err := a.planOn(op, bytes, o.Group, o.Groups, o.ChunkBytes)
	if err != nil {
		return -1, err
	}
	h := Handle(a.issued)
	if a.obs != nil {
		a.obs.Observe(observe.Event{Kind: observe.CollectiveIssued, Cycle: now, Coll: int(h), Bytes: bytes, What: op.String()})
	}
	o.Done = func(t rtl.Cycle) {
		a.inFlight--
		if a.obs != nil {
			a.obs.Observe(observe.Event{Kind: observe.CollectiveDone, Cycle: t, Coll: int(h), Bytes: bytes, What: op.String()})
		}
		if done != nil {
			done(t)
		}
	}
	err = a.eng.IssueWith(now, p, o)
	if err != nil {
		return -1, fmt.Errorf("afi: collective %d (%s of %d B): %w", h, op, bytes, err)
	}
	a.issued++
	a.inFlight++
	return h, nil
}

// InFlight returns how many issued collectives have not completed.
func (a *Interface) InFlight() int { return a.inFlight }

// Issued returns how many collectives have been issued.
func (a *Interface) Issued() int { return a.issued }

// Runner is an engine that can also say, when the kernel has run out of
// events, what its unfinished collectives wait on (nil when none is left).
type Runner interface {
	Engine
	Stuck() error
}

// RunOne issues plan on e at the kernel's current cycle, runs the kernel
// until it has no events left, and returns how long the collective took.
// It fails with e's report of what waits on what if the collective did not
// finish.
func RunOne(k *rtl.Kernel, e Runner, plan *collectives.Plan) (c rtl.Cycle, err error) {
	defer rtl.RecoverOverflow(&err)
	start := k.Now()
	var finish rtl.Cycle
	if err := e.Issue(start, plan, func(now rtl.Cycle) { finish = now }); err != nil {
		return 0, err
	}
	k.Run()
	if err := e.Stuck(); err != nil {
		return 0, errors.Join(k.StallError(), err)
	}
	if err := k.StallError(); err != nil {
		return 0, err
	}
	return finish - start, nil
}

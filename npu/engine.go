package npu

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/admit"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/xcore"
)

// Engine runs collectives on the ideal or the baseline endpoints of every
// NPU of a network. Several can be in flight: each is issued at a cycle,
// its chunks enter their first phase on every NPU at once, and a callback
// reports when it has finished everywhere. This is what a training loop
// drives (the NPU–AFI command interface: a command per collective, an
// interrupt at its end).
type Engine struct {
	r *run
	// base is the baseline's rates (nil: the ideal endpoint); sms the
	// communication SMs its collectives run on now, and follow what hears
	// them change (OnCommSMs).
	base   *baseRates
	sms    int
	follow []func(now rtl.Cycle, sms int) error
}

// NewIdealEngine returns an engine of ideal endpoints on net, which must be
// machine m's network.
func NewIdealEngine(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, cfg IdealConfig) (*Engine, error) {
	if cfg.ProcessCycles < 0 {
		return nil, fmt.Errorf("ideal endpoint: processing time %d cycles must not be negative", cfg.ProcessCycles)
	}
	return newEngine(k, net, m, cfg, nil)
}

// NewBaselineEngine returns an engine of SM-driven baseline endpoints.
func NewBaselineEngine(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, cfg BaselineConfig) (*Engine, error) {
	rates, err := cfg.rates()
	if err != nil {
		return nil, err
	}
	return newEngine(k, net, m, IdealConfig{Data: cfg.Data, Observer: cfg.Observer}, rates)
}

func newEngine(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, cfg IdealConfig, base *baseRates) (*Engine, error) {
	n := m.N()
	if net.NPUs() != n {
		return nil, fmt.Errorf("plan for %d NPUs on a network of %d", n, net.NPUs())
	}
	top := m.Topology
	if _, folds := m.Folder(); net.Folded() && !folds {
		return nil, fmt.Errorf("a folded network on %s, which has no symmetry to fold by: build its full network", top)
	}
	r := &run{k: k, net: net, shape: top, folded: net.Folded(), cfg: cfg, info: xcore.Infos{}, colls: xcore.NewCollectives(k),
		gate: admit.New("", k, m, net.Folded())}
	if base != nil {
		r.launch = base.lib.LaunchCycles
	}
	if net.Folded() { // the one node stands for every NPU
		if cfg.Data != nil {
			return nil, fmt.Errorf("a folded network runs one NPU for all: it cannot carry every NPU's data; check data on a full network")
		}
		n = 1
	}
	if f, folds := m.Folder(); folds && !net.Folded() && cfg.Data == nil {
		r.folder = f
	}
	r.nodes = make([]*node, n)
	eps := make([]fabric.Endpoint, n)
	for i := range r.nodes {
		nd := &node{id: i, r: r, inbox: map[int64][]int64{}}
		nd.ports = make([]port, net.Ports())
		for p := range nd.ports {
			nd.ports[p].link = net.Out(i, p)
			nd.ports[p].idx = p
		}
		nd.dp = idealPath{nd}
		if base != nil {
			nd.dp = newBasePath(nd, base, net.In(i))
		}
		r.nodes[i] = nd
		eps[i] = nd
	}
	net.Attach(eps)
	e := &Engine{r: r, base: base}
	if base != nil {
		e.sms = base.sms
	}
	return e, nil
}

// SetOrder chooses how collectives in flight share the ports (default
// afi.LIFO). Set it before issuing.
func (e *Engine) SetOrder(o afi.Order) { e.r.order = o }

// Issue starts plan's collective on every NPU at cycle now (not before the
// kernel's current cycle; on the baseline, its library's launch later,
// Library.LaunchCycles); done, if not nil, is called from a kernel event
// at the cycle its last chunk finishes on the last NPU.
func (e *Engine) Issue(now rtl.Cycle, plan *collectives.Plan, done func(now rtl.Cycle)) error {
	return e.IssueWith(now, plan, afi.IssueOptions{Done: done})
}

// IssueWith is Issue with progress and a priority (afi.IssueOptions).
func (e *Engine) IssueWith(now rtl.Cycle, plan *collectives.Plan, o afi.IssueOptions) error {
	r := e.r
	sms, err := e.smsFor(o.SMs)
	if err != nil {
		return err
	}
	if err := r.gate.Admit(now, plan); err != nil {
		return err
	}
	if err := e.setCommSMs(now, sms); err != nil {
		return err
	}
	nc := plan.NumChunks()
	if int64(r.chunks)+int64(nc) > 1<<31-1 {
		return fmt.Errorf("too many chunks in flight over the run (%d + %d)", r.chunks, nc)
	}
	co := r.colls.Add(plan, len(r.nodes), r.chunks, o.Done)
	if o.Progress != nil {
		co.Track(o.Progress)
	}
	prio := r.order.Key(o.Priority, co.ID)
	r.chunks += int32(nc)
	shared := r.folder != nil && !r.ownPrograms && collectives.CheckEquivariant(plan) == nil
	for _, nd := range r.nodes {
		nd.chunks = append(nd.chunks, make([]*chunkState, nc)...)
	}
	r.k.ScheduleClass(now+r.launch, rtl.ClassSystem, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) {
		for _, nd := range r.nodes {
			for c := 0; c < nc; c++ {
				g := co.First + int32(c)
				cs := &chunkState{Chunk: xcore.NewChunk(co, int32(c)), prio: prio, shared: shared}
				if r.cfg.Data != nil {
					cs.Vals = r.cfg.Data.Init(co.ID, nd.id, c)
				}
				nd.chunks[g] = cs
				nd.enterPhase(now, g, 0)
			}
		}
	}), 0, 0)
	return nil
}

// smsFor is the communication SMs a collective asking for asked SMs
// (afi.IssueOptions.SMs; 0: the system's) runs on, or why it cannot.
func (e *Engine) smsFor(asked int) (int, error) {
	switch {
	case asked == 0:
		if e.base == nil {
			return 0, nil
		}
		asked = e.base.sms
	case e.base == nil:
		return 0, fmt.Errorf("a collective with %d communication SMs on the ideal endpoint, which uses no SMs (Table VI); per-collective SMs are the SM-driven baseline's (docs/libra.md)", asked)
	case asked < 0 || asked > SMs:
		return 0, fmt.Errorf("a collective with %d communication SMs: the NPU has %d SMs (Table V); give 1..%d, or 0 for the system's", asked, SMs, SMs)
	}
	if asked != e.sms {
		if n := e.r.colls.Unfinished(); n > 0 {
			return 0, fmt.Errorf("a collective with %d communication SMs issued while %d collective(s) run on %d: the baseline's SMs change only between collectives, one in flight at a time as LIBRA launches them (\"LIBRA: Contention-Aware GPU Thread Allocation for Data Parallel Training in High Speed Networks\", §III-B); chain the collectives or give every one the same SMs",
				asked, n, e.sms)
		}
	}
	return asked, nil
}

// setCommSMs makes the communication SMs sms from cycle now (nothing in
// flight when they change: smsFor), on every NPU, and tells those that
// follow them (OnCommSMs).
func (e *Engine) setCommSMs(now rtl.Cycle, sms int) error {
	if e.base == nil || sms == e.sms {
		return nil
	}
	for _, f := range e.follow {
		if err := f(now, sms); err != nil {
			return err
		}
	}
	e.sms = sms
	rate := e.base.smRate(sms)
	for _, nd := range e.r.nodes {
		nd.dp.(*basePath).sm.SetRate(rate)
	}
	return nil
}

// CommSMs returns the SMs the baseline's collectives run on now: the
// system's, or the last collective's own (afi.IssueOptions.SMs); 0 on the
// ideal endpoint.
func (e *Engine) CommSMs() int { return e.sms }

// OnCommSMs adds f, called at the cycle a collective is issued on other
// communication SMs than the one before it (afi.IssueOptions.SMs), before
// they change, with their new number: how the NPU's compute follows the
// SMs communication holds (contend.Comm.Follow). An error from f refuses
// the collective.
func (e *Engine) OnCommSMs(f func(now rtl.Cycle, sms int) error) {
	e.follow = append(e.follow, f)
}

// Unfinished returns how many issued collectives have not finished.
func (e *Engine) Unfinished() int {
	return e.r.colls.Unfinished()
}

// Stuck returns nil when every issued collective has finished, and
// otherwise an error saying, per unfinished chunk, what it waits on and
// which links still hold packets: call it when the kernel has run out of
// events.
func (e *Engine) Stuck() error { return e.r.stuck() }

// Traffic returns, per NPU, the bytes injected as a source, and the bytes
// communication read from and wrote to memory (zero on the ideal endpoint).
func (e *Engine) Traffic() (sent, memRead, memWrite []int64) {
	n := len(e.r.nodes)
	sent, memRead, memWrite = make([]int64, n), make([]int64, n), make([]int64, n)
	for i, nd := range e.r.nodes {
		sent[i] = nd.sent
		memRead[i], memWrite[i] = nd.dp.traffic()
	}
	return sent, memRead, memWrite
}

// SMBusy returns the mean over NPUs of the share of cycles the
// communication SMs were busy (0 on the ideal endpoint).
func (e *Engine) SMBusy(cycles rtl.Cycle) float64 {
	return e.r.smBusy(cycles)
}

// rates are the exact per-cycle rates of a baseline configuration.
func (c BaselineConfig) rates() (*baseRates, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	one := big.NewRat(1, 1)
	mem, err := rtl.RateGBps(c.CommMemGBps, one)
	if err != nil {
		return nil, fmt.Errorf("baseline memory bandwidth: %w", err)
	}
	bus, err := rtl.RateGBps(c.BusGBps, one)
	if err != nil {
		return nil, fmt.Errorf("baseline NPU–AFI bus: %w", err)
	}
	r := &baseRates{mem: mem, bus: bus, lib: c.Library, sms: c.CommSMs, smBytes: c.SMBytes}
	r.sm = r.smRate(c.CommSMs)
	return r, nil
}

// smRate is the SMs' rate with sms of them: sms × SMBytes bytes per cycle.
func (r *baseRates) smRate(sms int) rtl.Rate { return rtl.Rate{Num: int64(sms) * r.smBytes, Den: 1} }

// SetMemoryRates gives the baseline's communication the memory rates read
// and write from now on, on every NPU (a shared memory,
// docs/memory-system.md); a transfer under way keeps its end. The ideal
// endpoint uses no memory and ignores it.
func (e *Engine) SetMemoryRates(read, write rtl.Rate) {
	for _, nd := range e.r.nodes {
		if m := nd.dp.memory(); m != nil {
			m[0].SetRate(read)
			m[1].SetRate(write)
		}
	}
}

// Memory returns the serializers through which the baseline's
// communication reads and writes memory, on every NPU simulated (none on
// the ideal endpoint), and how many NPUs those are.
func (e *Engine) Memory() ([]*rtl.Serializer, int) {
	var ss []*rtl.Serializer
	for _, nd := range e.r.nodes {
		ss = append(ss, nd.dp.memory()...)
	}
	return ss, len(e.r.nodes)
}

// Package sim assembles one simulation: a machine's network, a system's
// endpoint on it and the AFI in front, with the observers a command asks
// for, one NPU standing for all when that gives the same numbers. Every
// command and figure builds its runs here (the comparator's training runs,
// acemu collective, the reproductions), so the fold decision, the order in
// which the parts are built and the metrics derived from a run are written
// once.
package sim

import (
	"errors"
	"fmt"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/endpoint"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
)

// Setup is what a run is assembled from.
type Setup struct {
	// Machine is what --topo named; Links the platform's links it is
	// built with (zero: the default platform's).
	Machine *topology.Spec
	Links   topology.LinkSettings
	// System is the endpoint and its resources (Table VI).
	System systems.System
	// AFI cuts the collectives (its Machine is set to Machine's; zero
	// chunk and message: afi.DefaultConfig's, its Algorithms and Kinds
	// kept); its Kinds, the collectives the run will issue, size ACE's
	// partitions (afi.Config.Kinds).
	AFI afi.Config
	// Fold: one NPU stands for all (decide it with Foldable).
	Fold bool
	// Layout is the kind of plan ACE lays its SRAM and FSMs out for; nil:
	// the AFI's all-reduce of one chunk. Ignored by the other endpoints.
	Layout *collectives.Plan
	// ACE is ACE's configuration (zero: ace.Default()); its memory share
	// is the system's.
	ACE ace.Config
	// Library is what the baselines' communication library pays beyond
	// bandwidth; Order which collective in flight goes first.
	Library npu.Library
	Order   afi.Order
	// Data, when set, makes every chunk carry values (a folded run
	// cannot).
	Data *npu.DataHooks
	// Observe, when set, gives the run its observers once its network
	// exists: Packets sees the links' packets, Work the endpoint's work
	// and the AFI's collectives.
	Observe func(net *fabric.Network) (observe.Observers, error)
	// Windows, when positive, tracks every link's busy time per window of
	// that many cycles (fabric.Network.TrackWindows).
	Windows rtl.Cycle
	// LinkWindows, with Windows, tracks each link's own windows too, for
	// its peak (fabric.Network.TrackLinkWindows, LinkStats).
	LinkWindows bool
}

// Run is an assembled simulation, ready to be driven: issue collectives
// through AFI (or Endpoint), then run Kernel.
type Run struct {
	Kernel   *rtl.Kernel
	Net      *fabric.Network
	Machine  *machine.Machine
	Endpoint *endpoint.Endpoint
	AFI      *afi.Interface
	Folded   bool
	// Work is the observer of the endpoint's work (nil: none), for the
	// parts a caller adds (a training loop's kernels).
	Work observe.Observer
}

// Foldable is the one fold decision: nil when one NPU can stand for every
// NPU of m for these plans (m has the symmetry, the caller does not need
// every NPU, and each plan runs NPU 0's programs translated on every NPU:
// collectives.CheckEquivariant; docs/architecture.md "Folding"), else
// why not.
func Foldable(m *topology.Spec, full bool, plans ...*collectives.Plan) error {
	switch {
	case full:
		return errors.New("every NPU is simulated (--full, or a check that needs every NPU)")
	case !m.CanFold():
		return fmt.Errorf("%s has no symmetry taking any NPU to any other", m.Machine)
	}
	for _, p := range plans {
		if err := collectives.CheckEquivariant(p); err != nil {
			return err
		}
	}
	return nil
}

// Layout is the plan ACE lays its SRAM partitions and FSMs out for unless
// told otherwise: the AFI's all-reduce of one chunk. It takes part in the
// fold decision of any run with ACE.
func Layout(cfg afi.Config) (*collectives.Plan, error) {
	return cfg.Plan(collectives.OpAllReduce, cfg.ChunkBytes)
}

// AFIConfig is the AFI configuration a run of s uses: s.AFI on s's
// machine, or, when s.AFI gives neither chunk nor message, the machine's
// default (afi.DefaultConfig) keeping s.AFI's algorithms and kinds.
func (s Setup) AFIConfig() afi.Config {
	cfg := s.AFI
	if cfg.ChunkBytes == 0 && cfg.MessageBytes == 0 {
		d := afi.DefaultConfig(s.Machine.Machine)
		d.Algorithms, d.Kinds = cfg.Algorithms, cfg.Kinds
		cfg = d
	}
	cfg.Machine = s.Machine.Machine
	return cfg
}

// New assembles a run.
func New(s Setup) (*Run, error) {
	if s.Machine == nil {
		return nil, errors.New("run: no machine")
	}
	links := s.Links
	if links.Efficiency == nil { // not given: the default platform's
		links = topology.DefaultLinkSettings()
	}
	cfg := s.AFIConfig()
	if _, folds := s.Machine.Machine.Folder(); !folds { // a torus says so itself, with how folding helps
		if err := machine.CheckFull(s.Machine.Machine.Name, s.Machine.Machine.N()); err != nil {
			return nil, fmt.Errorf("%w (a machine that is not a torus is never folded: docs/architecture.md); run a smaller one", err)
		}
	}
	if s.Layout != nil && s.Layout.Op == collectives.OpAllToAll && !s.Fold { // refused before the engines are built (the engines check every all-to-all issued)
		if err := machine.CheckFullAllToAll(s.Machine.Machine.Name, s.Machine.Machine.N()); err != nil {
			return nil, err
		}
	}
	k := rtl.NewKernel()
	net, err := s.Machine.Build(k, links, s.Fold)
	if err != nil {
		return nil, err
	}
	if s.Windows > 0 {
		net.TrackWindows(s.Windows)
		if s.LinkWindows {
			net.TrackLinkWindows()
		}
	}
	var obs observe.Observers
	if s.Observe != nil {
		if obs, err = s.Observe(net); err != nil {
			return nil, err
		}
		net.SetObserver(obs.Packets)
	}
	layout := s.Layout
	if s.System.Kind == systems.ACE && layout == nil {
		if layout, err = Layout(cfg); err != nil {
			return nil, err
		}
	}
	var kinds []*collectives.Plan
	if s.System.Kind == systems.ACE {
		if kinds, err = cfg.KindPlans(); err != nil {
			return nil, err
		}
	}
	acfg := s.ACE
	if acfg.SRAMBytes == 0 {
		acfg = ace.Default()
	}
	ep, err := endpoint.New(k, net, s.Machine.Machine, s.System, endpoint.Options{ACE: acfg, Library: s.Library, Layout: layout, Kinds: kinds,
		Order: s.Order, Data: s.Data, Observer: obs.Work})
	if err != nil {
		return nil, err
	}
	a, err := afi.New(cfg, ep.Engine)
	if err != nil {
		return nil, err
	}
	a.SetObserver(obs.Work)
	return &Run{Kernel: k, Net: net, Machine: s.Machine.Machine, Endpoint: ep, AFI: a, Folded: s.Fold, Work: obs.Work}, nil
}

// One runs plan alone, issued at the kernel's current cycle, to its end,
// and returns what the endpoint measured over its time. Work sees it
// issued and done as the AFI's collectives are (observe.CollectiveIssued,
// observe.CollectiveDone: the run's collective 0, Bytes its size per NPU,
// What its operation).
func (r *Run) One(plan *collectives.Plan) (endpoint.Metrics, error) {
	start := r.Kernel.Now()
	e := observe.Event{Kind: observe.CollectiveIssued, Cycle: start, Coll: 0, Bytes: plan.Payload, What: plan.Op.String()}
	if r.Work != nil {
		r.Work.Observe(e)
	}
	cycles, err := afi.RunOne(r.Kernel, r.Endpoint, plan)
	if err != nil {
		return endpoint.Metrics{}, err
	}
	if r.Work != nil {
		e.Kind, e.Cycle = observe.CollectiveDone, start+cycles
		r.Work.Observe(e)
	}
	return r.Endpoint.Metrics(cycles), nil
}

// Package endpoint builds any system's collective engine from one factory:
// a registry of endpoint kinds (the ideal endpoint, the SM-driven
// baseline, ACE) by name, each a constructor of an afi.Engine, and one
// metrics type for what any of them measured. Every command builds its
// endpoints here.
package endpoint

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/systems"
)

// Options are what an endpoint may need beyond its system.
type Options struct {
	// ACE is ACE's design point; its memory share is the system's.
	ACE ace.Config
	// Library is what the baseline's communication library pays beyond
	// bandwidth (npu.Library; zero: nothing); ignored by the others.
	Library npu.Library
	// Layout is the kind of plan ACE will be given (it lays out its SRAM
	// and FSMs for it); ignored by the others.
	Layout *collectives.Plan
	// Kinds are the collectives ACE will be given, each a plan of one
	// chunk (ace.NewEngineFor sizes its partitions by them); ignored by
	// the others.
	Kinds []*collectives.Plan
	// Order is which collective in flight goes first (zero: afi.LIFO, the
	// ACE paper's, Section V).
	Order afi.Order
	// Data, when set, makes the run carry values: every chunk starts from
	// Init, and the Observer sees each chunk's final values
	// (observe.ChunkDone).
	Data *npu.DataHooks
	// Observer, when set, sees the endpoint's work: ops on the ideal and
	// baseline endpoints, sub-steps on ACE (observe).
	Observer observe.Observer
}

// Endpoint is one system's collective engine on a network.
type Endpoint struct {
	afi.Engine
	sys systems.System
	k   *rtl.Kernel
	npu *npu.Engine
	ace *ace.Engine
}

// Constructor builds an endpoint kind's engine.
type Constructor func(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, sys systems.System, o Options) (*Endpoint, error)

var registry = map[string]Constructor{}

// Register adds an endpoint kind under name (the systems.Kind's name).
func Register(name string, c Constructor) {
	if _, dup := registry[name]; dup {
		panic("endpoint: " + name + " registered twice")
	}
	registry[name] = c
}

// Kinds lists the registered kinds.
func Kinds() []string {
	var ks []string
	for k := range registry {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func init() {
	Register(systems.Ideal.String(), func(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, _ systems.System, o Options) (*Endpoint, error) {
		cfg := npu.DefaultIdeal()
		cfg.Data, cfg.Observer = o.Data, o.Observer
		e, err := npu.NewIdealEngine(k, net, m, cfg)
		return npuEndpoint(e, err, o)
	})
	Register(systems.Baseline.String(), func(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, sys systems.System, o Options) (*Endpoint, error) {
		cfg := npu.DefaultBaseline(sys.CommSMs, sys.CommMemGBps)
		cfg.Data, cfg.Observer, cfg.Library = o.Data, o.Observer, o.Library
		e, err := npu.NewBaselineEngine(k, net, m, cfg)
		return npuEndpoint(e, err, o)
	})
	Register(systems.ACE.String(), func(k *rtl.Kernel, net *fabric.Network, _ *machine.Machine, sys systems.System, o Options) (*Endpoint, error) {
		if o.Layout == nil {
			return nil, fmt.Errorf("ACE needs the kind of plan it will run to lay out its SRAM")
		}
		cfg := o.ACE
		cfg.CommMemGBps = sys.CommMemGBps
		h := &ace.Hooks{Observer: o.Observer}
		if o.Data != nil {
			h.Init = o.Data.Init
		}
		e, err := ace.NewEngineFor(k, net, o.Layout, o.Kinds, cfg, h)
		if err != nil {
			return nil, err
		}
		e.SetOrder(o.Order)
		return &Endpoint{Engine: e, ace: e}, nil
	})
}

func npuEndpoint(e *npu.Engine, err error, o Options) (*Endpoint, error) {
	if err != nil {
		return nil, err
	}
	e.SetOrder(o.Order)
	return &Endpoint{Engine: e, npu: e}, nil
}

// New builds sys's engine on net (machine m's network, driven by k).
func New(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, sys systems.System, o Options) (*Endpoint, error) {
	c, ok := registry[sys.Kind.String()]
	if !ok {
		return nil, fmt.Errorf("system %s: no endpoint of kind %s (kinds: %s)", sys.Name, sys.Kind, strings.Join(Kinds(), ", "))
	}
	e, err := c(k, net, m, sys, o)
	if err != nil {
		return nil, err
	}
	e.sys, e.k = sys, k
	return e, nil
}

// Stuck is nil when every collective issued has finished, and otherwise
// says what waits on what.
func (e *Endpoint) Stuck() error {
	if e.npu != nil {
		return e.npu.Stuck()
	}
	return e.ace.Stuck()
}

// Metrics is what an endpoint measured over a run: means over NPUs.
type Metrics struct {
	Cycles rtl.Cycle
	Events uint64
	// BytesSent is the bytes an NPU injected as a source; MemRead and
	// MemWrite what its communication read from and wrote to memory.
	BytesSent, MemRead, MemWrite int64
	// CommSMBusy is the share of the run the communication SMs were busy
	// (baselines).
	CommSMBusy float64
	// ACE is ACE's own statistics (nil for the others).
	ACE *ace.Result
}

// NetworkGBps is the bytes an NPU sent per second over the run (GB/s).
func (m Metrics) NetworkGBps() float64 { return rtl.GBps(m.BytesSent, m.Cycles) }

// CommMemGBps is an NPU's communication memory traffic, read plus
// written, per second over the run (GB/s).
func (m Metrics) CommMemGBps() float64 { return rtl.GBps(m.MemRead+m.MemWrite, m.Cycles) }

// Metrics is what the endpoint measured over a run of cycles.
func (e *Endpoint) Metrics(cycles rtl.Cycle) Metrics {
	m := Metrics{Cycles: cycles, Events: e.k.Events()}
	if e.npu != nil {
		s, r, w := e.npu.Traffic()
		m.BytesSent, m.MemRead, m.MemWrite, m.CommSMBusy = rtl.Mean(s), rtl.Mean(r), rtl.Mean(w), e.npu.SMBusy(cycles)
		return m
	}
	st := e.ace.Stats(cycles)
	m.BytesSent, m.MemRead, m.MemWrite, m.ACE = rtl.Mean(st.BytesSent), rtl.Mean(st.MemRead), rtl.Mean(st.MemWrite), st
	return m
}

// ACEUtilizationWithin is ACE's utilisation within spans
// (ace.Engine.UtilizationWithin); ok is false on the other endpoints.
func (e *Endpoint) ACEUtilizationWithin(spans []rtl.Span) (u float64, ok bool) {
	if e.ace == nil {
		return 0, false
	}
	return e.ace.UtilizationWithin(spans), true
}

// Side is communication's side of each NPU on this endpoint
// (docs/memory-system.md): the SMs it holds while a collective is in
// flight, its memory allotment, and the most its reads and writes can
// use: the baseline's loads by its SMs (CommSMs × 64 B/cycle, Table V) and
// its writes by the RX DMA over the NPU–AFI bus plus the SMs' stores; ACE's
// TX and RX DMA at their rate. The ideal endpoint uses no memory. On the
// baseline the NPU follows the SMs a collective runs on when it has its own
// (afi.IssueOptions.SMs; contend.Comm.Follow).
func (e *Endpoint) Side() contend.Comm {
	sys := e.sys
	c := contend.Comm{SMs: sys.CommSMs, GBps: new(big.Rat)}
	if sys.Kind == systems.Ideal || sys.CommMemGBps == nil {
		return c
	}
	c.GBps.Set(sys.CommMemGBps)
	if e.ace != nil {
		dma := npu.MemBytesPerCycle(sys.CommMemGBps)
		c.ReadLimit, c.WriteLimit, c.Apply = dma, dma, e.ace.SetMemoryRates
		c.Memory, c.NPUs = e.ace.Memory()
		return c
	}
	b := npu.DefaultBaseline(sys.CommSMs, sys.CommMemGBps)
	c.Limits = func(n int) (read, write *big.Rat) {
		sms := big.NewRat(int64(n)*b.SMBytes, 1)
		return sms, new(big.Rat).Add(npu.MemBytesPerCycle(b.BusGBps), sms)
	}
	c.ReadLimit, c.WriteLimit = c.Limits(sys.CommSMs)
	c.Apply = e.npu.SetMemoryRates
	c.Memory, c.NPUs = e.npu.Memory()
	c.Follow = func(set func(now rtl.Cycle, sms int) error) { e.npu.OnCommSMs(set) }
	return c
}

// SideOf is Side for NPU r of npus alone, on a run that simulates every NPU: the
// memory of r's communication, and the rates compute leaves it set on r's
// memory only, so that each NPU's compute shares with its own
// communication (a Chakra trace's ranks, which may differ: package
// chakra/runner). An error when the endpoint does not simulate NPU r on
// its own (a folded run).
func (e *Endpoint) SideOf(r, npus int) (contend.Comm, error) {
	c := e.Side()
	if c.Memory == nil {
		return c, nil
	}
	if c.NPUs != npus || r < 0 || r >= c.NPUs || len(c.Memory) != 2*c.NPUs {
		return c, fmt.Errorf("NPU %d's own memory: the endpoint simulates %d of the %d NPUs with %d memory ports, not each NPU's read and write", r, c.NPUs, npus, len(c.Memory))
	}
	rd, wr := c.Memory[2*r], c.Memory[2*r+1]
	c.Memory, c.NPUs = []*rtl.Serializer{rd, wr}, 1
	c.Apply = func(read, write rtl.Rate) {
		rd.SetRate(read)
		wr.SetRate(write)
	}
	return c, nil
}

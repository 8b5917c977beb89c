package ace

// This file: the engine's lifecycle: building it, issuing collectives in one global chunk order, and what it reports.

import (
	"fmt"
	"math"

	"github.com/acemu/acemu/admit"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/xcore"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// Run executes plan on every NPU of net with ACE endpoints, from the
// kernel's current cycle until the collective completes. It fails with a
// report of what waits on what if the run stops making progress.
func Run(k *rtl.Kernel, net *fabric.Network, plan *collectives.Plan, cfg Config, hooks *Hooks) (*Result, error) {
	e, err := NewEngine(k, net, plan, cfg, hooks)
	if err != nil {
		return nil, err
	}
	cycles, err := afi.RunOne(k, e, plan)
	if err != nil {
		return nil, err
	}
	return e.r.result(cycles), nil
}

// Engine is ACE on every NPU of a network, taking collectives as the NPU
// issues them (Section IV-G: a command per collective; ACE loads a chunk
// when its SRAM has room and interrupts the NPU when a chunk, and the
// collective, completes). Several collectives can be in flight; they share
// the SRAM partitions and FSMs laid out for the layout plan, so every
// collective issued must have the layout's shape, operation, algorithm and
// phases (its size may differ).
type Engine struct {
	r *run
}

// NewEngine lays out ACE on every NPU of net for collectives like layout:
// partitions by the paper's heuristic for the layout's phases and chunk
// size, FSMs divided among its phases.
func NewEngine(k *rtl.Kernel, net *fabric.Network, layout *collectives.Plan, cfg Config, hooks *Hooks) (*Engine, error) {
	return NewEngineFor(k, net, layout, nil, cfg, hooks)
}

// NewEngineFor is NewEngine told, before the run, the kinds of collective
// it will be given (each a plan of one chunk: its operation, algorithm and
// communicator): its partitions are sized by the average over them of
// their chunks' sizes in each partition, and its FSMs divided by the
// average time their phases there take (the ACE paper, Section IV-I,
// footnote 9; docs/ace-model.md, "Several kinds of collective"). None, or
// only collectives like the layout and all-to-alls, gives NewEngine's
// layout.
func NewEngineFor(k *rtl.Kernel, net *fabric.Network, layout *collectives.Plan, kinds []*collectives.Plan, cfg Config, hooks *Hooks) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rt, err := cfg.rates()
	if err != nil {
		return nil, err
	}
	n := layout.Machine.N()
	if net.NPUs() != n {
		return nil, fmt.Errorf("plan for %d NPUs on a network of %d", n, net.NPUs())
	}
	if hooks == nil {
		hooks = &Hooks{}
	}
	top := layout.Machine.Topology
	if _, folds := layout.Machine.Folder(); net.Folded() && !folds {
		return nil, fmt.Errorf("ACE on a folded network of %s, which has no symmetry to fold by: build its full network", top)
	}
	r := &run{k: k, net: net, layout: layout, shape: top, cfg: cfg, hooks: hooks,
		info: map[*collectives.Program]*progInfo{}, infos: xcore.Infos{}, colls: xcore.NewCollectives(k), phases: layout.NumPhases(),
		fold: net.Folded(), gate: admit.New("ACE", k, layout.Machine, net.Folded()), quietDMA: quietDMAOn(net),
		parts: map[*collectives.Plan][]int{}}
	for _, kp := range kinds {
		if !machine.Same(kp.Machine, layout.Machine) {
			return nil, fmt.Errorf("ACE: %s, named among the collectives it is laid out for, is for %s and the layout for %s; name collectives of the layout's machine", describe(kp), kp.Machine, layout.Machine)
		}
		if kp.MessageBytes != layout.MessageBytes {
			return nil, fmt.Errorf("ACE: %s, named among the collectives it is laid out for, is in messages of %d B and the layout in %d B; name collectives of the layout's message size", describe(kp), kp.MessageBytes, layout.MessageBytes)
		}
		parts, err := phaseParts(layout, kp)
		if err != nil {
			return nil, fmt.Errorf("ACE: %w", err)
		}
		r.kinds, r.kindParts = append(r.kinds, kp), append(r.kindParts, parts)
	}
	if f, folds := layout.Machine.Folder(); folds {
		r.folder = f
		r.share = !r.fold && hooks.Init == nil && !cfg.ownPrograms
		r.shareLayout = r.share && collectives.CheckEquivariant(layout) == nil
	}
	nodes := n
	if r.fold {
		if hooks.Init != nil {
			return nil, fmt.Errorf("ACE on a folded network runs one NPU for all: it cannot carry every NPU's data; check data on a full network")
		}
		if err := collectives.CheckEquivariant(layout); err != nil {
			return nil, fmt.Errorf("ACE on a folded network: %w", err)
		}
		nodes = 1
	}
	eps := make([]fabric.Endpoint, nodes)
	for i := 0; i < nodes; i++ {
		nd, err := r.newNode(i, net, rt)
		if err != nil {
			return nil, err
		}
		nd.in = net.In(i)
		nd.rxWaiting, nd.coming, nd.nextDue = newBitset(len(nd.in)), newBitset(len(nd.in)), math.MaxInt64
		r.nodes = append(r.nodes, nd)
		eps[i] = nd
	}
	net.Attach(eps)
	r.waiters = make([][][]int32, nodes)
	r.resAt = make([][]rtl.Cycle, nodes)
	r.lat = map[uint64]rtl.Cycle{}
	return &Engine{r: r}, nil
}

// SetOrder chooses the order in which chunks load: afi.LIFO (the default,
// the paper's priority, Section V) loads the most recently issued
// collective's chunks before older collectives' chunks that no NPU has
// loaded yet; afi.FIFO loads them in the order issued.
func (e *Engine) SetOrder(o afi.Order) { e.r.priority = o }

// Issue starts plan's collective on every NPU at cycle now (not before the
// kernel's current cycle); done, if not nil, is called from a kernel event
// at the cycle its last chunk is back in memory on the last NPU.
func (e *Engine) Issue(now rtl.Cycle, plan *collectives.Plan, done func(now rtl.Cycle)) error {
	return e.IssueWith(now, plan, afi.IssueOptions{Done: done})
}

// IssueWith is Issue with progress reported chunk by chunk and a priority
// (afi.IssueOptions): a collective of lower priority value takes SRAM room
// before any of higher value that no NPU has loaded yet.
func (e *Engine) IssueWith(now rtl.Cycle, plan *collectives.Plan, o afi.IssueOptions) error {
	if o.SMs != 0 {
		return fmt.Errorf("a collective with %d communication SMs on ACE, which runs collectives on its own engine and uses no SMs (Table VI); per-collective SMs are the SM-driven baseline's (docs/libra.md)", o.SMs)
	}
	r := e.r
	l := r.layout
	var parts []int
	if machine.Same(plan.Machine, l.Machine) {
		var err error
		if parts, err = r.partsFor(plan); err != nil {
			return err
		}
	}
	if err := r.gate.Admit(now, plan); err != nil {
		return err
	}
	co := r.colls.Add(plan, len(r.nodes), 0, o.Done) // its chunks are numbered when created
	if o.Progress != nil {
		co.Track(o.Progress) // chunk by chunk: ACE's data is final once written back
	}
	key := r.priority.Key(o.Priority, co.ID)
	r.k.ScheduleClass(now, rtl.ClassSystem, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { r.create(now, co, key, parts) }), 0, 0)
	return nil
}

// create makes co's chunks on every NPU and places them in the order in
// which chunks take SRAM room: after every chunk any NPU has already
// loaded, before the first not yet loaded whose collective's key
// (afi.Order.Key: priority, then issue order) is higher; so under FIFO
// last, under LIFO right after the loaded ones, when priorities are equal.
// Either way the order is the same on every NPU, which keeps the chunk
// flow deadlock-free (docs/ace-model.md).
func (r *run) create(now rtl.Cycle, co *xcore.Collective, key int64, parts []int) {
	nc := co.Plan.NumChunks()
	first := int32(len(r.rank))
	co.First = first
	at := 0
	for _, nd := range r.nodes {
		at = max(at, nd.nextAdmit)
	}
	for at < len(r.order) && r.keys[r.order[at]] <= key {
		at++
	}
	ids := make([]int32, nc)
	for c := range ids {
		ids[c] = first + int32(c)
		r.rank = append(r.rank, 0)
		r.keys = append(r.keys, key)
	}
	r.order = append(r.order[:at], append(ids, r.order[at:]...)...)
	for i := at; i < len(r.order); i++ {
		r.rank[r.order[i]] = int32(i)
	}
	slots := nc * (r.phases + 1)
	for i := range r.nodes {
		from := len(r.resAt[i])
		r.resAt[i] = append(r.resAt[i], make([]rtl.Cycle, slots)...)
		for j := from; j < len(r.resAt[i]); j++ {
			r.resAt[i][j] = -1
		}
		r.waiters[i] = append(r.waiters[i], make([][]int32, slots)...)
	}
	shared := r.share && collectives.CheckEquivariant(co.Plan) == nil
	for _, nd := range r.nodes {
		for c := 0; c < nc; c++ {
			nd.chunks = append(nd.chunks, &chunk{Chunk: xcore.NewChunk(co, int32(c)), id: first + int32(c), shared: shared, parts: parts,
				reserved: make([]bool, r.phases+1), fsm: make([]int, r.phases), buffered: map[int64][]fabric.Packet{}})
		}
		nd.admitGen++ // new chunks, and new places in the loading order
		nd.kick(now)
	}
}

// Unfinished returns how many issued collectives have not finished.
func (e *Engine) Unfinished() int {
	return e.r.colls.Unfinished()
}

// Stuck returns nil when every issued collective has finished and
// otherwise what every unfinished chunk waits on: call it when the kernel
// has run out of events.
func (e *Engine) Stuck() error {
	if e.r.pending() == 0 {
		return nil
	}
	return e.r.stuck()
}

// Stats returns the measurements over the cycles given (the run's length).
func (e *Engine) Stats(cycles rtl.Cycle) *Result { return e.r.result(cycles) }

// SetMemoryRates gives ACE's TX DMA (reads) and RX DMA (writes) the memory
// rates read and write from now on, on every NPU (a shared memory,
// docs/memory-system.md); a transfer under way keeps its end.
func (e *Engine) SetMemoryRates(read, write rtl.Rate) {
	for _, nd := range e.r.nodes {
		nd.memRd.SetRate(read)
		nd.memWr.SetRate(write)
	}
}

// Memory returns the serializers through which ACE's DMA reads and writes
// memory, on every NPU simulated, and how many NPUs those are.
func (e *Engine) Memory() ([]*rtl.Serializer, int) {
	var ss []*rtl.Serializer
	for _, nd := range e.r.nodes {
		ss = append(ss, nd.memRd, nd.memWr)
	}
	return ss, len(e.r.nodes)
}

type run struct {
	k        *rtl.Kernel
	net      *fabric.Network
	layout   *collectives.Plan
	shape    machine.Topology // the machine's routing
	cfg      Config
	hooks    *Hooks
	nodes    []*node
	info     map[*collectives.Program]*progInfo
	infos    xcore.Infos
	phases   int
	colls    *xcore.Collectives
	priority afi.Order // which collective's chunks take SRAM room first
	// parts is, per plan issued, the partition of each of its phases
	// (phaseParts); kinds are the collectives the engine was told it will
	// be given, and kindParts theirs (NewEngineFor).
	parts     map[*collectives.Plan][]int
	kinds     []*collectives.Plan
	kindParts [][]int
	// order is the global numbers of every chunk issued, in the order they
	// take SRAM room; rank[id] is a chunk's place in it.
	order []int32
	rank  []int32
	keys  []int64 // per chunk, its collective's afi.Order.Key
	// Rendezvous: resAt[npu][chunk*(phases+1)+phase] is the cycle NPU npu
	// made room for that chunk's phase (-1: not yet); waiters are the NPUs
	// to wake when it does; lat caches latency(a, b), the latency of the
	// route from a to b, which a receive-ready notice takes. On a folded
	// network there is one row, NPU 0's, which stands for every NPU's, and
	// a waiter is recorded by its displacement from the NPU it waits on.
	resAt   [][]rtl.Cycle
	waiters [][][]int32
	lat     map[uint64]rtl.Cycle // by a<<32 | b: a 64-bit key hashes fastest
	// folder displaces peers on a machine with translational symmetry (nil
	// on others); share: on a full network of such a machine, without data
	// carried, a chunk of a plan whose NPUs all run NPU 0's programs
	// translated (collectives.CheckEquivariant) runs NPU 0's, each op's
	// peer displaced by the NPU's id where it is used (node.peerOf): one
	// copy of the programs and of what is derived from them for every NPU.
	folder machine.Folder
	share  bool
	// shareLayout: the layout's programs are shared too (newNode reads
	// NPU 0's).
	shareLayout bool
	// fold: the network is folded and the one node stands for every NPU;
	// gate makes the checks of an issue.
	fold bool
	gate *admit.Gate
	// reference runs the model as it ran before its bookkeeping became
	// incremental: every FSM and port visited at every kick, an event for
	// every piece a DMA moves. checks makes the incremental path check its
	// bookkeeping against a full scan at every kick. Both are for tests.
	reference, checks bool
	// asides counts the ops set aside for a full output port (setAside),
	// for tests.
	asides int64
	// quietDMA: a DMA piece before its chunk's last has no event of its
	// own, only a kick at its end (dmaStep). That kick is scheduled when
	// the piece starts rather than when it ends, so it may take another
	// place among other NPUs' kicks of its cycle, which changes nothing
	// only when no NPU's kick acts on another's within a cycle: true when
	// every link takes at least a cycle to deliver a packet and to return
	// its credit, and no switch orders packets by when they were sent
	// (quietDMAOn).
	quietDMA bool
	// quietFx: where quietDMA holds, a sub-step other than a DMA piece
	// has no event for its end: the node's kick at that cycle applies it
	// (node.applyDue), after the cycle's other events rather than among
	// them; which changes nothing for the same reason, and since the
	// node's own ends of a cycle keep their order. Only unobserved
	// networks: the ends push packets into links, and an observer would
	// see them start in another order within the cycle. watchChecked:
	// quietFx has been worked out (at the first sub-step, once the
	// observers are installed).
	quietFx, watchChecked bool
}

// quietEffects reports whether sub-steps' ends are applied by the node's
// kick (quietFx), working it out at the first call.
func (r *run) quietEffects() bool {
	if !r.watchChecked {
		r.watchChecked = true
		r.quietFx = r.quietDMA
		for _, l := range r.net.Links {
			if l.Observed() {
				r.quietFx = false
			}
		}
	}
	return r.quietFx && !r.reference
}

// quietDMAOn reports whether NPUs' kicks commute within a cycle on net: a
// kick takes packets from input buffers (returning their credits after
// CreditLatency) and starts sub-steps whose ends push packets into links
// (arriving after Latency). With both at least a cycle on every link,
// nothing one NPU's kick does reaches another NPU in the same cycle; a
// switch's arrivals are ordered by when they were scheduled (rtl.Class),
// so a network with switches keeps an event per DMA piece.
func quietDMAOn(net *fabric.Network) bool {
	if len(net.Switches()) > 0 {
		return false
	}
	for _, l := range net.Links {
		if l.Params.Latency < 1 || l.Params.CreditLatency < 1 {
			return false
		}
	}
	return true
}

// latency is the latency of the route from NPU a to NPU b, worked out at
// its first use (only the pairs that exchange notices: a table of every
// pair would grow with the square of the NPU count).
func (r *run) latency(a, b int) rtl.Cycle {
	key := uint64(a)<<32 | uint64(b)
	if l, ok := r.lat[key]; ok {
		return l
	}
	l, _ := r.route(a, b)
	r.lat[key] = l
	return l
}

// route follows the machine's routing from NPU a to NPU b, link by link,
// and returns the route's latency (its links' and the switches' on it)
// and the slowest of its links (nil when a is b).
func (r *run) route(a, b int) (rtl.Cycle, *fabric.Link) {
	var l rtl.Cycle
	var slowest *fabric.Link
	ports := r.layout.Machine.Ports
	for cur := a; cur != b; {
		var link *fabric.Link
		next := -1
		if sw := r.net.Switch(cur); sw != nil { // through a switch: its route and its own latency
			link = sw.Out(sw.Route(b))
			l += sw.Params.Latency
		} else {
			port, ok := r.shape.NextPort(cur, b)
			if !ok {
				break
			}
			link = r.net.Out(cur, port)
			if ports != nil { // the next NPU by the machine's geometry (a folded network's links are NPU 0's)
				if nb, ok, _ := ports.Neighbor(cur, port); ok {
					next = nb
				}
			}
		}
		l += link.Params.Latency
		if slowest == nil || link.Params.Rate.Rat().Cmp(slowest.Params.Rate.Rat()) < 0 {
			slowest = link
		}
		if next < 0 {
			next = link.Dst
		}
		cur = next
	}
	return l, slowest
}

// row is the node, and rendezvous row, that stands for NPU npu.
func (r *run) row(npu int) int {
	if r.fold {
		return 0
	}
	return npu
}

func (r *run) pending() int {
	return r.colls.PendingChunks()
}

// progInfo is derived once per program: the executor core's, and the
// packets of each op's message.
type progInfo struct {
	*xcore.Info
	packets []int32
}

func (r *run) infoOf(p *collectives.Program) *progInfo {
	if pi, ok := r.info[p]; ok {
		return pi
	}
	pi := &progInfo{Info: r.infos.Of(p), packets: make([]int32, len(p.Ops))}
	for i, op := range p.Ops {
		pi.packets[i] = int32(fabric.PacketCount(op.Data.Len))
	}
	r.info[p] = pi
	return pi
}

package ace

import (
	"fmt"
	"github.com/acemu/acemu/afi"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
)

// Hooks let a run carry real values and trace sub-steps.
type Hooks struct {
	// Init and Done, when set, make the run carry values (one int64 per
	// payload byte): every chunk starts from Init and Done gets each chunk's
	// values when it is written back on an NPU.
	Init func(npu, chunk int) []int64
	Done func(npu, chunk int, vals []int64)
	// Trace, when set, gets every sub-step as it starts.
	Trace func(SubStep)
	// Interrupt, when set, is the completion interrupt ACE raises to its
	// NPU (Section IV-G): once per chunk when its result is back in memory,
	// and once for the whole collective (chunk = -1) after the last chunk.
	Interrupt func(npu, chunk int, at rtl.Cycle)
}

// SubStep is one unit of ACE work, for traces and golden tests.
type SubStep struct {
	Start, End   rtl.Cycle
	NPU          int
	Chunk, Phase int
	Op           int // -1 for DMA
	Kind         string
	Bytes        int64
}

// Result is what a collective run on ACE measured.
type Result struct {
	Cycles    rtl.Cycle
	Events    uint64
	BytesSent []int64 // injected as a source, per NPU
	MemRead   []int64 // TX DMA, per NPU
	MemWrite  []int64 // RX DMA, per NPU
	// Shares of the run's time, means over NPUs.
	Utilization float64 // at least one chunk in ACE (admitted, not written back)
	SRAMRead    float64
	SRAMWrite   float64
	ALU         float64 // mean over ALUs
	DMA         float64 // the memory given to communication, mean of its read (TX DMA) and write (RX DMA) sides
	FSM         float64 // mean over FSMs: share of time with a chunk to work on
	// FSMBlocked is the part of FSM spent holding a chunk that finished its
	// phase and may not move on yet (no room, or the next phase's FSMs
	// have a chunk waiting each): FSM time lost while work may wait.
	FSMBlocked float64
	// Layout of NPU 0.
	Partitions   []int64
	FSMsPerPhase []int
	// ReadPorts and WritePorts are NPU 0's ports per SRAM bank.
	ReadPorts, WritePorts int
}

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
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rt, err := cfg.rates()
	if err != nil {
		return nil, err
	}
	n := layout.Shape.N()
	if net.NPUs() != n {
		return nil, fmt.Errorf("plan for %d NPUs on a network of %d", n, net.NPUs())
	}
	if hooks == nil {
		hooks = &Hooks{}
	}
	r := &run{k: k, net: net, layout: layout, shape: layout.Shape, cfg: cfg, hooks: hooks,
		info: map[*collectives.Program]*progInfo{}, phases: layout.NumPhases(),
		fold: net.Folded(), checked: map[*collectives.Plan]bool{}}
	nodes := n
	if r.fold {
		if hooks.Init != nil || hooks.Done != nil {
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
		r.nodes = append(r.nodes, nd)
		eps[i] = nd
	}
	net.Attach(eps)
	r.waiters = make([][][]int32, nodes)
	r.resAt = make([][]rtl.Cycle, nodes)
	r.lat = make([][]rtl.Cycle, n)
	for i := range r.lat {
		r.lat[i] = make([]rtl.Cycle, n)
		for j := 0; j < n; j++ {
			for _, h := range layout.Shape.Route(i, j) {
				r.lat[i][j] += net.Out(h.From, h.Port.Index()).Params.Latency
			}
		}
	}
	return &Engine{r: r}, nil
}

// SetLIFO makes ACE load the most recently issued collective's chunks
// before older collectives' chunks that no NPU has loaded yet (the paper's
// default priority, Section V); otherwise chunks load in the order issued.
func (e *Engine) SetLIFO(lifo bool) { e.r.lifo = lifo }

// Issue starts plan's collective on every NPU at cycle now (not before the
// kernel's current cycle); done, if not nil, is called from a kernel event
// at the cycle its last chunk is back in memory on the last NPU.
func (e *Engine) Issue(now rtl.Cycle, plan *collectives.Plan, done func(now rtl.Cycle)) error {
	r := e.r
	l := r.layout
	switch {
	case plan.Shape != l.Shape:
		return fmt.Errorf("ACE: collective planned for %s on an engine for %s", plan.Shape, l.Shape)
	case !r.serves(plan):
		return fmt.Errorf("ACE: a %s (%s, %d phases) on an engine laid out for %s (%s, %d phases): it serves collectives like its layout, and single-phase all-to-alls beside them",
			plan.Op, plan.Algorithm, plan.NumPhases(), l.Op, l.Algorithm, l.NumPhases())
	case now < r.k.Now():
		return fmt.Errorf("ACE: collective issued at cycle %d, before the current cycle %d", now, r.k.Now())
	}
	if r.fold && !r.checked[plan] {
		if err := collectives.CheckEquivariant(plan); err != nil {
			return fmt.Errorf("ACE on a folded network: %w", err)
		}
		r.checked[plan] = true
	}
	co := &aceColl{id: len(r.colls), plan: plan, done: done, pending: len(r.nodes) * plan.NumChunks()}
	r.colls = append(r.colls, co)
	r.k.ScheduleClass(now, rtl.ClassSystem, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { r.create(now, co) }), 0, 0)
	return nil
}

// serves reports whether the engine can run plan: a collective like its
// layout (same operation, algorithm, phases and message size; any size), or
// a single-phase all-to-all beside it (docs/ace-model.md: every FSM can run the
// all-to-all besides its phase). An all-to-all chunk's phase uses the first
// partition, any FSM, and then the terminal partition (docs/ace-model.md).
func (r *run) serves(plan *collectives.Plan) bool {
	l := r.layout
	if plan.MessageBytes != l.MessageBytes {
		return false
	}
	if plan.Op == l.Op && plan.Algorithm == l.Algorithm && plan.NumPhases() == l.NumPhases() {
		return true
	}
	return plan.Op == collectives.OpAllToAll && plan.NumPhases() == 1
}

// create makes co's chunks on every NPU and places them in the order in
// which chunks take SRAM room: last (FIFO), or right after every chunk any
// NPU has already loaded (LIFO). Either way the order is the same on every
// NPU, which keeps the chunk flow deadlock-free (docs/ace-model.md).
func (r *run) create(now rtl.Cycle, co *aceColl) {
	nc := co.plan.NumChunks()
	first := int32(len(r.rank))
	co.first = first
	at := len(r.order)
	if r.lifo {
		at = 0
		for _, nd := range r.nodes {
			at = max(at, nd.nextAdmit)
		}
	}
	ids := make([]int32, nc)
	for c := range ids {
		ids[c] = first + int32(c)
		r.rank = append(r.rank, 0)
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
	for _, nd := range r.nodes {
		for c := 0; c < nc; c++ {
			nd.chunks = append(nd.chunks, &chunk{id: first + int32(c), coll: co, local: int32(c), len: co.plan.ChunkLen(c),
				reserved: make([]bool, r.phases+1), fsm: make([]int, r.phases), buffered: map[int64][]fabric.Packet{}})
		}
		nd.kick(now)
	}
}

// Unfinished returns how many issued collectives have not finished.
func (e *Engine) Unfinished() int {
	n := 0
	for _, co := range e.r.colls {
		if co.pending > 0 {
			n++
		}
	}
	return n
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

// aceColl is one collective in flight.
type aceColl struct {
	id      int
	plan    *collectives.Plan
	first   int32 // global number of its chunk 0
	pending int   // chunk × NPU pairs not written back
	done    func(now rtl.Cycle)
}

type run struct {
	k      *rtl.Kernel
	net    *fabric.Network
	layout *collectives.Plan
	shape  torus.Shape
	cfg    Config
	hooks  *Hooks
	nodes  []*node
	info   map[*collectives.Program]*progInfo
	phases int
	colls  []*aceColl
	lifo   bool
	// order is the global numbers of every chunk issued, in the order they
	// take SRAM room; rank[id] is a chunk's place in it.
	order []int32
	rank  []int32
	// Rendezvous: resAt[npu][chunk*(phases+1)+phase] is the cycle NPU npu
	// made room for that chunk's phase (-1: not yet); waiters are the NPUs
	// to wake when it does; lat[a][b] is the latency of the route from a to
	// b, which a receive-ready notice takes. On a folded network there is
	// one row, NPU 0's, which stands for every NPU's, and a waiter is
	// recorded by its displacement from the NPU it waits on.
	resAt   [][]rtl.Cycle
	waiters [][][]int32
	lat     [][]rtl.Cycle
	// fold: the network is folded and the one node stands for every NPU;
	// checked holds the plans found equivariant.
	fold    bool
	checked map[*collectives.Plan]bool
}

// row is the node, and rendezvous row, that stands for NPU npu.
func (r *run) row(npu int) int {
	if r.fold {
		return 0
	}
	return npu
}

func (r *run) pending() int {
	n := 0
	for _, co := range r.colls {
		n += co.pending
	}
	return n
}

// progInfo is derived once per program.
type progInfo struct {
	ndeps      []int16
	dependents [][]int32
	flow       collectives.Flow
	packets    []int32
}

func (r *run) infoOf(p *collectives.Program) *progInfo {
	if pi, ok := r.info[p]; ok {
		return pi
	}
	pi := &progInfo{flow: collectives.Analyze(p), packets: make([]int32, len(p.Ops))}
	pi.ndeps, pi.dependents = p.DepGraph()
	for i, op := range p.Ops {
		pi.packets[i] = int32(fabric.PacketCount(op.Data.Len))
	}
	r.info[p] = pi
	return pi
}

// Chunk states.
const (
	csWaiting = iota // not admitted yet
	csDMAIn          // TX DMA loading it into partition 1
	csPhase          // in a phase (queued at or heading its FSM)
	csDMAOut         // in the terminal partition, RX DMA writing it back
	csDone
)

// chunk is one chunk's state on one NPU.
type chunk struct {
	id        int32 // global number (the same on every NPU)
	coll      *aceColl
	local     int32 // number within its collective
	len       int64
	state     int
	phase     int32
	fsm       []int // assigned FSM per phase
	active    bool  // heads its FSM's queue in its phase
	blocked   bool  // phase done, waiting for room in the next partition
	reserved  []bool
	dma       int64 // bytes the DMA has started moving
	dmaDone   int64 // bytes the DMA has finished moving
	prog      *collectives.Program
	pi        *progInfo
	deps      []int16
	done      []bool
	progress  []int32 // packets sent (sends) or processed (receives)
	msgs      []*fabric.Message
	remaining int
	work      []int32                   // ops with something to start: ready sends, receives with buffered packets
	buffered  map[int64][]fabric.Packet // (phase, op) → packets absorbed before the op could take them
	vals      []int64
}

// doneChunk stands for every chunk written back, so its state can be freed.
var doneChunk = &chunk{id: -1, state: csDone}

func bufKey(ph, op int32) int64 { return int64(ph)<<32 | int64(op) }

type outPort struct {
	link     *fabric.Link
	reserved int                      // slots promised to started sub-steps
	transit  *rtl.FIFO[fabric.Packet] // absorbed packets for other NPUs
}

// node is one NPU's ACE with its AFI.
type node struct {
	id                      int
	r                       *run
	memRd, memWr, busIn     *rtl.Serializer
	busOut                  *rtl.Serializer
	sramRd, sramWr          *rtl.Serializer
	ports                   [2]int // read and write ports per SRAM bank
	alus                    rtl.Pool
	part, used              []int64
	fsmQ                    [][]*chunk
	fsmPhase                []int
	rr                      int
	chunks                  []*chunk
	nextAdmit               int
	waiting                 []int // per phase, chunks that wait for one of its FSMs (loading, or queued behind the FSM's current chunk)
	txq, rxq                []*chunk
	in                      []*fabric.Link
	out                     [torus.NumPorts]*outPort
	kicks                   []rtl.Cycle         // cycles with a kick scheduled, ascending
	freed                   bool                // a partition released room since the last kick
	startedAt               rtl.Cycle           // the last cycle a sub-step was started
	finished                int                 // chunks written back
	views                   map[viewKey][]int64 // per operation and chunk length, each partition's room for a chunk
	nextIn                  []int32             // per partition, the next chunk allowed to take room
	fsmNext                 []*rtl.FIFO[int32]  // per FSM, the places in the loading order of the chunks it works on, in order
	sent, memRead, memWrite int64
	inACE                   int
	utilFrom                rtl.Cycle
	utilCycles              int64
	fsmFrom                 []rtl.Cycle
	fsmCycles               int64
	blockedFrom             []rtl.Cycle // per FSM, when its chunk finished its phase and found no way on
	blockedCycles           int64       // FSM time spent holding a chunk that finished its phase
	fx                      []effect
	freeFx                  []int32
	firstFSM, split         []int // per phase, its first FSM and how many it has
	finishedOf              map[int]int
}

func (r *run) newNode(id int, net *fabric.Network, rt rates) (*node, error) {
	cfg := r.cfg
	prof := profile(r.layout, net, id)
	result := int64(0)
	clen := r.layout.ChunkLen(0)
	last := r.layout.Program(id, r.phases-1, clen)
	for _, o := range last.Out {
		result += o.Len
	}
	w := littleWeights(prof, result, rt.dma(), cfg.Notice)
	if cfg.Partition == PartitionPaper {
		w = paperWeights(prof)
	}
	part, err := partitions(cfg.SRAMBytes, prof, result, w)
	if err != nil {
		return nil, fmt.Errorf("NPU %d: %w", id, err)
	}
	split, err := splitFSMs(cfg.FSMs, prof, cfg.FSMSplit)
	if err != nil {
		return nil, err
	}
	rdPorts, wrPorts, err := cfg.Ports(net, id)
	if err != nil {
		return nil, err
	}
	bank := int64(cfg.Banks) * rt.port.Num
	rd, wr := rtl.Rate{Num: bank * int64(rdPorts), Den: 1}, rtl.Rate{Num: bank * int64(wrPorts), Den: 1}
	nd := &node{
		id: id, r: r,
		memRd: rtl.NewSerializer(rt.mem), memWr: rtl.NewSerializer(rt.mem),
		busIn: rtl.NewSerializer(rt.bus), busOut: rtl.NewSerializer(rt.bus),
		sramRd: rtl.NewSerializer(rd), sramWr: rtl.NewSerializer(wr), ports: [2]int{rdPorts, wrPorts},
		alus: rtl.NewPool(cfg.ALUs, rt.alu),
		part: part, used: make([]int64, len(part)), nextIn: make([]int32, len(part)), startedAt: -1,
		views: map[viewKey][]int64{},
	}
	first := make([]int, len(split)) // first FSM id of each phase
	for ph, c := range split {
		first[ph] = len(nd.fsmPhase)
		for j := 0; j < c; j++ {
			nd.fsmPhase = append(nd.fsmPhase, ph)
		}
	}
	nd.fsmQ = make([][]*chunk, len(nd.fsmPhase))
	for range nd.fsmPhase {
		nd.fsmNext = append(nd.fsmNext, rtl.NewFIFO[int32](0))
	}
	nd.fsmFrom = make([]rtl.Cycle, len(nd.fsmPhase))
	nd.blockedFrom = make([]rtl.Cycle, len(nd.fsmPhase))
	nd.firstFSM, nd.split = first, split
	nd.waiting = make([]int, len(split))
	for p := 0; p < torus.NumPorts; p++ {
		if l := net.Out(id, p); l != nil {
			nd.out[p] = &outPort{link: l, transit: rtl.NewFIFO[fabric.Packet](0)}
		}
	}
	return nd, nil
}

// An effect is what happens when a started sub-step finishes.
type effect struct {
	kind   int32
	c      *chunk
	op     int32
	pkt    fabric.Packet
	port   int
	bytes  int64
	fwd    []int32 // forwards to push a packet of
	absorb int32   // phase of an absorbed packet
}

const (
	fxTxDMA int32 = iota
	fxRxDMA
	fxSend
	fxRecv
	fxAbsorb
	fxTransitIn
	fxTransitOut
	evKick   int32 = 100
	evNotice int32 = 101
)

func (nd *node) after(end rtl.Cycle, e effect) {
	nd.startedAt = nd.r.k.Now()
	var i int32
	if n := len(nd.freeFx); n > 0 {
		i = nd.freeFx[n-1]
		nd.freeFx = nd.freeFx[:n-1]
		nd.fx[i] = e
	} else {
		i = int32(len(nd.fx))
		nd.fx = append(nd.fx, e)
	}
	nd.r.k.Schedule(end, nd, e.kind, int64(i))
}

// scheduleKick asks for a kick at cycle t. A node kicks at most once a
// cycle, after all its other events of the cycle (rtl.ClassControl), and at
// every cycle it was asked to: so when it kicks depends only on what
// happened, not on the order in which NPUs' events ran within a cycle.
func (nd *node) scheduleKick(t rtl.Cycle) {
	i, found := slices.BinarySearch(nd.kicks, t)
	if found {
		return
	}
	nd.kicks = slices.Insert(nd.kicks, i, t)
	nd.r.k.ScheduleClass(t, rtl.ClassControl, nd, evKick, 0)
}

// Handle runs the node's events: kicks and finished sub-steps.
func (nd *node) Handle(now rtl.Cycle, kind int32, arg int64) {
	switch kind {
	case evKick:
		if i, found := slices.BinarySearch(nd.kicks, now); found {
			nd.kicks = slices.Delete(nd.kicks, i, i+1)
		}
		nd.kick(now)
		return
	case evNotice:
		nd.scheduleKick(now)
		return
	}
	e := nd.fx[arg]
	nd.fx[arg] = effect{}
	nd.freeFx = append(nd.freeFx, int32(arg))
	nd.finish(now, e)
	nd.scheduleKick(now)
}

// PacketArrived wakes the node to take the packet when it can.
func (nd *node) PacketArrived(now rtl.Cycle, _ *fabric.Link) { nd.scheduleKick(now) }

// SpaceAvailable wakes the node when an output port buffer has room.
func (nd *node) SpaceAvailable(now rtl.Cycle, _ *fabric.Link) { nd.scheduleKick(now) }

func (nd *node) slot(p int) bool { return nd.slots(p, 1) }

// slots reports whether output port p has room for n more packets beyond
// those already promised, and otherwise asks to be woken when it frees.
func (nd *node) slots(p, n int) bool {
	o := nd.out[p]
	if o.link.TxSpace()-o.reserved >= n {
		return true
	}
	o.link.WantSpace()
	return false
}

func (nd *node) trace(s SubStep) {
	if t := nd.r.hooks.Trace; t != nil {
		s.NPU = nd.id
		t(s)
	}
}

// kick starts every sub-step that can start now, in a fixed order: the DMA
// engines (they feed and drain the pipeline, at the memory's pace), input
// port buffers in link order, packets in transit, then the FSMs round-robin. A sub-step held up by a busy resource is retried when the
// resource frees; one held up by buffer space or partition room is retried
// when that changes (SpaceAvailable, a partition release).
func (nd *node) kick(now rtl.Cycle) {
	retry := rtl.Cycle(-1)
	wait := func(t rtl.Cycle) {
		if t > now && (retry < 0 || t < retry) {
			retry = t
		}
	}
	if nd.freed { // room was released: chunks waiting for it may move
		nd.freed = false
		nd.unblock(now)
	}
	nd.admit(now)
	if nd.r.cfg.Notice == NoticeRoom {
		nd.reserveAhead(now)
	}
	// Three groups compete for the SRAM ports and ALUs: the DMA engines,
	// the input port buffers (with packets in transit), and the FSMs. The
	// group served first rotates every cycle.
	groups := [3]func(){
		func() {
			wait(nd.dmaIn(now))
			wait(nd.dmaOut(now))
		},
		func() {
			for _, l := range nd.in {
				wait(nd.takeInput(now, l))
			}
			for p, o := range nd.out {
				if o != nil && o.transit.Len() > 0 && nd.slot(p) {
					pkt, _ := o.transit.Peek()
					end, ok, t := rtl.StartAll(now, rtl.Need{S: nd.sramRd, Bytes: int64(pkt.Bytes)})
					if !ok {
						wait(t)
						continue
					}
					o.transit.Pop()
					o.reserved++
					nd.after(end, effect{kind: fxTransitOut, pkt: pkt, port: p})
				}
			}
		},
		func() {
			for j := 0; j < len(nd.fsmQ); j++ {
				q := nd.fsmQ[(nd.rr+j)%len(nd.fsmQ)]
				if len(q) > 0 && q[0].active {
					wait(nd.fsmStep(now, q[0]))
				}
			}
		},
	}
	first := int(now % 3)
	for g := 0; g < 3; g++ {
		groups[(first+g)%3]()
	}
	f := len(nd.fsmQ)
	nd.rr = (nd.rr + 1) % f
	// Sub-steps started this cycle hold their resources for a cycle or more;
	// while anything was started, look again next cycle, when a packet
	// behind the one just taken from an input buffer may go to another ALU.
	if nd.startedAt == now {
		nd.scheduleKick(now + 1)
	} else if retry > 0 {
		nd.scheduleKick(retry)
	}
}

// admit takes chunks in order into partition 1 while it has room.
func (nd *node) admit(now rtl.Cycle) {
	r := nd.r
	for nd.nextAdmit < len(r.order) {
		c := nd.chunks[r.order[nd.nextAdmit]]
		// A chunk's FSMs follow its place in the loading order, so each FSM
		// takes every split[ph]-th chunk of that order; an all-to-all
		// chunk (one phase) takes every FSM in turn. Each FSM works on its
		// chunks in that order.
		rk := int(r.rank[c.id])
		if c.coll.plan.NumPhases() == r.phases {
			for ph, n := range nd.split {
				c.fsm[ph] = nd.firstFSM[ph] + rk%n
			}
		} else {
			c.fsm[0] = rk % len(nd.fsmQ)
		}
		if !nd.mayQueue(c, 0) || !nd.reserve(c, 0) {
			return
		}
		for ph := 0; ph < c.coll.plan.NumPhases(); ph++ {
			nd.fsmNext[c.fsm[ph]].Push(int32(rk))
		}
		c.state = csDMAIn
		if nd.inACE == 0 {
			nd.utilFrom = now
		}
		nd.inACE++
		if nd.r.hooks.Init != nil {
			c.vals = nd.r.hooks.Init(nd.id, int(c.local))
		}
		nd.txq = append(nd.txq, c)
		nd.nextAdmit++
		nd.wait(c, 0, 1)
	}
}

// mayQueue reports whether chunk c may join the queue of its FSM for phase
// ph (be loaded, for the first phase) under --prefetch fsm: while fewer
// chunks wait for the FSMs of that phase than it has FSMs (each FSM one
// chunk ready behind its current one), or when c is the next chunk its FSM
// works on, so the oldest chunk always moves (docs/ace-model.md, "Loading
// ahead").
func (nd *node) mayQueue(c *chunk, ph int) bool {
	if nd.r.cfg.Prefetch != PrefetchFSM {
		return true
	}
	f := c.fsm[ph]
	g := nd.fsmPhase[f]
	if nd.waiting[g] < nd.split[g] {
		return true
	}
	next, ok := nd.fsmNext[f].Peek()
	if ph == 0 {
		return !ok // admission pushes c last: it is next only on an idle FSM
	}
	return ok && next == nd.r.rank[c.id]
}

// wait counts chunk c in (d = 1) or out of (d = -1) the chunks waiting for
// an FSM of the phase its FSM for phase ph serves (an all-to-all chunk's
// FSM may serve any phase).
func (nd *node) wait(c *chunk, ph, d int) {
	nd.waiting[nd.fsmPhase[c.fsm[ph]]] += d
}

// reserveAhead grants room ahead (Notice "room"): every phase's partition
// takes the loaded chunks in order while it has room, whichever phase they
// are in, and announces each one to its senders at once, so the notice
// travels while the chunk is still in an earlier phase.
//
// A chunk that finished its phase and waited for this room moves on now.
func (nd *node) reserveAhead(now rtl.Cycle) {
	r := nd.r
	woke := false
	for ph := 1; ph < r.phases; ph++ {
		for nd.skipUnused(ph); int(nd.nextIn[ph]) < nd.nextAdmit; nd.skipUnused(ph) {
			c := nd.chunks[r.order[nd.nextIn[ph]]]
			if !nd.reserve(c, ph) {
				break
			}
			woke = woke || (c.blocked && c.active)
		}
	}
	if woke {
		nd.unblock(now)
	}
}

// skipUnused moves partition ph's next place in the loading order past the
// loaded chunks that never use it: written back already, or an
// all-to-all's, which go from the first partition to the terminal one.
func (nd *node) skipUnused(ph int) {
	r := nd.r
	for ph > 0 && ph < r.phases && int(nd.nextIn[ph]) < nd.nextAdmit {
		if x := nd.chunks[r.order[nd.nextIn[ph]]]; x != doneChunk && x.coll.plan.NumPhases() > ph {
			return
		}
		nd.nextIn[ph]++
	}
}

// viewOf returns the bytes partition ph must hold for chunk c (the terminal
// partition holds its result).
func (nd *node) viewOf(c *chunk, ph int) int64 {
	plan := c.coll.plan
	key := viewKey{plan.Op, c.len}
	v, ok := nd.views[key]
	if !ok {
		np := plan.NumPhases()
		v = make([]int64, nd.r.phases+1) // partitions of phases a plan lacks stay 0
		for p := 0; p < np; p++ {
			v[p] = plan.Program(nd.id, p, c.len).ViewLen()
		}
		for _, o := range plan.Program(nd.id, np-1, c.len).Out {
			v[nd.r.phases] += o.Len
		}
		nd.views[key] = v
	}
	return v[ph]
}

// viewKey names the plans whose chunks of a length need the same room:
// the engine serves one algorithm per operation.
type viewKey struct {
	op  collectives.CollectiveOp
	len int64
}

// nextPart is the partition chunk c goes to after its current phase: the
// next phase's, or the terminal one after its plan's last phase.
func (nd *node) nextPart(c *chunk) int {
	if next := int(c.phase) + 1; next < c.coll.plan.NumPhases() {
		return next
	}
	return nd.r.phases
}

// reserve takes room for chunk c in partition ph. Chunks take a partition's
// room in creation order on every NPU [choice, docs/ace-model.md]: peers then
// hold the same window of chunks in a phase, so a packet that waits in an
// input buffer for room never waits behind one that its own chunk needs.
func (nd *node) reserve(c *chunk, ph int) bool {
	if c.reserved[ph] {
		return true
	}
	r := nd.r
	nd.skipUnused(ph)
	if nd.nextIn[ph] != r.rank[c.id] {
		return false
	}
	v := nd.viewOf(c, ph)
	if nd.used[ph]+v > nd.part[ph] {
		return false
	}
	nd.used[ph] += v
	c.reserved[ph] = true
	nd.nextIn[ph]++
	if r.cfg.Notice == NoticeRoom && ph < r.phases && ph < c.coll.plan.NumPhases() {
		nd.announce(c, ph)
	}
	return true
}

// announce tells the NPUs waiting to send chunk c's phase ph to this NPU
// that its FSM now works on it; the notice takes each route's latency.
func (nd *node) announce(c *chunk, ph int) {
	r := nd.r
	now := r.k.Now()
	i := int(c.id)*(r.phases+1) + ph
	r.resAt[nd.id][i] = now
	for _, w := range r.waiters[nd.id][i] {
		// A notice of its own class: it takes the same place among the
		// waiter's events whichever NPU's events ran first.
		r.k.ScheduleClass(now+r.lat[nd.id][w], rtl.ClassNotice, r.nodes[r.row(int(w))], evNotice, 0)
	}
	r.waiters[nd.id][i] = nil
}

// peerReady reports whether NPU dst has made room for chunk c's phase ph
// and its notice has reached this NPU (receive-ready rendezvous: a sender
// sends a chunk's phase only into room the receiver holds for it, so a
// packet never waits in an input buffer for room). Otherwise it returns the
// cycle to look again, or -1 to be woken when the room is made.
func (nd *node) peerReady(c *chunk, ph int32, dst int32) (bool, rtl.Cycle) {
	r := nd.r
	i := int(c.id)*(r.phases+1) + int(ph)
	row, me := r.row(int(dst)), int32(nd.id)
	if r.fold {
		me = int32(r.shape.Displacement(int(dst), nd.id))
	}
	at := r.resAt[row][i]
	if at < 0 {
		for _, w := range r.waiters[row][i] {
			if w == me {
				return false, -1
			}
		}
		r.waiters[row][i] = append(r.waiters[row][i], me)
		return false, -1
	}
	seen := at + r.lat[dst][nd.id]
	if seen > r.k.Now() {
		return false, seen
	}
	return true, 0
}

func (nd *node) release(c *chunk, ph int) {
	if c.reserved[ph] {
		nd.used[ph] -= nd.viewOf(c, ph)
		c.reserved[ph] = false
		nd.freed = true
	}
}

// dmaIn moves the next piece (at most a packet) of the oldest loading chunk
// from memory into SRAM: memory read, NPU–AFI bus and an SRAM write port.
func (nd *node) dmaIn(now rtl.Cycle) rtl.Cycle {
	return nd.dmaStep(now, &nd.txq, 0, fxTxDMA, "dma-in", nd.memRd, nd.busIn, nd.sramWr, &nd.memRead)
}

// dmaOut writes the next piece of the oldest finished chunk back to memory:
// an SRAM read port, NPU–AFI bus and memory write.
func (nd *node) dmaOut(now rtl.Cycle) rtl.Cycle {
	return nd.dmaStep(now, &nd.rxq, nd.r.phases, fxRxDMA, "dma-out", nd.sramRd, nd.busOut, nd.memWr, &nd.memWrite)
}

// dmaStep starts the next piece (at most a packet) of the head of a DMA
// queue, moving the chunk's room in partition part through three resources.
func (nd *node) dmaStep(now rtl.Cycle, q *[]*chunk, part int, kind int32, name string, a, b, c *rtl.Serializer, count *int64) rtl.Cycle {
	if len(*q) == 0 {
		return -1
	}
	ch := (*q)[0]
	total := nd.viewOf(ch, part)
	n := min(int64(fabric.PacketBytes), total-ch.dma)
	end, ok, t := rtl.StartAll(now, rtl.Need{S: a, Bytes: n}, rtl.Need{S: b, Bytes: n}, rtl.Need{S: c, Bytes: n})
	if !ok {
		return t
	}
	ch.dma += n
	*count += n
	if ch.dma == total {
		*q = (*q)[1:]
	}
	nd.trace(SubStep{Start: now, End: end, Chunk: int(ch.id), Phase: min(part, nd.r.phases-1), Op: -1, Kind: name, Bytes: n})
	nd.after(end, effect{kind: kind, c: ch, bytes: n})
	return -1
}

// takeInput starts the processing of the packet at the head of an input
// port buffer, if it can start now.
func (nd *node) takeInput(now rtl.Cycle, l *fabric.Link) rtl.Cycle {
	pkt, ok := l.RxPeek()
	if !ok {
		return -1
	}
	pkt = nd.r.shape.Arrived(nd.r.net, l, pkt)
	m := pkt.Msg
	b := int64(pkt.Bytes)
	if dst := nd.r.shape.PacketDst(pkt); dst != nd.id { // passing through: absorb into SRAM, send on later
		end, ok, t := rtl.StartAll(now, rtl.Need{S: nd.sramWr, Bytes: b})
		if !ok {
			return t
		}
		l.Receive()
		hop, _ := nd.r.shape.NextHop(nd.id, dst)
		nd.after(end, effect{kind: fxTransitIn, pkt: pkt, port: hop.Index()})
		return -1
	}
	c := nd.chunks[m.Chunk]
	op := m.Op
	// Packets of one message are interchangeable to the data path (values
	// move per message, the forward's packets are numbered as they go), so a
	// packet may be processed directly even when earlier ones of its message
	// were absorbed.
	if c.state == csPhase && c.active && c.phase == m.Phase && c.deps[op] == 0 {
		needs, ports, t, ok := nd.recvNeeds(c, op, b, false)
		if ok {
			end, ok, t := rtl.StartAll(now, needs...)
			if !ok {
				return t // a resource is busy: try again when it frees
			}
			l.Receive()
			nd.beginRecv(now, end, c, op, pkt, ports, "recv")
			return -1
		}
		if t > 0 {
			return t
		}
		// A forward has no room on its port, or its receiver no room yet:
		// rather than hold up the input buffer, absorb the packet and
		// forward it from SRAM later.
	}
	// Not ready for it yet: absorb it into the phase's partition.
	if !nd.reserve(c, int(m.Phase)) {
		return -1 // no room: it waits in the input buffer (back-pressure)
	}
	end, ok, t := rtl.StartAll(now, rtl.Need{S: nd.sramWr, Bytes: b})
	if !ok {
		return t
	}
	l.Receive()
	nd.trace(SubStep{Start: now, End: end, Chunk: int(c.id), Phase: int(m.Phase), Op: int(op), Kind: "absorb", Bytes: b})
	nd.after(end, effect{kind: fxAbsorb, c: c, op: op, pkt: pkt, absorb: m.Phase})
	return -1
}

// recvNeeds lists the resources processing one packet of receive op needs:
// the local operand read and an ALU for a reduce, an SRAM write when the
// result is live, a slot on every forward's port. fromSRAM adds the read of
// a packet absorbed earlier.
func (nd *node) recvNeeds(c *chunk, op int32, b int64, fromSRAM bool) ([]rtl.Need, []int, rtl.Cycle, bool) {
	o := &c.prog.Ops[op]
	var needs []rtl.Need
	read := int64(0)
	if fromSRAM {
		read += b
	}
	if o.Reduce {
		read += b
		alu, t := nd.alus.Free(nd.r.k.Now())
		if alu == nil {
			return nil, nil, t, false
		}
		needs = append(needs, rtl.Need{S: alu, Bytes: b})
	}
	if read > 0 {
		needs = append(needs, rtl.Need{S: nd.sramRd, Bytes: read})
	}
	if c.pi.flow.Store[op] && (o.Reduce || !fromSRAM) {
		needs = append(needs, rtl.Need{S: nd.sramWr, Bytes: b})
	}
	var ports []int
	for _, f := range c.pi.flow.Forwards[op] {
		if ok, t := nd.peerReady(c, c.phase, c.prog.Ops[f].Peer); !ok {
			return nil, nil, t, false
		}
		p := nd.sendPort(c, f)
		n := 1
		for _, q := range ports {
			if q == p {
				n++
			}
		}
		if !nd.slots(p, n) {
			return nil, nil, -1, false
		}
		ports = append(ports, p)
	}
	return needs, ports, 0, true
}

func (nd *node) beginRecv(now, end rtl.Cycle, c *chunk, op int32, pkt fabric.Packet, ports []int, kind string) {
	for _, p := range ports {
		nd.out[p].reserved++
	}
	if c.msgs[op] == nil {
		c.msgs[op] = pkt.Msg
	}
	if c.prog.Ops[op].Reduce {
		kind += "-reduce"
	} else {
		kind += "-store"
	}
	nd.trace(SubStep{Start: now, End: end, Chunk: int(c.id), Phase: int(c.phase), Op: int(op), Kind: kind, Bytes: int64(pkt.Bytes)})
	nd.after(end, effect{kind: fxRecv, c: c, op: op, pkt: pkt, fwd: c.pi.flow.Forwards[op]})
}

func (nd *node) sendPort(c *chunk, op int32) int {
	o := &c.prog.Ops[op]
	if o.Port == collectives.RouteXYZ {
		hop, _ := nd.r.shape.NextHop(nd.id, int(o.Peer))
		return hop.Index()
	}
	return int(o.Port)
}

// fsmStep starts one sub-step for the chunk an FSM works on: the first of
// its ready ops that can start (a packet of a send, or a packet absorbed
// earlier for a receive).
func (nd *node) fsmStep(now rtl.Cycle, c *chunk) rtl.Cycle {
	retry := rtl.Cycle(-1)
	for _, op := range c.work {
		o := &c.prog.Ops[op]
		if o.Kind == collectives.Send {
			if ok, t := nd.peerReady(c, c.phase, o.Peer); !ok {
				if t > 0 && (retry < 0 || t < retry) {
					retry = t
				}
				continue
			}
			p := nd.sendPort(c, op)
			if !nd.slot(p) {
				continue
			}
			b := int64(fabric.PacketOf(nd.sendMsg(c, op), c.progress[op]).Bytes)
			end, ok, t := rtl.StartAll(now, rtl.Need{S: nd.sramRd, Bytes: b})
			if !ok {
				if retry < 0 || t < retry {
					retry = t
				}
				continue
			}
			pkt := fabric.PacketOf(c.msgs[op], c.progress[op])
			c.progress[op]++
			nd.out[p].reserved++
			nd.trace(SubStep{Start: now, End: end, Chunk: int(c.id), Phase: int(c.phase), Op: int(op), Kind: "send", Bytes: b})
			nd.after(end, effect{kind: fxSend, c: c, op: op, pkt: pkt, port: p})
			if c.progress[op] == c.pi.packets[op] {
				nd.dropWork(c, op)
			}
			return -1
		}
		key := bufKey(c.phase, op)
		q := c.buffered[key]
		if len(q) == 0 {
			continue
		}
		pkt := q[0]
		needs, ports, t, ok := nd.recvNeeds(c, op, int64(pkt.Bytes), true)
		if !ok {
			if t > 0 && (retry < 0 || t < retry) {
				retry = t
			}
			continue
		}
		end, ok, t := rtl.StartAll(now, needs...)
		if !ok {
			if retry < 0 || t < retry {
				retry = t
			}
			continue
		}
		c.buffered[key] = q[1:]
		if len(q) == 1 {
			delete(c.buffered, key)
			nd.dropWork(c, op)
		}
		nd.beginRecv(now, end, c, op, pkt, ports, "buffered")
		return -1
	}
	return retry
}

// sendMsg returns (creating it on the first packet) the message of send op.
func (nd *node) sendMsg(c *chunk, op int32) *fabric.Message {
	if m := c.msgs[op]; m != nil {
		return m
	}
	o := &c.prog.Ops[op]
	m := fabric.NewMessage(nd.id, int(o.Peer), o.Data.Len)
	m.Chunk, m.Phase, m.Op = c.id, c.phase, o.Match
	if c.vals != nil && c.pi.flow.ForwardOf[op] < 0 {
		m.Values = collectives.Gather(c.vals, c.prog.View, o.Data)
	}
	nd.sent += o.Data.Len
	c.msgs[op] = m
	return m
}

func (nd *node) dropWork(c *chunk, op int32) {
	for i, w := range c.work {
		if w == op {
			c.work = append(c.work[:i], c.work[i+1:]...)
			return
		}
	}
}

func (nd *node) addWork(c *chunk, op int32) {
	for _, w := range c.work {
		if w == op {
			return
		}
	}
	c.work = append(c.work, op)
	sort.Slice(c.work, func(i, j int) bool { return c.work[i] < c.work[j] })
}

// finish applies a finished sub-step.
func (nd *node) finish(now rtl.Cycle, e effect) {
	c := e.c
	switch e.kind {
	case fxTxDMA:
		c.dmaDone += e.bytes
		if c.dmaDone == nd.viewOf(c, 0) {
			c.dma, c.dmaDone = 0, 0
			nd.enterPhase(now, c, 0)
		}
	case fxRxDMA:
		c.dmaDone += e.bytes
		if c.dmaDone == nd.viewOf(c, nd.r.phases) {
			nd.release(c, nd.r.phases)
			c.state = csDone
			if nd.r.hooks.Done != nil {
				nd.r.hooks.Done(nd.id, int(c.local), c.vals)
				c.vals = nil
			}
			nd.inACE--
			if nd.inACE == 0 {
				nd.utilCycles += int64(now - nd.utilFrom)
			}
			co := c.coll
			if nd.finishedOf == nil {
				nd.finishedOf = map[int]int{}
			}
			nd.finishedOf[co.id]++
			all := nd.finishedOf[co.id] == co.plan.NumChunks()
			if all {
				delete(nd.finishedOf, co.id)
			}
			if irq := nd.r.hooks.Interrupt; irq != nil {
				irq(nd.id, int(c.local), now)
				if all {
					irq(nd.id, -1, now)
				}
			}
			nd.chunks[c.id] = doneChunk // free the chunk's state
			co.pending--
			if co.pending == 0 && co.done != nil {
				// After every NPU's events of the cycle (rtl.ClassSystem).
				nd.r.k.ScheduleClass(now, rtl.ClassSystem, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { co.done(now) }), 0, 0)
			}
		}
	case fxSend:
		nd.push(e.port, e.pkt)
		if e.pkt.Last() {
			nd.complete(now, c, e.op)
		}
	case fxTransitIn:
		nd.out[e.port].transit.Push(e.pkt)
	case fxTransitOut:
		nd.push(e.port, e.pkt)
	case fxAbsorb:
		key := bufKey(e.absorb, e.op)
		c.buffered[key] = append(c.buffered[key], e.pkt)
		if c.state == csPhase && c.active && c.phase == e.absorb && c.deps[e.op] == 0 {
			nd.addWork(c, e.op)
		}
	case fxRecv:
		op := e.op
		c.progress[op]++
		for _, f := range e.fwd {
			fm := nd.sendMsg(c, f)
			nd.push(nd.sendPort(c, f), fabric.PacketOf(fm, c.progress[f]))
			c.progress[f]++
		}
		if c.progress[op] == c.pi.packets[op] {
			if c.vals != nil {
				o := &c.prog.Ops[op]
				collectives.Scatter(c.vals, c.prog.View, o.Data, c.msgs[op].Values, o.Reduce)
				for _, f := range e.fwd {
					c.msgs[f].Values = collectives.Gather(c.vals, c.prog.View, c.prog.Ops[f].Data)
				}
			}
			nd.complete(now, c, op)
		}
	}
}

func (nd *node) push(p int, pkt fabric.Packet) {
	o := nd.out[p]
	o.reserved--
	if !o.link.Send(pkt) {
		panic(fmt.Sprintf("ace: NPU %d: output port %d refused a packet it had a slot for", nd.id, p))
	}
}

// enterPhase queues chunk c at its FSM for phase ph (its partition room is
// already reserved).
func (nd *node) enterPhase(now rtl.Cycle, c *chunk, ph int32) {
	if ph > 0 {
		nd.wait(c, int(ph), 1) // (admission counted phase 1)
	}
	c.state, c.phase, c.blocked = csPhase, ph, false
	f := c.fsm[ph]
	// The FSM's queue is in creation order: it works on its chunks in the
	// order they were created (Section IV-F), so a chunk that comes early
	// waits for the older ones assigned to the same FSM.
	q := append(nd.fsmQ[f], c)
	rank := nd.r.rank
	for i := len(q) - 1; i > 0 && rank[q[i].id] < rank[q[i-1].id]; i-- {
		q[i], q[i-1] = q[i-1], q[i]
	}
	nd.fsmQ[f] = q
	nd.startFSM(now, f)
}

// startFSM activates the head of FSM f's queue if it is the chunk the FSM
// works on next.
func (nd *node) startFSM(now rtl.Cycle, f int) {
	q := nd.fsmQ[f]
	if len(q) == 0 || q[0].active {
		return
	}
	if next, ok := nd.fsmNext[f].Peek(); !ok || nd.r.rank[q[0].id] != next {
		return
	}
	nd.fsmFrom[f] = now
	nd.activate(now, q[0])
}

// activate makes c the chunk its FSM works on.
func (nd *node) activate(now rtl.Cycle, c *chunk) {
	prog := c.coll.plan.Program(nd.id, int(c.phase), c.len)
	pi := nd.r.infoOf(prog)
	c.active, c.prog, c.pi = true, prog, pi
	nd.wait(c, int(c.phase), -1)
	if nd.r.cfg.Prefetch == PrefetchFSM {
		nd.freed = true // a chunk may now load, or enter this phase
		nd.scheduleKick(now)
	}
	if nd.r.cfg.Notice == NoticeFSM {
		nd.announce(c, int(c.phase))
	}
	c.deps = append(c.deps[:0], pi.ndeps...)
	c.done = make([]bool, len(prog.Ops))
	c.progress = make([]int32, len(prog.Ops))
	c.msgs = make([]*fabric.Message, len(prog.Ops))
	c.remaining = len(prog.Ops)
	c.work = c.work[:0]
	if c.remaining == 0 {
		nd.phaseDone(now, c)
		return
	}
	for i := range prog.Ops {
		if c.deps[i] == 0 {
			nd.ready(c, int32(i))
		}
	}
}

// ready notes that op i's dependences are met.
func (nd *node) ready(c *chunk, i int32) {
	o := &c.prog.Ops[i]
	switch {
	case o.Kind == collectives.Send && c.pi.flow.ForwardOf[i] < 0:
		nd.addWork(c, i)
	case o.Kind == collectives.Recv && len(c.buffered[bufKey(c.phase, i)]) > 0:
		nd.addWork(c, i)
	}
}

// complete finishes op i of c's current phase.
func (nd *node) complete(now rtl.Cycle, c *chunk, i int32) {
	ph := c.phase
	c.done[i] = true
	c.remaining--
	for _, d := range c.pi.dependents[i] {
		c.deps[d]--
		if c.deps[d] == 0 {
			if c.pi.flow.ForwardOf[d] >= 0 && c.progress[d] == c.pi.packets[d] {
				nd.complete(now, c, d) // a forward that streamed with its receive
				continue
			}
			nd.ready(c, d)
		}
	}
	// A nested completion may already have moved the chunk on.
	if c.remaining == 0 && c.phase == ph && c.active && !c.blocked {
		nd.phaseDone(now, c)
	}
}

// phaseDone moves c on: to the next phase's partition and FSM, or to the
// terminal partition and the RX DMA. Without room it waits at the head of
// its FSM, which then serves nobody else.
func (nd *node) phaseDone(now rtl.Cycle, c *chunk) {
	next := nd.nextPart(c)
	f := c.fsm[c.phase]
	if next < nd.r.phases && !nd.mayQueue(c, next) || !nd.reserve(c, next) {
		if !c.blocked {
			c.blocked = true
			nd.blockedFrom[f] = now
		}
		return
	}
	if c.blocked {
		nd.blockedCycles += int64(now - nd.blockedFrom[f])
	}
	nd.release(c, int(c.phase))
	nd.fsmQ[f] = nd.fsmQ[f][1:]
	nd.fsmCycles += int64(now - nd.fsmFrom[f])
	c.active = false
	nd.fsmNext[f].Pop()
	nd.startFSM(now, f)
	if next == nd.r.phases {
		c.state = csDMAOut
		c.dma, c.dmaDone = 0, 0
		nd.rxq = append(nd.rxq, c)
	} else {
		nd.enterPhase(now, c, int32(next))
	}
	nd.scheduleKick(now)
}

// unblock retries, oldest first, chunks whose phase is done but whose next
// partition had no room for them.
func (nd *node) unblock(now rtl.Cycle) {
	var blocked []*chunk
	for _, q := range nd.fsmQ {
		if len(q) > 0 && q[0].blocked && q[0].active {
			blocked = append(blocked, q[0])
		}
	}
	rank := nd.r.rank
	sort.Slice(blocked, func(i, j int) bool { return rank[blocked[i].id] < rank[blocked[j].id] })
	for _, c := range blocked {
		if c.blocked && c.active {
			nd.phaseDone(now, c)
		}
	}
}

func (r *run) result(cycles rtl.Cycle) *Result {
	res := &Result{Cycles: cycles, Events: r.k.Events()}
	// Busy times are summed exactly over NPUs and divided once, so the
	// means do not depend on how many NPUs were simulated (a folded run).
	var util, fsm, blocked, rd, wr, dma, alu big.Rat
	for _, nd := range r.nodes {
		res.BytesSent = append(res.BytesSent, nd.sent)
		res.MemRead = append(res.MemRead, nd.memRead)
		res.MemWrite = append(res.MemWrite, nd.memWrite)
		util.Add(&util, new(big.Rat).SetInt64(nd.utilCycles))
		fsm.Add(&fsm, big.NewRat(nd.fsmCycles, int64(len(nd.fsmQ))))
		blocked.Add(&blocked, big.NewRat(nd.blockedCycles, int64(len(nd.fsmQ))))
		rd.Add(&rd, nd.sramRd.BusyCycles())
		wr.Add(&wr, nd.sramWr.BusyCycles())
		dma.Add(&dma, nd.memRd.BusyCycles())
		dma.Add(&dma, nd.memWr.BusyCycles())
		for _, a := range nd.alus {
			alu.Add(&alu, new(big.Rat).Quo(a.BusyCycles(), big.NewRat(int64(len(nd.alus)), 1)))
		}
	}
	share := func(b *big.Rat, per int64) float64 {
		if cycles <= 0 {
			return 0
		}
		f, _ := new(big.Rat).Quo(b, big.NewRat(int64(cycles)*int64(len(r.nodes))*per, 1)).Float64()
		return f
	}
	res.Utilization, res.FSM, res.FSMBlocked = share(&util, 1), share(&fsm, 1), share(&blocked, 1)
	res.SRAMRead, res.SRAMWrite, res.DMA, res.ALU = share(&rd, 1), share(&wr, 1), share(&dma, 2), share(&alu, 1)
	res.Partitions = r.nodes[0].part
	counts := make([]int, r.phases)
	for _, ph := range r.nodes[0].fsmPhase {
		counts[ph]++
	}
	res.FSMsPerPhase = counts
	res.ReadPorts, res.WritePorts = r.nodes[0].ports[0], r.nodes[0].ports[1]
	return res
}

// stuck reports what every unfinished chunk waits on.
func (r *run) stuck() error {
	var lines []string
	for _, nd := range r.nodes {
		var parts []string
		for i := range nd.part {
			parts = append(parts, fmt.Sprintf("%d/%d", nd.used[i], nd.part[i]))
		}
		lines = append(lines, fmt.Sprintf("NPU %d partitions used/size (phases 1.., terminal): %s; %d chunks loading, %d writing back", nd.id, strings.Join(parts, " "), len(nd.txq), len(nd.rxq)))
		for _, c := range nd.chunks {
			var what string
			switch c.state {
			case csDone:
				continue
			case csWaiting:
				if nd.nextAdmit >= len(r.order) || c.id != r.order[nd.nextAdmit] {
					continue
				}
				what = fmt.Sprintf("waits for room in phase 1's partition (%d of %d bytes used)", nd.used[0], nd.part[0])
			case csDMAIn:
				what = "is being loaded by the TX DMA"
			case csDMAOut:
				what = "is being written back by the RX DMA"
			case csPhase:
				switch {
				case c.blocked:
					what = fmt.Sprintf("finished phase %d and waits for room in the next partition", c.phase+1)
				case !c.active:
					f := c.fsm[c.phase]
					next, _ := nd.fsmNext[f].Peek()
					what = fmt.Sprintf("is queued in phase %d at FSM %d, which works on chunk %d next", c.phase+1, f, r.order[next])
				default:
					var waits []string
					for i, o := range c.prog.Ops {
						if c.done[i] {
							continue
						}
						switch {
						case c.deps[i] > 0:
							waits = append(waits, fmt.Sprintf("op %d waits on %d earlier ops", i, c.deps[i]))
						case o.Kind == collectives.Recv:
							waits = append(waits, fmt.Sprintf("op %d waits for packets from NPU %d (%d of %d processed)", i, o.Peer, c.progress[i], c.pi.packets[i]))
						default:
							waits = append(waits, fmt.Sprintf("op %d (send to NPU %d) has sent %d of %d packets", i, o.Peer, c.progress[i], c.pi.packets[i]))
						}
					}
					what = fmt.Sprintf("in phase %d: %s", c.phase+1, strings.Join(waits, "; "))
				}
			}
			lines = append(lines, fmt.Sprintf("NPU %d chunk %d %s", nd.id, c.id, what))
		}
	}
	return fmt.Errorf("ACE stopped making progress at cycle %d with %d chunk×NPU pairs unfinished:\n%s",
		r.k.Now(), r.pending(), r.net.StuckReport(lines, 20))
}

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

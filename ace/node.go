package ace

// This file: one NPU's ACE: its chunks, its resources and its event loop (the scheduler that starts sub-steps and finishes them).

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/xcore"
)

// Chunk states.
const (
	csWaiting = iota // not admitted yet
	csDMAIn          // TX DMA loading it into partition 1
	csPhase          // in a phase (queued at or heading its FSM)
	csDMAOut         // in the terminal partition, RX DMA writing it back
	csDone
)

// chunk is one chunk's state on one NPU: the executor core's
// (xcore.Chunk) and ACE's.
type chunk struct {
	xcore.Chunk
	id       int32   // global number (the same on every NPU)
	shared   bool    // runs NPU 0's programs, its peers displaced (run.share)
	views    []int64 // viewOf's row for this chunk, once asked (its node's)
	state    int
	fsm      []int // assigned FSM per phase of its plan
	parts    []int // per phase of its plan, its partition (phaseParts)
	active   bool  // heads its FSM's queue in its phase
	blocked  bool  // phase done, waiting for room in the next partition
	reserved []bool
	dma      int64 // bytes the DMA has started moving
	dmaDone  int64 // bytes the DMA has finished moving
	pi       *progInfo
	progress []int32           // packets sent (sends) or processed (receives)
	peerOK   []bool            // per send op of the phase: its receiver's room is known to be ready (sendReady)
	msgs     []*fabric.Message // per send op, its message of several packets while some are still to be sent (then its packets alone hold it); nil until one is
	work     []int32           // ops with something to start: ready sends, receives with buffered packets
	aside    []int32           // per op of the phase: the output port it is set aside on, plus one (0: none; setAside)
	nAside   int32             // the ops of work set aside
	// asidePorts has the bits (portBit) of the ports its ops were set
	// aside on in this phase: those of the ops still set aside, and more.
	asidePorts uint64
	buffered   map[int64][]fabric.Packet // (phase, op) → packets absorbed before the op could take them
}

// doneChunk stands for every chunk written back, so its state can be freed.
var doneChunk = &chunk{id: -1, state: csDone}

func bufKey(ph, op int32) int64 { return int64(ph)<<32 | int64(op) }

// progNPU is the NPU whose programs chunk c runs on this node: NPU 0's
// where they are shared (run.share), else the node's own.
func (nd *node) progNPU(c *chunk) int {
	if c.shared {
		return 0
	}
	return nd.id
}

// peerOf is op o's peer on this node: on a shared program, NPU 0's peer
// displaced by the node's id.
func (nd *node) peerOf(c *chunk, o *collectives.Op) int32 {
	if c.shared {
		return int32(nd.r.folder.Displace(int(o.Peer), nd.id))
	}
	return o.Peer
}

// node is one NPU's ACE with its AFI.
type node struct {
	// needBuf and portBuf hold recvList's and recvRoom's answers, which
	// their callers use at once: no allocation per packet.
	needBuf             [3]rtl.Need
	portBuf             []int
	id                  int
	r                   *run
	memRd, memWr, busIn *rtl.Serializer
	busOut              *rtl.Serializer
	sramRd, sramWr      *rtl.Serializer
	ports               [2]int // read and write ports per SRAM bank
	alus                rtl.Pool
	part, used          []int64
	fsmQ                [][]*chunk
	fsmPhase            []int
	rr                  int
	chunks              []*chunk
	nextAdmit           int
	waiting             []int // per phase, chunks that wait for one of its FSMs (loading, or queued behind the FSM's current chunk)
	txq, rxq            []*chunk
	in                  []*fabric.Link
	out                 []*outPort
	// events holds the cycles with a node event (evKick) scheduled, asked
	// those of them at which the node kicks: the event of a cycle also
	// runs its links' transmit events due (TransmitDue) and applies the
	// sub-steps' ends due (applyDue). txDue counts the links with a
	// transmit event to run.
	events, asked           kickSet
	txDue                   int
	freed                   bool                // a partition released room since the last kick
	startedAt               rtl.Cycle           // the last cycle a sub-step was started
	views                   map[viewKey][]int64 // per plan and chunk length, each partition's room for a chunk
	nextIn                  []int32             // per partition, the next chunk allowed to take room
	fsmNext                 []*rtl.FIFO[int32]  // per FSM, the places in the loading order of the chunks it works on, in order
	sent, memRead, memWrite int64
	inACE                   int
	utilFrom                rtl.Cycle
	utilCycles              int64
	busy                    []rtl.Span // the closed spans in which ACE held a chunk, in order
	fsmFrom                 []rtl.Cycle
	fsmCycles               int64
	blockedFrom             []rtl.Cycle // per FSM, when its chunk finished its phase and found no way on
	blockedCycles           int64       // FSM time spent holding a chunk that finished its phase
	fx                      []effect
	freeFx                  []int32
	// soon and due hold the started sub-steps whose ends have no event
	// of their own (run.quietFx): those due soon in a calendar, the others
	// by end and then the order they were started in a heap. fxSeq numbers
	// the sub-steps as they start.
	soon            dueSoon
	due             []dueFx
	fxSeq           uint64
	firstFSM, split []int // per phase, its first FSM and how many it has
	finishedOf      map[int]int
	// retry is the earliest cycle after the kick under way at which a
	// sub-step held up by a busy resource may start (-1: none).
	retry rtl.Cycle
	// working holds the FSMs whose chunk has an op with something to
	// start (noteWork): the only ones a kick visits.
	working bitset
	// admitGen counts the changes to what admission looks at (the chunks
	// and their order, partitions' room and next places, the chunks
	// waiting for FSMs, the FSMs' next chunks); admitStopped is its value
	// when admit last stopped at a chunk that could not load.
	// aheadStopped is its value when reserveAhead last stopped.
	admitGen, admitStopped, aheadStopped uint64
	// rxWaiting marks the input ports (places in in) that may hold
	// packets: set when one arrives (or, collected, is due: markDue),
	// cleared when a kick finds the port empty.
	rxWaiting bitset
	// coming marks the input ports whose link collects packets on their
	// way (PacketDue); nextDue is at most the earliest cycle one of them
	// is due at that rxWaiting does not mark yet.
	coming  bitset
	nextDue rtl.Cycle
	// transit counts the packets in transit held in SRAM for an output
	// port, over all ports.
	transit int
	// aside holds, per output port, the ops set aside on it (setAside;
	// and entries of ops that have since left their work, dropped when
	// the port opens); asideReduce counts the reducing receives among
	// them. portOpen marks the ports whose ops are walked (open: their
	// link has started a packet since a walk last found them without
	// room), openPorts their bits (portBit); wide: the node has more
	// ports than openPorts has bits. fullPort is recvRoom's answer of the
	// port that held a receive up.
	aside       [][]asideOp
	asideReduce int
	portOpen    []bool
	openPorts   uint64
	wide        bool
	fullPort    int
}

func (r *run) newNode(id int, net *fabric.Network, rt rates) (*node, error) {
	cfg := r.cfg
	src, peer := id, func(p int32) int32 { return p }
	if r.shareLayout {
		src, peer = 0, func(p int32) int32 { return int32(r.folder.Displace(int(p), id)) }
	}
	prof := profile(r.layout, r.shape, net, id, src, peer, r.route)
	identity := make([]int, r.phases)
	for i := range identity {
		identity[i] = i
	}
	lay := sizesOf(r.layout, src, identity)
	var kinds []kindSizes
	var kprofs []kindProfile
	for i, kp := range r.kinds {
		ksrc, kpeer := id, func(p int32) int32 { return p }
		if r.share && collectives.CheckEquivariant(kp) == nil {
			ksrc, kpeer = 0, func(p int32) int32 { return int32(r.folder.Displace(int(p), id)) }
		}
		kinds = append(kinds, sizesOf(kp, ksrc, r.kindParts[i]))
		if cfg.FSMSplit == "latency" {
			kprofs = append(kprofs, kindProfile{prof: profile(kp, r.shape, net, id, ksrc, kpeer, r.route), parts: r.kindParts[i],
				allToAll: kp.Op == collectives.OpAllToAll && kp.NumPhases() == 1})
		}
	}
	sizes := averageSizes(lay, kinds)
	w := littleWeights(prof, sizes, lay.result, rt.dma(), cfg.Notice)
	if cfg.Partition == PartitionPaper {
		w = paperWeights(prof, sizes)
	}
	part, err := partitions(cfg.SRAMBytes, sizes.need, w)
	if err != nil {
		return nil, fmt.Errorf("NPU %d: %w", id, err)
	}
	split, err := splitFSMsBy(cfg.FSMs, averageTimes(prof, kprofs), cfg.FSMSplit)
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
		part: part, used: make([]int64, len(part)), nextIn: make([]int32, len(part)), startedAt: -1, admitStopped: ^uint64(0), aheadStopped: ^uint64(0),
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
	nd.working = newBitset(len(nd.fsmPhase))
	for range nd.fsmPhase {
		nd.fsmNext = append(nd.fsmNext, rtl.NewFIFO[int32](0))
	}
	nd.fsmFrom = make([]rtl.Cycle, len(nd.fsmPhase))
	nd.blockedFrom = make([]rtl.Cycle, len(nd.fsmPhase))
	nd.firstFSM, nd.split = first, split
	nd.waiting = make([]int, len(split))
	nd.out = make([]*outPort, net.Ports())
	nd.aside = make([][]asideOp, net.Ports())
	nd.portOpen, nd.wide = make([]bool, net.Ports()), net.Ports() > 64
	for p := range nd.out {
		if l := net.Out(id, p); l != nil {
			nd.out[p] = &outPort{link: l, transit: rtl.NewFIFO[fabric.Packet](0), txAt: -1}
		}
	}
	return nd, nil
}

// An effect is what happens when a started sub-step finishes (64 bytes,
// copied at every start and end: a receive's forwards are read from its
// chunk's phase at its end, which its phase cannot have left).
type effect struct {
	kind   int32
	op     int32
	absorb int32 // phase of an absorbed packet
	port   int32
	seq    uint64 // the order it was started in, on its node
	c      *chunk
	pkt    fabric.Packet
	bytes  int64
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
	e.seq = nd.fxSeq
	nd.fxSeq++
	var i int32
	if n := len(nd.freeFx); n > 0 {
		i = nd.freeFx[n-1]
		nd.freeFx = nd.freeFx[:n-1]
		nd.fx[i] = e
	} else {
		i = int32(len(nd.fx))
		nd.fx = append(nd.fx, e)
	}
	if e.kind >= fxSend && nd.r.quietEffects() {
		// Its end is applied by the node's kick at that cycle, which runs
		// after every other event of the cycle (quietFx).
		nd.pushDue(nd.startedAt, end, e.seq, i)
		nd.scheduleKick(end)
		return
	}
	nd.r.k.Schedule(end, nd, e.kind, int64(i))
}

// scheduleKick asks for a kick at cycle t. A node kicks at most once a
// cycle, after all its other events of the cycle (rtl.ClassControl), and at
// every cycle it was asked to: so when it kicks depends only on what
// happened, not on the order in which NPUs' events ran within a cycle.
func (nd *node) scheduleKick(t rtl.Cycle) {
	now := nd.r.k.Now()
	if t-now < kickRing && len(nd.asked.far) == 0 && len(nd.events.far) == 0 {
		w, b := ringWord(t), uint64(1)<<(uint(t)&63)
		if nd.asked.addNear(w, b) && nd.events.addNear(w, b) {
			nd.r.k.ScheduleClass(t, rtl.ClassControl, nd, evKick, 0)
		}
		return
	}
	if nd.asked.add(now, t) && nd.events.add(now, t) {
		nd.r.k.ScheduleClass(t, rtl.ClassControl, nd, evKick, 0)
	}
}

// Handle runs the node's events: kicks and finished sub-steps.
func (nd *node) Handle(now rtl.Cycle, kind int32, arg int64) {
	switch kind {
	case evKick:
		// The links' transmit events and the ends due now first, while
		// this event is still pending, so that one asking for a kick now
		// asks for this one.
		nd.runTransmits(now)
		nd.applyDue(now, ^uint64(0))
		nd.events.remove(now)
		if nd.asked.has(now) {
			nd.asked.remove(now)
			nd.kick(now)
		}
		return
	case evNotice:
		nd.scheduleKick(now)
		return
	}
	e := nd.fx[arg]
	nd.applyDue(now, e.seq) // the ends due now of sub-steps started before this one come first, as their events would
	nd.fx[arg] = effect{}
	nd.freeFx = append(nd.freeFx, int32(arg))
	nd.finish(now, e)
	nd.scheduleKick(now)
}

// PacketArrived wakes the node to take the packet when it can, and marks
// its input port as one with packets waiting.
func (nd *node) PacketArrived(now rtl.Cycle, l *fabric.Link) {
	if i := nd.inIndex(l); i >= 0 {
		nd.rxWaiting.set(i)
	}
	nd.scheduleKick(now)
}

// inIndex is l's place among the node's input links (a handful: a scan),
// -1 if it is none of them.
func (nd *node) inIndex(l *fabric.Link) int {
	for i, x := range nd.in {
		if x == l {
			return i
		}
	}
	return -1
}

// Collects reports whether the node collects l's packets itself
// (fabric.Collector): where NPUs' kicks commute within a cycle
// (quietDMAOn), a packet needs no arrival event, only a kick at its
// arrival cycle, which PacketDue asks for when it starts.
func (nd *node) Collects(*fabric.Link) bool { return nd.r.quietDMA }

// PacketDue marks l's input port as one with packets coming and asks for
// a kick at cycle at, when the packet is in the port's buffer.
func (nd *node) PacketDue(l *fabric.Link, at rtl.Cycle) {
	if i := nd.inIndex(l); i >= 0 {
		nd.coming.set(i)
	}
	nd.nextDue = min(nd.nextDue, at)
	nd.scheduleKick(at)
}

// markDue marks as waiting the input ports with packets coming that are
// due by now, and works out the next cycle one is due at.
func (nd *node) markDue(now rtl.Cycle) {
	nd.nextDue = math.MaxInt64
	// Word by word: the loop clears only the bit it is on.
	for wi, word := range nd.coming {
		for ; word != 0; word &= word - 1 {
			i := wi<<6 | bits.TrailingZeros64(word)
			l := nd.in[i]
			switch at := l.DueAt(); {
			case !l.Coming():
				nd.coming.clear(i)
			case at <= now:
				nd.rxWaiting.set(i)
			default:
				nd.nextDue = min(nd.nextDue, at)
			}
		}
	}
}

// SpaceAvailable wakes the node when an output port buffer has room, and
// opens that port: the ops set aside on it are walked again (openPort).
func (nd *node) SpaceAvailable(now rtl.Cycle, l *fabric.Link) {
	if p := nd.portOf(l); p >= 0 {
		nd.openPort(p)
	}
	nd.scheduleKick(now)
}

// kick starts every sub-step that can start now, in a fixed order: the DMA
// engines (they feed and drain the pipeline, at the memory's pace), input
// port buffers in link order, packets in transit, then the FSMs round-robin. A sub-step held up by a busy resource is retried when the
// resource frees; one held up by buffer space or partition room is retried
// when that changes (SpaceAvailable, a partition release).
func (nd *node) kick(now rtl.Cycle) {
	nd.retry = -1
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
	switch now % 3 {
	case 0:
		nd.kickDMA(now)
		nd.kickPorts(now)
		nd.kickFSMs(now)
	case 1:
		nd.kickPorts(now)
		nd.kickFSMs(now)
		nd.kickDMA(now)
	default:
		nd.kickFSMs(now)
		nd.kickDMA(now)
		nd.kickPorts(now)
	}
	if nd.startedAt != now {
		nd.asideRetry(now)
	}
	if nd.rr++; nd.rr == len(nd.fsmQ) {
		nd.rr = 0
	}
	// Sub-steps started this cycle hold their resources for a cycle or more;
	// while anything was started, look again next cycle, when a packet
	// behind the one just taken from an input buffer may go to another ALU.
	if nd.startedAt == now {
		nd.scheduleKick(now + 1)
	} else if nd.retry > 0 {
		nd.scheduleKick(nd.retry)
	}
}

// retryAt notes cycle t, when a sub-step held up by a busy resource may
// start, for the kick under way to look again then (the earliest such).
func (nd *node) retryAt(now, t rtl.Cycle) {
	if t > now && (nd.retry < 0 || t < nd.retry) {
		nd.retry = t
	}
}

// kickDMA starts the DMA engines' next pieces.
func (nd *node) kickDMA(now rtl.Cycle) {
	if len(nd.txq) > 0 { // (an empty queue starts nothing and notes nothing)
		nd.retryAt(now, nd.dmaIn(now))
	}
	if len(nd.rxq) > 0 {
		nd.retryAt(now, nd.dmaOut(now))
	}
}

// kickPorts starts the packets at the heads of the input port buffers, in
// link order, then the packets in transit that wait in SRAM for their
// output port.
func (nd *node) kickPorts(now rtl.Cycle) {
	if nd.r.reference {
		for _, l := range nd.in {
			nd.retryAt(now, nd.takeInput(now, l))
		}
	} else {
		if now >= nd.nextDue {
			nd.markDue(now)
		}
		if nd.r.checks {
			nd.checkRxWaiting()
		}
		for i := nd.rxWaiting.next(0, len(nd.in)); i >= 0; i = nd.rxWaiting.next(i+1, len(nd.in)) {
			l := nd.in[i]
			nd.retryAt(now, nd.takeInput(now, l))
			if l.RxLen() == 0 {
				nd.rxWaiting.clear(i)
				if l.Coming() { // its next packet is due later
					nd.nextDue = min(nd.nextDue, l.DueAt())
				}
			}
		}
	}
	if nd.transit == 0 && !nd.r.reference {
		return
	}
	for p, o := range nd.out {
		if o != nil && o.transit.Len() > 0 && nd.slot(p) {
			pkt, _ := o.transit.Peek()
			end, ok, t := nd.sramRd.TryStart(now, int64(pkt.Bytes))
			if !ok {
				nd.retryAt(now, t)
				continue
			}
			o.transit.Pop()
			nd.transit--
			o.reserved++
			nd.after(end, effect{kind: fxTransitOut, pkt: pkt, port: int32(p)})
		}
	}
}

// checkRxWaiting panics if an input port holds packets but is not marked
// as one with packets waiting (a test's check of the incremental
// bookkeeping).
func (nd *node) checkRxWaiting() {
	for i, l := range nd.in {
		if l.RxLen() > 0 && !nd.rxWaiting.has(i) {
			panic(fmt.Sprintf("ace: NPU %d at cycle %d: input port %s holds %d packets, but is not marked as waiting", nd.id, nd.r.k.Now(), l, l.RxLen()))
		}
	}
}

// kickFSMs gives each FSM whose chunk has an op with something to start a
// sub-step, round-robin from FSM rr. Only those FSMs are visited (the set
// kept by noteWork); the reference path visits every FSM.
func (nd *node) kickFSMs(now rtl.Cycle) {
	n := len(nd.fsmQ)
	if nd.r.reference {
		for j := 0; j < n; j++ {
			q := nd.fsmQ[(nd.rr+j)%n]
			if len(q) > 0 && q[0].active {
				nd.retryAt(now, nd.fsmStep(now, q[0]))
			}
		}
		return
	}
	if nd.r.checks {
		nd.checkWorking()
		nd.checkAside()
	}
	for pass, lo, hi := 0, nd.rr, n; pass < 2; pass, lo, hi = pass+1, 0, nd.rr {
		for f := nd.working.next(lo, hi); f >= 0; f = nd.working.next(f+1, hi) {
			nd.retryAt(now, nd.fsmStep(now, nd.fsmQ[f][0]))
		}
	}
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
			c.Done(now, nd.id, nd.r.hooks.Observer, nd.r.colls)
			nd.inACE--
			if nd.inACE == 0 {
				nd.utilCycles += int64(now - nd.utilFrom)
				nd.busy = append(nd.busy, rtl.Span{From: nd.utilFrom, To: now})
			}
			co := c.Coll
			if nd.finishedOf == nil {
				nd.finishedOf = map[int]int{}
			}
			nd.finishedOf[co.ID]++
			all := nd.finishedOf[co.ID] == co.Plan.NumChunks()
			if all {
				delete(nd.finishedOf, co.ID)
			}
			if irq := nd.r.hooks.Interrupt; irq != nil {
				irq(nd.id, int(c.Local), now)
				if all {
					irq(nd.id, -1, now)
				}
			}
			nd.chunks[c.id] = doneChunk // free the chunk's state
		}
	case fxSend:
		nd.push(int(e.port), e.pkt)
		if e.pkt.Last() {
			nd.complete(now, c, e.op)
		}
	case fxTransitIn:
		nd.out[e.port].transit.Push(e.pkt)
		nd.transit++
	case fxTransitOut:
		nd.push(int(e.port), e.pkt)
	case fxAbsorb:
		key := bufKey(e.absorb, e.op)
		c.buffered[key] = append(c.buffered[key], e.pkt)
		if c.state == csPhase && c.active && c.Phase == e.absorb && c.Ops.Ready(e.op) {
			nd.addWork(c, e.op)
		}
	case fxRecv:
		op := e.op
		c.progress[op]++
		last := c.progress[op] == c.pi.packets[op]
		check := last && c.Vals != nil
		if check {
			o := &c.Prog.Ops[op]
			collectives.Scatter(c.Vals, c.Prog.View, o.Data, e.pkt.Msg.Values, o.Reduce)
		}
		for _, f := range c.pi.Flow.Forwards[op] {
			fm := nd.sendMsg(c, f)
			if check { // the forward carries on what the receive left
				fm.Values = collectives.Gather(c.Vals, c.Prog.View, c.Prog.Ops[f].Data)
			}
			nd.push(nd.sendPort(c, f), fabric.PacketOf(fm, c.progress[f]))
			if c.progress[f]++; c.progress[f] == c.pi.packets[f] {
				nd.dropMsg(c, f)
			}
		}
		if last {
			nd.complete(now, c, op)
		}
	}
}

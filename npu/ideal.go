package npu

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/acemu/acemu/admit"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/xcore"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// IdealConfig parameterises the ideal endpoint.
type IdealConfig struct {
	// ProcessCycles is the time from a message's last packet arriving to
	// its data being usable (Table VI: 1 cycle).
	ProcessCycles rtl.Cycle
	// Data, when set, makes the run carry real values: every chunk starts
	// from Data.Init, sends carry the values of their ranges, receives add
	// or store them, and the Observer sees each chunk's values when it
	// finishes on an NPU (observe.ChunkDone).
	Data *DataHooks
	// Observer, when set, sees every op as it is issued (sends,
	// observe.OpStart) and as it completes (sends and receives,
	// observe.OpDone).
	Observer observe.Observer
}

// DataHooks supply real values (one int64 per payload byte): Init gives a
// chunk's initial values on an NPU. The final values go to the observer
// (observe.ChunkDone; verify.DataCheck is one).
type DataHooks struct {
	Init func(coll, npu, chunk int) []int64
}

// DefaultIdeal is Table VI's ideal endpoint.
func DefaultIdeal() IdealConfig { return IdealConfig{ProcessCycles: 1} }

// Result is what a collective run measured.
type Result struct {
	Cycles    rtl.Cycle // cycle the last chunk finished on the last NPU
	Payload   int64     // collective size per NPU
	BytesSent []int64   // bytes each NPU injected as a source (not forwarded)
	Events    uint64    // kernel events run
	// MemRead and MemWrite are the bytes each NPU's communication read from
	// and wrote to its memory (zero on the ideal endpoint).
	MemRead, MemWrite []int64
	// CommSMBusy is the share of the run the communication SMs were busy,
	// the mean over NPUs (baseline only).
	CommSMBusy float64
}

// MeanBytesSent returns the mean over NPUs of bytes injected, rounded down.
func (r *Result) MeanBytesSent() int64 { return rtl.Mean(r.BytesSent) }

// RunIdeal executes plan on every NPU of net with ideal endpoints, driving
// kernel k from its current cycle until the collective completes. It fails,
// naming what waits on what, if the simulation runs out of events first.
func RunIdeal(k *rtl.Kernel, net *fabric.Network, plan *collectives.Plan, cfg IdealConfig) (*Result, error) {
	if cfg.ProcessCycles < 0 {
		return nil, fmt.Errorf("ideal endpoint: processing time %d cycles must not be negative", cfg.ProcessCycles)
	}
	return execute(k, net, plan, cfg, nil)
}

// execute runs plan on every NPU with the ideal endpoint's executor; with
// base set, every data movement also costs what the SM-driven baseline
// endpoint pays for it (baseline.go).
func execute(k *rtl.Kernel, net *fabric.Network, plan *collectives.Plan, cfg IdealConfig, base *baseRates) (*Result, error) {
	e, err := newEngine(k, net, plan.Machine, cfg, base)
	if err != nil {
		return nil, err
	}
	cycles, err := afi.RunOne(k, e, plan)
	if err != nil {
		return nil, err
	}
	res := &Result{Cycles: cycles, Payload: plan.Payload, Events: k.Events()}
	res.BytesSent, res.MemRead, res.MemWrite = e.Traffic()
	res.CommSMBusy = e.r.smBusy(res.Cycles)
	return res, nil
}

// run is the state shared by the nodes of an engine.
type run struct {
	k     *rtl.Kernel
	net   *fabric.Network
	shape machine.Topology
	cfg   IdealConfig
	nodes []*node
	info  xcore.Infos
	colls *xcore.Collectives
	order afi.Order
	seq   uint64
	// chunks counts the chunks of every collective issued so far: a
	// collective's chunks have the global numbers [first, first+NumChunks),
	// the same on every NPU, and messages carry them.
	chunks int32
	// gate makes the checks of an issue.
	gate *admit.Gate
	// launch is the baseline library's launch (Library.LaunchCycles): a
	// collective's chunks start this long after its issue.
	launch rtl.Cycle
	// folder is the machine's translations, when it has them, on a full
	// network: chunks of an equivariant plan then run NPU 0's programs
	// with their peers displaced (chunkState.shared).
	folder machine.Folder
	// ownPrograms: every NPU runs its own programs even where they could
	// be shared (tests compare the two).
	ownPrograms bool
	// pool keeps port records and messages for reuse.
	pool pool
	// folded: the network is folded (net.Folded()); on a full one a
	// packet's destination is its message's (machine.Topology.PacketDst).
	folded bool
}

// chunkState is one chunk's progress on one NPU: the executor core's
// (xcore.Chunk) and what this executor adds.
//
// The fields a message's send and receive read (these, then the core's
// first) come before those they rarely read, so that a chunk's work per
// message touches two of its cache lines, not three.
type chunkState struct {
	prio    int64             // its collective's port priority: port queues serve lower values first
	pending map[int32][]int64 // values of received messages not yet applied
	// shared: the chunk runs NPU 0's programs, every NPU's being NPU 0's
	// translated (collectives.CheckEquivariant), with each peer displaced
	// by the NPU's id on use (node.peer), so that the NPUs of a full
	// network share one copy of the programs and of what is derived from
	// them (xcore.Info). Only when the run carries no data: programs
	// that translate have the same lengths, peers, ports and data flow,
	// not the same data offsets.
	shared bool
	xcore.Chunk
	early []earlyMsg // messages for later phases that came first
}

type earlyMsg struct {
	phase, op int32
	vals      []int64
}

// outMsg is the message a port is sending (held by value: msg nil for
// none).
type outMsg struct {
	msg   *fabric.Message
	next  int32 // next packet to send
	chunk int32
	op    int32 // the Send op, completed when the last packet is in the port
	reads int64 // baseline: memory bytes read per byte sent (1, or 2 for a reduce fused into its forward)
}

type port struct {
	idx     int
	link    *fabric.Link
	queue   msgQueue
	cur     outMsg                   // the message under way (cur.msg nil: none)
	forward *rtl.FIFO[fabric.Packet] // packets passing through to other NPUs
	pumping bool
	stage   stage // baseline: the packet the SMs are preparing for this port
}

// node is one NPU's endpoint: the dataflow the ideal endpoint and the
// baseline share, with what its movements cost in its datapath.
type node struct {
	id     int
	r      *run
	ports  []port
	chunks []*chunkState
	sent   int64
	// inbox holds the values of messages between arrival and processing,
	// by message key (msgKey).
	inbox map[int64][]int64
	dp    datapath // what the node's movements cost: idealPath or *basePath
}

const (
	evProcessed   int32 = iota + 1
	evStaged            // baseline: a packet's preparation ended (arg: port)
	evPortRetry         // baseline: a port's resources are free again (arg: port)
	evRxDone            // baseline: the RX DMA wrote the oldest packet in flight
	evRxRetry           // baseline: the RX DMA's resources are free again
	evReduceDone        // baseline: an SM reduction ended (arg: chunk<<32 | op)
	evReduceRetry       // baseline: the reduction's resources are free again
)

// msgKey identifies a message of a collective on its receiver.
func msgKey(c, ph, op int32) int64 { return int64(c)<<32 | int64(ph)<<24 | int64(op) }

// Handle runs the node's events: a message processed after arrival.
func (nd *node) Handle(now rtl.Cycle, kind int32, arg int64) {
	switch kind {
	case evProcessed:
		nd.processed(now, arg)
	default:
		nd.dp.handle(now, kind, arg)
	}
}

// processed hands a message that has arrived (key msgKey) to its chunk.
func (nd *node) processed(now rtl.Cycle, key int64) {
	c, ph, op := int32(key>>32), int32(key>>24&0xff), int32(key&0xffffff)
	var vals []int64
	if len(nd.inbox) > 0 { // a run that checks data: messages carry values
		if v, ok := nd.inbox[key]; ok {
			vals = v
			delete(nd.inbox, key)
		}
	}
	nd.received(now, c, ph, op, vals)
}

// enterPhase moves chunk c into phase ph: its program, the sends ready at
// once, and messages for the phase that came early; past the last phase
// the chunk is done.
func (nd *node) enterPhase(now rtl.Cycle, c, ph int32) {
	cs := nd.chunks[c]
	cs.Phase = ph
	if cs.Finished() {
		cs.Done(now, nd.id, nd.r.cfg.Observer, nd.r.colls)
		nd.chunks[c] = nil
		return
	}
	if cs.shared {
		cs.Load(0, nd.r.info)
	} else {
		cs.Load(nd.id, nd.r.info)
	}
	prog := cs.Prog
	if cs.Ops.Remaining == 0 {
		nd.enterPhase(now, c, ph+1)
		return
	}
	var ready []int32
	for i := range prog.Ops {
		if cs.Ops.Ready(int32(i)) && prog.Ops[i].Kind == collectives.Send {
			ready = append(ready, int32(i))
		}
	}
	for _, i := range ready {
		nd.issue(now, c, i)
	}
	if len(cs.early) > 0 {
		keep := cs.early[:0]
		var now2 []earlyMsg
		for _, e := range cs.early {
			if e.phase == ph {
				now2 = append(now2, e)
			} else {
				keep = append(keep, e)
			}
		}
		cs.early = keep
		for _, e := range now2 {
			nd.received(now, c, ph, e.op, e.vals)
		}
	}
}

// issue queues the message of Send op i on its port.
func (nd *node) issue(now rtl.Cycle, c, i int32) {
	cs := nd.chunks[c]
	op := &cs.Prog.Ops[i]
	peer := nd.peer(cs, op)
	m := nd.r.pool.message(nd.id, int(peer), op.Data.Len)
	m.Coll, m.Chunk, m.Phase, m.Op = int32(cs.Coll.ID), c, cs.Phase, op.Match
	if cs.Vals != nil {
		m.Values = collectives.Gather(cs.Vals, cs.Prog.View, op.Data)
	}
	nd.sent += op.Data.Len
	if o := nd.r.cfg.Observer; o != nil {
		o.Observe(observe.Event{Kind: observe.OpStart, Cycle: now, NPU: nd.id, Chunk: int(c), Phase: int(cs.Phase), Op: int(i), OpKind: int(op.Kind), Step: int(op.Step)})
	}
	pidx := int(op.Port)
	if op.Port == collectives.RouteXYZ {
		pidx, _ = nd.r.shape.NextPort(nd.id, int(peer))
	}
	nd.r.seq++
	nd.ports[pidx].queue.Push(queued{prio: cs.prio, seq: nd.r.seq, msg: m, chunk: c, op: i})
	nd.pump(now, pidx)
}

// peer is the NPU op of chunk cs's program sends to or receives from.
func (nd *node) peer(cs *chunkState, op *collectives.Op) int32 {
	if cs.shared {
		return int32(nd.r.folder.Displace(int(op.Peer), nd.id))
	}
	return op.Peer
}

// pump moves packets into port p's link while it takes them: packets passing
// through first, then the oldest chunk's messages.
func (nd *node) pump(now rtl.Cycle, p int) {
	pt := &nd.ports[p]
	if pt.pumping {
		return // the running pump will see the new work
	}
	pt.pumping = true
	nd.dp.pump(now, pt)
	pt.pumping = false
}

// pump moves port pt's packets into its link at no cost while the link
// takes them.
func (p idealPath) pump(now rtl.Cycle, pt *port) {
	nd := p.nd
	for {
		if pt.forward != nil && pt.forward.Len() > 0 {
			pkt, _ := pt.forward.Peek()
			if !pt.link.Send(pkt) {
				return
			}
			pt.forward.Pop()
			continue
		}
		if pt.cur.msg == nil {
			if pt.queue.Len() == 0 {
				return
			}
			pt.cur = pt.queue.Pop().out()
		}
		om := &pt.cur
		if n := int(om.msg.Packets - om.next - 1); n > 1 {
			// The packets but the last, as a run (the last finishes
			// the send, below).
			k := pt.link.SendRun(fabric.PacketOf(om.msg, om.next), n)
			if om.next += int32(k); k < n {
				return
			}
		}
		if !pt.link.Send(fabric.PacketOf(om.msg, om.next)) {
			return
		}
		om.next++
		if om.next == om.msg.Packets {
			c, op := om.chunk, om.op
			pt.cur = outMsg{}
			nd.complete(now, c, op)
		}
	}
}

// SpaceAvailable resumes a port whose link refused a packet.
func (nd *node) SpaceAvailable(now rtl.Cycle, l *fabric.Link) { nd.pump(now, l.Port) }

// PacketArrived hands a packet in link l's receive buffer to the datapath.
func (nd *node) PacketArrived(now rtl.Cycle, l *fabric.Link) { nd.dp.arrived(now, l) }

// arrived takes the packet at once (the ideal endpoint never holds its
// receive buffer); a message's last packet is processed ProcessCycles later;
// a packet for another NPU goes on by the next hop.
func (p idealPath) arrived(now rtl.Cycle, l *fabric.Link) {
	nd := p.nd
	pkt, _ := l.Receive()
	m := pkt.Msg
	dst := int(m.Dst) // on a full network (machine.Topology.PacketDst)
	if nd.r.folded {
		pkt = nd.r.shape.Arrived(nd.r.net, l, pkt)
		dst = nd.r.shape.PacketDst(pkt)
	}
	if dst != nd.id {
		nd.passOnTo(now, pkt, dst)
		return
	}
	if pkt.Last() {
		key := msgKey(m.Chunk, m.Phase, m.Op)
		if m.Values != nil {
			nd.inbox[key] = m.Values
		}
		nd.r.k.Schedule(now+nd.r.cfg.ProcessCycles, nd, evProcessed, key)
		nd.r.pool.putMessage(m) // its other packets were taken before it (pool)
	}
}

// passOnTo queues a packet for another NPU, dst, on the port of its
// next hop.
func (nd *node) passOnTo(now rtl.Cycle, pkt fabric.Packet, dst int) {
	p, _ := nd.r.shape.NextPort(nd.id, dst)
	pt := &nd.ports[p]
	if pt.forward == nil {
		pt.forward = rtl.NewFIFO[fabric.Packet](0)
	}
	pt.forward.Push(pkt)
	nd.pump(now, p)
}

// received marks Recv op of chunk c, phase ph as having its message (with
// its values when checking data).
func (nd *node) received(now rtl.Cycle, c, ph, op int32, vals []int64) {
	cs := nd.chunks[c]
	if ph > cs.Phase {
		cs.early = append(cs.early, earlyMsg{ph, op, vals})
		return
	}
	if ph < cs.Phase || cs.Ops.Arrived(op) {
		panic(fmt.Sprintf("npu %d chunk %d: message for phase %d op %d arrived twice or too late (now in phase %d)", nd.id, c, ph+1, op, cs.Phase+1))
	}
	cs.Ops.SetArrived(op)
	if vals != nil {
		if cs.pending == nil {
			cs.pending = map[int32][]int64{}
		}
		cs.pending[op] = vals
	}
	if cs.Ops.Ready(op) {
		nd.recvReady(now, c, op)
	}
}

// recvReady completes Recv op of chunk c, whose message is in and whose
// dependences are met, once the datapath has done what the op costs.
func (nd *node) recvReady(now rtl.Cycle, c, op int32) {
	if nd.dp.recvReady(now, c, op) {
		nd.complete(now, c, op)
	}
}

// complete finishes op i of chunk c's current phase and releases what
// waited on it; the last op moves the chunk to its next phase.
func (nd *node) complete(now rtl.Cycle, c, i int32) {
	cs := nd.chunks[c]
	ph := cs.Phase
	if cs.pending != nil && cs.Info.Kinds[i] == collectives.Recv {
		if v, ok := cs.pending[i]; ok {
			op := &cs.Prog.Ops[i]
			collectives.Scatter(cs.Vals, cs.Prog.View, op.Data, v, op.Reduce)
			delete(cs.pending, i)
		}
	}
	if o := nd.r.cfg.Observer; o != nil {
		op := &cs.Prog.Ops[i]
		o.Observe(observe.Event{Kind: observe.OpDone, Cycle: now, NPU: nd.id, Chunk: int(c), Phase: int(cs.Phase), Op: int(i), OpKind: int(op.Kind), Step: int(op.Step)})
	}
	cs.OpFinal(now, i, nd.r.colls)
	kinds := cs.Info.Kinds
	cs.Ops.Complete(i, func(d int32) {
		switch kinds[d] {
		case collectives.Send:
			nd.issue(now, c, d)
		case collectives.Recv:
			if cs.Ops.Arrived(d) {
				nd.recvReady(now, c, d)
			}
		}
	})
	if cs.Ops.Remaining == 0 && cs.Phase == ph {
		nd.enterPhase(now, c, cs.Phase+1)
	}
}

// stuck describes what every unfinished chunk waits on, for the error of a
// run that stopped making progress.
func (r *run) stuck() error {
	var lines []string
	pending := r.colls.PendingChunks()
	if pending == 0 {
		return nil
	}
	for _, nd := range r.nodes {
		for c, cs := range nd.chunks {
			if cs == nil {
				continue
			}
			prog := cs.Prog
			if cs.shared { // this NPU's program: NPU 0's, its peers displaced
				own := *prog
				own.NPU, own.Ops = nd.id, slices.Clone(prog.Ops)
				for i := range own.Ops {
					own.Ops[i].Peer = nd.peer(cs, &prog.Ops[i])
				}
				prog = &own
			}
			waits := cs.Ops.Waits(prog, func(i int, op *collectives.Op) string {
				if op.Kind == collectives.Recv {
					return fmt.Sprintf("op %d waits for a message from NPU %d", i, op.Peer)
				}
				return fmt.Sprintf("op %d (send to NPU %d) is queued at its port", i, op.Peer)
			})
			where := fmt.Sprintf("chunk %d", c)
			if len(r.colls.All()) > 1 {
				where = fmt.Sprintf("collective %d chunk %d", cs.Coll.ID, cs.Local)
			}
			lines = append(lines, fmt.Sprintf("NPU %d %s phase %d (%s): %s", nd.id, where, cs.Phase+1,
				cs.Coll.Plan.PhaseName(int(cs.Phase)), strings.Join(waits, "; ")))
		}
	}
	sort.Strings(lines)
	return fmt.Errorf("the collective stopped making progress at cycle %d with %d chunk×NPU pairs unfinished:\n%s",
		r.k.Now(), pending, r.net.StuckReport(lines, 20))
}

package npu

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// BaselineConfig parameterises the SM-driven baseline endpoint (the paper's
// Section III and Fig. 8(b); docs/baseline-model.md): communication SMs read
// messages from memory and push them over the NPU–AFI bus; the AFI's RX DMA
// writes what arrives to memory; reductions load both operands from memory.
type BaselineConfig struct {
	// CommSMs is the number of SMs given to communication.
	CommSMs int
	// SMBytes is what one SM loads per cycle, and what it stores per cycle
	// (Table V: 64 B/cycle, ≈ 80 GB/s at 1245 MHz).
	SMBytes int64
	// CommMemGBps is the memory bandwidth given to communication, in each
	// direction: reads and writes each get this much (the same accounting
	// as ACE's, docs/ace-model.md).
	CommMemGBps *big.Rat
	// BusGBps is the NPU–AFI bus, per direction (Table V: 500 GB/s).
	BusGBps *big.Rat
	// Data and Observer are as in IdealConfig.
	Data     *DataHooks
	Observer observe.Observer
	// Library is what the communication library running on the SMs pays
	// beyond bandwidth (zero: nothing).
	Library Library
}

// Library is what an SM-driven communication library pays beyond moving
// bytes (docs/baseline-model.md, "What an SM-driven collective pays beyond
// bandwidth"): a launch per collective and a protocol latency per step.
type Library struct {
	// LaunchCycles is the time from a collective's issue to its chunks
	// starting, on every NPU: the kernel's launch and set-up.
	LaunchCycles rtl.Cycle `json:"launch_cycles"`
	// StepCycles is the time from a message's last packet being written to
	// memory to the message being usable: the step's flag, its polling and
	// the first loads.
	StepCycles rtl.Cycle `json:"step_cycles"`
}

// NCCL's latency model for a ring collective with its Simple protocol,
// NVIDIA Collective Communications Library, src/graph/tuning.cc (the same
// values from release 2.7 to 2.18): baseLat 8.4 µs per collective, hwLat
// 3.4 µs per step on NVLink, in cycles of Table V's 1245 MHz clock.
const (
	// NCCLLaunchCycles is 8.4 µs × 1245 MHz = 10458 cycles.
	NCCLLaunchCycles rtl.Cycle = 8_400 * ClockHz / 1_000_000_000
	// NCCLStepCycles is 3.4 µs × 1245 MHz = 4233 cycles.
	NCCLStepCycles rtl.Cycle = 3_400 * ClockHz / 1_000_000_000
)

// NCCLSimple is NCCL's per-collective and per-step latencies (the Simple
// protocol on NVLink), the platform's default library.
func NCCLSimple() Library {
	return Library{LaunchCycles: NCCLLaunchCycles, StepCycles: NCCLStepCycles}
}

// DefaultBaseline is a baseline endpoint with the given communication SMs
// and memory bandwidth, and Table V's SMs and bus.
func DefaultBaseline(commSMs int, commMemGBps *big.Rat) BaselineConfig {
	return BaselineConfig{CommSMs: commSMs, SMBytes: 64, CommMemGBps: commMemGBps, BusGBps: big.NewRat(500, 1)}
}

// Validate reports a configuration that cannot run, naming the fix.
func (c BaselineConfig) Validate() error {
	switch {
	case c.CommSMs < 1:
		return fmt.Errorf("baseline endpoint with %d communication SMs: it needs at least 1 (--comm-sms)", c.CommSMs)
	case c.SMBytes < 1:
		return fmt.Errorf("baseline endpoint: SMs moving %d B/cycle: must be positive", c.SMBytes)
	case c.CommMemGBps == nil || c.CommMemGBps.Sign() <= 0:
		return fmt.Errorf("baseline endpoint: memory bandwidth for communication must be positive (--comm-mem-bw, e.g. 450GB/s)")
	case c.BusGBps == nil || c.BusGBps.Sign() <= 0:
		return fmt.Errorf("baseline endpoint: NPU–AFI bus bandwidth must be positive")
	case c.Library.LaunchCycles < 0 || c.Library.StepCycles < 0:
		return fmt.Errorf("baseline endpoint: library latencies (launch %d, step %d cycles) must not be negative (baseline.launch, baseline.step)",
			c.Library.LaunchCycles, c.Library.StepCycles)
	}
	return nil
}

// baseRates are a baseline configuration's exact per-cycle rates.
type baseRates struct {
	mem, bus, sm rtl.Rate
	lib          Library
	sms          int   // the configuration's communication SMs
	smBytes      int64 // what one SM moves per cycle
}

// RunBaseline executes plan on every NPU of net with SM-driven baseline
// endpoints, driving kernel k from its current cycle until the collective
// completes. The dataflow is the same as the ideal endpoint's and ACE's;
// what differs is what each movement costs:
//
//   - a send: the SMs load the message from memory (twice its bytes when
//     it forwards a reduction whose result is not kept: local and received
//     operands) and store it over the bus into the port, packet by packet;
//   - a packet arriving: the RX DMA writes it over the bus to memory;
//   - a reduction whose result is kept: the SMs load both operands and
//     store the sum to memory;
//   - a packet for another NPU (all-to-all) is written to this NPU's memory
//     and sent on by the SMs, as a communication library does.
//
// Every resource is an exact-rate serializer; a sub-step starts when all it
// needs are free (rtl.StartAll).
func RunBaseline(k *rtl.Kernel, net *fabric.Network, plan *collectives.Plan, cfg BaselineConfig) (*Result, error) {
	rates, err := cfg.rates()
	if err != nil {
		return nil, err
	}
	return execute(k, net, plan, IdealConfig{Data: cfg.Data, Observer: cfg.Observer}, rates)
}

// basePath is one NPU's baseline datapath: its resources and counters.
type basePath struct {
	nd            *node
	memRd, memWr  *rtl.Serializer // memory given to communication, each way
	busOut, busIn *rtl.Serializer // NPU–AFI bus, each way
	sm            *rtl.Serializer // the communication SMs together
	memRead       int64
	memWrite      int64
	rxLinks       []*fabric.Link // incoming links, in port order (fabric.Network.In)
	rxNext        int            // round-robin position among rxLinks
	rxQueued      int            // packets in rxLinks' receive buffers: arrived (arrived), not yet taken
	// rxHeld[i] is the packets in rxLinks[i]'s receive buffer (arrived,
	// not yet taken) and bit i of rxReady is set while it is not 0, so
	// that the RX DMA finds the next link with a packet without asking
	// each link (up to 64 links; more are asked, rxScan, and so is every
	// link on the reference path, perPacket, which the spared path is
	// compared with).
	rxHeld        []int32
	rxReady       uint64
	rxScan        bool
	rxFrames      []rxFrame // per incoming link, the frame its last packet was seen in (rxFrame)
	rxWaiting     bool      // an evRxRetry is scheduled
	rxFlight      *rtl.FIFO[rxWrite]
	reduces       *rtl.FIFO[reduceJob]
	reduceWaiting bool      // an evReduceRetry is scheduled
	step          rtl.Cycle // Library.StepCycles
	// The port whose retry was scheduled last (retryAt), its cycle, and
	// the kernel's count of events scheduled then: a retry for the same
	// cycle with nothing scheduled since rides on it.
	tail    int
	tailAt  rtl.Cycle
	tailSeq uint64
	// resumeAlways (tests): the riders after a port's pump go on in
	// rtl.Kernel.Resume's event every time, not only after an interposed
	// event, which no pump of the baseline is known to schedule.
	resumeAlways bool
	// perPacket: the reference path (fabric.Network.PerPacket): every
	// packet the RX DMA writes ends by an event, even one whose end does
	// nothing, and every port's retry is an event of its own that runs
	// the pump, even when its claim would find the resources taken.
	perPacket bool
}

// reduceJob is a reduction whose result is kept, waiting for the SMs.
type reduceJob struct {
	c, op int32
	n     int64
}

// stage is a port's packet under preparation by the SMs.
type stage struct {
	busy    bool  // preparing pkt; evStaged ends it
	ready   bool  // pkt is prepared and waits for room in the link
	waiting bool  // a retry is scheduled: an evPortRetry, or riding on another port's (rider)
	rider   int32 // 1 + the port whose retry rides next on this one's (0: none)
	pkt     fabric.Packet
	done    outMsg // the message pkt ends (msg nil: none), completed once pkt is in the link
}

func newBasePath(nd *node, r *baseRates, rxLinks []*fabric.Link) *basePath {
	return &basePath{nd: nd, rxLinks: rxLinks, step: r.lib.StepCycles,
		rxHeld: make([]int32, len(rxLinks)), rxScan: len(rxLinks) > 64 || nd.r.net.PerPacket(),
		rxFrames: make([]rxFrame, len(rxLinks)),
		memRd:    rtl.NewSerializer(r.mem), memWr: rtl.NewSerializer(r.mem),
		busOut: rtl.NewSerializer(r.bus), busIn: rtl.NewSerializer(r.bus),
		sm:        rtl.NewSerializer(r.sm),
		rxFlight:  rtl.NewFIFO[rxWrite](0),
		reduces:   rtl.NewFIFO[reduceJob](0),
		perPacket: nd.r.net.PerPacket(),
	}
}

// handle runs the baseline's events.
func (b *basePath) handle(now rtl.Cycle, kind int32, arg int64) {
	nd := b.nd
	switch kind {
	case evStaged:
		st := &nd.ports[arg].stage
		st.busy, st.ready = false, true
		nd.pump(now, int(arg))
	case evPortRetry:
		if b.perPacket { // the reference: the pump, one port a retry
			nd.ports[arg].stage.waiting = false
			nd.pump(now, int(arg))
			return
		}
		b.retry(now, int(arg))
	case evRxDone:
		w, _ := b.rxFlight.Pop()
		pkt, m := w.pkt, w.pkt.Msg
		switch {
		case int(w.dst) != nd.id:
			nd.passOnTo(now, pkt, int(w.dst))
		case pkt.Last():
			key := msgKey(m.Chunk, m.Phase, m.Op)
			if m.Values != nil {
				nd.inbox[key] = m.Values
			}
			if b.step > 0 { // the step's flag and polling (Library)
				nd.r.k.Schedule(now+b.step, nd, evProcessed, key)
			} else {
				nd.processed(now, key)
			}
			nd.r.pool.putMessage(m) // its other packets were written before it (pool)
		}
	case evRxRetry:
		b.rxWaiting = false
		b.rxPump(now)
	case evReduceDone:
		nd.complete(now, int32(arg>>32), int32(arg&0xffffffff))
	case evReduceRetry:
		b.reduceWaiting = false
		b.reducePump(now)
	default:
		panic(fmt.Sprintf("npu %d: unknown event kind %d", nd.id, kind))
	}
}

// pump moves port pt's packets through the SMs into its link: packets
// passing through first, then the oldest chunk's messages, one packet under
// preparation at a time.
func (b *basePath) pump(now rtl.Cycle, pt *port) {
	nd, st := b.nd, &pt.stage
	for {
		if st.ready {
			if !pt.link.Send(st.pkt) {
				return // SpaceAvailable resumes
			}
			st.ready = false
			if om := st.done; om.msg != nil {
				st.done = outMsg{}
				nd.complete(now, om.chunk, om.op)
			}
			continue
		}
		if st.busy || st.waiting {
			return
		}
		var pkt fabric.Packet
		reads := int64(1)
		fwd := pt.forward != nil && pt.forward.Len() > 0
		if fwd {
			pkt, _ = pt.forward.Peek()
		} else {
			if pt.cur.msg == nil {
				if pt.queue.Len() == 0 {
					return
				}
				x := pt.queue.Pop()
				pt.cur = x.out()
				pt.cur.reads = nd.sendReads(x.chunk, x.op)
			}
			pkt = fabric.PacketOf(pt.cur.msg, pt.cur.next)
			reads = pt.cur.reads
		}
		if pt.link.TxSpace() == 0 {
			pt.link.WantSpace()
			return
		}
		if retry, busy := b.portBusy(now); busy {
			b.retryAt(retry, pt.idx)
			return
		}
		end := b.portStart(now, reads*int64(pkt.Bytes), int64(pkt.Bytes))
		b.memRead += reads * int64(pkt.Bytes)
		if fwd {
			pt.forward.Pop()
		} else {
			om := &pt.cur
			om.next++
			if om.next == om.msg.Packets {
				pt.cur, st.done = outMsg{}, *om
			}
		}
		st.busy, st.pkt = true, pkt
		nd.r.k.Schedule(end, nd, evStaged, int64(pt.idx))
		return
	}
}

// sendReads is the memory bytes the SMs read per byte of Send op i of
// chunk c's current phase: 2 for a send that forwards a reduction (the
// SMs reduce as they forward: local and received operands), else 1. The
// chunk is in the op's phase until the op completes, with its last
// packet in the link.
func (nd *node) sendReads(c, i int32) int64 {
	cs := nd.chunks[c]
	if r := cs.Info.Flow.ForwardOf; r != nil && r[i] >= 0 && cs.Prog.Ops[r[i]].Reduce && !cs.Info.Flow.Store[r[i]] {
		return 2
	}
	return 1
}

// retryAt has port p try its claim again at cycle at, later than now:
// by an event of its own, or riding on the retry scheduled last, when
// that one is due at the same cycle and no event has been scheduled
// since (rtl.Kernel.Scheduled), so that p's event would have run right
// after it. The reference path (perPacket) gives every retry its event.
func (b *basePath) retryAt(at rtl.Cycle, p int) {
	nd := b.nd
	st := &nd.ports[p].stage
	st.waiting, st.rider = true, 0
	k := nd.r.k
	if at == b.tailAt && k.Scheduled() == b.tailSeq && !b.perPacket {
		nd.ports[b.tail].stage.rider = int32(p) + 1
		b.tail = p
		return
	}
	k.Schedule(at, nd, evPortRetry, int64(p))
	b.tail, b.tailAt, b.tailSeq = p, at, k.Scheduled()
}

// retry runs port p's retry and, one after another, those riding on it
// (retryAt), each as its own event would have. A waiting port has a
// packet (passing through or of its message under way), is neither
// preparing one nor holding one ready, and has had room in its link
// since it last tried, as only it fills that link: its pump would come to
// the claim. If the memory's read side, the SMs or the bus out is busy
// beyond the cycle, the claim fails, and the port only schedules its
// retry again for the cycle all three free; each rider after it would
// run next, find the same and schedule its retry right after, so they go
// on riding after it, in their order. Otherwise the port pumps; the next
// rider runs after it unless the pump has scheduled an event of a lower
// class for this cycle, which would have run before the next rider's
// event: then the rest go on in rtl.Kernel.Resume's event, after it.
func (b *basePath) retry(now rtl.Cycle, p int) {
	nd := b.nd
	for {
		st := &nd.ports[p].stage
		next := int(st.rider) - 1
		st.waiting = false
		if at, busy := b.portBusy(now); busy {
			b.retryAt(at, p)
			if next >= 0 { // the rest ride after p, in their order, still waiting
				st.rider = int32(next) + 1
				for p = next; nd.ports[p].stage.rider > 0; {
					p = int(nd.ports[p].stage.rider) - 1
				}
				b.tail = p
			}
			return
		}
		nd.pump(now, p)
		if p = next; p < 0 {
			return
		}
		if b.resumeAlways || nd.r.k.Interposed() {
			nd.r.k.Resume(nd, evPortRetry, int64(p))
			return
		}
	}
}

// A port's claim for a packet of n bytes it reads reads times is the
// memory's read side and the SMs for the reads, the bus out for the
// packet: rtl.StartAll of those three needs, in that order, done by
// portBusy and portStart without building the needs.

// portBusy reports whether a port's claim at cycle now would find its
// resources busy beyond the cycle, and the cycle all are free
// (rtl.RetryOf, which does not depend on the bytes claimed).
func (b *basePath) portBusy(now rtl.Cycle) (retry rtl.Cycle, busy bool) {
	retry = rtl.FreeCycleOf(now, b.memRd)
	retry = max(retry, rtl.FreeCycleOf(now, b.sm), rtl.FreeCycleOf(now, b.busOut))
	return retry, retry > now
}

// portStart starts a port's claim at cycle now, its resources free
// (portBusy): rd bytes read from memory through the SMs and n bytes
// over the bus out. It returns the cycle the last one finishes.
func (b *basePath) portStart(now rtl.Cycle, rd, n int64) rtl.Cycle {
	return max(now, b.memRd.Start(now, rd), b.sm.Start(now, rd), b.busOut.Start(now, n))
}

// arrived notes a packet in link l's receive buffer for the RX DMA.
func (b *basePath) arrived(now rtl.Cycle, l *fabric.Link) {
	b.rxQueued++
	if !b.rxScan {
		i := b.rxIndex(l)
		b.rxHeld[i]++
		b.rxReady |= 1 << uint(i)
	}
	b.rxPump(now)
}

// rxIndex is l's place among rxLinks: its port's, for a link of a torus
// (fabric.Network.In lists one a port, in port order), else found.
func (b *basePath) rxIndex(l *fabric.Link) int {
	if p := l.Port; p < len(b.rxLinks) && b.rxLinks[p] == l {
		return p
	}
	for i, x := range b.rxLinks {
		if x == l {
			return i
		}
	}
	panic(fmt.Sprintf("npu %d: a packet arrived over link %d, which is not one of its incoming links", b.nd.id, l.ID))
}

// rxFind returns the index of the first link at or after rxNext, in
// turn, whose receive buffer holds a packet (-1: none): from the count
// kept per link (rxReady), or by asking each link (rxScan).
func (b *basePath) rxFind() int {
	if !b.rxScan {
		m := b.rxReady
		if m == 0 {
			return -1
		}
		if hi := m >> uint(b.rxNext) << uint(b.rxNext); hi != 0 {
			m = hi
		}
		return bits.TrailingZeros64(m)
	}
	for i, n := b.rxNext, len(b.rxLinks); n > 0; n-- {
		if b.rxLinks[i].RxLen() > 0 {
			return i
		}
		if i++; i == len(b.rxLinks) {
			i = 0
		}
	}
	return -1
}

// rxPump starts the RX DMA on waiting packets, taking the links in turn,
// while the bus and the memory's write side take them.
func (b *basePath) rxPump(now rtl.Cycle) {
	nd := b.nd
	if b.rxWaiting {
		return
	}
	for b.rxQueued > 0 {
		i := b.rxFind()
		if i < 0 {
			return
		}
		l := b.rxLinks[i]
		if b.rxNext = i + 1; b.rxNext == len(b.rxLinks) {
			b.rxNext = 0
		}
		pkt, _ := l.RxPeek()
		n := int64(pkt.Bytes)
		// rtl.StartAll of the bus in and the memory's write side.
		if retry := max(rtl.FreeCycleOf(now, b.busIn), rtl.FreeCycleOf(now, b.memWr)); retry > now {
			b.rxWaiting = true
			nd.r.k.Schedule(retry, nd, evRxRetry, 0)
			return
		}
		end := max(now, b.busIn.Start(now, n), b.memWr.Start(now, n))
		l.Receive()
		b.rxQueued--
		if !b.rxScan {
			if b.rxHeld[i]--; b.rxHeld[i] == 0 {
				b.rxReady &^= 1 << uint(i)
			}
		}
		b.memWrite += n
		// The write's end matters for a message's last packet (the
		// message is in) and a packet for another NPU (it goes on); for
		// any other packet its end does nothing (evRxDone), so it needs
		// no event. Writes end in the order they start (the bus and the
		// memory's write side each serve in order), so the packets in
		// flight stay a FIFO.
		pkt, dst := b.seen(i, pkt)
		if b.perPacket || pkt.Last() || dst != nd.id {
			b.rxFlight.Push(rxWrite{pkt, int32(dst)})
			nd.r.k.Schedule(end, nd, evRxDone, 0)
		}
	}
}

// rxWrite is a packet the RX DMA is writing, as this NPU sees it, and
// the NPU it is for (seen), kept for the write's end (evRxDone).
type rxWrite struct {
	pkt fabric.Packet
	dst int32
}

// rxFrame is what the last packet taken from an incoming link became in
// this NPU's frame (machine.Topology's Arrived and PacketDst): a packet
// with Shift in and its message's destination dst arrived with Shift out
// and is for NPU to.
type rxFrame struct {
	set              bool
	in, dst, out, to int32
}

// seen returns packet pkt, taken from rxLinks[i], as this NPU sees it
// (machine.Topology.Arrived), and the NPU it is for
// (machine.Topology.PacketDst). On a full network that is pkt itself
// and its message's destination (machine.Topology). On a folded one,
// the hop adds the link's displacement to pkt's Shift and the packet is
// for its message's destination less the new Shift: both depend only on
// the link, the Shift and the destination, the same for every packet of
// a message, so they are worked out again only when those change from
// the link's last packet. The reference path (perPacket) asks the
// topology every time.
func (b *basePath) seen(i int, pkt fabric.Packet) (fabric.Packet, int) {
	nd := b.nd
	switch {
	case b.perPacket:
		pkt = nd.r.shape.Arrived(nd.r.net, b.rxLinks[i], pkt)
		return pkt, nd.r.shape.PacketDst(pkt)
	case !nd.r.folded:
		return pkt, int(pkt.Msg.Dst)
	}
	f := &b.rxFrames[i]
	if !f.set || f.in != pkt.Shift || f.dst != pkt.Msg.Dst {
		a := nd.r.shape.Arrived(nd.r.net, b.rxLinks[i], pkt)
		*f = rxFrame{set: true, in: pkt.Shift, dst: pkt.Msg.Dst, out: a.Shift, to: int32(nd.r.shape.PacketDst(a))}
	}
	pkt.Shift = f.out
	return pkt, int(f.to)
}

// recvReady puts a reduction whose result is kept in line for the SMs,
// which complete it when they have loaded both operands and stored the
// sum; any other receive completes now (a reduction whose result is only
// forwarded is done by the forward's send).
func (b *basePath) recvReady(now rtl.Cycle, c, op int32) bool {
	cs := b.nd.chunks[c]
	o := &cs.Prog.Ops[op]
	if !o.Reduce || !cs.Info.Flow.Store[op] {
		return true
	}
	b.reduces.Push(reduceJob{c: c, op: op, n: o.Data.Len})
	b.reducePump(now)
	return false
}

// reducePump starts waiting reductions, in order, while the SMs and memory
// take them: load both operands, store the sum.
func (b *basePath) reducePump(now rtl.Cycle) {
	nd := b.nd
	if b.reduceWaiting {
		return
	}
	for b.reduces.Len() > 0 {
		j, _ := b.reduces.Peek()
		end, ok, retry := rtl.StartAll(now, rtl.Need{S: b.memRd, Bytes: 2 * j.n}, rtl.Need{S: b.sm, Bytes: 2 * j.n},
			rtl.Need{S: b.memWr, Bytes: j.n})
		if !ok {
			b.reduceWaiting = true
			nd.r.k.Schedule(retry, nd, evReduceRetry, 0)
			return
		}
		b.reduces.Pop()
		b.memRead += 2 * j.n
		b.memWrite += j.n
		nd.r.k.Schedule(end, nd, evReduceDone, int64(j.c)<<32|int64(j.op))
	}
}

func (b *basePath) traffic() (read, write int64) { return b.memRead, b.memWrite }
func (b *basePath) memory() []*rtl.Serializer    { return []*rtl.Serializer{b.memRd, b.memWr} }
func (b *basePath) smBusy() *big.Rat             { return b.sm.BusyCycles() }

// takesOnArrival is false: the RX DMA takes packets as the bus and memory allow.
func (b *basePath) takesOnArrival() bool { return false }

// feedsTrains is false: the SMs prepare every packet before it goes.
func (b *basePath) feedsTrains() bool { return false }

// smBusy is the mean over NPUs of the share of cycles the communication
// SMs were busy (0 on the ideal endpoint).
func (r *run) smBusy(cycles rtl.Cycle) float64 {
	if cycles <= 0 {
		return 0
	}
	t := new(big.Rat)
	for _, nd := range r.nodes {
		b := nd.dp.smBusy()
		if b == nil {
			return 0
		}
		t.Add(t, b)
	}
	t.Quo(t, big.NewRat(int64(cycles)*int64(len(r.nodes)), 1))
	f, _ := t.Float64()
	return f
}

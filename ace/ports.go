package ace

// This file: the AFI ports: packets in from links, out to links, and the port buffers.

import (
	"fmt"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

type outPort struct {
	link     *fabric.Link
	reserved int                      // slots promised to started sub-steps
	transit  *rtl.FIFO[fabric.Packet] // absorbed packets for other NPUs
	txAt     rtl.Cycle                // the cycle the node runs the link's transmit event at (TransmitDue), or -1
}

// TransmitDue runs l's transmit event at cycle at from the node's event
// of that cycle (fabric.Driver), where sub-steps' ends are applied by the
// node's kick (run.quietFx): the node's own pushes into its links then
// run after the cycle's other events too, and no other NPU reads the
// link's transmit side.
func (nd *node) TransmitDue(l *fabric.Link, at rtl.Cycle) bool {
	if !nd.r.quietEffects() || l.Port >= len(nd.out) {
		return false
	}
	o := nd.out[l.Port]
	if o == nil || o.link != l || o.txAt >= 0 {
		return false
	}
	o.txAt = at
	nd.txDue++
	if nd.events.add(nd.r.k.Now(), at) {
		nd.r.k.ScheduleClass(at, rtl.ClassControl, nd, evKick, 0)
	}
	return true
}

// runTransmits runs the transmit events due now of the node's links
// (TransmitDue), in port order.
func (nd *node) runTransmits(now rtl.Cycle) {
	if nd.txDue == 0 {
		return
	}
	for _, o := range nd.out {
		if o != nil && o.txAt == now {
			o.txAt = -1
			nd.txDue--
			o.link.Transmit()
		}
	}
}

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
		end, ok, t := nd.sramWr.TryStart(now, b)
		if !ok {
			return t
		}
		l.Receive()
		hop, _ := nd.r.shape.NextPort(nd.id, dst)
		nd.after(end, effect{kind: fxTransitIn, pkt: pkt, port: int32(hop)})
		return -1
	}
	c := nd.chunks[m.Chunk]
	op := m.Op
	// Packets of one message are interchangeable to the data path (values
	// move per message, the forward's packets are numbered as they go), so a
	// packet may be processed directly even when earlier ones of its message
	// were absorbed.
	if c.state == csPhase && c.active && c.Phase == m.Phase && c.Ops.Ready(op) {
		alu, ports, t, ok := nd.recvRoom(c, op)
		if ok {
			end, ok, t := nd.startRecv(now, c, op, alu, b, false)
			if !ok {
				return t // a resource is busy: try again when it frees
			}
			l.Receive()
			nd.beginRecv(now, end, c, op, pkt, ports, fromLink)
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
	if !nd.reserve(c, c.parts[m.Phase]) {
		return -1 // no room: it waits in the input buffer (back-pressure)
	}
	end, ok, t := nd.sramWr.TryStart(now, b)
	if !ok {
		return t
	}
	l.Receive()
	if nd.tracing() {
		nd.trace(subStep{Start: now, End: end, Chunk: int(c.id), Phase: int(m.Phase), Op: int(op), Kind: "absorb", Bytes: b})
	}
	nd.after(end, effect{kind: fxAbsorb, c: c, op: op, pkt: pkt, absorb: m.Phase})
	return -1
}

// recvRoom asks for what may hold up one packet of receive op: a free
// ALU for a reduce (asked first), its forwards' receivers ready and a slot
// on each forward's port. It returns the ALU and the ports, or the cycle
// to look again (-1: when woken). When it fails because the first
// forward's port has no room, it leaves that port in node.fullPort (else
// -1) for the walk to set the op aside. startRecv then claims the
// packet's needs.
func (nd *node) recvRoom(c *chunk, op int32) (*rtl.Serializer, []int, rtl.Cycle, bool) {
	nd.fullPort = -1
	var alu *rtl.Serializer
	if c.Prog.Ops[op].Reduce {
		var t rtl.Cycle
		if alu, t = nd.alus.Free(nd.r.k.Now()); alu == nil {
			return nil, nil, t, false
		}
	}
	ports := nd.portBuf[:0]
	for _, f := range c.pi.Flow.Forwards[op] {
		if ok, t := nd.sendReady(c, f); !ok {
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
			if len(ports) == 0 {
				nd.fullPort = p
			}
			return nil, nil, -1, false
		}
		ports = append(ports, p)
	}
	nd.portBuf = ports // its room, kept for the next packet
	return alu, ports, 0, true
}

// recvList lists the resources one packet of b bytes of receive op
// needs (startRecv claims them), given the ALU recvRoom found (nil for a
// receive that stores):
// the ALU and the local operand read for a reduce, an SRAM write when the
// result is live. fromSRAM adds the read of a packet absorbed earlier.
func (nd *node) recvList(c *chunk, op int32, alu *rtl.Serializer, b int64, fromSRAM bool) []rtl.Need {
	needs := nd.needBuf[:0] // at most an ALU, a read and a write
	read := int64(0)
	if fromSRAM {
		read += b
	}
	if alu != nil {
		read += b
		needs = append(needs, rtl.Need{S: alu, Bytes: b})
	}
	if read > 0 {
		needs = append(needs, rtl.Need{S: nd.sramRd, Bytes: read})
	}
	if c.pi.Flow.Store[op] && (alu != nil || !fromSRAM) {
		needs = append(needs, rtl.Need{S: nd.sramWr, Bytes: b})
	}
	return needs
}

// startRecv is rtl.StartAll of recvList's needs without the list: it
// starts one packet's receive if the ALU, the SRAM read port and the SRAM
// write port it needs are free by the end of cycle now (claimed in that
// order, as listed), and otherwise returns when they will be.
func (nd *node) startRecv(now rtl.Cycle, c *chunk, op int32, alu *rtl.Serializer, b int64, fromSRAM bool) (end rtl.Cycle, ok bool, retry rtl.Cycle) {
	read := int64(0)
	if fromSRAM {
		read += b
	}
	if alu != nil {
		read += b
	}
	write := c.pi.Flow.Store[op] && (alu != nil || !fromSRAM)
	if alu != nil && !alu.FreeWithin(now) || read > 0 && !nd.sramRd.FreeWithin(now) || write && !nd.sramWr.FreeWithin(now) {
		return 0, false, rtl.RetryOf(now, nd.recvList(c, op, alu, b, fromSRAM)...)
	}
	end = now
	if alu != nil {
		end = max(end, alu.Start(now, b))
	}
	if read > 0 {
		end = max(end, nd.sramRd.Start(now, read))
	}
	if write {
		end = max(end, nd.sramWr.Start(now, b))
	}
	return end, true, now
}

// Where a receive's packet comes from: off its link, or from SRAM where it
// was absorbed.
const (
	fromLink = iota
	fromBuffer
)

// recvKinds name a receive's sub-step by where its packet comes from and
// whether it stores or reduces: constants, so naming costs nothing per
// packet.
var recvKinds = [2][2]string{
	fromLink:   {"recv-store", "recv-reduce"},
	fromBuffer: {"buffered-store", "buffered-reduce"},
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (nd *node) beginRecv(now, end rtl.Cycle, c *chunk, op int32, pkt fabric.Packet, ports []int, from int) {
	for _, p := range ports {
		nd.out[p].reserved++
	}
	if nd.tracing() {
		kind := recvKinds[from][b2i(c.Prog.Ops[op].Reduce)]
		nd.trace(subStep{Start: now, End: end, Chunk: int(c.id), Phase: int(c.Phase), Op: int(op), Kind: kind, Bytes: int64(pkt.Bytes)})
	}
	nd.after(end, effect{kind: fxRecv, c: c, op: op, pkt: pkt})
}

func (nd *node) sendPort(c *chunk, op int32) int {
	o := &c.Prog.Ops[op]
	if o.Port == collectives.RouteXYZ {
		hop, _ := nd.r.shape.NextPort(nd.id, int(nd.peerOf(c, o)))
		return hop
	}
	return int(o.Port)
}

// sendMsg returns the message of send op, creating it for the packet about
// to go when none is under way. A message of several packets is kept
// until its last packet goes (dropMsg); one of a single packet is held by
// its packet alone, so a chunk of many small messages (an all-to-all on
// many NPUs) keeps no array of them.
func (nd *node) sendMsg(c *chunk, op int32) *fabric.Message {
	if c.msgs != nil {
		if m := c.msgs[op]; m != nil {
			return m
		}
	}
	o := &c.Prog.Ops[op]
	m := fabric.NewMessage(nd.id, int(nd.peerOf(c, o)), o.Data.Len)
	m.Coll, m.Chunk, m.Phase, m.Op = int32(c.Coll.ID), c.id, c.Phase, o.Match
	m.Sub = fabric.SubSend
	if c.pi.Flow.ForwardOf[op] >= 0 {
		m.Sub = fabric.SubForward
	}
	if c.Vals != nil && c.pi.Flow.ForwardOf[op] < 0 {
		m.Values = collectives.Gather(c.Vals, c.Prog.View, o.Data)
	}
	nd.sent += o.Data.Len
	if m.Packets > 1 {
		if c.msgs == nil {
			c.msgs = make([]*fabric.Message, len(c.Prog.Ops))
		}
		c.msgs[op] = m
	}
	return m
}

// dropMsg lets go of send op's message once its last packet has gone: its
// packets carry it from here, and it is freed once they are delivered.
func (nd *node) dropMsg(c *chunk, op int32) {
	if c.msgs != nil {
		c.msgs[op] = nil
	}
}

func (nd *node) push(p int, pkt fabric.Packet) {
	o := nd.out[p]
	o.reserved--
	if !o.link.Send(pkt) {
		panic(fmt.Sprintf("ace: NPU %d: output port %d refused a packet it had a slot for", nd.id, p))
	}
}

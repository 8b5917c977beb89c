package npu

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// datapath is what an endpoint's data movements cost; the node (ideal.go)
// keeps the dataflow every endpoint shares: chunks, phases, ops, message
// queues per port and forwarding. The ideal endpoint's datapath is free
// (idealPath); the SM-driven baseline's costs SMs, memory and the NPU–AFI
// bus (basePath, baseline.go).
type datapath interface {
	// pump moves port pt's packets into its link while it takes them:
	// packets passing through first, then the queued messages.
	pump(now rtl.Cycle, pt *port)
	// arrived takes what it can of the packet in link l's receive buffer.
	arrived(now rtl.Cycle, l *fabric.Link)
	// recvReady is called when a receive's message is in and its
	// dependences are met: it reports whether the op completes now, or
	// takes it over and completes it later (node.complete).
	recvReady(now rtl.Cycle, c, op int32) bool
	// handle runs the datapath's own events.
	handle(now rtl.Cycle, kind int32, arg int64)
	// traffic is the bytes communication read from and wrote to memory.
	traffic() (read, write int64)
	// memory is the serializers through which communication reads and
	// writes memory, in that order (none on the ideal endpoint).
	memory() []*rtl.Serializer
	// smBusy is the cycles the communication SMs were busy (nil: none).
	smBusy() *big.Rat
	// takesOnArrival reports whether arrived takes every packet at once
	// (fabric.Absorber).
	takesOnArrival() bool
	// feedsTrains reports whether pump puts a message's packets into a
	// link with nothing else happening, one whenever the link takes one
	// (fabric.Feeder).
	feedsTrains() bool
}

// idealPath is the ideal endpoint's datapath: every movement is free, and
// only the links and the processing time after a message's last packet
// take time.
type idealPath struct{ nd *node }

func (idealPath) recvReady(rtl.Cycle, int32, int32) bool { return true }
func (idealPath) traffic() (int64, int64)                { return 0, 0 }
func (idealPath) memory() []*rtl.Serializer              { return nil }
func (idealPath) smBusy() *big.Rat                       { return nil }
func (idealPath) takesOnArrival() bool                   { return true }
func (idealPath) feedsTrains() bool                      { return true }
func (p idealPath) handle(_ rtl.Cycle, kind int32, _ int64) {
	panic(fmt.Sprintf("npu %d: unknown event kind %d", p.nd.id, kind))
}

// TakesOnArrival reports whether the node takes every packet of a link
// the moment it arrives (fabric.Absorber): its datapath says; the ideal
// endpoint's does, the baseline's RX DMA takes packets as the bus and
// memory allow.
func (nd *node) TakesOnArrival(*fabric.Link) bool { return nd.dp.takesOnArrival() }

// Absorbs reports whether taking p is all the node does with it: a packet
// for this NPU that is not its message's last (idealPath.arrived).
func (nd *node) Absorbs(l *fabric.Link, p fabric.Packet) bool {
	if p.Last() {
		return false
	}
	if !nd.r.folded { // the message's destination (machine.Topology.PacketDst)
		return int(p.Msg.Dst) == nd.id
	}
	return nd.r.shape.PacketDst(nd.r.shape.Arrived(nd.r.net, l, p)) == nd.id
}

// FeedsTrains reports whether the node tells link l what it will send
// next (fabric.Feeder): its datapath says; the ideal endpoint's pump puts
// a message's packets into the link as it takes them, the baseline's SMs
// prepare each packet first.
func (nd *node) FeedsTrains(*fabric.Link) bool { return nd.dp.feedsTrains() }

// Plain returns how many packets port l.Port will put into l with nothing
// else happening, and the first: the packets of the message under way but
// its last (that one finishes the send), while no packet passing through
// waits to go first (idealPath.pump). They are all full packets for the
// message's destination.
func (nd *node) Plain(l *fabric.Link) (int, fabric.Packet) {
	pt := &nd.ports[l.Port]
	om := &pt.cur
	if om.msg == nil || pt.forward != nil && pt.forward.Len() > 0 {
		return 0, fabric.Packet{}
	}
	return int(om.msg.Packets - om.next - 1), fabric.PacketOf(om.msg, om.next)
}

// Take moves the port past the next n packets Plain counts and returns
// the first.
func (nd *node) Take(l *fabric.Link, n int) fabric.Packet {
	om := &nd.ports[l.Port].cur
	om.next += int32(n)
	return fabric.PacketOf(om.msg, om.next-int32(n))
}

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
	return nd.r.shape.PacketDst(nd.r.shape.Arrived(nd.r.net, l, p)) == nd.id
}

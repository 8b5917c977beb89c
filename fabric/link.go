package fabric

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// LinkParams describes one class of link.
type LinkParams struct {
	Name          string   // "intra" or "inter", for reports
	Rate          rtl.Rate // payload bytes per cycle (raw bandwidth × efficiency)
	Latency       rtl.Cycle
	TxBuffer      int       // transmit (output port) buffer, packets
	RxBuffer      int       // receive (input port) buffer, packets: the credits
	CreditLatency rtl.Cycle // cycles a returned credit takes to reach the sender
}

// Validate reports parameters that cannot make a working link.
func (p LinkParams) Validate() error {
	switch {
	case p.Rate.Num <= 0 || p.Rate.Den <= 0:
		return fmt.Errorf("%s link: bandwidth must be positive", p.Name)
	case p.Latency < 0 || p.CreditLatency < 0:
		return fmt.Errorf("%s link: latency must not be negative", p.Name)
	case p.TxBuffer < 1:
		return fmt.Errorf("%s link: transmit buffer of %d packets: needs at least 1", p.Name, p.TxBuffer)
	case p.RxBuffer < 1:
		return fmt.Errorf("%s link: receive buffer of %d packets: needs at least 1 (it is the link's credit count)", p.Name, p.RxBuffer)
	}
	return nil
}

// Endpoint is what sits at each end of a link: the NPU side of the contract.
type Endpoint interface {
	// PacketArrived tells the receiving endpoint that a packet is wholly in
	// l's receive buffer; it takes it with l.Receive, now or later.
	PacketArrived(now rtl.Cycle, l *Link)
	// SpaceAvailable tells the sending endpoint that l's transmit buffer has
	// room again after a Send was refused.
	SpaceAvailable(now rtl.Cycle, l *Link)
}

// An Absorber is a receiving endpoint that can spare its links events.
// When it takes every packet of a link the moment the packet arrives
// (TakesOnArrival: it calls Receive from PacketArrived, whatever it holds),
// the link knows each packet's credit return when it sends the packet
// (arrival + CreditLatency); and a packet with which the endpoint would do
// nothing but take it (Absorbs) needs no arrival event at all: the link
// delivers it silently, and only the packets the endpoint acts on (a
// message's last, one passing through) arrive as events. Every packet's
// send and arrival cycle, and every credit, are what the per-packet path
// gives (Network.SetPerPacket turns this off, for the comparison).
type Absorber interface {
	TakesOnArrival(l *Link) bool
	Absorbs(l *Link, p Packet) bool
}

type txEntry struct {
	p     Packet
	ready rtl.Cycle // cycle it entered the transmit buffer
}

type flight struct {
	p      Packet
	arrive rtl.Cycle
}

// Event kinds of a link.
const (
	evTransmit int32 = iota // the serialiser may start the next packet
	evArrive                // the oldest packet in flight arrives
)

// Link is one unidirectional point-to-point link with a transmit buffer at
// the sender, a serialiser, a latency pipe, and a credit-managed receive
// buffer at the receiver.
type Link struct {
	ID       int
	Src, Dst int // NPU ids
	Port     int // index of the sender's port this link leaves by
	Params   LinkParams

	k        *rtl.Kernel
	ser      *rtl.Serializer
	tx       *rtl.FIFO[txEntry]
	wire     *rtl.FIFO[flight]
	rx       *rtl.FIFO[Packet]
	credits  int                  // credits never used yet (the initial ones)
	returned *rtl.FIFO[rtl.Cycle] // cycles at which used credits come back, in order

	sender, receiver Endpoint
	absorber         Absorber // the receiver, when it takes every packet on arrival and per-packet events are not asked for
	obs              observe.Observer
	windows          *rtl.Windows // busy time per window, when tracked (Network.TrackWindows)

	txPending     bool // an evTransmit is scheduled
	arrivePending bool // an evArrive is scheduled
	creditStalled bool // waiting for the receiver to take a packet
	senderWaiting bool // a Send was refused; call SpaceAvailable on room

	packets, bytes int64
	absorbed       int64 // packets delivered without an arrival event
}

// NewLink returns a link from src to dst, driven by kernel k. Both endpoints
// must be attached with Attach before the first Send.
func NewLink(k *rtl.Kernel, id, src, dst, port int, p LinkParams) (*Link, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if port < 0 || port >= rtl.ClassPorts {
		return nil, fmt.Errorf("link %d: port %d outside [0,%d)", id, port, rtl.ClassPorts)
	}
	return &Link{
		ID: id, Src: src, Dst: dst, Port: port, Params: p,
		k:        k,
		ser:      rtl.NewSerializer(p.Rate),
		tx:       rtl.NewFIFO[txEntry](p.TxBuffer),
		wire:     rtl.NewFIFO[flight](0),
		rx:       rtl.NewFIFO[Packet](p.RxBuffer),
		credits:  p.RxBuffer,
		returned: rtl.NewFIFO[rtl.Cycle](0),
	}, nil
}

// Attach sets the endpoints at the two ends; with perPacket false, a
// receiver that is an Absorber taking every packet on arrival spares the
// link its arrival events where it can.
func (l *Link) Attach(sender, receiver Endpoint, perPacket bool) {
	l.sender, l.receiver, l.absorber = sender, receiver, nil
	if a, ok := receiver.(Absorber); ok && !perPacket && a.TakesOnArrival(l) {
		l.absorber = a
	}
}

// SetObserver installs an observer of the link's packets (nil removes
// it; with none, a packet costs one comparison).
func (l *Link) SetObserver(o observe.Observer) { l.obs = o }

// observe tells the observer of packet event kind.
func (l *Link) observe(kind observe.Kind, now rtl.Cycle, p Packet, end rtl.Cycle) {
	m := p.Msg
	l.obs.Observe(observe.Event{Kind: kind, Cycle: now, End: end, NPU: l.Src, Link: l.ID, Src: int(m.Src), Dst: int(m.Dst),
		Coll: int(m.Coll), Chunk: int(m.Chunk), Phase: int(m.Phase), Op: int(m.Op), Index: int(p.Index), Bytes: int64(p.Bytes)})
}

// TxSpace returns how many packets the transmit buffer can take now.
func (l *Link) TxSpace() int { return l.tx.Space() }

// Send puts p into the transmit buffer. It reports false, and promises a
// SpaceAvailable call, when the buffer is full.
func (l *Link) Send(p Packet) bool {
	now := l.k.Now()
	if !l.tx.Push(txEntry{p: p, ready: now}) {
		l.senderWaiting = true
		return false
	}
	if !l.txPending && !l.creditStalled {
		if l.ser.FreeBy(now) {
			l.transmit(now)
		} else {
			l.txPending = true
			l.k.Schedule(l.ser.FreeAt(), l, evTransmit, 0)
		}
	}
	return true
}

// Receive takes the oldest packet from the receive buffer, returning its
// credit to the sender. ok is false when the buffer is empty.
func (l *Link) Receive() (p Packet, ok bool) {
	p, ok = l.rx.Pop()
	if !ok {
		return p, false
	}
	if l.absorber != nil {
		return p, true // its credit was counted when it was sent
	}
	back := l.k.Now() + l.Params.CreditLatency
	l.returned.Push(back)
	if l.creditStalled {
		l.creditStalled = false
		l.txPending = true
		l.k.ScheduleClass(back, rtl.ClassCredit+rtl.Class(l.Port), l, evTransmit, 0)
	}
	return p, true
}

// RxPeek returns the oldest packet in the receive buffer without taking it.
func (l *Link) RxPeek() (Packet, bool) { return l.rx.Peek() }

// WantSpace asks for a SpaceAvailable call once the transmit buffer next
// frees a slot, for a sender that checks TxSpace instead of being refused.
func (l *Link) WantSpace() { l.senderWaiting = true }

// RxLen returns the packets waiting in the receive buffer.
func (l *Link) RxLen() int { return l.rx.Len() }

// Handle runs the link's events.
func (l *Link) Handle(now rtl.Cycle, kind int32, _ int64) {
	switch kind {
	case evTransmit:
		l.txPending = false
		l.transmit(now)
	case evArrive:
		l.arrivePending = false
		l.arrive(now)
	}
}

// transmit starts every packet that can start by now, then arranges the next
// wake-up: at the end of the serialiser's current packet, or at the next
// credit's return.
func (l *Link) transmit(now rtl.Cycle) {
	freed := false
	for l.tx.Len() > 0 && l.ser.FreeBy(now) {
		credit, ok := l.takeCredit(now)
		if !ok {
			break
		}
		e, _ := l.tx.Pop()
		freed = true
		ready := e.ready
		if credit > ready {
			ready = credit
		}
		end := l.ser.Start(ready, int64(e.p.Bytes))
		if l.windows != nil {
			l.windows.Add(l.ser.LastSpan())
		}
		l.packets++
		l.bytes += int64(e.p.Bytes)
		if l.obs != nil {
			l.observe(observe.PacketSent, now, e.p, end)
		}
		arrive := end + l.Params.Latency
		if l.absorber != nil {
			// The receiver takes it at arrive: its credit is back then.
			l.returned.Push(arrive + l.Params.CreditLatency)
			if l.absorber.Absorbs(l, e.p) {
				l.absorbed++
				if l.obs != nil {
					l.observe(observe.PacketReceived, arrive, e.p, 0)
				}
				continue
			}
		}
		l.wire.Push(flight{p: e.p, arrive: arrive})
		if !l.arrivePending {
			l.arrivePending = true
			l.k.ScheduleClass(arrive, rtl.ClassArrive+rtl.Class(l.Port), l, evArrive, 0)
		}
	}
	if l.tx.Len() > 0 && !l.txPending && !l.creditStalled {
		l.txPending = true
		l.k.Schedule(l.ser.FreeAt(), l, evTransmit, 0)
	}
	if freed && l.senderWaiting {
		l.senderWaiting = false
		l.sender.SpaceAvailable(now, l)
	}
}

// takeCredit uses one credit if one is available by now and returns the
// cycle it became available (0 for an initial credit). Otherwise it arranges
// a wake-up for when one returns.
func (l *Link) takeCredit(now rtl.Cycle) (rtl.Cycle, bool) {
	if l.credits > 0 {
		l.credits--
		return 0, true
	}
	if back, ok := l.returned.Peek(); ok {
		if back <= now {
			l.returned.Pop()
			return back, true
		}
		l.txPending = true
		l.k.ScheduleClass(back, rtl.ClassCredit+rtl.Class(l.Port), l, evTransmit, 0)
		return 0, false
	}
	l.creditStalled = true
	return 0, false
}

// arrive moves every packet due by now from the wire into the receive buffer.
func (l *Link) arrive(now rtl.Cycle) {
	for {
		f := l.wire.PeekRef()
		if f == nil {
			return
		}
		if f.arrive > now {
			l.arrivePending = true
			l.k.ScheduleClass(f.arrive, rtl.ClassArrive+rtl.Class(l.Port), l, evArrive, 0)
			return
		}
		p := f.p
		l.wire.Pop()
		if !l.rx.Push(p) {
			panic(fmt.Sprintf("fabric: link %d overran its receive buffer: credit accounting is broken", l.ID))
		}
		if l.obs != nil {
			l.observe(observe.PacketReceived, now, p, 0)
		}
		l.receiver.PacketArrived(now, l)
	}
}

// Packets returns the packets sent so far.
func (l *Link) Packets() int64 { return l.packets }

// Bytes returns the payload bytes sent so far.
func (l *Link) Bytes() int64 { return l.bytes }

// BusyCycles returns the exact time the serialiser has been transmitting.
func (l *Link) BusyCycles() *big.Rat { return l.ser.BusyCycles() }

// Idle reports whether nothing is queued, on the wire or unreceived.
func (l *Link) Idle() bool { return l.tx.Len() == 0 && l.wire.Len() == 0 && l.rx.Len() == 0 }

// String names the link for messages.
func (l *Link) String() string {
	return fmt.Sprintf("link %d (%s, NPU %d → %d)", l.ID, l.Params.Name, l.Src, l.Dst)
}

// Describe tells what the link holds and waits on, for deadlock reports.
func (l *Link) Describe() string {
	free := l.credits + l.returned.Len()
	if l.absorber != nil { // credits of packets not arrived yet are counted already
		free = l.credits
		for i := 0; i < l.returned.Len(); i++ {
			if l.returned.At(i) <= l.k.Now() {
				free++
			}
		}
	}
	return fmt.Sprintf("%s: %d in transmit buffer, %d on the wire, %d in receive buffer, %d credits free, credit-stalled=%v",
		l, l.tx.Len(), l.wire.Len(), l.rx.Len(), free, l.creditStalled)
}

// Absorbed returns the packets delivered without an arrival event
// (Absorber).
func (l *Link) Absorbed() int64 { return l.absorbed }

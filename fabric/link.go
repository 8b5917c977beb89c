package fabric

import (
	"fmt"
	"math"
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
	case p.Rate.Num > math.MaxInt32 || p.Rate.Den > math.MaxInt32:
		return fmt.Errorf("%s link: bandwidth %d/%d B/cycle is too fine a fraction to account exactly; round it to fewer digits", p.Name, p.Rate.Num, p.Rate.Den)
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

// A Collector is a receiving endpoint that reads a link's receive buffer
// (RxPeek, RxLen, Receive) only from events that run after every arrival
// of their cycle (rtl.ClassControl or, for a switch, rtl.ClassSwitch,
// after rtl.ClassArrive's classes), and
// that can be told, when a packet starts, the cycle it will be wholly in
// the buffer. Such a link schedules no arrival event: the buffer takes the
// packets due by the current cycle when it is read, so the receiver finds
// in it what per-packet arrival events would have put there, and it takes
// them at the same cycles, returning their credits at the same cycles.
// The receiver wakes itself at each packet's cycle (PacketDue) rather than
// from the arrival event, so its wake-ups may take another place among
// other endpoints' events of that cycle: a Collector asks for this only
// where that changes nothing. A link whose packets are observed
// (SetObserver) keeps its arrival events, so that its observer sees each
// arrival in its place among the cycle's events.
type Collector interface {
	// Collects reports whether the receiver collects l's packets itself
	// (asked once, at Attach).
	Collects(l *Link) bool
	// PacketDue tells the receiver that a packet has started on l and
	// will be in l's receive buffer from cycle at.
	PacketDue(l *Link, at rtl.Cycle)
}

// A Driver is a sending endpoint that can run its links' transmit events
// from events of its own: where nothing that reads the link's transmit
// side (TxSpace, Send) runs between the cycle's other events and its own
// decisions (rtl.ClassControl), the link's wake-up may run there, with
// the driver's own work of the cycle, rather than as an event of its own.
// A packet starts at the exact instant its serialiser frees (or its
// credit or readiness allows), whichever event of the cycle starts it, so
// every packet's start is the same.
type Driver interface {
	// TransmitDue asks the sender to call l.Transmit at cycle at (after
	// the current one), and reports whether it will; if not, the link
	// schedules its own event.
	TransmitDue(l *Link, at rtl.Cycle) bool
}

// A Feeder is a sending endpoint that can tell a link what it will put
// into it next. With a Feeder at the sending end and an Absorber that takes
// every packet on arrival at the other, a link moves a train of packets in
// O(1) events: when a transmit event ends with more packets waiting, the
// link works out when each following transmit event would come and what
// it would start, as far as nothing else would happen (no packet the
// receiver acts on, no buffer emptied, no message finishing), and
// schedules only the event where that stops. Two kinds:
//
//   - The sender waits for room: each start lets it put the next packet
//     of its message in (Plain, Take), and a Send during the train is
//     refused, as the full buffer would refuse it, unless the sender's
//     plan changes, which ends the train there.
//   - The sender does not wait (a drain): the buffer's packets leave, as
//     far as the one before its last; a packet put in meanwhile joins the
//     buffer behind them, and one refused (or a WantSpace) ends the train
//     there, since the next start must call the sender.
//
// On a link that streams (streams) a train is worked out in closed form
// (planStream), otherwise event by event (planTrain).
//
// A link into a switch that collects its packets (Switch.Collects) moves
// trains too: there no arrival is an event, so every full packet may go
// in a train; a train takes only the credits the switch has returned
// (it returns them as it takes packets, which the link cannot know
// ahead), and is done by the cycle its first packet arrives, so that the
// switch learns of its packets (Collector.PacketDue) before it
// arbitrates for them. It streams where a full packet takes a cycle or
// more. When the train's
// last event is due, the link takes the state the plan worked out, all at
// once (the packets started, their credits, the serialiser, the refills
// in the buffer); when something needs the link's state before that, it
// does the events due so far: one by one with the per-packet code, or, in
// closed form, all at once (applyStream). Every packet's send and
// arrival cycle, and every credit, are what per-packet events give
// (Network.SetPerPacket turns trains off, for the comparison).
//
// An event scheduled ahead must run where the per-packet one would: the
// transmit events of a link whose sender feeds trains take a fixed place
// in the cycle (rtl.ClassTransmit + port, with or without trains), not the
// place of when they were scheduled.
type Feeder interface {
	// FeedsTrains reports whether the sender feeds trains on l (asked
	// once, at Attach).
	FeedsTrains(l *Link) bool
	// Plain returns how many packets the sender would put into l, one for
	// each slot of its full transmit buffer that frees, with nothing else
	// happening, and the first of them: the others are of its size and
	// for the same NPU.
	Plain(l *Link) (n int, first Packet)
	// Take moves the sender past the next n of those packets, which go
	// into l now, and returns the first: the others follow it in its
	// message (indices first.Index+1, first.Index+2, …).
	Take(l *Link, n int) Packet
}

// trainEvent is a transmit event a train stands for: its cycle and class,
// and the packets it starts (and the sender puts in).
type trainEvent struct {
	at    rtl.Cycle
	n     int32
	class rtl.Class
}

// span is a stretch of time the serialiser is busy, exactly (units of
// 1/Num cycle).
type span struct{ s0, s1 int64 }

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
	// The fields a packet's send, start and train read and write come
	// first, those of setting up and reporting last, so that the packet
	// path touches as few of the link's cache lines as it can: a large
	// network's links do not all stay in the cache (docs/performance.md).

	k    *rtl.Kernel
	tx   txBuf
	Port int // index of the sender's port this link leaves by

	// The train under way (Feeder): its events not done yet are
	// train[trainPos:], which take trainLeft packets from the feeder; the
	// event that ends it is scheduled with generation gen (a transmit
	// event of an older generation is stale).
	train     []trainEvent
	trainPos  int
	trainLeft int
	// A train in closed form (planStream), instead of train: its events
	// not done yet each start one full packet, back to back from where
	// the serialiser stands, at the cycles the serialiser frees (the first
	// at its FreeAt); streamLeft counts them. streaming is whether the
	// link can move such trains (streams, at Attach).
	streamLeft int
	gen        int64
	// drain: the train is the transmit buffer emptying with the sender
	// not waiting (it puts nothing in; trainLeft is 0); trainN is the
	// packets the train's events start.
	trainN int

	txPending     bool // an evTransmit is scheduled
	arrivePending bool // an evArrive is scheduled
	creditStalled bool // waiting for the receiver to take a packet
	senderWaiting bool // a Send was refused; call SpaceAvailable on room
	// trainSpare: the packets the feeder puts in are spared their arrival.
	trainSpare bool
	drain      bool
	streaming  bool
	inHand     bool      // hand holds a packet an absorber is to take
	txClass    rtl.Class // the class of its transmit events when the serialiser frees (rtl.ClassTransmit)
	// arriveClass is the class of its arrival events (rtl.ClassArrive +
	// Port, or rtl.ClassSwitchArrive); creditClass of the transmit events
	// that wait for a credit (rtl.ClassCredit + Port, or
	// rtl.ClassSwitchCredit).
	arriveClass, creditClass rtl.Class

	sender, receiver Endpoint
	absorber         Absorber  // the receiver, when it takes every packet on arrival and per-packet events are not asked for
	feeder           Feeder    // the sender, when it feeds trains and absorber is set or the receiver is a switch that collects (intoSwitch)
	collector        Collector // the receiver, when it collects its packets and per-packet events are not asked for (Collector)
	driver           Driver    // the sender, when it runs the link's transmit events and per-packet events are not asked for (Driver)
	obs              observe.Observer
	windows          *rtl.Windows // busy time per window, when tracked (Network.TrackWindows)
	own              *rtl.Windows // the link's own busy time per window, when tracked too (Network.TrackLinkWindows)

	credits  int         // credits never used yet (the initial ones)
	returned creditQueue // cycles at which used credits come back, in order
	ser      rtl.Serializer
	wire     rtl.FIFO[flight]

	// On a link with a feeder, pushed and popped count the packets into
	// and out of the transmit buffer, and stops holds the numbers (pushed
	// at the time) of those in it that a train stops at: not spared, or
	// not full (Link.push). planTrain then finds the first without reading
	// the buffer's entries.
	pushed, popped int64
	// fullSince is the number (popped at the time) of the first packet
	// after the last one shorter than full started: from it on, packets
	// are full (planStream).
	fullSince int64
	stops     rtl.FIFO[int64]

	packets, bytes int64
	absorbed       int64 // packets delivered without an arrival event
	trains         int64
	drains         int64 // trains that are drains
	closed         int64 // trains in closed form
	applied        int64 // trains done all at once

	// hand is the packet an absorber takes as it arrives (inHand until
	// it does).
	hand Packet
	// dueAt is the cycle the oldest packet on the wire of a link whose
	// receiver collects them (Collector) is due in the receive buffer
	// (math.MaxInt64: none).
	dueAt  rtl.Cycle
	Params LinkParams

	// What planTrain worked out, for doing the whole train at once
	// (applyTrain): the ends of the packets it starts (the serialiser's,
	// whole cycles), the serialiser's busy time (the packets' spans, those
	// back to back joined), and the serialiser, credits never used and
	// returned credits used after the train.
	planEnds    []rtl.Cycle
	planSpans   []span
	planMark    rtl.SerializerMark
	planCredits int
	planUsed    int

	rx       rtl.FIFO[Packet]
	ID       int
	Src, Dst int // NPU ids; on a network with switches, node ids (Network.AddSwitch)
	// fromSwitch: the link leaves a switch (NewSwitchLink); toSwitch: it
	// arrives at one, at the switch's input port inPort
	// (Network.AddToSwitch).
	fromSwitch, toSwitch bool
	inPort               int
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
	l := newLink(k, id, src, dst, port, p)
	l.arriveClass, l.creditClass = rtl.ClassArrive+rtl.Class(port), rtl.ClassCredit+rtl.Class(port)
	return l, nil
}

// MaxSwitchPorts bounds a switch's radix (its input ports, and as many
// output ports).
const MaxSwitchPorts = 1024

// NewSwitchLink returns a link leaving port port of the switch that is
// node src (Network.AddSwitch) for node dst, driven by kernel k. A
// switch may have more ports than rtl.ClassPorts: the link's arrivals and
// credits take the switches' classes (rtl.ClassSwitchArrive,
// rtl.ClassSwitchCredit), one for every port.
func NewSwitchLink(k *rtl.Kernel, id, src, dst, port int, p LinkParams) (*Link, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("link %d out of switch node %d: %w", id, src, err)
	}
	if port < 0 || port >= MaxSwitchPorts {
		return nil, fmt.Errorf("link %d out of switch node %d: port %d outside [0,%d)", id, src, port, MaxSwitchPorts)
	}
	l := newLink(k, id, src, dst, port, p)
	l.arriveClass, l.creditClass, l.fromSwitch = rtl.ClassSwitchArrive, rtl.ClassSwitchCredit, true
	return l, nil
}

// newLink returns a link of valid parameters, without its event classes.
func newLink(k *rtl.Kernel, id, src, dst, port int, p LinkParams) *Link {
	return &Link{
		ID: id, Src: src, Dst: dst, Port: port, Params: p,
		k:        k,
		ser:      *rtl.NewSerializer(p.Rate),
		tx:       newTxBuf(p.TxBuffer),
		wire:     *rtl.NewRing[flight](4),
		rx:       *rtl.NewFIFO[Packet](p.RxBuffer),
		credits:  p.RxBuffer,
		returned: newCreditQueue(p),
		dueAt:    math.MaxInt64,
	}
}

// Attach sets the endpoints at the two ends. A sender that feeds trains
// (Feeder) gives the link's transmit events their class of their own
// (rtl.ClassTransmit); with perPacket false, a receiver that is an
// Absorber taking every packet on arrival spares the link its arrival
// events where it can, and with such a receiver, or a switch that
// collects the link's packets, the feeder's link moves trains.
func (l *Link) Attach(sender, receiver Endpoint, perPacket bool) {
	l.sender, l.receiver, l.absorber, l.feeder, l.collector, l.driver = sender, receiver, nil, nil, nil, nil
	if a, ok := receiver.(Absorber); ok && !perPacket && a.TakesOnArrival(l) {
		l.absorber = a
	}
	if c, ok := receiver.(Collector); ok && !perPacket && l.absorber == nil && c.Collects(l) {
		l.collector = c
	}
	l.txClass = rtl.ClassDefault
	if f, ok := sender.(Feeder); ok && !l.fromSwitch && f.FeedsTrains(l) {
		l.txClass = rtl.ClassTransmit + rtl.Class(l.Port)
		if l.absorber != nil || l.intoSwitch() {
			l.feeder = f
			l.stops = *rtl.NewFIFO[int64](l.Params.TxBuffer)
			l.streaming = streams(l.Params)
			if l.absorber == nil { // into a switch: the train takes only credits returned
				l.streaming = packetTakesACycle(l.Params)
			}
		}
	}
	if d, ok := sender.(Driver); ok && !perPacket && !l.fromSwitch && l.feeder == nil {
		l.driver = d
	}
}

// streams reports whether a link of parameters p streams full packets
// on its credits at an absorber: with d = PacketBytes × Den, a full
// packet's time in units of 1/Num cycle, d ≥ Num (a packet takes a
// cycle or more, so a transmit event starts at most one of a train's)
// and (RxBuffer − 1) × d ≥ (Latency + CreditLatency + 1) × Num. At an
// absorber a packet's credit is the one of the packet RxBuffer before
// it, back Latency + CreditLatency cycles after that packet's end
// cycle (less than Num units after its exact end); with RxBuffer − 1
// full packets back to back between them, it is back by the exact
// instant the later packet starts back to back, so it never holds a
// train's packet back (planStream). The bound is sufficient, not tight:
// it allows for a credit's cycle lying up to a whole cycle after its
// packet's exact end.
func streams(p LinkParams) bool {
	d := PacketBytes * p.Rate.Den
	lag := int64(p.Latency + p.CreditLatency)
	if lag+1 > math.MaxInt64/p.Rate.Num || int64(p.RxBuffer-1) > math.MaxInt64/d {
		return false // beyond exact arithmetic: the train's events are worked out one by one
	}
	return packetTakesACycle(p) && int64(p.RxBuffer-1)*d >= (lag+1)*p.Rate.Num
}

// packetTakesACycle reports whether a full packet takes at least a cycle
// on a link of p (d ≥ Num in the serialiser's units): one packet starts
// an event, the first half of streams' test.
func packetTakesACycle(p LinkParams) bool { return PacketBytes*p.Rate.Den >= p.Rate.Num }

// SetObserver installs an observer of the link's packets (nil removes
// it; with none, a packet costs one comparison). Each event carries its
// own cycle, but a link's events need not reach o
// in the order of their cycles: a spared arrival is reported when its
// packet starts (Absorber), and a train's packets when the train's events
// are done (Feeder). An observed link keeps its arrival events at a
// receiver that collects its packets (Collector): install the observer
// before the run.
func (l *Link) SetObserver(o observe.Observer) { l.obs = o }

// Observed reports whether the link's packets are observed (SetObserver).
func (l *Link) Observed() bool { return l.obs != nil }

// observe tells the observer of packet event kind.
func (l *Link) observe(kind observe.Kind, now rtl.Cycle, p Packet, end rtl.Cycle) {
	m := p.Msg
	l.obs.Observe(observe.Event{Kind: kind, Cycle: now, End: end, NPU: l.Src, Link: l.ID, Src: int(m.Src), Dst: int(m.Dst),
		Coll: int(m.Coll), Chunk: int(m.Chunk), Phase: int(m.Phase), Op: int(m.Op), Index: int(p.Index), Sub: int(m.Sub), Bytes: int64(p.Bytes)})
}

// TxSpace returns how many packets the transmit buffer can take now.
func (l *Link) TxSpace() int {
	l.catchUp()
	return l.tx.Space()
}

// Send puts p into the transmit buffer. It reports false, and promises a
// SpaceAvailable call, when the buffer is full.
func (l *Link) Send(p Packet) bool {
	now := l.k.Now()
	if l.inTrain() && l.drain {
		// The packets a drain starts by now leave the buffer first; the
		// packet joins the buffer behind the drain's, which start as
		// planned. If it is refused, the next start calls the sender:
		// an event of its own.
		l.catchUp()
		if l.tx.Full() {
			l.endDrain()
		}
	} else if l.inTrain() {
		// The transmit buffer is full all through a train, so the Send
		// is refused, and the train's events need not be done yet:
		// unless the sender's new plan ends the train here.
		l.checkPlan()
		if !l.tx.Full() {
			panic(fmt.Sprintf("%s: room in the transmit buffer during a train", l))
		}
	}
	if l.tx.Full() {
		l.senderWaiting = true
		return false
	}
	spare := l.plain(p)
	l.tx.Push(p, 1, now, spare)
	l.noteStops(1, spare && p.Bytes == PacketBytes)
	if !l.txPending && !l.creditStalled {
		if l.ser.FreeBy(now) {
			l.transmit(now, false)
		} else {
			l.txPending = true
			l.schedule(l.ser.FreeAt(), l.txClass)
		}
	}
	return true
}

// SendRun puts packets into the transmit buffer as n Sends one after
// another would, first and the n−1 following it in its message (none of
// them its last), up to the first the buffer refuses, and returns how
// many it took: a link with a transmit event pending (or stalled for a
// credit) and no train under way only takes packets in, as many as it has
// room for, as one entry of the buffer (txBuf.Push).
func (l *Link) SendRun(first Packet, n int) int {
	if first.Index+int32(n) >= first.Msg.Packets {
		panic(fmt.Sprintf("%s: a run of %d packets from packet %d takes its message's last (of %d)", l, n, first.Index, first.Msg.Packets))
	}
	sent := 0
	for sent < n {
		p := first
		p.Index += int32(sent)
		if l.inTrain() || !l.txPending && !l.creditStalled {
			// A train under way, or the packet may start the serialiser.
			if !l.Send(p) {
				return sent
			}
			sent++
			continue
		}
		k := min(n-sent, l.tx.Space())
		spare := l.plain(p) // the same for all: one message's, none its last
		l.tx.Push(p, k, l.k.Now(), spare)
		l.noteStops(k, spare) // all full: none is its message's last
		if sent += k; sent < n {
			l.senderWaiting = true // the next is refused
		}
		return sent
	}
	return sent
}

// noteStops counts n packets just put into the transmit buffer, on a
// link with a feeder, and notes them as packets a train would stop at
// unless plain (spared their arrival, and full).
func (l *Link) noteStops(n int, plain bool) {
	if l.feeder == nil {
		return
	}
	if !plain {
		for i := range n {
			l.stops.Push(l.pushed + int64(i))
		}
	}
	l.pushed += int64(n)
}

// schedule arranges a transmit event at cycle at of class c.
func (l *Link) schedule(at rtl.Cycle, c rtl.Class) {
	if l.driver != nil && at > l.k.Now() && l.driver.TransmitDue(l, at) {
		return
	}
	l.k.ScheduleClass(at, c, l, evTransmit, l.gen)
}

// Transmit runs the transmit event the link's sender was asked to run
// now (Driver).
func (l *Link) Transmit() { l.Handle(l.k.Now(), evTransmit, l.gen) }

// Receive takes the oldest packet from the receive buffer, returning its
// credit to the sender. ok is false when the buffer is empty.
func (l *Link) Receive() (p Packet, ok bool) {
	if l.inHand {
		l.inHand = false
		return l.hand, true // an absorber's: its credit was counted when it was sent
	}
	l.collect()
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
		l.schedule(back, l.creditClass)
	}
	return p, true
}

// RxPeek returns the oldest packet in the receive buffer without taking it.
func (l *Link) RxPeek() (Packet, bool) {
	l.collect()
	return l.rx.Peek()
}

// collect moves into the receive buffer the packets on the wire due by
// now, on a link whose receiver collects them (Collector): what their
// arrival events would have done by the time the receiver reads it.
func (l *Link) collect() {
	if l.dueAt <= l.k.Now() {
		l.collectDue()
	}
}

// collectDue is collect's work, once a packet is due (apart, so that
// collect's test is inlined where the buffer is read).
func (l *Link) collectDue() {
	now := l.k.Now()
	for f := l.wire.PeekRef(); f != nil && f.arrive <= now; f = l.wire.PeekRef() {
		if !l.rx.Push(f.p) {
			panic(fmt.Sprintf("fabric: link %d overran its receive buffer: credit accounting is broken", l.ID))
		}
		l.wire.Pop()
	}
	l.dueAt = math.MaxInt64
	if f := l.wire.PeekRef(); f != nil {
		l.dueAt = f.arrive
	}
}

// DueAt returns the cycle the oldest packet on its way to the receive
// buffer of a link whose receiver collects them (Collector) is due there
// (math.MaxInt64: none).
func (l *Link) DueAt() rtl.Cycle { return l.dueAt }

// Ready reports whether the receive buffer holds a packet now (one
// collected when due included: Collector).
func (l *Link) Ready() bool { return l.rx.Len() > 0 || l.dueAt <= l.k.Now() }

// Coming reports whether packets are on their way to the receive buffer
// of a link whose receiver collects them (Collector), which calls no
// PacketArrived for them.
func (l *Link) Coming() bool { return l.collector != nil && l.wire.Len() > 0 }

// SenderWaiting reports whether l will call its sender's SpaceAvailable
// when it next starts a packet (a Send refused, or WantSpace asked).
func (l *Link) SenderWaiting() bool { return l.senderWaiting }

// WantSpace asks for a SpaceAvailable call once the transmit buffer next
// frees a slot, for a sender that checks TxSpace instead of being refused.
// It ends a train as a refused Send does: a drain (the next start calls
// the sender), or a train whose refills the sender's plan no longer
// gives.
func (l *Link) WantSpace() {
	if l.inTrain() && !l.drain {
		l.checkPlan()
	}
	l.endDrain()
	l.senderWaiting = true
}

// checkPlan ends the train under way (the sender waiting for room) before
// its next event if the sender's plan no longer gives the refills it
// counts on. Plain counts from where the sender stands and trainLeft from
// where the events done so far left it; doing more of them takes as many
// from both, so only a plan short of trainLeft now can end it.
func (l *Link) checkPlan() {
	if n, _ := l.feeder.Plain(l); n < l.trainLeft {
		l.catchUp()
		if n, _ := l.feeder.Plain(l); n < l.trainLeft {
			l.abandon()
		}
	}
}

// endDrain ends the drain under way, if any, before its next event (the
// sender now waits, and the next start must call it): its events due by
// now are done first.
func (l *Link) endDrain() {
	if !l.inTrain() || !l.drain {
		return
	}
	l.catchUp()
	if l.trainPos < len(l.train) || l.streamLeft > 0 {
		l.abandon()
	}
}

// RxLen returns the packets waiting in the receive buffer.
func (l *Link) RxLen() int {
	l.collect()
	return l.rx.Len()
}

// Handle runs the link's events.
func (l *Link) Handle(now rtl.Cycle, kind int32, gen int64) {
	switch kind {
	case evTransmit:
		if gen != l.gen {
			return // of a train that ended early (abandon)
		}
		if l.inTrain() { // this event ends the train: its events all come before
			l.catchUp()
			if l.streamLeft > 0 {
				panic(fmt.Sprintf("%s: a train in closed form has events after its end", l))
			}
			l.train, l.trainPos, l.drain = l.train[:0], 0, false
		}
		l.txPending = false
		l.transmit(now, true)
	case evArrive:
		l.arrivePending = false
		l.arrive(now)
	}
}

// transmit starts every packet that can start by now, then arranges the next
// wake-up: at the end of the serialiser's current packet, or at the next
// credit's return. From a transmit event (mayTrain), a link with a Feeder
// may make the wake-up the start of a train.
func (l *Link) transmit(now rtl.Cycle, mayTrain bool) {
	started, at, c, wake := l.startAll(now)
	if wake {
		l.txPending = true
		// A link without a feeder schedules before the sender refills:
		// its events are ClassDefault, ordered by when they were
		// scheduled, so this place is part of its results. A feeder's
		// link has a class of its own and decides after the refill
		// whether the wake-up starts a train.
		if l.feeder == nil {
			l.schedule(at, c)
		}
	}
	if started > 0 && l.senderWaiting {
		l.senderWaiting = false
		l.sender.SpaceAvailable(now, l)
	}
	if wake && l.feeder != nil && !(mayTrain && l.planTrain(at, c)) {
		l.schedule(at, c)
	}
}

// startAll starts every packet that can start by now and returns how
// many did, and the next wake-up (cycle and class), if any: a credit's
// return when the serialiser waits for one, else the serialiser's end
// while packets wait.
func (l *Link) startAll(now rtl.Cycle) (started int, at rtl.Cycle, c rtl.Class, wake bool) {
	for l.tx.Len() > 0 && l.ser.FreeBy(now) {
		credit, ok := l.takeCredit(now)
		if !ok {
			if back, ok := l.returned.Peek(); ok {
				return started, back, l.creditClass, true
			}
			l.creditStalled = true
			return started, 0, 0, false
		}
		l.start(now, credit)
		started++
	}
	if l.tx.Len() > 0 && !l.creditStalled {
		return started, l.ser.FreeAt(), l.txClass, true
	}
	return started, 0, 0, false
}

// start starts the oldest packet of the transmit buffer at now, with the
// credit it takes (available since cycle credit).
func (l *Link) start(now, credit rtl.Cycle) {
	p, ready, spare := l.tx.Pop()
	l.k.Progress()
	if l.feeder != nil {
		if l.stops.Len() > 0 && l.stops.At(0) == l.popped {
			l.stops.Pop()
		}
		l.popped++
		if p.Bytes != PacketBytes {
			l.fullSince = l.popped
		}
	}
	if credit > ready {
		ready = credit
	}
	end := l.ser.Start(ready, int64(p.Bytes))
	if l.windows != nil {
		s0, s1 := l.ser.LastSpan()
		l.windows.Add(s0, s1)
		if l.own != nil {
			l.own.Add(s0, s1)
		}
	}
	l.packets++
	l.bytes += int64(p.Bytes)
	if l.obs != nil {
		l.observe(observe.PacketSent, now, p, end)
	}
	arrive := end + l.Params.Latency
	if l.absorber != nil {
		// The receiver takes it at arrive: its credit is back then.
		l.returned.Push(arrive + l.Params.CreditLatency)
		if spare {
			l.absorbed++
			if l.obs != nil {
				l.observe(observe.PacketReceived, arrive, p, 0)
			}
			return
		}
	}
	l.launch(p, arrive)
}

// launch puts p, started, on the wire, to arrive at cycle arrive: its
// receiver learns of it now (Collector), or its arrival is an event.
func (l *Link) launch(p Packet, arrive rtl.Cycle) {
	l.wire.Push(flight{p: p, arrive: arrive})
	if l.collector != nil && l.obs == nil {
		if l.wire.Len() == 1 {
			l.dueAt = arrive
		}
		l.collector.PacketDue(l, arrive) // no arrival event: the buffer collects it when read (Collector)
		return
	}
	if !l.arrivePending {
		l.arrivePending = true
		l.k.ScheduleClass(arrive, l.arriveClass, l, evArrive, 0)
	}
}

// intoSwitch reports whether the link arrives at a switch that collects
// its packets (Switch.Collects): a sender that feeds trains moves them on
// it too, each train done by its first packet's arrival (planTrain).
func (l *Link) intoSwitch() bool {
	return l.collector != nil && l.toSwitch // a network with switches is never folded: the collector is the switch
}

// plain reports whether p, put into the transmit buffer, is one a train
// may start: at an absorber, one spared its arrival; into a switch that
// collects, any (its arrival is no event). (Neither may be short: Send
// notes those as stops apart.)
func (l *Link) plain(p Packet) bool {
	if l.absorber != nil {
		return l.absorber.Absorbs(l, p)
	}
	return l.feeder != nil
}

// takeCredit uses one credit if one is available by now and returns the
// cycle it became available (0 for an initial credit).
func (l *Link) takeCredit(now rtl.Cycle) (rtl.Cycle, bool) {
	if l.credits > 0 {
		l.credits--
		return 0, true
	}
	if back, ok := l.returned.Peek(); ok && back <= now {
		l.returned.Pop()
		return back, true
	}
	return 0, false
}

// planTrain works out, from the transmit event at (at, c), the events that
// would follow with the sender only refilling its full transmit buffer
// (Feeder.Plain) and every packet started spared its arrival (Absorber);
// if there is at least one, they become a train: the event where that
// stops is scheduled, and the train's events are done when the sender next
// sends (catchUp) or at that event. It reports whether it made a train.
func (l *Link) planTrain(at rtl.Cycle, c rtl.Class) bool {
	inBuf := l.tx.Len()
	// A drain: the sender is not waiting, so it puts nothing in as the
	// buffer's packets start; a packet it sends meanwhile joins behind
	// them (Send).
	drain := !l.senderWaiting
	plain, like, likeSpare := 0, Packet{}, false
	if l.absorber == nil && l.obs != nil {
		return false // into a switch, an observer sees each packet at its event
	}
	switch {
	case drain && inBuf < 2:
		return false
	case !drain:
		if !l.tx.Full() {
			return false
		}
		if plain, like = l.feeder.Plain(l); plain < 2 {
			return false
		}
		likeSpare = l.plain(like)
	}
	// Every packet the train starts is a full one, spared its arrival, and
	// none waits for its own readiness: those in the buffer came by now,
	// and a refill comes at an event before the one it starts at, after
	// that event's starts keep the serialiser busy past it.
	ser := l.ser.Shadow()
	credits, queued := l.credits, l.returned.Len()
	returned := l.returned.Cursor() // at credit used of those returned
	// The first packet, counted from the buffer's head, a train stops at:
	// one in the buffer, else the first refill unless the refills are plain
	// (then the sender's plan ends the train).
	firstStop := math.MaxInt
	switch {
	case l.stops.Len() > 0:
		firstStop = int(l.stops.At(0) - l.popped)
	case !drain && (!likeSpare || like.Bytes != PacketBytes):
		firstStop = inBuf
	}
	if drain {
		// The event that starts the buffer's last packet is a real one:
		// the link then waits for the sender, as after any other.
		firstStop = min(firstStop, inBuf-1)
	}
	if l.streaming && c == l.txClass && at == l.ser.FreeAt() {
		limit := firstStop
		if !drain {
			limit = min(limit, plain)
		}
		return l.planStream(limit, drain, likeSpare)
	}
	ends, spans := l.planEnds[:0], l.planSpans[:0]
	markSpans, markS1 := 0, int64(0)
	backLag := l.Params.Latency + l.Params.CreditLatency // a packet's credit is back this long after its end
	var mark rtl.SerializerMark
	head, used, started := 0, 0, 0 // next packet to start (the buffer's, then refills), credits returned used, packets started by the train's events
	l.train, l.trainPos = l.train[:0], 0
plan:
	for {
		n, blocked := 0, rtl.Cycle(-1)
		for ser.FreeBy(at) {
			if n == inBuf {
				break plan // the event would empty the buffer
			}
			if head == firstStop {
				break plan // the receiver acts on it (an arrival event), or the sender does more than refill
			}
			var credit rtl.Cycle
			switch {
			case credits > 0:
				credits--
			case used < queued+len(ends) && (l.absorber != nil || used < queued):
				if used < queued {
					credit = returned.At()
				} else {
					credit = ends[used-queued] + backLag
				}
				if credit > at {
					blocked = credit
				} else {
					if used < queued {
						returned.Next()
					}
					used++
				}
			case l.absorber == nil:
				// Into a switch: the credit comes back when the switch
				// takes a packet, which the train does not know.
				break plan
			default:
				// At an absorber every credit comes back when its packet
				// arrives: credits + returned is always RxBuffer.
				panic(fmt.Sprintf("%s: no credit to come back at an absorber", l))
			}
			if blocked >= 0 {
				break
			}
			end := ser.Start(credit, PacketBytes)
			s0, s1 := ser.LastSpan()
			ends = append(ends, end)
			if k := len(spans); k > 0 && spans[k-1].s1 == s0 {
				spans[k-1].s1 = s1
			} else {
				spans = append(spans, span{s0, s1})
			}
			head++
			n++
		}
		if !drain && started+n > plain || n == 0 && blocked < 0 {
			break // the sender would do more than refill (or nothing moves)
		}
		if l.absorber == nil && len(ends) > 0 {
			// Into a switch, the train's packets go on the wire when its
			// events are done: by the event that stops it, which must
			// come by the first one's arrival (the switch learns of it
			// then, Collector, before it arbitrates).
			next := ser.FreeAt()
			if blocked >= 0 {
				next = blocked
			}
			if next > ends[0]+l.Params.Latency {
				break
			}
		}
		l.train = append(l.train, trainEvent{at: at, class: c, n: int32(n)})
		started += n
		mark, l.planCredits, l.planUsed = ser.Mark(), credits, used
		if markSpans = len(spans); markSpans > 0 {
			markS1 = spans[markSpans-1].s1
		}
		if blocked >= 0 {
			at, c = blocked, l.creditClass
		} else {
			at, c = ser.FreeAt(), l.txClass
		}
	}
	l.planEnds, l.planSpans = ends, spans
	if len(l.train) == 0 {
		return false
	}
	// The packets of the stopping event are not the train's.
	l.planEnds, l.planSpans = ends[:started], spans[:markSpans]
	if markSpans > 0 {
		spans[markSpans-1].s1 = markS1
	}
	l.planMark = mark
	l.beginTrain(started, drain, likeSpare, at, c)
	return true
}

// beginTrain starts a train whose events start n packets (the sender's
// refills spared their arrival when spare; none in a drain), and
// schedules the event that ends it, at (at, c).
func (l *Link) beginTrain(n int, drain, spare bool, at rtl.Cycle, c rtl.Class) {
	l.trainN, l.drain, l.trainSpare = n, drain, spare
	l.trainLeft = n // a train's sender refills every packet it starts
	if drain {
		l.trainLeft = 0
		l.drains++
	}
	l.trains++
	l.schedule(at, c)
}

// planStream makes a train in closed form, from a transmit event at the
// serialiser's FreeAt on a link that streams, of at most limit packets
// (the first packet, from the buffer's head, it must not start): the
// packets start back to back, one an event, while their credits are
// back by the exact instant each starts. With F the serialiser's exact
// end now and d a full packet's time (units of 1/Num cycle), packet i
// starts at F + i×d, at the event of cycle ⌈(F + i×d) / Num⌉: there the
// serialiser is free and, d ≥ Num, busy again past the cycle after one
// start. An initial credit is back; a credit returned before the train
// is checked; a credit of the train's own packets is back in time
// because the link streams (streams). It reports whether it made a
// train.
func (l *Link) planStream(limit int, drain, spare bool) bool {
	num, d := l.units()
	free := l.ser.FreeExact()
	k := limit
	// Packets credits … credits+q−1 take the returned credits in order.
	// Packet i, the link's packet P = popped + i, takes the credit of
	// packet P − RxBuffer; when the packets between are all full
	// (P − RxBuffer + 1 ≥ fullSince), P starts no earlier than the exact
	// end of P − RxBuffer plus RxBuffer − 1 full packets' time, and the
	// link streams: the credit is back in time. Only the packets before
	// that are checked.
	check := min(k, int(l.fullSince+int64(l.Params.RxBuffer)-1-l.popped))
	if l.absorber == nil {
		// Into a switch: the credits the switch has returned, each
		// checked, and done by the first packet's arrival, at
		// ⌈(F + d) / Num⌉ + Latency: the event of packet k, at
		// ⌈(F + k×d) / Num⌉, which stops the train, comes by then.
		first := int64(l.cycleOf(free+d) + l.Params.Latency)
		k = min(k, l.credits+l.returned.Len(), int((first*num-free)/d))
		check = k
	}
	if q := l.returned.Len(); l.credits < check && q > 0 {
		i := l.credits
		start := free + int64(i)*d
		returned := l.returned.Cursor()
		for u := 0; u < q && i < check; u, i = u+1, i+1 {
			if int64(returned.At())*num > start {
				k = i // it waits for its credit: the train stops there
				break
			}
			returned.Next()
			start += d
		}
	}
	if k < 1 {
		return false
	}
	l.streamLeft = k
	l.closed++
	l.beginTrain(k, drain, spare, l.cycleOf(free+int64(k)*d), l.txClass) // the cycle packet k would start at: the train stops there
	return true
}

// applyStream does the next j events of the train in closed form under
// way at once, leaving what doing them one by one would: the packets
// started (the buffer's, then the sender's refills), reported in order,
// their credits, and the refills not started in the buffer.
func (l *Link) applyStream(j int) {
	inBuf := l.tx.Len()
	var first Packet
	if !l.drain {
		first = l.feeder.Take(l, j)
	}
	skip := max(0, j-inBuf) // refills started by these events too
	// Packet i starts at the event of the cycle packet i−1 ends (packet
	// 0: the serialiser's FreeAt) and its credit comes back
	// Latency + CreditLatency after it ends; it takes an initial credit,
	// else the oldest returned.
	initial := min(l.credits, j)
	l.credits -= initial
	queued := min(j-initial, l.returned.Len())
	l.returned.Drop(queued) // before the packets' own go in: the ring keeps its size
	_, d := l.units()
	if l.absorber != nil {
		// The packets' credits as one run, packet 0 ending at F + d.
		l.returned.PushRun(l.ser.FreeExact()+d, j)
	} else {
		// Into a switch: the packets go on the wire, the switch told of
		// them, by the first one's arrival (planStream); it returns
		// their credits as it takes them.
		ends := l.ser.Steps(PacketBytes)
		for i := range j {
			p := l.trainPacket(i, inBuf, first)
			l.launch(p, ends.Next()+l.Params.Latency)
		}
	}
	// The refills left in the buffer go in as one run with the first's
	// cycle: that of the event that starts packet skip, ⌈(F + skip×d) /
	// Num⌉ (each would have its own, later one, but a refill's cycle never
	// decides when it starts: txBuf).
	refillAt := l.cycleOf(l.ser.FreeExact() + int64(skip)*d)
	if l.obs != nil {
		at, ends := l.ser.FreeAt(), l.ser.Steps(PacketBytes)
		for i := range j {
			p := l.trainPacket(i, inBuf, first)
			end := ends.Next()
			l.observe(observe.PacketSent, at, p, end)
			l.observe(observe.PacketReceived, end+l.Params.Latency, p, 0)
			at = end
		}
	}
	l.returned.Drop(j - initial - queued) // the train's own, used by its later packets
	s0 := l.ser.FreeExact()
	l.ser.Run(int64(j), PacketBytes)
	if l.windows != nil {
		l.windows.Add(s0, l.ser.FreeExact())
		if l.own != nil {
			l.own.Add(s0, l.ser.FreeExact())
		}
	}
	l.tally(j, inBuf, first, refillAt)
	if j == l.trainN {
		l.applied++
	}
	l.streamLeft -= j
	if !l.drain {
		l.trainLeft -= j
	}
}

// replay does train event ev as a transmit event would: it starts the
// packets, and the sender refills the buffer.
func (l *Link) replay(ev trainEvent) {
	n := int(ev.n)
	if started, _, _, _ := l.startAll(ev.at); started != n {
		panic(fmt.Sprintf("%s: a train's event at cycle %d started %d packets, not the %d planned", l, ev.at, started, n))
	}
	if l.drain {
		return
	}
	p := l.feeder.Take(l, n)
	l.tx.PushRun(p, n, ev.at, l.trainSpare)
	l.noteStops(n, l.trainSpare)
	l.trainLeft -= n
}

// applyTrain does every event of the train under way at once, leaving
// what replaying them one by one would: the state planTrain worked out,
// the packets it started reported in the same order, and the sender's
// refills in the buffer.
func (l *Link) applyTrain() {
	n, inBuf := l.trainN, l.tx.Len()
	var first Packet
	if !l.drain {
		first = l.feeder.Take(l, n)
	}
	if l.windows != nil {
		for _, sp := range l.planSpans {
			l.windows.Add(sp.s0, sp.s1)
			if l.own != nil {
				l.own.Add(sp.s0, sp.s1)
			}
		}
	}
	if l.obs != nil {
		j := 0
		for _, ev := range l.train {
			for range ev.n {
				p := l.trainPacket(j, inBuf, first)
				end := l.planEnds[j]
				l.observe(observe.PacketSent, ev.at, p, end)
				l.observe(observe.PacketReceived, end+l.Params.Latency, p, 0)
				j++
			}
		}
	}
	if l.absorber == nil {
		// Into a switch: the packets go on the wire, and the switch
		// learns of them (Collector), before the first arrives.
		for j, end := range l.planEnds {
			p := l.trainPacket(j, inBuf, first)
			l.launch(p, end+l.Params.Latency)
		}
	}
	l.tally(n, inBuf, first, l.startOf(max(0, n-inBuf)))
	// Credits: the returned ones the train used go, the train's packets'
	// come back in order (at an absorber; a switch returns them as it
	// takes the packets, after the ones the train used).
	queued := l.returned.Len()
	l.returned.Drop(min(l.planUsed, queued))
	if l.absorber != nil {
		for _, end := range l.planEnds[max(0, l.planUsed-queued):] {
			l.returned.Push(end + l.Params.Latency + l.Params.CreditLatency)
		}
	}
	l.credits = l.planCredits
	l.ser.Reset(l.planMark) // the shadow's timing: it worked at l.ser's rate
	l.trainLeft, l.trainPos = 0, len(l.train)
	l.applied++
}

// trainPacket returns the i-th packet a train starts: of the inBuf in the
// transmit buffer, then the sender's refills, first and those following
// it in its message.
func (l *Link) trainPacket(i, inBuf int, first Packet) Packet {
	if i < inBuf {
		return l.tx.At(i)
	}
	first.Index += int32(i - inBuf)
	return first
}

// tally records n packets a train's events started, of the inBuf in
// the buffer before them: those leave the buffer, the sender's refills
// (first and those following it; none in a drain) go in behind as one
// run with cycle refillAt (that of the first left in the buffer), less
// those the train started too, and the link's counts move on.
func (l *Link) tally(n, inBuf int, first Packet, refillAt rtl.Cycle) {
	l.tx.Drop(min(n, inBuf))
	l.popped += int64(n)
	skip := max(0, n-inBuf) // refills started by the same events
	l.pushed += int64(skip)
	if !l.drain && skip < n {
		p := first
		p.Index += int32(skip)
		l.tx.PushRun(p, n-skip, refillAt, l.trainSpare)
		l.noteStops(n-skip, l.trainSpare)
	}
	l.packets += int64(n)
	l.bytes += int64(n) * PacketBytes
	if l.absorber != nil {
		l.absorbed += int64(n)
	}
	l.k.Progress()
}

// startOf returns the cycle of the train event that starts the train's
// j-th packet.
func (l *Link) startOf(j int) rtl.Cycle {
	for _, ev := range l.train {
		if j < int(ev.n) {
			return ev.at
		}
		j -= int(ev.n)
	}
	panic(fmt.Sprintf("%s: a train starts no packet %d", l, j))
}

// catchUp does the events of the train under way that run before the
// event running now: all at once when they all do (applyTrain), else one
// by one.
func (l *Link) catchUp() {
	if l.streamLeft > 0 {
		// Event i of the stream is at ⌈(F + i×d) / Num⌉, of the link's
		// transmit class: those due by cycle t run before now.
		t := l.k.Now()
		if !l.k.Precedes(t, l.txClass) {
			t--
		}
		num, d := l.units()
		if x := int64(t)*num - l.ser.FreeExact(); x >= 0 {
			l.applyStream(int(min(int64(l.streamLeft), x/d+1)))
		}
		return
	}
	if l.trainPos == 0 && len(l.train) > 0 && !l.ser.Watched() {
		if last := l.train[len(l.train)-1]; l.k.Precedes(last.at, last.class) {
			l.applyTrain()
			return
		}
	}
	for l.trainPos < len(l.train) {
		ev := l.train[l.trainPos]
		if !l.k.Precedes(ev.at, ev.class) {
			return
		}
		l.replay(ev)
		l.trainPos++
	}
}

// abandon ends the train under way before its next event, which becomes
// an event of its own; the event that was to end it is left stale.
func (l *Link) abandon() {
	l.drain = false
	if l.streamLeft > 0 {
		l.streamLeft, l.trainLeft = 0, 0
		l.gen++
		l.schedule(l.ser.FreeAt(), l.txClass)
		return
	}
	next := l.train[l.trainPos]
	l.train, l.trainPos, l.trainLeft = l.train[:0], 0, 0
	l.gen++
	l.schedule(next.at, next.class)
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
			l.k.ScheduleClass(f.arrive, l.arriveClass, l, evArrive, 0)
			return
		}
		p := f.p
		l.wire.Pop()
		if l.obs != nil {
			l.observe(observe.PacketReceived, now, p, 0)
		}
		if l.absorber != nil {
			// It takes the packet now (Receive): it goes from hand
			// to hand, not through the receive buffer.
			l.hand, l.inHand = p, true
			l.receiver.PacketArrived(now, l)
			if l.inHand {
				panic(fmt.Sprintf("%s: an absorber left a packet it was to take on arrival", l))
			}
			continue
		}
		if !l.rx.Push(p) {
			panic(fmt.Sprintf("fabric: link %d overran its receive buffer: credit accounting is broken", l.ID))
		}
		l.receiver.PacketArrived(now, l)
	}
}

// Packets returns the packets sent so far.
func (l *Link) Packets() int64 {
	l.catchUp()
	return l.packets
}

// Bytes returns the payload bytes sent so far.
func (l *Link) Bytes() int64 {
	l.catchUp()
	return l.bytes
}

// BusyCycles returns the exact time the serialiser has been transmitting.
func (l *Link) BusyCycles() *big.Rat {
	l.catchUp()
	return l.ser.BusyCycles()
}

// Idle reports whether nothing is queued, on the wire or unreceived.
func (l *Link) Idle() bool {
	l.catchUp()
	l.collect()
	return l.tx.Len() == 0 && l.wire.Len() == 0 && l.rx.Len() == 0
}

// String names the link for messages.
func (l *Link) String() string {
	if l.fromSwitch || l.toSwitch {
		return fmt.Sprintf("link %d (%s, %s → %s)", l.ID, l.Params.Name, nodeName(l.Src, l.fromSwitch), nodeName(l.Dst, l.toSwitch))
	}
	return fmt.Sprintf("link %d (%s, NPU %d → %d)", l.ID, l.Params.Name, l.Src, l.Dst)
}

// nodeName names node n, a switch or an NPU, for messages.
func nodeName(n int, isSwitch bool) string {
	if isSwitch {
		return fmt.Sprintf("switch node %d", n)
	}
	return fmt.Sprintf("NPU %d", n)
}

// Describe tells what the link holds and waits on, for deadlock reports.
func (l *Link) Describe() string {
	l.catchUp()
	l.collect()
	free := l.credits + l.returned.Len()
	if l.absorber != nil { // credits of packets not arrived yet are counted already
		free = l.credits
		returned := l.returned.Cursor()
		for range l.returned.Len() {
			if returned.At() <= l.k.Now() {
				free++
			}
			returned.Next()
		}
	}
	return fmt.Sprintf("%s: %d in transmit buffer, %d on the wire, %d in receive buffer, %d credits free, credit-stalled=%v",
		l, l.tx.Len(), l.wire.Len(), l.rx.Len(), free, l.creditStalled)
}

// Absorbed returns the packets delivered without an arrival event
// (Absorber).
func (l *Link) Absorbed() int64 {
	l.catchUp()
	return l.absorbed
}

// nextTrainEvent returns the cycle of the next event of the train under
// way not done yet, if any.
func (l *Link) nextTrainEvent() (rtl.Cycle, bool) {
	switch {
	case l.streamLeft > 0:
		return l.ser.FreeAt(), true
	case l.trainPos < len(l.train):
		return l.train[l.trainPos].at, true
	}
	return 0, false
}

// units returns the units of the serialiser's exact time a cycle holds
// (the rate's Num) and a full packet's time in them (PacketBytes × Den).
func (l *Link) units() (num, d int64) {
	return l.Params.Rate.Num, PacketBytes * l.Params.Rate.Den
}

// cycleOf returns the cycle at whose start the exact instant v (units of
// 1/Num cycle) has passed: ⌈v / Num⌉, when a transmit event finds a
// serialiser free since v.
func (l *Link) cycleOf(v int64) rtl.Cycle {
	c, _ := rtl.RoundUp(v, l.Params.Rate.Num)
	return rtl.Cycle(c)
}

// inTrain reports whether a train is under way.
func (l *Link) inTrain() bool { return len(l.train) > 0 || l.streamLeft > 0 }

// TrainCounts counts a link's trains (Feeder).
type TrainCounts struct {
	Trains int64 // trains moved
	Drains int64 // of them, the transmit buffer emptying with the sender not waiting
	Closed int64 // of them, worked out in closed form (the link streams)
	AtOnce int64 // of them, done all at once rather than in parts or event by event
}

// Trains returns the link's counts of trains.
func (l *Link) Trains() TrainCounts {
	return TrainCounts{Trains: l.trains, Drains: l.drains, Closed: l.closed, AtOnce: l.applied}
}

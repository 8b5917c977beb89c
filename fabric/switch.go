package fabric

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/acemu/acemu/rtl"
)

// SwitchParams describes a switch.
type SwitchParams struct {
	Name  string // for reports
	Ports int    // the radix: input ports 0…Ports−1, and as many output ports
	// Latency is the switching latency: the cycles from a packet being
	// wholly in its input's receive buffer to its being eligible for its
	// output (routing and the crossbar's pipeline); 0 is allowed.
	Latency rtl.Cycle
}

// Validate reports parameters that cannot make a working switch.
func (p SwitchParams) Validate() error {
	switch {
	case p.Ports < 1:
		return fmt.Errorf("switch %q: %d ports: needs at least 1", p.Name, p.Ports)
	case p.Ports > MaxSwitchPorts:
		return fmt.Errorf("switch %q: %d ports: at most %d", p.Name, p.Ports, MaxSwitchPorts)
	case p.Latency < 0:
		return fmt.Errorf("switch %q: switching latency %d: must not be negative", p.Name, p.Latency)
	}
	return nil
}

// Event kinds of a switch.
const evArbitrate int32 = 0

// Switch is a network element with Ports input and output ports
// (docs/switches.md). Input port i receives from a link whose receive
// buffer is the port's one FIFO: the switch takes a packet out of it, and
// so returns its credit to the sender, only when the packet moves to its
// output. Output port o sends into a link whose transmit buffer is the
// output's queue. A packet is eligible Latency cycles after it is wholly
// received, and only at the head of its input (one FIFO per input: a head
// waiting for a busy output blocks the packets behind it). A routing table
// names each destination NPU's output port. Each output grants the inputs
// whose eligible heads ask for it in round-robin order, from the one after
// the input it granted last; the crossbar moves a packet in no time, so an
// output takes packets while its link's transmit buffer has room, and the
// links are the only limit on bandwidth.
//
// The switch arbitrates in events of class rtl.ClassSwitch, after the
// cycle's arrivals, credits and transmit events; one is scheduled for a
// cycle at most, unless room frees in that cycle after it ran. It is the
// Endpoint of its links: the receiver of those arriving
// at it and the sender of those leaving it.
type Switch struct {
	Node   int // its node number in its network: after the NPUs (Network.AddSwitch)
	Params SwitchParams

	k     *rtl.Kernel
	route []int32 // destination NPU → output port
	in    []*Link // by input port; nil where none is attached
	out   []*Link // by output port

	// arrived holds, per input, the cycles at which the packets in its
	// receive buffer arrived (on a collecting switch also those still on
	// the wire, when they will), oldest first.
	arrived []rtl.FIFO[rtl.Cycle]
	// asks is, per input, the output its head asks for: −1 while it has
	// none or it is not eligible yet. req holds, per output, a bit per
	// input asking for it, and reqs counts them.
	asks []int32
	req  [][]uint64
	reqs []int32
	// heads has a bit per input whose head does not ask yet (asks −1, a
	// packet in its buffer or, on a collecting switch, on its way: an
	// arbitration before the head is due looks at it and passes on): the
	// only inputs an arbitration need look at.
	// active has a bit per output some input asks for (reqs > 0): the only
	// outputs a pass need look at.
	heads, active []uint64
	// last is, per output, the input it granted last (round robin);
	// waiting, whether it asked its link for room (Link.WantSpace).
	last    []int32
	waiting []bool
	// collects: the switch collects its input links' packets (Collector,
	// set at Network.Attach): it learns each packet's arrival cycle when
	// the packet starts (PacketDue), and its links schedule no arrival
	// events.
	collects bool
	// wakes holds the cycles of the switch's events scheduled and not
	// run, each once. A switch that collects keeps the cycles it is to
	// arbitrate at in due, and an event only for the earliest, scheduled
	// when the one before runs: so it comes after most of its cycle's other
	// events are in the kernel, where, scheduled cycles ahead, every later
	// one of a lower class would be put in before it (rtl.Kernel keeps a
	// cycle's events in order). Its events are in sched, the earliest
	// last (one scheduled goes before those already are, or is not
	// scheduled).
	wakes, due wakeSet
	sched      []rtl.Cycle

	forwarded int64
}

// newSwitch returns switch node of parameters p, routing a packet for
// NPU d to output port route[d], driven by kernel k.
func newSwitch(k *rtl.Kernel, node int, p SwitchParams, route []int) (*Switch, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &Switch{Node: node, Params: p, k: k, route: make([]int32, len(route))}
	for d, o := range route {
		if o < 0 || o >= p.Ports {
			return nil, fmt.Errorf("%s: NPU %d routes to port %d, outside [0,%d)", s, d, o, p.Ports)
		}
		s.route[d] = int32(o)
	}
	n := p.Ports
	words := (n + 63) / 64
	s.in, s.out = make([]*Link, n), make([]*Link, n)
	s.arrived = make([]rtl.FIFO[rtl.Cycle], n)
	s.asks, s.reqs, s.last = make([]int32, n), make([]int32, n), make([]int32, n)
	s.req, s.waiting = make([][]uint64, n), make([]bool, n)
	s.heads, s.active = make([]uint64, words), make([]uint64, words)
	bitmap := make([]uint64, n*words)
	for i := range n {
		s.arrived[i] = *rtl.NewFIFO[rtl.Cycle](0)
		s.asks[i] = -1
		s.last[i] = int32(n - 1) // input 0 comes first
		s.req[i] = bitmap[i*words : (i+1)*words : (i+1)*words]
	}
	return s, nil
}

// String names the switch for messages.
func (s *Switch) String() string {
	return fmt.Sprintf("switch %q (node %d)", s.Params.Name, s.Node)
}

// In returns the link arriving at input port i, or nil.
func (s *Switch) In(i int) *Link { return s.in[i] }

// Out returns the link leaving output port o, or nil.
func (s *Switch) Out(o int) *Link { return s.out[o] }

// Route returns the output port of packets for NPU npu.
func (s *Switch) Route(npu int) int { return int(s.route[npu]) }

// Forwarded returns the packets the switch has moved to its outputs.
func (s *Switch) Forwarded() int64 { return s.forwarded }

// Held returns the packets waiting in its inputs' receive buffers (not
// those on their way to one).
func (s *Switch) Held() int {
	n := 0
	for _, l := range s.in {
		if l != nil {
			n += l.RxLen()
		}
	}
	return n
}

// checkIn reports why l cannot arrive at input port i.
func (s *Switch) checkIn(l *Link, i int) error {
	switch {
	case i < 0 || i >= s.Params.Ports:
		return fmt.Errorf("%s: input port %d outside [0,%d)", s, i, s.Params.Ports)
	case s.in[i] != nil:
		return fmt.Errorf("%s: input port %d already receives from link %d", s, i, s.in[i].ID)
	}
	return nil
}

// checkOut reports why l cannot leave by output port l.Port.
func (s *Switch) checkOut(l *Link) error {
	switch {
	case !l.fromSwitch:
		return fmt.Errorf("link %d leaves %s: make it with NewSwitchLink", l.ID, s)
	case l.Port >= s.Params.Ports:
		return fmt.Errorf("%s: output port %d outside [0,%d)", s, l.Port, s.Params.Ports)
	case s.out[l.Port] != nil:
		return fmt.Errorf("%s: output port %d already sends into link %d", s, l.Port, s.out[l.Port].ID)
	}
	return nil
}

// checkRoutes reports an output port a route leads to that has no link.
func (s *Switch) checkRoutes() error {
	for d, o := range s.route {
		if s.out[o] == nil {
			return fmt.Errorf("%s: NPU %d routes to output port %d, which has no link", s, d, o)
		}
	}
	return nil
}

// PacketArrived notes when the packet now at the tail of input port
// l.inPort arrived (or, collected, will: PacketDue), and arranges an
// arbitration when it becomes eligible.
func (s *Switch) PacketArrived(now rtl.Cycle, l *Link) {
	i := l.inPort
	s.arrived[i].Push(now)
	if s.asks[i] < 0 {
		setBit(s.heads, i)
	}
	s.wake(now + s.Params.Latency)
}

// Collects reports whether the switch collects l's packets itself
// (Collector): where Network.Attach found that it changes nothing
// (Network.switchesCollect).
func (s *Switch) Collects(*Link) bool { return s.collects }

// PacketDue notes when the packet just started on l will be wholly in
// input port l.inPort, and arranges an arbitration when it becomes
// eligible, as its arrival would (PacketArrived): the link puts it into
// the receive buffer when the switch reads the buffer at or after that
// cycle, and the switch reads it only from its arbitrations
// (rtl.ClassSwitch), which run after the cycle's arrivals.
func (s *Switch) PacketDue(l *Link, at rtl.Cycle) { s.PacketArrived(at, l) }

// SpaceAvailable arranges an arbitration now: output l.Port has room.
func (s *Switch) SpaceAvailable(now rtl.Cycle, l *Link) {
	s.waiting[l.Port] = false
	s.wake(now)
}

// wake arranges an arbitration at cycle at: an event of the switch
// there, unless one is; where it collects, an event there only if it
// comes before the next one scheduled.
func (s *Switch) wake(at rtl.Cycle) {
	now := s.k.Now()
	if s.collects {
		if !s.due.has(now, at) {
			s.due.add(now, at)
			s.event(at)
		}
		return
	}
	if s.wakes.has(now, at) {
		return
	}
	s.wakes.add(now, at)
	s.k.ScheduleClass(at, rtl.ClassSwitch, s, evArbitrate, 0)
}

// event schedules an event of a switch that collects at cycle at, unless
// one is at or before it (which schedules the next when it runs).
func (s *Switch) event(at rtl.Cycle) {
	if n := len(s.sched); n > 0 && s.sched[n-1] <= at {
		return
	}
	s.sched = append(s.sched, at)
	s.k.ScheduleClass(at, rtl.ClassSwitch, s, evArbitrate, 0)
}

// wakeWindow is the cycles ahead a wakeSet keeps in its bitmap.
const wakeWindow = 1024

// wakeSet holds the cycles of a switch's arbitration events scheduled and
// not run, each once: those less than wakeWindow cycles ahead as a bit
// each (bit at mod wakeWindow: within the window no two share one, and
// each is cleared when its event runs), those further in a sorted slice.
// A collecting switch learns its packets' arrivals when they start, many
// cycles ahead and from its inputs in no order, so a sorted slice of them
// all would move its entries at almost every wake.
type wakeSet struct {
	near [wakeWindow / 64]uint64
	far  []rtl.Cycle
}

// has reports whether an event at cycle at (at or after now) is held.
func (w *wakeSet) has(now, at rtl.Cycle) bool {
	if at-now < wakeWindow && w.near[at/64%(wakeWindow/64)]&(1<<(uint64(at)&63)) != 0 {
		return true
	}
	if len(w.far) == 0 {
		return false
	}
	_, found := slices.BinarySearch(w.far, at)
	return found
}

// add holds an event at cycle at (at or after now), which has none.
func (w *wakeSet) add(now, at rtl.Cycle) {
	if at-now < wakeWindow {
		w.near[at/64%(wakeWindow/64)] |= 1 << (uint64(at) & 63)
		return
	}
	i, _ := slices.BinarySearch(w.far, at)
	w.far = slices.Insert(w.far, i, at)
}

// first returns the earliest cycle held, at or after now, if any.
func (w *wakeSet) first(now rtl.Cycle) (rtl.Cycle, bool) {
	const words = wakeWindow / 64
	at, ok := rtl.Cycle(0), false
	base := now &^ 63 // the cycle of bit 0 of now's word
	for k := range words + 1 {
		x := w.near[(now/64+rtl.Cycle(k))%words]
		if k == 0 {
			x &^= 1<<(uint64(now)&63) - 1 // before now: none held (or of the window's far end, reached last)
		} else if k == words {
			x &= 1<<(uint64(now)&63) - 1 // now's word again: the window's far end
		}
		if x != 0 {
			at, ok = base+rtl.Cycle(k*64+bits.TrailingZeros64(x)), true
			break
		}
	}
	if len(w.far) > 0 && (!ok || w.far[0] < at) {
		return w.far[0], true
	}
	return at, ok
}

// done lets go of the event of cycle now, which is running: events run in
// time order, so it is the earliest held.
func (w *wakeSet) done(now rtl.Cycle) {
	if len(w.far) > 0 && w.far[0] == now {
		w.far = w.far[1:]
		return
	}
	w.near[now/64%(wakeWindow/64)] &^= 1 << (uint64(now) & 63)
}

// Handle runs the switch's arbitration.
func (s *Switch) Handle(now rtl.Cycle, _ int32, _ int64) {
	if !s.collects {
		s.wakes.done(now)
		s.arbitrate(now)
		return
	}
	s.sched = s.sched[:len(s.sched)-1] // now's: events run in time order
	if s.due.has(now, now) {
		s.due.done(now)
		s.arbitrate(now)
	}
	if at, ok := s.due.first(now); ok {
		s.event(at)
	}
}

// arbitrate moves every packet it can: in passes over the outputs in
// order, each output with room grants one of the inputs asking for it,
// round robin, until a pass grants none. An output with inputs asking and
// no room asks its link for a SpaceAvailable call. It looks only at the
// inputs whose heads do not ask yet (heads) and the outputs asked for
// (active): asking only marks a request, so the order the inputs ask in
// does not matter; and a pass reads active afresh after each output, so
// an output asked for by a grant of the pass is granted in the same pass
// when it comes after the granting output, in the next one otherwise, as
// a pass over every output would.
func (s *Switch) arbitrate(now rtl.Cycle) {
	for i := firstBitFrom(s.heads, 0); i >= 0; i = firstBitFrom(s.heads, i+1) {
		s.ask(now, i)
	}
	for moved := true; moved; {
		moved = false
		for o := firstBitFrom(s.active, 0); o >= 0; o = firstBitFrom(s.active, o+1) {
			l := s.out[o]
			if l.TxSpace() == 0 {
				if !s.waiting[o] {
					s.waiting[o] = true
					l.WantSpace()
				}
				continue
			}
			s.grant(now, s.pick(o), o)
			moved = true
		}
	}
}

// ask makes input i's head ask for its output if it is eligible by now
// and does not ask yet.
func (s *Switch) ask(now rtl.Cycle, i int) {
	if s.asks[i] >= 0 {
		return
	}
	at, ok := s.arrived[i].Peek()
	if !ok || at+s.Params.Latency > now {
		return
	}
	p, _ := s.in[i].RxPeek()
	if int(p.Msg.Dst) >= len(s.route) || p.Msg.Dst < 0 {
		panic(fmt.Sprintf("%s: a packet for NPU %d, which its routing table does not have", s, p.Msg.Dst))
	}
	o := s.route[p.Msg.Dst]
	if s.out[o] == nil {
		panic(fmt.Sprintf("%s: NPU %d routes to output port %d, which has no link (Network.Check)", s, p.Msg.Dst, o))
	}
	s.asks[i] = o
	setBit(s.req[o], i)
	s.reqs[o]++
	clearBit(s.heads, i)
	setBit(s.active, int(o))
}

// setBit sets bit i of w.
func setBit(w []uint64, i int) { w[i>>6] |= 1 << (uint(i) & 63) }

// clearBit clears bit i of w.
func clearBit(w []uint64, i int) { w[i>>6] &^= 1 << (uint(i) & 63) }

// pick returns the input output o grants: the first asking for it after
// the one it granted last, round robin.
func (s *Switch) pick(o int) int {
	if i := firstBitFrom(s.req[o], int(s.last[o])+1); i >= 0 {
		return i
	}
	return firstBitFrom(s.req[o], 0)
}

// firstBitFrom returns the index of the first bit set in w at or after
// from, or −1.
func firstBitFrom(w []uint64, from int) int {
	for k := from >> 6; k < len(w); k++ {
		x := w[k]
		if k == from>>6 {
			x &^= 1<<(uint(from)&63) - 1
		}
		if x != 0 {
			return k<<6 | bits.TrailingZeros64(x)
		}
	}
	return -1
}

// grant moves input i's head to output o, which has room, and lets the
// input's next packet ask.
func (s *Switch) grant(now rtl.Cycle, i, o int) {
	clearBit(s.req[o], i)
	if s.reqs[o]--; s.reqs[o] == 0 {
		clearBit(s.active, o)
	}
	s.asks[i] = -1
	s.last[o] = int32(i)
	p, _ := s.in[i].Receive()
	s.arrived[i].Pop()
	if s.arrived[i].Len() > 0 {
		setBit(s.heads, i)
	}
	if !s.out[o].Send(p) {
		panic(fmt.Sprintf("%s: output port %d refused a packet with room in its transmit buffer", s, o))
	}
	s.forwarded++
	s.ask(now, i)
}

// Describe tells what the switch holds, for deadlock reports.
func (s *Switch) Describe() string {
	waiting := 0
	for _, w := range s.waiting {
		if w {
			waiting++
		}
	}
	return fmt.Sprintf("%s: %d packets in its input buffers, %d forwarded, outputs waiting for room: %d", s, s.Held(), s.forwarded, waiting)
}

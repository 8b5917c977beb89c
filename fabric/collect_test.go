package fabric

import (
	"testing"

	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// collectingTaker is a test endpoint that takes every packet in its link's receive
// buffer at a decision of its own (rtl.ClassControl) in the cycle it is
// woken: from the arrival event (PacketArrived), or, when it collects
// (Collector), at the cycle the link says the packet is due.
type collectingTaker struct {
	k       *rtl.Kernel
	collect bool
	taken   []rtl.Cycle // the cycle each packet was taken
}

func (s *collectingTaker) wake(at rtl.Cycle, l *Link) {
	s.k.ScheduleClass(at, rtl.ClassControl, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) {
		for l.RxLen() > 0 {
			if _, ok := l.Receive(); !ok {
				panic("no packet")
			}
			s.taken = append(s.taken, now)
		}
	}), 0, 0)
}

func (s *collectingTaker) PacketArrived(now rtl.Cycle, l *Link) { s.wake(now, l) }
func (s *collectingTaker) SpaceAvailable(rtl.Cycle, *Link)      {}
func (s *collectingTaker) Collects(*Link) bool                  { return s.collect }
func (s *collectingTaker) PacketDue(l *Link, at rtl.Cycle)      { s.wake(at, l) }

// A receiver that collects its packets (Collector) takes each at the
// cycle an arrival event would have let it, and the link's credits come
// back as they would, without an arrival event per packet; an observed
// link keeps its arrival events.
func TestCollectorTakesPacketsAsArrivalsWould(t *testing.T) {
	// 20 packets on the inter-package link with 2 transmit slots and 3
	// credits: the sender waits for credits, 500 + 500 cycles a round.
	run := func(collect, observed bool) ([]rtl.Cycle, uint64) {
		k := rtl.NewKernel()
		l, err := NewLink(k, 0, 0, 1, 0, params("inter", interRate, 500, 2, 3))
		require.NoError(t, err)
		s := &collectingTaker{k: k, collect: collect}
		l.Attach(s, s, false)
		if observed {
			l.SetObserver(observe.Func(func(observe.Event) {}))
		}
		m := NewMessage(0, 1, 20*PacketBytes)
		next := int32(0)
		var send rtl.HandlerFunc
		send = func(now rtl.Cycle, _ int32, _ int64) { // a packet a cycle, as room allows
			if l.TxSpace() > 0 {
				l.Send(PacketOf(m, next))
				next++
			}
			if next < m.Packets {
				k.Schedule(now+1, send, 0, 0)
			}
		}
		k.Schedule(0, send, 0, 0)
		k.Run()
		require.True(t, l.Idle())
		return s.taken, k.Events()
	}
	want, perPacket := run(false, false)
	got, collected := run(true, false)
	require.Len(t, want, 20)
	// The first packet: 256·249/4700 = 13.56 cycles on the wire, out by
	// cycle 14, in the buffer at 14 + 500 = 514; the fourth waits for the
	// first's credit, back at 514 + 500 = 1014, and arrives at
	// 1014 + 14 + 500 = 1528 at the earliest.
	require.Equal(t, rtl.Cycle(514), want[0])
	require.GreaterOrEqual(t, want[3], rtl.Cycle(1528))
	require.Equal(t, want, got)
	require.Less(t, collected, perPacket, "collected packets have no arrival events")
	observed, events := run(true, true)
	require.Equal(t, want, observed)
	require.Equal(t, perPacket, events, "an observed link keeps its arrival events")
}

// driver is a test sender that puts a message's packets into its link one
// a cycle as room allows, from a decision of its own (rtl.ClassControl),
// and, driving (Driver), runs the link's transmit events first in it.
type driver struct {
	k     *rtl.Kernel
	l     *Link
	drive bool
	m     *Message
	next  int32
	due   rtl.Cycle // the transmit event to run, or -1
	in    bool      // in Handle, which schedules the next event itself
}

func (d *driver) TransmitDue(_ *Link, at rtl.Cycle) bool {
	if !d.drive {
		return false
	}
	d.due = at
	if !d.in && d.next == d.m.Packets { // done sending: an event for the transmit alone
		d.k.ScheduleClass(at, rtl.ClassControl, d, 0, 0)
	}
	return true
}

func (d *driver) Handle(now rtl.Cycle, _ int32, _ int64) {
	d.in = true
	defer func() { d.in = false }()
	if d.due == now {
		d.due = -1
		d.l.Transmit()
	}
	if d.next < d.m.Packets && d.l.TxSpace() > 0 {
		d.l.Send(PacketOf(d.m, d.next))
		d.next++
	}
	switch {
	case d.next < d.m.Packets:
		d.k.ScheduleClass(now+1, rtl.ClassControl, d, 0, 0)
	case d.due > now:
		d.k.ScheduleClass(d.due, rtl.ClassControl, d, 0, 0)
	}
}

func (d *driver) PacketArrived(rtl.Cycle, *Link)  {}
func (d *driver) SpaceAvailable(rtl.Cycle, *Link) {}

// A sender that runs its link's transmit events (Driver) from its own
// decisions, before it reads the transmit buffer, starts every packet at
// the cycle the link's own events would, and the receiver takes each at
// the same cycle.
func TestDriverStartsPacketsAsTransmitEventsWould(t *testing.T) {
	run := func(drive bool) ([]rtl.Cycle, []rtl.Cycle, uint64) {
		k := rtl.NewKernel()
		l, err := NewLink(k, 0, 0, 1, 0, params("inter", interRate, 500, 2, 3))
		require.NoError(t, err)
		rx := &collectingTaker{k: k}
		tx := &driver{k: k, l: l, drive: drive, m: NewMessage(0, 1, 20*PacketBytes), due: -1}
		l.Attach(tx, rx, false)
		var sent []rtl.Cycle
		l.SetObserver(observe.Func(func(e observe.Event) {
			if e.Kind == observe.PacketSent {
				sent = append(sent, e.End)
			}
		}))
		k.ScheduleClass(0, rtl.ClassControl, tx, 0, 0)
		k.Run()
		require.True(t, l.Idle())
		return sent, rx.taken, k.Events()
	}
	wantSent, want, own := run(false)
	gotSent, got, driven := run(true)
	require.Len(t, want, 20)
	require.Equal(t, rtl.Cycle(514), want[0]) // as in TestCollectorTakesPacketsAsArrivalsWould
	require.Equal(t, wantSent, gotSent)
	require.Equal(t, want, got)
	require.Less(t, driven, own, "the driver's transmit events are its own")
}

package fabric

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// feeder is a test sender that feeds trains (Feeder): it puts its
// messages' packets into the link in order while the link takes them.
type feeder struct {
	l     *Link
	queue []*Message // messages ready, not started
	cur   *Message
	next  int32 // cur's next packet
	done  []string
	// urgent are packets that go before any message's (as packets
	// passing through do at an NPU).
	urgent []Packet
	runs   bool // puts a message's packets but its last in with SendRun
	asks   bool // checks TxSpace and asks for room (WantSpace) before sending
}

func (f *feeder) FeedsTrains(*Link) bool { return true }

func (f *feeder) Plain(*Link) (int, Packet) {
	if f.cur == nil || len(f.urgent) > 0 {
		return 0, Packet{}
	}
	return int(f.cur.Packets - f.next - 1), PacketOf(f.cur, f.next)
}

func (f *feeder) Take(_ *Link, n int) Packet {
	f.next += int32(n)
	return PacketOf(f.cur, f.next-int32(n))
}

func (f *feeder) pump() {
	for {
		if f.asks && (len(f.urgent) > 0 || f.cur != nil || len(f.queue) > 0) && f.l.TxSpace() == 0 {
			f.l.WantSpace() // instead of being refused
			return
		}
		if len(f.urgent) > 0 { // packets passing through go first
			if !f.l.Send(f.urgent[0]) {
				return
			}
			f.urgent = f.urgent[1:]
			continue
		}
		if f.cur == nil {
			if len(f.queue) == 0 {
				return
			}
			f.cur, f.next, f.queue = f.queue[0], 0, f.queue[1:]
		}
		if n := int(f.cur.Packets - f.next - 1); f.runs && n > 0 {
			k := f.l.SendRun(PacketOf(f.cur, f.next), n)
			if f.next += int32(k); k < n {
				return
			}
			continue
		}
		if !f.l.Send(PacketOf(f.cur, f.next)) {
			return
		}
		if f.next++; f.next == f.cur.Packets {
			// The message is all in: a sender acts on this (its send is
			// done), at this cycle and in this order.
			f.done = append(f.done, fmt.Sprintf("%d m%d in", f.l.k.Now(), f.cur.Op))
			f.cur = nil
		}
	}
}

func (f *feeder) SpaceAvailable(rtl.Cycle, *Link) { f.pump() }
func (f *feeder) PacketArrived(rtl.Cycle, *Link)  { panic("the feeder receives nothing") }

// taker is a test receiver that takes every packet on arrival and acts
// only on a message's last (Absorber), recording when it came.
type taker struct{ got []string }

func (t *taker) TakesOnArrival(*Link) bool       { return true }
func (t *taker) Absorbs(_ *Link, p Packet) bool  { return !p.Last() }
func (t *taker) SpaceAvailable(rtl.Cycle, *Link) { panic("the taker sends nothing") }
func (t *taker) PacketArrived(now rtl.Cycle, l *Link) {
	p, ok := l.Receive()
	if !ok {
		panic("no packet")
	}
	if p.Last() { // per packet, every packet arrives as an event
		t.got = append(t.got, fmt.Sprintf("%d m%d", now, p.Msg.Op))
	}
}

// trainRun is one random link and the messages its sender gets.
type trainRun struct {
	p      LinkParams
	sizes  []int64
	at     []rtl.Cycle
	class  []rtl.Class // of the events at which the messages come
	urgent []bool      // the message's packets go before others (feeder.urgent)
	// probe are cycles at which someone reads the link's counts, at
	// events of probeClass.
	probe      []rtl.Cycle
	probeClass []rtl.Class
	runs       bool // the sender puts runs in (SendRun); per packet it never does
	asks       bool // the sender asks for room (WantSpace) rather than being refused
}

func randomTrainRun(r *rand.Rand) trainRun {
	den := int64(1 + r.IntN(300))
	num := 1 + r.Int64N(400*den)
	p := LinkParams{Name: "test", Rate: rtl.Rate{Num: num, Den: den}, Latency: rtl.Cycle(r.IntN(600)),
		TxBuffer: 1 + r.IntN(40), CreditLatency: rtl.Cycle(r.IntN(600))}
	d := PacketBytes * den
	if r.IntN(3) == 0 {
		p.Latency, p.CreditLatency = rtl.Cycle(r.IntN(40)), rtl.Cycle(r.IntN(40))
	}
	lag := int64(p.Latency + p.CreditLatency)
	if r.IntN(2) == 0 {
		// Near the fewest credits that stream (streams): (B−1)×d ≥ (lag+1)×Num.
		least := ((lag+1)*num+d-1)/d + 1
		p.RxBuffer = int(max(1, least+int64(r.IntN(7))-3))
	} else {
		p.RxBuffer = 1 + r.IntN(140)
	}
	run := trainRun{p: p, runs: r.IntN(2) == 0, asks: r.IntN(4) == 0}
	at := rtl.Cycle(0)
	most := []int64{600, 20000, 200000}[r.IntN(3)] // bytes: short messages, some of a few packets, long ones
	gap := []int{50, 500, 5000}[r.IntN(3)]         // cycles between messages, at most
	for i := 1 + r.IntN(16); i > 0; i-- {
		at += rtl.Cycle(r.IntN(gap))
		run.at = append(run.at, at)
		run.sizes = append(run.sizes, 1+r.Int64N(most))
		run.class = append(run.class, classes[r.IntN(len(classes))])
		run.urgent = append(run.urgent, r.IntN(5) == 0)
	}
	for i := r.IntN(12); i > 0; i-- {
		p := rtl.Cycle(r.IntN(int(at) + 3000))
		if r.IntN(2) == 0 { // in the cycle a message comes
			p = run.at[r.IntN(len(run.at))]
		}
		run.probe = append(run.probe, p)
		run.probeClass = append(run.probeClass, classes[r.IntN(len(classes))])
	}
	return run
}

// classes are those of the events that send or look at the link in a
// cycle: before its transmit events and after (the test link leaves by
// port 3, of transmit class rtl.ClassTransmit+3).
var classes = []rtl.Class{rtl.ClassArrive, rtl.ClassArrive + 5, rtl.ClassCredit + 3, rtl.ClassNotice, rtl.ClassTransmit + 1, rtl.ClassTransmit + 7, rtl.ClassDefault, rtl.ClassControl}

// trainTrace runs c with per-packet events or with trains: every packet
// the link reports sent and received (sorted: trains report late), when
// each message was all in the link, the receiver's arrivals and what the
// probes read, in order, and the link's counts.
func trainTrace(t *testing.T, c trainRun, perPacket bool) ([]string, []string, TrainCounts) {
	k := rtl.NewKernel()
	l, err := NewLink(k, 0, 0, 1, 3, c.p)
	require.NoError(t, err)
	f, rx := &feeder{l: l, runs: c.runs && !perPacket, asks: c.asks}, &taker{}
	l.Attach(f, rx, perPacket)
	var packets []string
	l.SetObserver(observe.Func(func(e observe.Event) {
		packets = append(packets, fmt.Sprintf("%d %d %d m%d #%d %dB", e.Kind, e.Cycle, e.End, e.Op, e.Index, e.Bytes))
	}))
	c.schedule(k, f, rx)
	k.Run()
	require.True(t, l.Idle())
	slices.Sort(packets)
	return packets, slices.Concat(f.done, rx.got), l.Trains()
}

// schedule arranges c's messages for f, each at its cycle, and its
// probes of f's link, which rx records.
func (c trainRun) schedule(k *rtl.Kernel, f *feeder, rx *taker) {
	for i, at := range c.at {
		m := NewMessage(0, 1, c.sizes[i])
		m.Op = int32(i)
		k.ScheduleClass(at, c.class[i], rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {
			if c.urgent[i] {
				for j := range m.Packets {
					f.urgent = append(f.urgent, PacketOf(m, j))
				}
			} else {
				f.queue = append(f.queue, m)
			}
			f.pump()
		}), 0, 0)
	}
	for i, at := range c.probe {
		k.ScheduleClass(at, c.probeClass[i], rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) {
			rx.got = append(rx.got, fmt.Sprintf("%d probe %d %d %d", now, f.l.Packets(), f.l.Bytes(), f.l.TxSpace()))
		}), 0, 0)
	}
}

// traceOf runs one configuration with per-packet events or with trains:
// the packets seen (sorted), what the endpoints saw in order, and the
// trains moved.
type traceOf func(perPacket bool) (packets, seen []string, c TrainCounts)

// sameWithTrains runs runs configurations that next gives both ways, and
// requires the same packets and the same sights, no train per packet; it
// returns the trains' counts summed, which it logs.
func sameWithTrains(t *testing.T, runs int, next func() (any, traceOf)) TrainCounts {
	var sum TrainCounts
	for range runs {
		c, trace := next()
		refP, refR, refC := trace(true)
		require.Zero(t, refC.Trains)
		gotP, gotR, gotC := trace(false)
		require.Equal(t, refP, gotP, "%+v", c)
		require.Equal(t, refR, gotR, "%+v", c)
		sum.Trains += gotC.Trains
		sum.Drains += gotC.Drains
		sum.Closed += gotC.Closed
		sum.AtOnce += gotC.AtOnce
	}
	t.Logf("%+v", sum)
	return sum
}

// Trains on one link, in closed form (Link.planStream) where the link
// streams and event by event where it does not, drains among them, and
// a sender putting a message's packets in as runs (Link.SendRun) or
// asking for room (Link.WantSpace) rather than being refused, give
// every packet the send and arrival cycle the per-packet events give, on
// random rates, latencies, buffers (many near the fewest credits that
// stream) and messages (with short last packets), with the link's counts
// read now and then in between.
func TestTrainsChangeNoPacket(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	sum := sameWithTrains(t, 1000, func() (any, traceOf) {
		c := randomTrainRun(r)
		return c, func(perPacket bool) ([]string, []string, TrainCounts) { return trainTrace(t, c, perPacket) }
	})
	requireEveryKind(t, sum)
}

// requireEveryKind requires trains of every kind and others: drains,
// in closed form, done all at once.
func requireEveryKind(t *testing.T, sum TrainCounts) {
	t.Helper()
	require.Positive(t, sum.Drains)
	require.Less(t, sum.Drains, sum.Trains)
	require.Positive(t, sum.Closed)
	require.Less(t, sum.Closed, sum.Trains)
	require.Positive(t, sum.AtOnce)
	require.Less(t, sum.AtOnce, sum.Trains)
}

// On a link that streams, the credit of a packet RxBuffer before one
// that starts back to back behind RxBuffer−1 full packets is back by the
// exact instant it starts, whatever the instant's place in its cycle:
// for every start s (units of 1/Num cycle) over a whole cycle's worth,
// ⌈(s − (RxBuffer−1)·d) / Num⌉ + Latency + CreditLatency ≤ s / Num, on
// random links at and near the fewest credits that stream.
func TestStreamingCreditsAreBackInTime(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2))
	checked := 0
	for range 300 {
		den := int64(1 + r.IntN(300))
		num := 1 + r.Int64N(256*den) // d ≥ Num
		p := LinkParams{Rate: rtl.Rate{Num: num, Den: den}, Latency: rtl.Cycle(r.IntN(50)), CreditLatency: rtl.Cycle(r.IntN(50))}
		d, lag := PacketBytes*den, int64(p.Latency+p.CreditLatency)
		least := ((lag+1)*num+d-1)/d + 1 // the fewest credits that stream
		p.RxBuffer = int(max(1, least+int64(r.IntN(3))-1))
		if !streams(p) {
			continue
		}
		checked++
		gap := int64(p.RxBuffer-1) * d
		for s := gap + 5*num; s < gap+6*num; s++ {
			back := (s-gap+num-1)/num + lag // the credit's cycle
			require.LessOrEqual(t, back*num, s, "%+v at %d", p, s)
		}
	}
	require.Greater(t, checked, 100)
}

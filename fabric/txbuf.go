package fabric

import (
	"fmt"

	"github.com/acemu/acemu/rtl"
)

// txEntry is what a link's transmit buffer holds: one packet, or a run of
// n full packets of one message (p is the first; the others follow it in
// the message). Every packet of an entry has the entry's ready cycle and
// spare mark.
type txEntry struct {
	p     Packet
	ready rtl.Cycle // cycle it entered the transmit buffer (a run: its first packet's)
	n     int32     // packets: 1, or a run's length
	spare bool      // the receiver only takes it (Absorber.Absorbs)
}

// txBuf is a link's transmit buffer: a FIFO of packets, bounded in
// packets, that keeps a sender's refills during a train as runs, so that a
// train puts its refills in and the serialiser takes packets out without
// writing an entry per packet.
//
// Packets put in one by one join a run only with the same ready cycle. A
// train's refills join one whatever their ready cycles, and the run keeps
// the earliest: a refill's ready cycle never decides when it starts (Link.planTrain: each comes in at an event after which the
// serialiser is busy, or waits for a credit, past that cycle, and starts
// after the packets before it), so the earlier cycle changes nothing.
type txBuf struct {
	ring  rtl.FIFO[txEntry]
	n     int // packets held
	limit int // packets it can hold
}

// newTxBuf returns a buffer of limit packets. Its ring of entries starts
// small and grows only as entries need it (a run is one entry, so the
// ring rarely holds limit of them): a link's ring is written round and
// round as packets come and go, and a ring of limit entries on every link
// of a large network does not stay in the cache. It starts at 4 entries
// (160 bytes), not 16: docs/performance.md, "fewer cache lines per
// message".
func newTxBuf(limit int) txBuf {
	return txBuf{ring: *rtl.NewRing[txEntry](4), limit: limit}
}

// Len returns the packets held.
func (b *txBuf) Len() int { return b.n }

// Full reports whether the buffer has no room.
func (b *txBuf) Full() bool { return b.n >= b.limit }

// Space returns the packets it can take now.
func (b *txBuf) Space() int { return b.limit - b.n }

// continues returns the last entry if p, a packet with spare mark spare,
// is the packet after its last, both full; nil otherwise.
func (b *txBuf) continues(p Packet, spare bool) *txEntry {
	k := b.ring.Len()
	if k == 0 {
		return nil
	}
	last := b.ring.Ref(k - 1)
	if last.p.Msg == p.Msg && last.p.Index+last.n == p.Index && last.spare == spare &&
		last.p.Shift == p.Shift && last.p.Bytes == PacketBytes && p.Bytes == PacketBytes {
		return last
	}
	return nil
}

// Push puts in n packets, first and the n−1 following it in its message
// (full ones, for n > 1), all come in at cycle ready, as n Pushes of one
// would; the buffer has room. They extend the last entry when they
// continue it and came in the same cycle (a sender filling the buffer
// puts a message's packets in back to back).
func (b *txBuf) Push(first Packet, n int, ready rtl.Cycle, spare bool) {
	b.put(first, n, ready, spare, false)
}

// PushRun puts in n full packets of first's message, first and those
// following it, ready at cycle ready: a train's refills. They extend the
// last entry when they continue it, whatever its cycle (txBuf).
func (b *txBuf) PushRun(first Packet, n int, ready rtl.Cycle, spare bool) {
	b.put(first, n, ready, spare, true)
}

// put is Push, or PushRun with anyCycle.
func (b *txBuf) put(first Packet, n int, ready rtl.Cycle, spare, anyCycle bool) {
	if n == 0 {
		return
	}
	if b.n+n > b.limit {
		panic(fmt.Sprintf("fabric: %d packets into a transmit buffer with room for %d", n, b.limit-b.n))
	}
	b.n += n
	if last := b.continues(first, spare); last != nil && (anyCycle || last.ready == ready) {
		last.n += int32(n)
		return
	}
	b.ring.Push(txEntry{p: first, ready: ready, n: int32(n), spare: spare})
}

// Pop takes the oldest packet out; the buffer is not empty.
func (b *txBuf) Pop() (p Packet, ready rtl.Cycle, spare bool) {
	e := b.ring.PeekRef()
	p, ready, spare = e.p, e.ready, e.spare
	if e.n > 1 {
		e.p.Index++
		e.n--
	} else {
		b.ring.Pop()
	}
	b.n--
	return p, ready, spare
}

// At returns the i-th oldest packet (0: the oldest); i must be below Len.
func (b *txBuf) At(i int) Packet {
	for k := 0; ; k++ {
		e := b.ring.Ref(k)
		if i < int(e.n) {
			p := e.p
			p.Index += int32(i)
			return p
		}
		i -= int(e.n)
	}
}

// Drop takes the k oldest packets out; k must not exceed Len.
func (b *txBuf) Drop(k int) {
	if k > b.n {
		panic("fabric: a transmit buffer drops more packets than it holds")
	}
	b.n -= k
	for k > 0 {
		e := b.ring.PeekRef()
		if int(e.n) > k {
			e.p.Index += int32(k)
			e.n -= int32(k)
			return
		}
		k -= int(e.n)
		b.ring.Pop()
	}
}

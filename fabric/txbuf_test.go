package fabric

import (
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// txBuf against a plain list of packets: random pushes of one or more
// packets, refills (PushRun, continuing the last entry or not), pops, drops and reads, across the
// ring's wrap. Every packet comes out in order with its own index, the
// ready cycle and spare mark it went in with (a run's: its first's), and
// the buffer counts packets, not entries.
func TestTxBufHoldsRunsAsPackets(t *testing.T) {
	type want struct {
		p     Packet
		ready rtl.Cycle
		spare bool
		run   bool // went in by PushRun
	}
	r := rand.New(rand.NewPCG(3, 9))
	msgs := []*Message{NewMessage(0, 1, 64*PacketBytes), NewMessage(0, 2, 64*PacketBytes)}
	for run := 0; run < 100; run++ {
		limit := 1 + r.IntN(40)
		b := newTxBuf(limit)
		var ref []want
		next := []int32{0, 0} // each message's next packet
		now := rtl.Cycle(0)
		for step := 0; step < 400; step++ {
			now += rtl.Cycle(r.IntN(3))
			m := r.IntN(2)
			switch op := r.IntN(5); {
			case op == 0 && b.Len() < limit && next[m] < 60:
				n := 1 + r.IntN(min(limit-b.Len(), 4))
				p := PacketOf(msgs[m], next[m])
				next[m] += int32(n)
				spare := r.IntN(2) == 0
				b.Push(p, n, now, spare)
				for i := range n {
					q := p
					q.Index += int32(i)
					ref = append(ref, want{q, now, spare, false})
				}
			case op == 1 && b.Len() < limit && next[m] < 60:
				n := 1 + r.IntN(min(limit-b.Len(), 4))
				p := PacketOf(msgs[m], next[m])
				next[m] += int32(n)
				spare := r.IntN(4) != 0
				// A run merged into the entry before it keeps that
				// entry's ready cycle: the reference asks only that
				// every packet of a run be ready no later than it went in.
				b.PushRun(p, n, now, spare)
				for i := range n {
					q := p
					q.Index += int32(i)
					ref = append(ref, want{q, now, spare, true})
				}
			case op == 2 && b.Len() > 0:
				p, ready, spare := b.Pop()
				require.Equal(t, ref[0].p, p, "run %d step %d", run, step)
				require.Equal(t, ref[0].spare, spare)
				if ref[0].run {
					require.LessOrEqual(t, ready, ref[0].ready)
				} else {
					require.Equal(t, ref[0].ready, ready)
				}
				ref = ref[1:]
			case op == 3 && b.Len() > 0:
				k := r.IntN(b.Len() + 1)
				b.Drop(k)
				ref = ref[k:]
			case op == 4 && b.Len() > 0:
				i := r.IntN(b.Len())
				require.Equal(t, ref[i].p, b.At(i))
			}
			require.Equal(t, len(ref), b.Len())
			require.Equal(t, len(ref) >= limit, b.Full())
			require.Equal(t, limit-len(ref), b.Space())
		}
	}
	// Runs that continue each other are one entry, and so is a packet put
	// in the same cycle that continues one; a break in the index, another
	// spare mark or a single packet of another cycle starts a new one.
	c := newTxBuf(32)
	c.PushRun(PacketOf(msgs[0], 0), 2, 5, true)
	c.PushRun(PacketOf(msgs[0], 2), 3, 9, true)
	require.Equal(t, 1, c.ring.Len())
	c.PushRun(PacketOf(msgs[0], 6), 1, 9, true)
	c.PushRun(PacketOf(msgs[0], 7), 1, 9, false)
	c.Push(PacketOf(msgs[0], 8), 1, 9, false)
	require.Equal(t, 3, c.ring.Len())
	c.Push(PacketOf(msgs[0], 9), 1, 10, false)
	c.Push(PacketOf(msgs[0], 10), 1, 10, false)
	require.Equal(t, 4, c.ring.Len())
	require.Equal(t, 10, c.Len())
	_, ready, _ := c.Pop()
	require.Equal(t, rtl.Cycle(5), ready)
	b := newTxBuf(2)
	require.Panics(t, func() { b.PushRun(PacketOf(msgs[0], 0), 3, 0, true) })
	require.Panics(t, func() { b.Push(PacketOf(msgs[0], 0), 3, 0, true) })
	require.Panics(t, func() { b.Drop(1) })
}

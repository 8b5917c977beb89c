package fabric

import (
	"github.com/acemu/acemu/rtl"
)

// creditRun is an entry of a creditQueue: one credit, or the credits of
// n full packets that left back to back, whose ends are a full packet's
// time apart. at is the next credit's cycle and slack how far before it
// the exact instant it stands for lies, in units of 1/Num cycle (so the
// credits' cycles step as the packets' end cycles do).
type creditRun struct {
	at    rtl.Cycle
	slack int32 // below Num, which is below 2^31 (LinkParams.Validate)
	n     int32
}

// creditQueue holds the cycles at which a link's used credits come back,
// in order, as a FIFO of cycles would, with the credits of a train in
// closed form as one entry (PushRun) instead of one each.
type creditQueue struct {
	ring rtl.FIFO[creditRun]
	n    int
	// A full packet's time, d = PacketBytes × Den units of 1/num cycle,
	// and as a Stride; lag is how long after its packet's end cycle a
	// credit comes back (Latency + CreditLatency).
	d, num int64
	stride rtl.Stride
	lag    rtl.Cycle
}

func newCreditQueue(p LinkParams) creditQueue {
	d := PacketBytes * p.Rate.Den
	return creditQueue{ring: *rtl.NewRing[creditRun](4), d: d, num: p.Rate.Num, stride: rtl.NewStride(d, p.Rate.Num),
		lag: p.Latency + p.CreditLatency}
}

// Len returns the credits held.
func (q *creditQueue) Len() int { return q.n }

// Push adds a credit back at cycle at.
func (q *creditQueue) Push(at rtl.Cycle) {
	q.ring.Push(creditRun{at: at, n: 1})
	q.n++
}

// PushRun adds the credits of n full packets that left back to back,
// the first ending at the exact instant end (units of 1/num cycle), each
// next a full packet's time later: each credit comes back lag after its
// packet's end cycle (the exact end rounded up).
func (q *creditQueue) PushRun(end int64, n int) {
	if n <= 0 {
		return
	}
	c, slack := rtl.RoundUp(end, q.num)
	q.ring.Push(creditRun{at: rtl.Cycle(c) + q.lag, slack: int32(slack), n: int32(n)})
	q.n += n
}

// step moves run r on to its next credit.
func (q *creditQueue) step(r *creditRun) {
	c, slack := q.stride.Add(int64(r.at), int64(r.slack))
	r.at, r.slack = rtl.Cycle(c), int32(slack)
}

// skip moves run r on by k credits at once.
func (q *creditQueue) skip(r *creditRun, k int64) {
	c, slack := rtl.RoundUp(int64(r.at)*q.num-int64(r.slack)+k*q.d, q.num)
	r.at, r.slack = rtl.Cycle(c), int32(slack)
}

// Peek returns the oldest credit's cycle; ok is false when there is none.
func (q *creditQueue) Peek() (at rtl.Cycle, ok bool) {
	r := q.ring.PeekRef()
	if r == nil {
		return 0, false
	}
	return r.at, true
}

// Pop takes the oldest credit out; there is one.
func (q *creditQueue) Pop() rtl.Cycle {
	r := q.ring.PeekRef()
	at := r.at
	if r.n > 1 {
		q.step(r)
		r.n--
	} else {
		q.ring.Pop()
	}
	q.n--
	return at
}

// Drop takes the k oldest credits out; k must not exceed Len.
func (q *creditQueue) Drop(k int) {
	if k > q.n {
		panic("fabric: a credit queue drops more credits than it holds")
	}
	q.n -= k
	for k > 0 {
		r := q.ring.PeekRef()
		if int(r.n) > k {
			q.skip(r, int64(k))
			r.n -= int32(k)
			return
		}
		k -= int(r.n)
		q.ring.Pop()
	}
}

// creditCursor reads a creditQueue's credits in order from the oldest,
// without taking them (creditQueue.Cursor).
type creditCursor struct {
	q     *creditQueue
	entry int       // the ring entry of the credit At returns
	left  int32     // credits of that entry from it on
	cur   creditRun // that credit (its at and slack)
}

// Cursor returns a cursor at the oldest credit; the queue must not
// change while it is used.
func (q *creditQueue) Cursor() creditCursor {
	c := creditCursor{q: q}
	if q.ring.Len() > 0 {
		c.cur = q.ring.At(0)
		c.left = c.cur.n
	}
	return c
}

// At returns the cycle of the credit the cursor is at; there is one.
func (c *creditCursor) At() rtl.Cycle { return c.cur.at }

// Next moves the cursor on to the next credit.
func (c *creditCursor) Next() {
	if c.left > 1 {
		c.q.step(&c.cur)
		c.left--
		return
	}
	if c.entry++; c.entry < c.q.ring.Len() {
		c.cur = c.q.ring.At(c.entry)
		c.left = c.cur.n
	}
}

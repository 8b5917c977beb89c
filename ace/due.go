package ace

// This file: the ends of sub-steps applied by the node's kick, without an
// event of their own (run.quietFx).

import "github.com/acemu/acemu/rtl"

// dueFx is a started sub-step's end: its cycle, the order it was started
// in on its node, and its effect (a place in node.fx).
type dueFx struct {
	at  rtl.Cycle
	seq uint64
	i   int32
}

func (a dueFx) before(b dueFx) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

// dueRing is how many cycles ahead an end is kept in the node's calendar
// (dueSoon): most sub-steps end a few cycles after they start; the others
// wait in a heap (node.due).
const dueRing = 64

// dueSoon is the ends due less than dueRing cycles after the cycle they
// were started at: per cycle (a slot of the ring, cycle mod dueRing), a
// list of effects in the order they were started, linked through next
// (places in node.fx, plus one; 0 ends a list). A pending end lies at or
// after the current cycle and less than dueRing ahead, so a slot holds the
// ends of one cycle only.
type dueSoon struct {
	head, tail [dueRing]int32
	next       []int32 // per place in node.fx
}

// pushDue adds the end of effect i (node.fx), due at cycle at and started
// now, numbered seq: to the calendar when near, else to the heap.
func (nd *node) pushDue(now, at rtl.Cycle, seq uint64, i int32) {
	if at-now >= dueRing {
		nd.pushFar(dueFx{at: at, seq: seq, i: i})
		return
	}
	s := &nd.soon
	for int(i) >= len(s.next) {
		s.next = append(s.next, 0)
	}
	s.next[i] = 0
	slot := uint64(at) % dueRing
	if t := s.tail[slot]; t == 0 {
		s.head[slot] = i + 1
	} else {
		s.next[t-1] = i + 1
	}
	s.tail[slot] = i + 1
}

// pushFar adds d to the heap of ends due.
func (nd *node) pushFar(d dueFx) {
	h := append(nd.due, d)
	for j := len(h) - 1; j > 0; {
		p := (j - 1) / 2
		if !h[j].before(h[p]) {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
	nd.due = h
}

// popDue removes the earliest end due from the heap.
func (nd *node) popDue() {
	h := nd.due
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for j := 0; ; {
		c := 2*j + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(h[c]) {
			c++
		}
		if !h[c].before(h[j]) {
			break
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
	nd.due = h
}

// applyDue applies, in the order they were started, the ends due at now of
// the sub-steps started before the one numbered seq: what their events
// would have done before that one's (every end is due at a cycle whose
// kick has not run yet). The heap's ends due now were started at least
// dueRing cycles before the calendar's, so before them.
func (nd *node) applyDue(now rtl.Cycle, seq uint64) {
	for len(nd.due) > 0 && nd.due[0].at == now && nd.due[0].seq < seq {
		i := nd.due[0].i
		nd.popDue()
		nd.applyFx(now, i)
	}
	s := &nd.soon
	slot := uint64(now) % dueRing
	for h := s.head[slot]; h != 0 && nd.fx[h-1].seq < seq; h = s.head[slot] {
		if s.head[slot] = s.next[h-1]; s.head[slot] == 0 {
			s.tail[slot] = 0
		}
		nd.applyFx(now, h-1)
	}
}

// applyFx applies effect i (node.fx) and frees its place.
func (nd *node) applyFx(now rtl.Cycle, i int32) {
	e := nd.fx[i]
	nd.fx[i] = effect{}
	nd.freeFx = append(nd.freeFx, i)
	nd.finish(now, e)
}

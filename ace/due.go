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

// pushDue adds d to the heap of ends due.
func (nd *node) pushDue(d dueFx) {
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

// popDue removes the earliest end due.
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
// kick has not run yet).
func (nd *node) applyDue(now rtl.Cycle, seq uint64) {
	for len(nd.due) > 0 && nd.due[0].at == now && nd.due[0].seq < seq {
		i := nd.due[0].i
		nd.popDue()
		e := nd.fx[i]
		nd.fx[i] = effect{}
		nd.freeFx = append(nd.freeFx, i)
		nd.finish(now, e)
	}
}

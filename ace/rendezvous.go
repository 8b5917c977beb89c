package ace

// This file: the receive-ready notice between peers (docs/ace-model.md,
// "Keeping the chunk flow deadlock-free").

import (
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
)

// announce tells the NPUs waiting to send chunk c's phase ph to this NPU
// that its FSM now works on it; the notice takes each route's latency.
func (nd *node) announce(c *chunk, ph int) {
	r := nd.r
	now := r.k.Now()
	i := int(c.id)*(r.phases+1) + ph
	r.resAt[nd.id][i] = now
	for _, w := range r.waiters[nd.id][i] {
		// A notice of its own class: it takes the same place among the
		// waiter's events whichever NPU's events ran first.
		r.k.ScheduleClass(now+r.latency(nd.id, int(w)), rtl.ClassNotice, r.nodes[r.row(int(w))], evNotice, 0)
	}
	r.waiters[nd.id][i] = nil
}

// peerReady reports whether NPU dst has made room for chunk c's phase ph
// and its notice has reached this NPU (receive-ready rendezvous: a sender
// sends a chunk's phase only into room the receiver holds for it, so a
// packet never waits in an input buffer for room). Otherwise it returns the
// cycle to look again, or -1 to be woken when the room is made.
func (nd *node) peerReady(c *chunk, ph int32, dst int32) (bool, rtl.Cycle) {
	r := nd.r
	i := int(c.id)*(r.phases+1) + int(ph)
	row, me := r.row(int(dst)), int32(nd.id)
	if r.fold {
		me = int32(r.shape.(machine.Folder).Displacement(int(dst), nd.id)) // folded: the torus
	}
	at := r.resAt[row][i]
	if at < 0 {
		for _, w := range r.waiters[row][i] {
			if w == me {
				return false, -1
			}
		}
		r.waiters[row][i] = append(r.waiters[row][i], me)
		return false, -1
	}
	seen := at + r.latency(int(dst), nd.id)
	if seen > r.k.Now() {
		return false, seen
	}
	return true, 0
}

// sendReady is peerReady for send op of c's current phase (a send, or a
// forward), remembered once true: the room, once made and noticed, stays
// (resAt is set once per chunk and phase), so the op asks no more.
func (nd *node) sendReady(c *chunk, op int32) (bool, rtl.Cycle) {
	if c.peerOK[op] {
		return true, 0
	}
	ok, t := nd.peerReady(c, c.Phase, nd.peerOf(c, &c.Prog.Ops[op]))
	if ok && !nd.r.reference {
		c.peerOK[op] = true
	}
	return ok, t
}

package ace

// This file: ops held up by a full output port, set aside from their
// chunk's work until the port's link starts a packet.

import (
	"fmt"
	"slices"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// asideOp is an op of an active chunk's phase set aside in the chunk's
// work (chunk.work) because its output port had no room: a ready send, or
// a receive with packets absorbed whose first forward's port had none.
// reduce marks a receive that reduces, whose walk asks for an ALU first.
type asideOp struct {
	c      *chunk
	op     int32
	phase  int32 // c's phase when the op was set aside
	reduce bool
}

// An FSM's walk of its chunk's work (fsmStep) finds an op whose output
// port has no room unable to start, and asks the port's link to wake the
// node when it next starts a packet (slots: Link.WantSpace). Until it
// does, the port's room (its transmit buffer's space less the slots
// promised to started sub-steps) cannot grow: a sub-step started takes a
// slot, a push gives it back and fills one, and only a packet starting
// frees one, which calls SpaceAvailable. So until then every walk would
// find the op unable to start again, and would only ask for the wake-up
// already asked for and, for a reducing receive, note when an ALU frees
// if none is free (recvRoom asks for an ALU before its forwards' room).
// Such an op is set aside (marked in its chunk's work), so walks skip it,
// and is put back when the port's link starts a packet; a kick with
// set-aside reducing receives that started nothing notes when an ALU
// frees, as their walks would have (kick). A kick's notes matter only
// when it started nothing: when it started a sub-step it looks again the
// next cycle whatever they say, so a walk that stops at the op it starts
// skips nothing that counts. A receive whose room ran out at a later
// forward stays in the work: a walk would ask the wake-up of the first of
// its forwards' ports then full, which may be another port. The
// reference path sets nothing aside.

// setAside keeps op of chunk c out of the walks until output port p's
// link starts a packet: it stays in c.work, marked, and walks skip it. It
// reports whether it did: the reference path sets nothing aside.
func (nd *node) setAside(c *chunk, op int32, p int, reduce bool) bool {
	if nd.r.reference {
		return false
	}
	c.aside[op] = true
	c.nAside++
	nd.r.asides++
	nd.aside[p] = append(nd.aside[p], asideOp{c: c, op: op, phase: c.Phase, reduce: reduce})
	if reduce {
		nd.asideReduce++
	}
	nd.closePort(p)
	return true
}

// closePort sets aside again, once a walk has found output port p without
// room, the ops put back when p's link last started a packet (restoreAside)
// that are still in their chunks' work and not set aside: each waits on p
// (a send's port, or a receive's first forward's, is fixed), its receiver's
// room is known ready (sendReady, asked before it was first set aside), and
// p has no room until its link starts a packet, so its next walk would
// only set it aside again, as the walk that found p full did for its op.
// Only the notes of those walks are skipped: a reducing receive that finds
// no ALU free notes when one frees and stays in the walk, which the kick
// notes for it when it starts nothing (asideRetry), as for the ops set
// aside by their own walks.
func (nd *node) closePort(p int) {
	for i, a := range nd.reopened[p] {
		nd.reopened[p][i] = asideOp{}
		c := a.c
		if !c.active || c.Phase != a.phase || c.aside[a.op] {
			continue
		}
		if _, inWork := slices.BinarySearch(c.work, a.op); !inWork {
			continue
		}
		c.aside[a.op] = true
		c.nAside++
		nd.r.asides++
		nd.aside[p] = append(nd.aside[p], a)
		if a.reduce {
			nd.asideReduce++
		}
		nd.noteWork(c)
	}
	nd.reopened[p] = nd.reopened[p][:0]
}

// restoreAside puts the ops set aside for output port p back into the
// walks: p's link has started a packet, so p may have room. It keeps them
// as p's ops put back, for closePort.
func (nd *node) restoreAside(p int) {
	for i, a := range nd.aside[p] {
		a.c.aside[a.op] = false
		a.c.nAside--
		nd.noteWork(a.c)
		if a.reduce {
			nd.asideReduce--
		}
		nd.aside[p][i] = asideOp{}
		if !nd.r.reference {
			nd.reopened[p] = append(nd.reopened[p], a)
		}
	}
	nd.aside[p] = nd.aside[p][:0]
}

// asideRetry notes, for a kick that started nothing, when an ALU frees if
// none is free and a reducing receive is set aside: what that receive's
// walk would have noted (recvRoom).
func (nd *node) asideRetry(now rtl.Cycle) {
	if nd.asideReduce == 0 {
		return
	}
	if alu, t := nd.alus.Free(now); alu == nil && t > 0 {
		nd.retryAt(now, t)
	}
}

// checkAside panics unless every op set aside belongs to the active chunk
// heading its FSM, is ready and in its work, and waits on a port that still has no room
// and whose link will call SpaceAvailable (a test's check of the
// incremental bookkeeping).
func (nd *node) checkAside() {
	for p, ops := range nd.aside {
		if len(ops) == 0 {
			continue
		}
		o := nd.out[p]
		if room := o.link.TxSpace() - o.reserved; room >= 1 || !o.link.SenderWaiting() {
			panic(fmt.Sprintf("ace: NPU %d at cycle %d: %d ops set aside for output port %d, which has room for %d packets (its link waking the node: %v)",
				nd.id, nd.r.k.Now(), len(ops), p, room, o.link.SenderWaiting()))
		}
		for _, a := range ops {
			q := nd.fsmQ[a.c.fsm[a.c.Phase]]
			_, inWork := slices.BinarySearch(a.c.work, a.op)
			if !a.c.active || len(q) == 0 || q[0] != a.c || !a.c.Ops.Ready(a.op) || !a.c.aside[a.op] || !inWork {
				panic(fmt.Sprintf("ace: NPU %d at cycle %d: op %d of chunk %d set aside for output port %d is not a ready op of an FSM's current chunk", nd.id, nd.r.k.Now(), a.op, a.c.id, p))
			}
		}
	}
}

// portOf is the place among the node's output ports of link l, -1 if it
// is none of them.
func (nd *node) portOf(l *fabric.Link) int {
	if l.Port < len(nd.out) && nd.out[l.Port] != nil && nd.out[l.Port].link == l {
		return l.Port
	}
	return -1
}

package ace

// This file: ops held up by a full output port, set aside from the walks
// while the port has no room.

import (
	"fmt"
	"slices"

	"github.com/acemu/acemu/collectives"
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
//
// Such an op is set aside on its port (chunk.aside holds the port, the
// node's list for the port the op) and stays there until it leaves its
// chunk's work (dropWork); its port (a send's, or a receive's first
// forward's) is fixed, and its receiver's room is known ready
// (sendReady, asked before it was set aside). Walks skip it while its
// port is closed: from the walk that found the port without room to the
// port's link starting a packet (SpaceAvailable), which opens the port
// and wakes the FSMs of its ops. While the port is open its ops are
// walked as any other: one takes the slot, and the next walk to find the
// port without room closes it again, for every op set aside on it at
// once. That is what their own walks would do: each would find the port
// without room and set the op aside, as that walk did for its own.
//
// The walks skipped leave out only their notes: a kick's notes matter
// only when it started nothing (when it started a sub-step it looks again
// the next cycle whatever they say), so a walk that stops at the op it
// starts skips nothing that counts, and a kick that started nothing with
// a reducing receive set aside notes when an ALU frees, as that receive's
// walk would have (asideRetry). A receive whose room ran out at a later
// forward is not set aside: a walk would ask the wake-up of the first of
// its forwards' ports then full, which may be another port. The
// reference path sets nothing aside.

// setAside sets op of chunk c aside on output port p, which a walk found
// without room, and closes p (the op may be set aside already, walked
// while p was open). It reports whether it did: the reference path sets
// nothing aside.
func (nd *node) setAside(c *chunk, op int32, p int, reduce bool) bool {
	if nd.r.reference {
		return false
	}
	if c.aside[op] == 0 {
		c.aside[op] = int32(p) + 1
		c.nAside++
		c.asidePorts |= portBit(p)
		nd.r.asides++
		nd.aside[p] = append(nd.aside[p], asideOp{c: c, op: op, phase: c.Phase, reduce: reduce})
		if reduce {
			nd.asideReduce++
		}
	}
	nd.portOpen[p] = false
	nd.openPorts &^= portBit(p)
	return true
}

// portBit is output port p's bit in a chunk's asidePorts and the node's
// openPorts (a node of more than 64 ports does not read them: noteFSM).
func portBit(p int) uint64 { return 1 << (uint(p) & 63) }

// unsetAside takes op of chunk c, which leaves c's work, off the port it
// was set aside on, if any (its entry in the port's list is dropped when
// the port next opens).
func (nd *node) unsetAside(c *chunk, op int32) {
	if c.aside[op] == 0 {
		return
	}
	c.aside[op] = 0
	c.nAside--
	if o := &c.Prog.Ops[op]; o.Kind == collectives.Recv && o.Reduce {
		nd.asideReduce--
	}
}

// openPort opens output port p, whose link has started a packet, so p may
// have room: the ops set aside on it are walked again, so their FSMs have
// work. Entries of ops that have left their chunk's work are dropped.
func (nd *node) openPort(p int) {
	nd.portOpen[p] = true
	nd.openPorts |= portBit(p)
	ops := nd.aside[p]
	kept := ops[:0]
	for _, a := range ops {
		c := a.c
		if !c.active || c.Phase != a.phase || c.aside[a.op] != int32(p)+1 {
			continue
		}
		kept = append(kept, a)
		nd.working.set(c.fsm[c.Phase])
	}
	clear(ops[len(kept):])
	nd.aside[p] = kept
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
// heading its FSM, is ready and in its work, and, while its port is
// closed, waits on a port that still has no room and whose link will call
// SpaceAvailable (a test's check of the incremental bookkeeping).
func (nd *node) checkAside() {
	for p, ops := range nd.aside {
		o := nd.out[p]
		for _, a := range ops {
			c := a.c
			if !c.active || c.Phase != a.phase || c.aside[a.op] != int32(p)+1 {
				continue // left the work: dropped when the port opens
			}
			q := nd.fsmQ[c.fsm[c.Phase]]
			_, inWork := slices.BinarySearch(c.work, a.op)
			if len(q) == 0 || q[0] != c || !c.Ops.Ready(a.op) || !inWork {
				panic(fmt.Sprintf("ace: NPU %d at cycle %d: op %d of chunk %d set aside for output port %d is not a ready op of an FSM's current chunk", nd.id, nd.r.k.Now(), a.op, c.id, p))
			}
			if nd.portOpen[p] {
				continue
			}
			if room := o.link.TxSpace() - o.reserved; room >= 1 || !o.link.SenderWaiting() {
				panic(fmt.Sprintf("ace: NPU %d at cycle %d: ops set aside for output port %d, closed, which has room for %d packets (its link waking the node: %v)",
					nd.id, nd.r.k.Now(), p, room, o.link.SenderWaiting()))
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

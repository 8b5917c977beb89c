package ace

// This file: the FSM control unit and the ALU datapath it drives: phases, steps and their completion.

import (
	"fmt"
	"math/big"
	"slices"
	"sort"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// fsmStep starts one sub-step for the chunk an FSM works on: the first of
// its ready ops that can start (a packet of a send, or a packet absorbed
// earlier for a receive).
//
// An op that finds its output port full is set aside from the walks while
// the port has no room (setAside). A walk that starts nothing notes
// whether the chunk still has work: its FSM may have been woken for ops
// set aside on a port closed since (openPort).
func (nd *node) fsmStep(now rtl.Cycle, c *chunk) rtl.Cycle {
	retry, started := nd.walk(now, c)
	if !started {
		nd.noteWork(c)
	}
	return retry
}

// walk is fsmStep's walk of c's work; started reports whether it started
// a sub-step.
func (nd *node) walk(now rtl.Cycle, c *chunk) (retry rtl.Cycle, started bool) {
	retry = -1
	var asideAt uint64 // the ports of the ops set aside (portBit), for c.asidePorts
	for _, op := range c.work {
		if a := c.aside[op]; a != 0 {
			asideAt |= portBit(int(a - 1))
			if !nd.portOpen[a-1] {
				continue
			}
		}
		o := &c.Prog.Ops[op]
		if o.Kind == collectives.Send {
			if ok, t := nd.sendReady(c, op); !ok {
				if t > 0 && (retry < 0 || t < retry) {
					retry = t
				}
				continue
			}
			p := nd.sendPort(c, op)
			if !nd.slot(p) {
				nd.setAside(c, op, p, false)
				asideAt |= portBit(p)
				continue
			}
			b := int64(fabric.PayloadOf(o.Data.Len, c.progress[op]))
			end, ok, t := nd.sramRd.TryStart(now, b)
			if !ok {
				if retry < 0 || t < retry {
					retry = t
				}
				continue
			}
			pkt := fabric.PacketOf(nd.sendMsg(c, op), c.progress[op])
			if c.progress[op]++; c.progress[op] == c.pi.packets[op] {
				nd.dropMsg(c, op)
			}
			nd.out[p].reserved++
			if nd.tracing() {
				nd.trace(subStep{Start: now, End: end, Chunk: int(c.id), Phase: int(c.Phase), Op: int(op), Kind: "send", Bytes: b})
			}
			nd.after(end, effect{kind: fxSend, c: c, op: op, pkt: pkt, port: int32(p)})
			if c.progress[op] == c.pi.packets[op] {
				nd.dropWork(c, op)
			}
			return -1, true
		}
		// A receive is in the work only with packets absorbed (checkWorking),
		// so its room is asked before its queue is looked up: a walk mostly
		// finds its forward's port full, and what it asks has no effect
		// when the room is there.
		alu, ports, t, ok := nd.recvRoom(c, op)
		if !ok {
			if t > 0 && (retry < 0 || t < retry) {
				retry = t
			}
			if full := nd.fullPort; full >= 0 {
				nd.setAside(c, op, full, o.Reduce)
				asideAt |= portBit(full)
			}
			continue
		}
		key := bufKey(c.Phase, op)
		q := c.buffered[key]
		pkt := q[0]
		end, ok, t := nd.startRecv(now, c, op, alu, int64(pkt.Bytes), true)
		if !ok {
			if retry < 0 || t < retry {
				retry = t
			}
			continue
		}
		c.buffered[key] = q[1:]
		if len(q) == 1 {
			delete(c.buffered, key)
			nd.dropWork(c, op)
		}
		nd.beginRecv(now, end, c, op, pkt, ports, fromBuffer)
		return -1, true
	}
	c.asidePorts = asideAt // a walk that starts nothing sees every op
	return retry, false
}

func (nd *node) dropWork(c *chunk, op int32) {
	if i, found := slices.BinarySearch(c.work, op); found {
		c.work = slices.Delete(c.work, i, i+1)
		nd.unsetAside(c, op)
		nd.noteWork(c)
	}
}

// addWork adds op to c's ops with something to start, kept in op order.
func (nd *node) addWork(c *chunk, op int32) {
	if i, found := slices.BinarySearch(c.work, op); !found {
		c.work = slices.Insert(c.work, i, op)
		nd.noteWork(c)
	}
}

// noteWork keeps the set of FSMs with work (node.working) up to date with
// chunk c, whose ops with something to start, or whose place at the head
// of its FSM, changed.
func (nd *node) noteWork(c *chunk) {
	nd.noteFSM(c.fsm[c.Phase])
}

// noteFSM puts FSM f in the set of FSMs with work if its chunk, the head of
// its queue, is active and has an op with something to start: one not set
// aside, or one set aside on a port that may be open (asidePorts; on a
// node of more ports than its bits, any).
func (nd *node) noteFSM(f int) {
	if q := nd.fsmQ[f]; len(q) > 0 && nd.hasWork(q[0]) {
		nd.working.set(f)
	} else {
		nd.working.clear(f)
	}
}

// hasWork is noteFSM's test of chunk c, the head of its FSM's queue.
func (nd *node) hasWork(c *chunk) bool {
	return c.active && (len(c.work) > int(c.nAside) || c.nAside > 0 && (nd.wide || c.asidePorts&nd.openPorts != 0))
}

// checkWorking panics unless the set of FSMs with work holds every FSM
// whose chunk has an op it may start (one not set aside, or one set aside
// on an open port; it may hold more: FSMs woken for ops set aside on a
// port closed since, which their next walk takes out), and every receive
// in an active chunk's work has packets absorbed (a test's check of the
// incremental bookkeeping).
func (nd *node) checkWorking() {
	for f, q := range nd.fsmQ {
		want := false
		if len(q) > 0 && q[0].active {
			for _, op := range q[0].work {
				if a := q[0].aside[op]; a == 0 || nd.portOpen[a-1] {
					want = true
				}
			}
		}
		if want && !nd.working.has(f) {
			panic(fmt.Sprintf("ace: NPU %d at cycle %d: FSM %d has work, but the set of FSMs with work does not hold it", nd.id, nd.r.k.Now(), f))
		}
		if len(q) == 0 || !q[0].active {
			continue
		}
		c := q[0]
		for _, op := range c.work {
			if c.Prog.Ops[op].Kind == collectives.Recv && len(c.buffered[bufKey(c.Phase, op)]) == 0 {
				panic(fmt.Sprintf("ace: NPU %d at cycle %d: receive %d of chunk %d is in its work with no packet absorbed", nd.id, nd.r.k.Now(), op, c.id))
			}
		}
	}
}

// enterPhase queues chunk c at its FSM for phase ph (its partition room is
// already reserved).
func (nd *node) enterPhase(now rtl.Cycle, c *chunk, ph int32) {
	if ph > 0 {
		nd.wait(c, int(ph), 1) // (admission counted phase 1)
	}
	c.state, c.Phase, c.blocked = csPhase, ph, false
	f := c.fsm[ph]
	// The FSM's queue is in creation order: it works on its chunks in the
	// order they were created (Section IV-F), so a chunk that comes early
	// waits for the older ones assigned to the same FSM.
	q := append(nd.fsmQ[f], c)
	rank := nd.r.rank
	for i := len(q) - 1; i > 0 && rank[q[i].id] < rank[q[i-1].id]; i-- {
		q[i], q[i-1] = q[i-1], q[i]
	}
	nd.fsmQ[f] = q
	nd.noteFSM(f)
	nd.startFSM(now, f)
}

// startFSM activates the head of FSM f's queue if it is the chunk the FSM
// works on next.
func (nd *node) startFSM(now rtl.Cycle, f int) {
	q := nd.fsmQ[f]
	if len(q) == 0 || q[0].active {
		return
	}
	if next, ok := nd.fsmNext[f].Peek(); !ok || nd.r.rank[q[0].id] != next {
		return
	}
	nd.fsmFrom[f] = now
	nd.activate(now, q[0])
}

// activate makes c the chunk its FSM works on.
func (nd *node) activate(now rtl.Cycle, c *chunk) {
	c.Load(nd.progNPU(c), nd.r.infos)
	prog := c.Prog
	c.active, c.pi = true, nd.r.infoOf(prog)
	nd.wait(c, int(c.Phase), -1)
	if nd.r.cfg.Prefetch == PrefetchFSM {
		nd.freed = true // a chunk may now load, or enter this phase
		nd.scheduleKick(now)
	}
	if nd.r.cfg.Notice == NoticeFSM {
		nd.announce(c, int(c.Phase))
	}
	c.progress = make([]int32, len(prog.Ops))
	c.msgs = nil // allocated when a message of several packets starts
	c.peerOK = slices.Grow(c.peerOK[:0], len(prog.Ops))[:len(prog.Ops)]
	clear(c.peerOK)
	c.aside = slices.Grow(c.aside[:0], len(prog.Ops))[:len(prog.Ops)]
	clear(c.aside)
	c.nAside, c.asidePorts = 0, 0
	c.work = c.work[:0]
	nd.noteWork(c)
	if c.Ops.Remaining == 0 {
		nd.phaseDone(now, c)
		return
	}
	for i := range prog.Ops {
		if c.Ops.Ready(int32(i)) {
			nd.ready(c, int32(i))
		}
	}
}

// ready notes that op i's dependences are met.
func (nd *node) ready(c *chunk, i int32) {
	o := &c.Prog.Ops[i]
	switch {
	case o.Kind == collectives.Send && c.pi.Flow.ForwardOf[i] < 0:
		nd.addWork(c, i)
	case o.Kind == collectives.Recv && len(c.buffered[bufKey(c.Phase, i)]) > 0:
		nd.addWork(c, i)
	}
}

// complete finishes op i of c's current phase.
func (nd *node) complete(now rtl.Cycle, c *chunk, i int32) {
	ph := c.Phase
	c.Ops.Complete(i, func(d int32) {
		if c.pi.Flow.ForwardOf[d] >= 0 && c.progress[d] == c.pi.packets[d] {
			nd.complete(now, c, d) // a forward that streamed with its receive
			return
		}
		nd.ready(c, d)
	})
	// A nested completion may already have moved the chunk on.
	if c.Ops.Remaining == 0 && c.Phase == ph && c.active && !c.blocked {
		nd.phaseDone(now, c)
	}
}

// phaseDone moves c on: to the next phase's partition and FSM, or to the
// terminal partition and the RX DMA. Without room it waits at the head of
// its FSM, which then serves nobody else.
func (nd *node) phaseDone(now rtl.Cycle, c *chunk) {
	next := nd.nextPart(c)
	f := c.fsm[c.Phase]
	if next < nd.r.phases && !nd.mayQueue(c, int(c.Phase)+1) || !nd.reserve(c, next) {
		if !c.blocked {
			c.blocked = true
			nd.blockedFrom[f] = now
		}
		return
	}
	if c.blocked {
		nd.blockedCycles += int64(now - nd.blockedFrom[f])
	}
	nd.release(c, c.parts[c.Phase])
	nd.fsmQ[f] = nd.fsmQ[f][1:]
	nd.fsmCycles += int64(now - nd.fsmFrom[f])
	c.active = false
	nd.noteFSM(f)
	nd.fsmNext[f].Pop()
	nd.admitGen++
	nd.startFSM(now, f)
	if next == nd.r.phases {
		c.state = csDMAOut
		c.dma, c.dmaDone = 0, 0
		nd.rxq = append(nd.rxq, c)
	} else {
		nd.enterPhase(now, c, c.Phase+1)
	}
	nd.scheduleKick(now)
}

// unblock retries, oldest first, chunks whose phase is done but whose next
// partition had no room for them.
func (nd *node) unblock(now rtl.Cycle) {
	var blocked []*chunk
	for _, q := range nd.fsmQ {
		if len(q) > 0 && q[0].blocked && q[0].active {
			blocked = append(blocked, q[0])
		}
	}
	rank := nd.r.rank
	sort.Slice(blocked, func(i, j int) bool { return rank[blocked[i].id] < rank[blocked[j].id] })
	for _, c := range blocked {
		if c.blocked && c.active {
			nd.phaseDone(now, c)
		}
	}
}

// fsmBusy is the mean over the FSMs of the time each had a chunk to work on,
// and of the part of it spent holding a chunk that may not move on yet.
func (nd *node) fsmBusy() (busy, blocked *big.Rat) {
	n := int64(len(nd.fsmQ))
	return big.NewRat(nd.fsmCycles, n), big.NewRat(nd.blockedCycles, n)
}

// fsmsPerPhase counts the FSMs serving each phase.
func (nd *node) fsmsPerPhase() []int {
	counts := make([]int, nd.r.phases)
	for _, ph := range nd.fsmPhase {
		counts[ph]++
	}
	return counts
}

// aluBusy is the mean over the ALUs of their busy time (exact).
func (nd *node) aluBusy() *big.Rat {
	t := new(big.Rat)
	for _, a := range nd.alus {
		t.Add(t, new(big.Rat).Quo(a.BusyCycles(), big.NewRat(int64(len(nd.alus)), 1)))
	}
	return t
}

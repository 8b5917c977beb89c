package ace

// This file: the SRAM and its partitions: admission of chunks, room reserved per phase, release.

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
)

// admit takes chunks in order into partition 1 while it has room. When it
// last stopped at a chunk and nothing it looks at has changed since
// (node.admitGen), it stops there again at once.
func (nd *node) admit(now rtl.Cycle) {
	r := nd.r
	if nd.admitStopped == nd.admitGen && !r.reference {
		if r.checks {
			nd.checkAdmitStopped()
		}
		return
	}
	for nd.nextAdmit < len(r.order) {
		c := nd.chunks[r.order[nd.nextAdmit]]
		// A chunk's FSMs follow its place in the loading order, so each FSM
		// takes every split[ph]-th chunk of that order (of a collective of
		// another kind, phase i takes the FSMs of the layout's phase whose
		// partition it uses); an all-to-all chunk (one phase) takes every
		// FSM in turn. Each FSM works on its chunks in that order.
		rk := int(r.rank[c.id])
		if plan := c.Coll.Plan; plan.Op == collectives.OpAllToAll && plan.NumPhases() == 1 && r.phases > 1 {
			c.fsm[0] = rk % len(nd.fsmQ)
		} else {
			for ph, p := range c.parts { // the FSMs of the layout's phase on the same partition
				c.fsm[ph] = nd.firstFSM[p] + rk%nd.split[p]
			}
		}
		if !nd.mayQueue(c, 0) || !nd.reserve(c, 0) {
			nd.admitStopped = nd.admitGen
			return
		}
		for ph := 0; ph < c.Coll.Plan.NumPhases(); ph++ {
			nd.fsmNext[c.fsm[ph]].Push(int32(rk))
		}
		c.state = csDMAIn
		if nd.inACE == 0 {
			nd.utilFrom = now
		}
		nd.inACE++
		if nd.r.hooks.Init != nil {
			c.Vals = nd.r.hooks.Init(c.Coll.ID, nd.id, int(c.Local))
		}
		nd.txq = append(nd.txq, c)
		nd.nextAdmit++
		nd.wait(c, 0, 1)
	}
}

// checkAdmitStopped panics if the chunk next in the loading order could
// load, when admit skipped it because nothing had changed (a test's
// check of the incremental bookkeeping).
func (nd *node) checkAdmitStopped() {
	r := nd.r
	if nd.nextAdmit >= len(r.order) {
		return
	}
	c := nd.chunks[r.order[nd.nextAdmit]]
	room := c.reserved[0] || nd.nextIn[0] == r.rank[c.id] && nd.used[0]+nd.viewOf(c, 0) <= nd.part[0]
	if nd.mayQueue(c, 0) && room {
		panic(fmt.Sprintf("ace: NPU %d at cycle %d: chunk %d could load, but admit saw nothing change since it last could not", nd.id, r.k.Now(), c.id))
	}
}

// mayQueue reports whether chunk c may join the queue of its FSM for phase
// ph (be loaded, for the first phase) under --prefetch fsm: while fewer
// chunks wait for the FSMs of that phase than it has FSMs (each FSM one
// chunk ready behind its current one), or when c is the next chunk its FSM
// works on, so the oldest chunk always moves (docs/ace-model.md, "Loading
// ahead").
func (nd *node) mayQueue(c *chunk, ph int) bool {
	if nd.r.cfg.Prefetch != PrefetchFSM {
		return true
	}
	f := c.fsm[ph]
	g := nd.fsmPhase[f]
	if nd.waiting[g] < nd.split[g] {
		return true
	}
	next, ok := nd.fsmNext[f].Peek()
	if ph == 0 {
		return !ok // admission pushes c last: it is next only on an idle FSM
	}
	return ok && next == nd.r.rank[c.id]
}

// wait counts chunk c in (d = 1) or out of (d = -1) the chunks waiting for
// an FSM of the phase its FSM for phase ph serves (an all-to-all chunk's
// FSM may serve any phase).
func (nd *node) wait(c *chunk, ph, d int) {
	nd.waiting[nd.fsmPhase[c.fsm[ph]]] += d
	nd.admitGen++
}

// reserveAhead grants room ahead (Notice "room"): every phase's partition
// takes the loaded chunks in order while it has room, whichever phase they
// are in, and announces each one to its senders at once, so the notice
// travels while the chunk is still in an earlier phase.
//
// A chunk that finished its phase and waited for this room moves on now.
//
// Like admit, it looks again only when something it looks at has changed
// since it last stopped (node.admitGen).
func (nd *node) reserveAhead(now rtl.Cycle) {
	r := nd.r
	if nd.aheadStopped == nd.admitGen && !r.reference {
		if r.checks {
			nd.checkAheadStopped()
		}
		return
	}
	woke := false
	for ph := 1; ph < r.phases; ph++ {
		for nd.skipUnused(ph); int(nd.nextIn[ph]) < nd.nextAdmit; nd.skipUnused(ph) {
			c := nd.chunks[r.order[nd.nextIn[ph]]]
			if !nd.reserve(c, ph) {
				break
			}
			woke = woke || (c.blocked && c.active)
		}
	}
	nd.aheadStopped = nd.admitGen // before unblock, which may change what it looks at
	if woke {
		nd.unblock(now)
	}
}

// checkAheadStopped panics if a partition could grant room ahead when
// reserveAhead skipped them all because nothing had changed (a test's
// check of the incremental bookkeeping).
func (nd *node) checkAheadStopped() {
	r := nd.r
	for ph := 1; ph < r.phases; ph++ {
		i := nd.nextUsed(ph)
		if int(i) >= nd.nextAdmit {
			continue
		}
		c := nd.chunks[r.order[i]]
		if nd.used[ph]+nd.viewOf(c, ph) <= nd.part[ph] {
			panic(fmt.Sprintf("ace: NPU %d at cycle %d: partition %d could take chunk %d, but reserveAhead saw nothing change since it last could not", nd.id, r.k.Now(), ph, c.id))
		}
	}
}

// skipUnused moves partition ph's next place in the loading order past the
// loaded chunks that never use it: written back already, or of a
// collective whose phases pass it by (an all-to-all's go from the first
// partition to the terminal one).
func (nd *node) skipUnused(ph int) { nd.nextIn[ph] = nd.nextUsed(ph) }

// nextUsed is partition ph's next place in the loading order past the
// loaded chunks that never use it (skipUnused).
func (nd *node) nextUsed(ph int) int32 {
	r := nd.r
	i := nd.nextIn[ph]
	for ph > 0 && ph < r.phases && int(i) < nd.nextAdmit {
		if x := nd.chunks[r.order[i]]; x != doneChunk && x.phaseAt(ph) >= 0 {
			break
		}
		i++
	}
	return i
}

// viewOf returns the bytes partition ph must hold for chunk c (the terminal
// partition holds its result).
func (nd *node) viewOf(c *chunk, ph int) int64 {
	if c.views != nil { // asked for every packet: the chunk keeps its row
		return c.views[ph]
	}
	plan := c.Coll.Plan
	key := viewKey{plan, c.Len}
	v, ok := nd.views[key]
	if !ok {
		np := plan.NumPhases()
		v = make([]int64, nd.r.phases+1) // partitions a plan's phases pass by stay 0
		for p := 0; p < np; p++ {
			v[c.parts[p]] = plan.Program(nd.progNPU(c), p, c.Len).ViewLen()
		}
		for _, o := range plan.Program(nd.progNPU(c), np-1, c.Len).Out {
			v[nd.r.phases] += o.Len
		}
		nd.views[key] = v
	}
	c.views = v
	return v[ph]
}

// viewKey names the chunks of a plan and a length, which need the same
// room.
type viewKey struct {
	plan *collectives.Plan
	len  int64
}

// phaseAt is the phase of c's plan that uses partition p, -1 if none does
// (the terminal partition is no phase's).
func (c *chunk) phaseAt(p int) int {
	for ph, q := range c.parts {
		if q == p {
			return ph
		}
	}
	return -1
}

// nextPart is the partition chunk c goes to after its current phase: the
// next phase's, or the terminal one after its plan's last phase.
func (nd *node) nextPart(c *chunk) int {
	if next := int(c.Phase) + 1; next < c.Coll.Plan.NumPhases() {
		return c.parts[next]
	}
	return nd.r.phases
}

// reserve takes room for chunk c in partition ph. Chunks take a partition's
// room in creation order on every NPU [choice, docs/ace-model.md]: peers then
// hold the same window of chunks in a phase, so a packet that waits in an
// input buffer for room never waits behind one that its own chunk needs.
func (nd *node) reserve(c *chunk, ph int) bool {
	if c.reserved[ph] {
		return true
	}
	r := nd.r
	nd.skipUnused(ph)
	if nd.nextIn[ph] != r.rank[c.id] {
		return false
	}
	v := nd.viewOf(c, ph)
	if nd.used[ph]+v > nd.part[ph] {
		return false
	}
	nd.used[ph] += v
	c.reserved[ph] = true
	nd.nextIn[ph]++
	nd.admitGen++
	if r.cfg.Notice == NoticeRoom && ph < r.phases {
		if q := c.phaseAt(ph); q >= 0 {
			nd.announce(c, q)
		}
	}
	return true
}

func (nd *node) release(c *chunk, ph int) {
	if c.reserved[ph] {
		nd.used[ph] -= nd.viewOf(c, ph)
		c.reserved[ph] = false
		nd.freed = true
		nd.admitGen++
	}
}

// sramBusy is the time the SRAM's read and write ports spent moving bytes,
// in port-cycles over all the ports of a kind (exact).
func (nd *node) sramBusy() (read, write *big.Rat) {
	return nd.sramRd.BusyCycles(), nd.sramWr.BusyCycles()
}

// sramLayout is the SRAM's partitions and its read and write ports per
// bank.
func (nd *node) sramLayout() (partitions []int64, readPorts, writePorts int) {
	return nd.part, nd.ports[0], nd.ports[1]
}

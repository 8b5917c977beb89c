// Package xcore is the collective executor core every endpoint shares:
// the collectives in flight and their completion, what is derived once per
// program (dependences, data flow), and one chunk's progress through its
// current phase's operations (unmet dependences, completion, release of
// what waited). The endpoints (the ideal and baseline executors in npu,
// ACE in ace) keep only their own datapath: what an operation costs and
// when it may start.
package xcore

import (
	"fmt"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// Collective is one collective in flight on an engine.
type Collective struct {
	ID   int
	Plan *collectives.Plan
	// First is the global number of its chunk 0: a collective's chunks
	// have the numbers [First, First+NumChunks), the same on every NPU.
	First int32
	// Pending counts the chunk × NPU pairs not finished.
	Pending int
	done    func(now rtl.Cycle)
	nodes   int
	// With a progress callback (Track): per chunk, the NPUs it has not
	// finished on, its pieces' ends and the NPUs each piece is not final
	// on; the piece the report is to reach next, and the bytes reported.
	progress  func(now rtl.Cycle, bytes int64)
	chunkLeft []int32
	pieceEnd  [][]int64
	pieceLeft [][]int32
	at        struct{ chunk, piece int }
	reported  int64
	reporting bool
}

// Collectives are an engine's collectives, in the order issued.
type Collectives struct {
	k    *rtl.Kernel
	list []*Collective
}

// NewCollectives returns an empty list driven by k.
func NewCollectives(k *rtl.Kernel) *Collectives { return &Collectives{k: k} }

// Add records a collective of plan on nodes NPUs, its chunks numbered from
// first; done is called when the last chunk finishes on the last NPU, and
// and its progress, if asked for (Track), as its chunks finish.
func (c *Collectives) Add(plan *collectives.Plan, nodes int, first int32, done func(now rtl.Cycle)) *Collective {
	co := &Collective{ID: len(c.list), Plan: plan, First: first, Pending: nodes * plan.NumChunks(), done: done, nodes: nodes}
	c.list = append(c.list, co)
	return co
}

// Track asks for the collective's progress: progress hears, as it grows,
// how many bytes from the collective's start hold their final values on
// every NPU, after the cycle's events (rtl.ClassSystem). A chunk counts
// once it has finished everywhere; before that, where its last phase's
// programs declare pieces (collectives.Program.Finals, over the whole
// chunk) and the endpoint reports them (Chunk.OpFinal), piece by piece.
// Call it before the collective's first chunk is loaded.
func (co *Collective) Track(progress func(now rtl.Cycle, bytes int64)) {
	co.progress = progress
	n := co.Plan.NumChunks()
	co.chunkLeft = make([]int32, n)
	co.pieceEnd, co.pieceLeft = make([][]int64, n), make([][]int32, n)
	last := co.Plan.NumPhases() - 1
	for c := range n {
		co.chunkLeft[c] = int32(co.nodes)
		clen := co.Plan.ChunkLen(c)
		prog := co.Plan.Program(0, last, clen)
		if len(prog.Finals) == 0 || len(prog.View) != 1 || prog.View[0] != (collectives.Range{Off: 0, Len: clen}) {
			continue
		}
		for _, f := range prog.Finals {
			co.pieceEnd[c] = append(co.pieceEnd[c], f.Data.End())
			co.pieceLeft[c] = append(co.pieceLeft[c], int32(co.nodes))
		}
	}
}

// advance moves the progress over the chunks and pieces now final
// everywhere and reports the bytes, if they grew.
func (c *Collectives) advance(now rtl.Cycle, co *Collective) {
	for co.at.chunk < len(co.chunkLeft) {
		ch := co.at.chunk
		base := int64(ch) * co.Plan.ChunkBytes // chunks are ChunkBytes but the last
		if co.chunkLeft[ch] == 0 {
			co.reachBytes(now, c.k, base+co.Plan.ChunkLen(ch))
			co.at.chunk, co.at.piece = ch+1, 0
			continue
		}
		left := co.pieceLeft[ch]
		if co.at.piece >= len(left) || left[co.at.piece] > 0 {
			return
		}
		co.reachBytes(now, c.k, base+co.pieceEnd[ch][co.at.piece])
		co.at.piece++
	}
}

// reachBytes reports bytes final everywhere: one report a cycle, the
// latest.
func (co *Collective) reachBytes(now rtl.Cycle, k *rtl.Kernel, bytes int64) {
	if bytes <= co.reported {
		return
	}
	co.reported = bytes
	if co.reporting {
		return // the report scheduled this cycle gives the latest
	}
	co.reporting = true
	k.ScheduleClass(now, rtl.ClassSystem, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) {
		co.reporting = false
		co.progress(now, co.reported)
	}), 0, 0)
}

// All returns the collectives issued, in order.
func (c *Collectives) All() []*Collective { return c.list }

// Finish counts chunk local of co finished on one NPU at cycle now: the
// progress it makes is reported (Track), and the collective's last to
// done, after every NPU's events of the cycle (rtl.ClassSystem).
func (c *Collectives) Finish(now rtl.Cycle, co *Collective, local int32) {
	if co.progress != nil {
		co.chunkLeft[local]--
		c.advance(now, co)
	}
	co.Pending--
	if co.Pending == 0 && co.done != nil {
		c.k.ScheduleClass(now, rtl.ClassSystem, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { co.done(now) }), 0, 0)
	}
}

// Unfinished returns how many collectives have chunks not finished.
func (c *Collectives) Unfinished() int {
	n := 0
	for _, co := range c.list {
		if co.Pending > 0 {
			n++
		}
	}
	return n
}

// PendingChunks returns the chunk × NPU pairs not finished, over all.
func (c *Collectives) PendingChunks() int {
	n := 0
	for _, co := range c.list {
		n += co.Pending
	}
	return n
}

// Chunk is one chunk's progress on one NPU, the part every endpoint
// keeps alike: its collective, its phase, the phase's program and ops,
// and its values when the run checks data. An endpoint embeds it in its
// own chunk state.
//
// Its fields are laid out for the work per message: those an op's
// completion reads first (an endpoint's chunks are many, and each is
// touched once or twice per message: docs/performance.md).
type Chunk struct {
	Coll  *Collective
	Phase int32 // its current phase; Coll.Plan.NumPhases() when finished
	Prog  *collectives.Program
	Info  *Info // Prog's dependences and data flow
	Ops   Ops   // the current phase's ops: unmet dependences, done
	// finalLeft counts, per piece of the program's Finals, its ops not
	// done, where the collective's progress is tracked by piece.
	finalLeft []int32
	Vals      []int64 // real values when checking data, chunk-indexed
	Local     int32   // the chunk's number within its collective
	Len       int64   // its bytes
}

// NewChunk returns chunk local of co, before its first phase.
func NewChunk(co *Collective, local int32) Chunk {
	return Chunk{Coll: co, Local: local, Len: co.Plan.ChunkLen(int(local))}
}

// Finished reports whether the chunk has left its last phase.
func (c *Chunk) Finished() bool { return int(c.Phase) == c.Coll.Plan.NumPhases() }

// Load starts the current phase on NPU npu: its program, the program's
// Info, and its ops.
func (c *Chunk) Load(npu int, infos Infos) {
	c.Prog = c.Coll.Plan.Program(npu, int(c.Phase), c.Len)
	c.Info = infos.Of(c.Prog)
	c.Ops.Begin(c.Info)
	c.finalLeft = c.finalLeft[:0]
	if co := c.Coll; co.progress != nil && int(c.Phase) == co.Plan.NumPhases()-1 && len(co.pieceLeft[c.Local]) == len(c.Prog.Finals) {
		for _, f := range c.Prog.Finals {
			c.finalLeft = append(c.finalLeft, int32(len(f.Ops)))
		}
	}
}

// OpFinal counts op i of the current phase done toward the pieces of its
// program's Finals, for an endpoint whose ops leave their data final where
// it is kept when they complete (the ideal endpoint and the baseline; ACE
// keeps a chunk in its SRAM until it writes it back, so its progress is
// its chunks'). A piece whose ops are all done is final on this NPU; the
// collective's progress counts it (Collective.Track).
func (c *Chunk) OpFinal(now rtl.Cycle, i int32, colls *Collectives) {
	if len(c.finalLeft) == 0 {
		return
	}
	f := c.Info.final[i]
	if f < 0 {
		return
	}
	if c.finalLeft[f]--; c.finalLeft[f] == 0 {
		c.Coll.pieceLeft[c.Local][f]--
		colls.advance(now, c.Coll)
	}
}

// Done ends the chunk on NPU npu at cycle now: the observer, if any, sees
// its final values (observe.ChunkDone), its state is dropped, and its
// collective counts it finished.
func (c *Chunk) Done(now rtl.Cycle, npu int, o observe.Observer, colls *Collectives) {
	c.Prog, c.Info, c.finalLeft = nil, nil, nil
	c.Ops.Clear()
	if o != nil {
		o.Observe(observe.Event{Kind: observe.ChunkDone, Cycle: now, NPU: npu, Coll: c.Coll.ID, Chunk: int(c.Local), Values: c.Vals})
	}
	c.Vals = nil
	colls.Finish(now, c.Coll, c.Local)
}

// Info is what is derived once per program: how many dependences each op
// has, which ops depend on it, each op's kind, and its data flow (which
// sends forward a reduction, which receives store their result). It is
// laid out for the hot path: flat arrays, not one slice per op.
type Info struct {
	NDeps []int16
	Kinds []collectives.Kind
	Flow  collectives.Flow
	// final is, per op, the piece of the program's Finals it counts
	// toward, -1 for none.
	final []int32
	// The ops that depend on op i are depOn[depFrom[i]:depFrom[i+1]],
	// in the program's order.
	depFrom, depOn []int32
}

// Dependents returns the ops that depend on op i, in the program's order.
func (in *Info) Dependents(i int32) []int32 { return in.depOn[in.depFrom[i]:in.depFrom[i+1]] }

// Infos caches Info per program.
type Infos map[*collectives.Program]*Info

// Of returns p's Info, derived at its first use.
func (s Infos) Of(p *collectives.Program) *Info {
	if in, ok := s[p]; ok {
		return in
	}
	in := &Info{Flow: collectives.Analyze(p), Kinds: make([]collectives.Kind, len(p.Ops)), depFrom: make([]int32, len(p.Ops)+1)}
	var dependents [][]int32
	in.NDeps, dependents = p.DepGraph()
	if len(p.Finals) > 0 {
		in.final = make([]int32, len(p.Ops))
		for i := range in.final {
			in.final[i] = -1
		}
		for f, fin := range p.Finals {
			for _, o := range fin.Ops {
				in.final[o] = int32(f)
			}
		}
	}
	for i, ds := range dependents {
		in.Kinds[i] = p.Ops[i].Kind
		in.depOn = append(in.depOn, ds...)
		in.depFrom[i+1] = int32(len(in.depOn))
	}
	s[p] = in
	return in
}

// Ops is one chunk's progress through its current phase's ops.
type Ops struct {
	info      *Info
	st        []opState // per op, in one array: what a message's op reads and writes is together
	Remaining int
}

// opState is one op's progress.
type opState struct {
	deps    int16 // dependences not met
	done    bool
	arrived bool // the endpoint's mark: the op's message has come (SetArrived)
}

// Begin starts the phase of the program info describes.
func (o *Ops) Begin(info *Info) {
	o.info = info
	o.st = o.st[:0]
	for _, d := range info.NDeps {
		o.st = append(o.st, opState{deps: d})
	}
	o.Remaining = len(info.NDeps)
}

// Clear drops the phase's state (the chunk is finished).
func (o *Ops) Clear() { o.info, o.st = nil, nil }

// Ready reports whether op i's dependences are met.
func (o *Ops) Ready(i int32) bool { return o.st[i].deps == 0 }

// Arrived reports whether SetArrived marked op i in this phase.
func (o *Ops) Arrived(i int32) bool { return o.st[i].arrived }

// SetArrived marks op i: for an endpoint that notes here that a receive's
// message has come.
func (o *Ops) SetArrived(i int32) { o.st[i].arrived = true }

// Complete marks op i done and releases the ops that waited on it: ready
// is called, in order, for each whose last dependence this was (it may
// complete further ops).
func (o *Ops) Complete(i int32, ready func(d int32)) {
	o.st[i].done = true
	o.Remaining--
	for _, d := range o.info.Dependents(i) {
		o.st[d].deps--
		if o.st[d].deps == 0 {
			ready(d)
		}
	}
}

// Waits describes the phase's unfinished ops of program prog, for the
// report of a run that stopped making progress: an op whose dependences
// are not met says so; for one that may run, ready says what it waits on
// (the endpoint's business: a message, packets, its port).
func (o *Ops) Waits(prog *collectives.Program, ready func(i int, op *collectives.Op) string) []string {
	var waits []string
	for i := range prog.Ops {
		op := &prog.Ops[i]
		switch {
		case o.st[i].done:
		case o.st[i].deps > 0:
			waits = append(waits, fmt.Sprintf("op %d (%s NPU %d) waits on %d earlier ops", i, op.Kind, op.Peer, o.st[i].deps))
		default:
			waits = append(waits, ready(i, op))
		}
	}
	return waits
}

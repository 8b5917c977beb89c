package ace

// This file: what a run reports: statistics, sub-step traces and data hooks.

import (
	"math/big"

	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// Hooks let a run carry real values and trace sub-steps.
type Hooks struct {
	// Init, when set, makes the run carry values (one int64 per payload
	// byte): every chunk starts from Init, and the Observer sees each
	// chunk's values when it is written back on an NPU (observe.ChunkDone).
	Init func(coll, npu, chunk int) []int64
	// Observer, when set, sees every sub-step as it starts
	// (observe.SubStep: What is its kind, Op -1 for the DMA).
	Observer observe.Observer
	// Interrupt, when set, is the completion interrupt ACE raises to its
	// NPU (Section IV-G): once per chunk when its result is back in memory,
	// and once for the whole collective (chunk = -1) after the last chunk.
	Interrupt func(npu, chunk int, at rtl.Cycle)
}

// subStep is one unit of ACE work, as observers see it.
type subStep struct {
	Start, End   rtl.Cycle
	NPU          int
	Chunk, Phase int
	Op           int // -1 for DMA
	Kind         string
	Bytes        int64
}

// Result is what a collective run on ACE measured.
type Result struct {
	Cycles    rtl.Cycle
	Events    uint64
	BytesSent []int64 // injected as a source, per NPU
	MemRead   []int64 // TX DMA, per NPU
	MemWrite  []int64 // RX DMA, per NPU
	// Shares of the run's time, means over NPUs.
	Utilization float64 // at least one chunk in ACE (admitted, not written back)
	SRAMRead    float64
	SRAMWrite   float64
	ALU         float64 // mean over ALUs
	DMA         float64 // the memory given to communication, mean of its read (TX DMA) and write (RX DMA) sides
	FSM         float64 // mean over FSMs: share of time with a chunk to work on
	// FSMBlocked is the part of FSM spent holding a chunk that finished its
	// phase and may not move on yet (no room, or the next phase's FSMs
	// have a chunk waiting each): FSM time lost while work may wait.
	FSMBlocked float64
	// Layout of NPU 0.
	Partitions   []int64
	FSMsPerPhase []int
	// ReadPorts and WritePorts are NPU 0's ports per SRAM bank.
	ReadPorts, WritePorts int
}

// tracing reports whether sub-steps are observed: their callers ask it
// before building a sub-step's record for trace, which an unobserved run
// does not need.
func (nd *node) tracing() bool { return nd.r.hooks.Observer != nil }

// trace reports a started sub-step to the observer.
func (nd *node) trace(s subStep) {
	if o := nd.r.hooks.Observer; o != nil {
		fsm := -1
		if c := nd.chunks[s.Chunk]; s.Op >= 0 && c != doneChunk && s.Phase < len(c.fsm) {
			fsm = c.fsm[s.Phase]
		}
		o.Observe(observe.Event{Kind: observe.SubStep, Cycle: s.Start, End: s.End, NPU: nd.id, Chunk: s.Chunk, Phase: s.Phase, Op: s.Op, What: s.Kind, Bytes: s.Bytes, FSM: fsm})
	}
}

func (r *run) result(cycles rtl.Cycle) *Result {
	res := &Result{Cycles: cycles, Events: r.k.Events()}
	// Busy times are summed exactly over NPUs and divided once, so the
	// means do not depend on how many NPUs were simulated (a folded run).
	// Each component reports its own busy time (sram.go, dma.go, fsm.go).
	var util, fsm, blocked, rd, wr, dma, alu big.Rat
	for _, nd := range r.nodes {
		res.BytesSent = append(res.BytesSent, nd.sent)
		res.MemRead = append(res.MemRead, nd.memRead)
		res.MemWrite = append(res.MemWrite, nd.memWrite)
		util.Add(&util, new(big.Rat).SetInt64(nd.utilCycles))
		f, b := nd.fsmBusy()
		fsm.Add(&fsm, f)
		blocked.Add(&blocked, b)
		sr, sw := nd.sramBusy()
		rd.Add(&rd, sr)
		wr.Add(&wr, sw)
		dma.Add(&dma, nd.dmaBusy())
		alu.Add(&alu, nd.aluBusy())
	}
	share := func(b *big.Rat, per int64) float64 {
		if cycles <= 0 {
			return 0
		}
		f, _ := new(big.Rat).Quo(b, big.NewRat(int64(cycles)*int64(len(r.nodes))*per, 1)).Float64()
		return f
	}
	res.Utilization, res.FSM, res.FSMBlocked = share(&util, 1), share(&fsm, 1), share(&blocked, 1)
	res.SRAMRead, res.SRAMWrite, res.DMA, res.ALU = share(&rd, 1), share(&wr, 1), share(&dma, 2), share(&alu, 1)
	res.Partitions, res.ReadPorts, res.WritePorts = r.nodes[0].sramLayout()
	res.FSMsPerPhase = r.nodes[0].fsmsPerPhase()
	return res
}

// UtilizationWithin is Result.Utilization within spans instead of over
// the whole run: the cycles of spans in which ACE held at least one chunk
// (admitted, not written back), summed over the NPUs simulated, over the
// NPUs times the spans' length; 0 for spans of no length. A chunk still
// held counts up to the kernel's current cycle. The training loop's
// passes are such spans (the ACE paper's Fig. 9(b): utilisation in the
// forward pass and in back-propagation).
func (e *Engine) UtilizationWithin(spans []rtl.Span) float64 {
	n := rtl.TotalLen(spans)
	if n == 0 {
		return 0
	}
	var busy rtl.Cycle
	for _, nd := range e.r.nodes {
		busy += rtl.OverlapAll(nd.busy, spans)
		if nd.inACE > 0 {
			busy += rtl.OverlapAll([]rtl.Span{{From: nd.utilFrom, To: e.r.k.Now()}}, spans)
		}
	}
	// Correctly rounded, so that a folded run gives the full one's figure.
	f, _ := big.NewRat(int64(busy), int64(n)*int64(len(e.r.nodes))).Float64()
	return f
}

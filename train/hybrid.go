package train

import (
	"fmt"

	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/workload"
)

// Micro is how a MICRO workload issues its collectives
// (docs/parallelism.md, "MICRO").
type Micro int

const (
	// MicroBackToBack issues, in each iteration, every layer's
	// weight-gradient collective in order, each once the one before has
	// completed: one collective's time per iteration and layer. The
	// default.
	MicroBackToBack Micro = iota
	// MicroConcurrent issues every iteration's collectives at once, at
	// the start, and waits for them all, as ASTRA-sim 1.0 does
	// (Workload::iterate_micro_benchmark): the run is one iteration.
	MicroConcurrent
)

var microNames = [...]string{"back-to-back", "concurrent"}

// String names the mode as ParseMicro reads it.
func (m Micro) String() string {
	if m >= 0 && int(m) < len(microNames) {
		return microNames[m]
	}
	return fmt.Sprintf("Micro(%d)", int(m))
}

// ParseMicro reads a MICRO mode's name: "back-to-back" or "concurrent".
func ParseMicro(s string) (Micro, error) {
	for i, n := range microNames {
		if s == n {
			return Micro(i), nil
		}
	}
	return 0, fmt.Errorf("micro mode %q: use back-to-back (one collective after another) or concurrent (all at once, as ASTRA-sim 1.0 runs MICRO files)", s)
}

// MicroCollective is one collective of a MICRO run (Metrics.Micro).
type MicroCollective struct {
	// Iteration and Layer are the iteration and layer it belongs to;
	// under MicroConcurrent, Iteration is the repeat (the iteration it
	// stands for), all of them run in the one iteration.
	Iteration, Layer int
	// LayerName is the layer's name.
	LayerName string
	// Type and Bytes are the collective's kind and size per NPU.
	Type  workload.CommType
	Bytes int64
	// Issued and Done are the cycles it was issued and completed.
	Issued, Done rtl.Cycle
}

// Cycles is how long the collective took.
func (c MicroCollective) Cycles() int64 { return int64(c.Done - c.Issued) }

// checkComm refuses a Comm that cannot run a workload's groups: a
// collective over a group needs IssueWith (ProgressComm).
func checkComm(w *workload.Workload, comms *Communicators, comm Comm) error {
	if _, ok := comm.(ProgressComm); ok {
		return nil
	}
	for l := range w.Layers {
		for _, p := range []Pass{PassForward, PassInGrad, PassWtGrad} {
			if g, ok := comms.Of(l, p); ok && !g.All() {
				return fmt.Errorf("layer %d (%s): its %s collective runs over a group (%s), and this Comm (%T) runs collectives over every NPU only; give a train.ProgressComm, whose IssueWith takes the group", l, w.Layers[l].Name, p, g, comm)
			}
		}
	}
	return nil
}

// phaseRecompute is the phase of a FWD_IN_BCKWD recomputation's waits.
const phaseRecompute = "recomputation"

// forward emits layer l's forward compute and its forward collective,
// which the next compute waits for (ASTRA-sim 1.0 issues it blocking).
func (b *builder) forward(it, l int, phase string) error {
	layer := &b.lp.w.Layers[l]
	if err := b.compute(it, l, PassForward, layer.Fwd); err != nil {
		return err
	}
	if _, ok := b.comms.issues(b.lp.w, l, PassForward); ok {
		if id := b.issue(it, l, l, PassForward, layer.FwdComm); id >= 0 {
			b.block(it, l, PassForward, phase, id)
		}
	}
	return nil
}

// hybridIteration writes iteration it of the model and hybrid kinds'
// program (MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA,
// HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD,
// HYBRID_CUSTOMIZED; DISTRIBUTED_INFERENCE's forward pass), after
// ASTRA-sim 1.0's loops (docs/parallelism.md): in forward order each
// layer waits for its previous weight-gradient collective, updates,
// computes and runs its forward collective, blocking; in back-prop each
// layer computes its input gradient, issues its input-gradient collective,
// computes its weight gradient, issues its weight-gradient collective,
// and waits for the input-gradient collective. Without overlap every
// collective is waited for when issued and the weight-gradient all-reduces
// are fused, one per group (FusedAllReduces), at the end of back-prop.
func (b *builder) hybridIteration(it int) error {
	w := b.lp.w
	L := len(w.Layers)
	if it == 0 {
		for i := range b.prevWt {
			b.prevWt[i] = -1
		}
	}
	b.emit(op{kind: opIterStart, iter: it, layer: -1})
	b.cells = map[[3]int]int{}
	for l := 0; l < L; l++ {
		if it > 0 {
			if err := b.update(it, l); err != nil {
				return err
			}
		}
		if err := b.forward(it, l, phaseForward); err != nil {
			return err
		}
	}
	if w.Parallelism == workload.ParallelismDistributedInference {
		b.emit(op{kind: opBackStart, iter: it, layer: -1}) // no back-prop
	} else if err := b.hybridBack(it); err != nil {
		return err
	}
	if it == b.iters-1 {
		b.emit(op{kind: opWaitAll, iter: it, layer: -1, phase: phaseEndRun, cell: b.cell(it, -1, PassEndOfRun)})
	}
	b.emit(op{kind: opIterEnd, iter: it, layer: -1})
	return nil
}

// hybridBack writes back-prop of hybridIteration.
func (b *builder) hybridBack(it int) error {
	w := b.lp.w
	b.emit(op{kind: opBackStart, iter: it, layer: -1})
	var deferred []int // no overlap: weight-gradient collectives other than all-reduces
	for l := len(w.Layers) - 1; l >= 0; l-- {
		if from, ok := b.recompute[l]; ok {
			b.inst = 1 // the layers' second forward pass of the iteration
			for j := from; j < l; j++ {
				if err := b.forward(it, j, phaseRecompute); err != nil {
					return err
				}
			}
			b.inst = 0
		}
		layer := &w.Layers[l]
		if err := b.compute(it, l, PassInGrad, layer.InGrad); err != nil {
			return err
		}
		ig := -1
		if _, ok := b.comms.issues(w, l, PassInGrad); ok {
			ig = b.issue(it, l, l, PassInGrad, layer.InGradComm)
			if !b.overlap && ig >= 0 {
				b.block(it, l, PassInGrad, phaseBack, ig)
				ig = -1
			}
		}
		if err := b.compute(it, l, PassWtGrad, layer.WtGrad); err != nil {
			return err
		}
		if _, ok := b.comms.issues(w, l, PassWtGrad); ok {
			switch c := layer.WtGradComm; {
			case b.overlap:
				b.prevWt[l] = b.issue(it, l, l, PassWtGrad, c)
			case c.Type != workload.CommAllReduce: // the all-reduces are fused below
				deferred = append(deferred, l)
			}
		}
		if ig >= 0 {
			b.block(it, l, PassWtGrad, phaseBack, ig)
		}
	}
	if !b.overlap {
		var ids []int
		for i, f := range b.fused {
			b.inst = i // each group's fused all-reduce its own row (LayerPass.Instance)
			id := b.issueOn(it, -1, -1, PassEndOfBackProp, f.Comm, f.Group)
			if !b.dry {
				b.lp.colls[id].fusedLayers = f.Fused
			}
			ids = append(ids, id)
		}
		b.inst = 0
		for _, l := range deferred {
			ids = append(ids, b.issue(it, -1, l, PassWtGrad, w.Layers[l].WtGradComm))
		}
		b.wait(it, -1, PassEndOfBackProp, phaseEndBack, ids)
	}
	return nil
}

// microIteration writes iteration it of a MICRO workload's program: its
// layers' weight-gradient collectives over every NPU and nothing else (no
// compute, no update: ASTRA-sim 1.0 reads only those columns of a MICRO
// file), one after another, or under MicroConcurrent all of the run's at
// once.
func (b *builder) microIteration(it int) error {
	w := b.lp.w
	b.emit(op{kind: opIterStart, iter: it, layer: -1})
	b.emit(op{kind: opBackStart, iter: it, layer: -1}) // no forward pass: all of it is weight-gradient communication
	b.cells = map[[3]int]int{}
	var ids []int
	for rep := 0; rep < b.micro; rep++ {
		b.inst = rep
		for l := range w.Layers {
			if _, ok := b.comms.issues(w, l, PassWtGrad); !ok {
				continue
			}
			id := b.issue(it, -1, l, PassWtGrad, w.Layers[l].WtGradComm)
			if b.micro == 1 {
				b.wait(it, -1, PassEndOfRun, phaseEndRun, []int{id})
			} else {
				ids = append(ids, id)
			}
		}
	}
	b.inst = 0
	b.wait(it, -1, PassEndOfRun, phaseEndRun, ids)
	b.emit(op{kind: opIterEnd, iter: it, layer: -1})
	return nil
}

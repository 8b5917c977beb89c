package workload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/units"
)

// CommType is the collective a pass of a layer issues when its compute is
// done.
type CommType int

// The collectives a workload can ask for. The zero value, CommNone, means
// the pass issues no collective.
const (
	// CommNone: the pass issues no collective.
	CommNone CommType = iota
	// CommAllReduce: every NPU ends with the sum of all NPUs' data.
	CommAllReduce
	// CommAllGather: every NPU ends with every NPU's data.
	CommAllGather
	// CommReduceScatter: every NPU ends with its share of the sum.
	CommReduceScatter
	// CommAllToAll: every NPU sends a distinct share to every other NPU.
	CommAllToAll
)

// commNames are the ASTRA-sim 1.0 spellings, indexed by CommType.
var commNames = [...]string{
	CommNone:          "NONE",
	CommAllReduce:     "ALLREDUCE",
	CommAllGather:     "ALLGATHER",
	CommReduceScatter: "REDUCESCATTER",
	CommAllToAll:      "ALLTOALL",
}

// String returns the ASTRA-sim 1.0 name of c ("NONE", "ALLREDUCE",
// "ALLGATHER", "REDUCESCATTER", "ALLTOALL"), or "CommType(n)" for a value
// that is not one of the constants.
func (c CommType) String() string {
	if c.valid() {
		return commNames[c]
	}
	return "CommType(" + strconv.Itoa(int(c)) + ")"
}

func (c CommType) valid() bool { return c >= 0 && int(c) < len(commNames) }

// CommTypeNames returns the ASTRA-sim 1.0 names of the collectives, in the
// order of the CommType constants. It is a fresh slice.
func CommTypeNames() []string { return append([]string(nil), commNames[:]...) }

// ParseCommType returns the CommType of an ASTRA-sim 1.0 collective name.
// Names are case-sensitive, as in ASTRA-sim; an unknown name gives an error
// that lists the known ones (and suggests the upper-case spelling when that
// is known).
func ParseCommType(s string) (CommType, error) {
	for i, n := range commNames {
		if s == n {
			return CommType(i), nil
		}
	}
	return CommNone, fmt.Errorf("collective %q: %s", s, unknownCommType(s))
}

// unknownCommType says why s is not a collective name: the known names, and
// the upper-case spelling when s is one in the wrong case.
func unknownCommType(s string) string {
	known := strings.Join(commNames[:], ", ")
	for _, n := range commNames {
		if strings.EqualFold(s, n) {
			return fmt.Sprintf("unknown collective (names are upper case: did you mean %s?); known: %s", n, known)
		}
	}
	return "unknown collective; known: " + known
}

// Comm is the collective one pass of a layer issues.
type Comm struct {
	// Type is the collective; CommNone for none.
	Type CommType
	// Bytes is the collective's size per NPU in bytes, as the workload
	// states it (for an all-reduce, the size of the gradient every NPU
	// holds). It is 0 when Type is CommNone.
	Bytes int64
}

// Work is the compute of one pass of one layer on one NPU. It is given in
// one of two ways:
//
//   - FLOPs and Bytes alone (roofline work): the built-in workloads give
//     the pass's floating-point operations and the bytes it moves to and
//     from memory, and the training loop times it by the roofline on the
//     SMs and memory bandwidth left to compute (npu.Compute.KernelCycles);
//   - Cycles (timed work): ASTRA-sim 1.0 files give a time directly. It is
//     counted in cycles of the workload's CycleHz clock (for ASTRA-sim files
//     1 GHz: the number is nanoseconds of full-NPU time) and is not scaled
//     here; the training loop converts it. FLOPs and Bytes beside Cycles
//     are the pass's shape (MatchShapes): not its time, but which resource
//     that time waits on (docs/astrasim-workloads.md, "Converting the
//     times").
//
// All zero is a pass with no compute.
type Work struct {
	// FLOPs is the pass's floating-point operations (roofline work).
	FLOPs int64
	// Bytes is the memory traffic of the pass in bytes, reads plus writes
	// (roofline work).
	Bytes int64
	// Cycles is the pass's time in cycles of Workload.CycleHz (timed
	// work); for ASTRA-sim files, nanoseconds.
	Cycles int64
}

// Layer is one layer of a workload, in forward-pass order.
type Layer struct {
	// Name is the layer's name (ASTRA-sim field 1).
	Name string
	// Fwd is the forward-pass compute.
	Fwd Work
	// InGrad is the input-gradient (back-propagation) compute.
	InGrad Work
	// WtGrad is the weight-gradient compute.
	WtGrad Work
	// FwdComm is the collective issued after the forward compute (the
	// embedding all-to-all of DLRM, for instance).
	FwdComm Comm
	// InGradComm is the collective issued after the input-gradient compute.
	InGradComm Comm
	// WtGradComm is the collective issued after the weight-gradient compute
	// (the gradient all-reduce of data parallelism).
	WtGradComm Comm
	// UpdateCycles is the file's weight-update delay (ASTRA-sim field 12),
	// in cycles of Workload.CycleHz: the time ASTRA-sim adds after each of
	// the layer's collectives finishes. Zero when the workload has none.
	UpdateCycles int64
	// UpdateShape is the shape (FLOPs and bytes, no cycles) of the work
	// UpdateCycles times, when the layer is matched to an architecture
	// (MatchShapes); zero otherwise.
	UpdateShape Work
	// Parallelism is the layer's own parallelism for HYBRID_CUSTOMIZED
	// workloads (ASTRA-sim field 13: one of LayerParallelisms); empty
	// otherwise, when the workload's Parallelism applies.
	Parallelism string
}

// The parallelism keywords of ASTRA-sim 1.0 (the first token of a workload
// file), which the emulator uses as its own vocabulary for
// Workload.Parallelism.
const (
	ParallelismData              = "DATA"
	ParallelismMicro             = "MICRO"
	ParallelismModel             = "MODEL"
	ParallelismHybridDLRM        = "HYBRID_DLRM"
	ParallelismHybridTransformer = "HYBRID_TRANSFORMER"
	// ParallelismHybridTransformerFwdInBckwd is HYBRID_TRANSFORMER with
	// activation checkpointing: back-prop recomputes the forward pass of
	// the layers from a checkpoint (Workload.Recomputations).
	ParallelismHybridTransformerFwdInBckwd = "HYBRID_TRANSFORMER_FWD_IN_BCKWD"
	ParallelismHybridDataModel             = "HYBRID_DATA_MODEL"
	ParallelismHybridModelData             = "HYBRID_MODEL_DATA"
	ParallelismHybridCustomized            = "HYBRID_CUSTOMIZED"
	ParallelismDistributedInference        = "DISTRIBUTED_INFERENCE"
)

// Parallelisms returns the known workload parallelism keywords, in the
// order of the format spec. It is a fresh slice.
func Parallelisms() []string {
	return []string{
		ParallelismData, ParallelismMicro, ParallelismModel,
		ParallelismHybridDLRM, ParallelismHybridTransformer, ParallelismHybridTransformerFwdInBckwd,
		ParallelismHybridDataModel, ParallelismHybridModelData,
		ParallelismHybridCustomized, ParallelismDistributedInference,
	}
}

// LayerParallelisms returns the keywords a HYBRID_CUSTOMIZED layer may give
// as its own parallelism. It is a fresh slice.
func LayerParallelisms() []string {
	return []string{ParallelismData, ParallelismModel, ParallelismHybridDataModel, ParallelismHybridModelData}
}

// Workload is a training workload: its layers in forward order and how they
// are parallelised. One training iteration runs every layer's forward pass,
// then back-propagation in reverse order (the ACE paper, Section V); the
// training loop, not this package, defines that schedule.
type Workload struct {
	// Name names the workload (for a file, its base name without ".txt").
	Name string
	// Parallelism is one of Parallelisms (DATA, HYBRID_DLRM, ...).
	Parallelism string
	// ParallelismArgs are the tokens after the parallelism keyword, kept
	// verbatim: for HYBRID_DLRM the index of the last bottom-MLP layer (see
	// DLRMLastBottomLayer); for HYBRID_TRANSFORMER
	// "model_parallel_NPU_group: k". Nil when there are none.
	ParallelismArgs []string
	// Layers are the layers in forward-pass order; at least one.
	Layers []Layer
	// Source says where the workload came from: "astrasim:" and the file
	// name for ASTRA-sim files, "built-in" for the emulator's own.
	Source string
	// CycleHz is the clock that Work.Cycles and Layer.UpdateCycles count:
	// AstraSimCycleHz (1 GHz, so the numbers are nanoseconds) for ASTRA-sim
	// files. It may be 0 only when no cycle count is set.
	CycleHz int64
	// Compute is where the compute comes from (docs/workloads.md, "Compute
	// regimes"): ComputePaper or ComputeRoofline for a built-in, "" for a
	// file, whose compute is its own.
	Compute string
	// Batch is the samples per NPU the compute is of; 0 when unknown (a
	// file that matches no architecture).
	Batch int64
	// Shapes names the architecture timed passes were matched to
	// (MatchShapes), "" when none.
	Shapes string
}

// DLRMLastBottomLayer returns the index (from 0, the embedding) of the last
// bottom-MLP layer of a HYBRID_DLRM workload, its first ParallelismArgs
// token. The forward pass waits for the embedding's all-to-all after this
// layer, and back-propagation issues the embedding's input-gradient
// all-to-all at the layer after it, so it must be in 0..len(Layers)-2.
func (w *Workload) DLRMLastBottomLayer() (int, error) {
	if w.Parallelism != ParallelismHybridDLRM {
		return 0, fmt.Errorf("workload %s: parallelism %s has no last bottom-MLP layer (only %s does)", w.Name, w.Parallelism, ParallelismHybridDLRM)
	}
	if len(w.ParallelismArgs) == 0 {
		return 0, fmt.Errorf("workload %s: %s needs the index of the last bottom-MLP layer after the keyword (e.g. %q)", w.Name, ParallelismHybridDLRM, ParallelismHybridDLRM+" 4")
	}
	s := w.ParallelismArgs[0]
	k64, err := units.ParseInt(s)
	if err != nil {
		return 0, fmt.Errorf("workload %s: %s last bottom-MLP layer %q: not a whole number: %w", w.Name, ParallelismHybridDLRM, s, err)
	}
	if k64 < 0 || k64 > int64(len(w.Layers)-2) {
		return 0, fmt.Errorf("workload %s: %s last bottom-MLP layer %d: out of range; with %d layers it must be in 0..%d, so that a top-MLP layer follows it", w.Name, ParallelismHybridDLRM, k64, len(w.Layers), len(w.Layers)-2)
	}
	return int(k64), nil
}

// MaxLayers bounds a workload's layers: each layer's collectives, chunks
// and endpoint state take some 30 KB, so 10000 layers (many times the
// largest workload files, of a few hundred) is about 300 MB.
const MaxLayers = 10_000

// Validate reports whether w is a workload the emulator can run: at least
// one layer, a known parallelism (and for HYBRID_DLRM a valid last
// bottom-MLP layer, for HYBRID_CUSTOMIZED a parallelism on every layer), no
// negative number, known collective types, no size on a CommNone, no pass
// that gives both cycles and FLOPs/bytes, and a CycleHz when cycles are
// given. Errors name the layer (index and name) and the field.
func (w *Workload) Validate() error {
	if len(w.Layers) == 0 {
		return fmt.Errorf("workload %s: no layers; a workload needs at least one", w.Name)
	}
	if len(w.Layers) > MaxLayers {
		return fmt.Errorf("workload %s: %d layers; acemu takes at most %d", w.Name, len(w.Layers), MaxLayers)
	}
	if !slices.Contains(Parallelisms(), w.Parallelism) {
		return fmt.Errorf("workload %s: unknown parallelism %q; known: %s", w.Name, w.Parallelism, strings.Join(Parallelisms(), ", "))
	}
	if w.Parallelism == ParallelismHybridDLRM {
		if _, err := w.DLRMLastBottomLayer(); err != nil {
			return err
		}
	}
	if w.Transformer() {
		if _, err := w.ModelGroup(); err != nil {
			return err
		}
	}
	if w.Parallelism == ParallelismHybridTransformerFwdInBckwd {
		if _, err := w.Recomputations(); err != nil {
			return err
		}
	}
	if w.CycleHz < 0 {
		return fmt.Errorf("workload %s: CycleHz %d: must not be negative", w.Name, w.CycleHz)
	}
	timed := false
	for i := range w.Layers {
		l := &w.Layers[i]
		if err := w.validateLayer(l); err != nil {
			return fmt.Errorf("workload %s: layer %d (%s): %w", w.Name, i, l.Name, err)
		}
		timed = timed || l.Fwd.Cycles > 0 || l.InGrad.Cycles > 0 || l.WtGrad.Cycles > 0 || l.UpdateCycles > 0
	}
	if timed && w.CycleHz == 0 {
		return fmt.Errorf("workload %s: layers give cycle counts but CycleHz is 0; set the clock those cycles count (1e9 for ASTRA-sim nanoseconds)", w.Name)
	}
	return nil
}

// Timed reports whether any pass of w gives its time in cycles (timed work,
// as ASTRA-sim files and the paper's per-layer times do) rather than only
// its FLOPs and bytes: the memory-bound share of timed compute
// (training.mem_bound_share) applies to those passes only.
func (w *Workload) Timed() bool {
	for i := range w.Layers {
		l := &w.Layers[i]
		if l.Fwd.Cycles > 0 || l.InGrad.Cycles > 0 || l.WtGrad.Cycles > 0 || l.UpdateCycles > 0 {
			return true
		}
	}
	return false
}

// Issues reports whether any pass of w issues a collective of type t: the
// algorithm a platform gives t (collectives.*) matters to w only then.
func (w *Workload) Issues(t CommType) bool {
	for i := range w.Layers {
		l := &w.Layers[i]
		if l.FwdComm.Type == t || l.InGradComm.Type == t || l.WtGradComm.Type == t {
			return true
		}
	}
	return false
}

func (w *Workload) validateLayer(l *Layer) error {
	if l.Name == "" {
		return errors.New("empty name")
	}
	if w.Parallelism == ParallelismHybridCustomized {
		if !slices.Contains(LayerParallelisms(), l.Parallelism) {
			return fmt.Errorf("parallelism %q: a %s layer needs one of %s", l.Parallelism, ParallelismHybridCustomized, strings.Join(LayerParallelisms(), ", "))
		}
	} else if l.Parallelism != "" {
		return fmt.Errorf("parallelism %q: only %s layers have their own parallelism", l.Parallelism, ParallelismHybridCustomized)
	}
	passes := []struct {
		name string
		work Work
		comm Comm
	}{
		{"forward", l.Fwd, l.FwdComm},
		{"input-gradient", l.InGrad, l.InGradComm},
		{"weight-gradient", l.WtGrad, l.WtGradComm},
	}
	for _, p := range passes {
		for _, f := range []struct {
			field string
			v     int64
		}{{"FLOPs", p.work.FLOPs}, {"bytes", p.work.Bytes}, {"cycles", p.work.Cycles}} {
			if f.v < 0 {
				return fmt.Errorf("%s compute %s %d: must not be negative", p.name, f.field, f.v)
			}
		}
		if !p.comm.Type.valid() {
			return fmt.Errorf("%s comm type %s: unknown; known: %s", p.name, p.comm.Type, strings.Join(commNames[:], ", "))
		}
		if p.comm.Bytes < 0 {
			return fmt.Errorf("%s comm size %d bytes: must not be negative", p.name, p.comm.Bytes)
		}
		if p.comm.Type == CommNone && p.comm.Bytes != 0 {
			return fmt.Errorf("%s comm size %d bytes with comm type NONE: a pass with no collective has size 0", p.name, p.comm.Bytes)
		}
	}
	if l.UpdateCycles < 0 {
		return fmt.Errorf("update cycles %d: must not be negative", l.UpdateCycles)
	}
	if u := l.UpdateShape; u.FLOPs < 0 || u.Bytes < 0 || u.Cycles != 0 {
		return fmt.Errorf("update shape %d FLOPs, %d bytes, %d cycles: a shape is FLOPs and bytes ≥ 0, no cycles", u.FLOPs, u.Bytes, u.Cycles)
	}
	return nil
}

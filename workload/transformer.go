package workload

import (
	"fmt"
	"slices"

	"github.com/acemu/acemu/units"
)

// Transformer reports whether w's parallelism is HYBRID_TRANSFORMER or
// HYBRID_TRANSFORMER_FWD_IN_BCKWD, whose header gives the model-parallel
// group (ModelGroup).
func (w *Workload) Transformer() bool {
	return w.Parallelism == ParallelismHybridTransformer || w.Parallelism == ParallelismHybridTransformerFwdInBckwd
}

// ModelGroup returns the NPUs of a Transformer workload's model-parallel
// group, k: the header's "model_parallel_NPU_group: k" (ParallelismArgs
// 0 and 1; the label word is not checked, as ASTRA-sim 1.0 reads it and
// ignores it). Whether k fits a machine is the training loop's check
// (docs/parallelism.md).
func (w *Workload) ModelGroup() (int, error) {
	if !w.Transformer() {
		return 0, fmt.Errorf("workload %s: parallelism %s has no model-parallel group (only %s and %s do)", w.Name, w.Parallelism, ParallelismHybridTransformer, ParallelismHybridTransformerFwdInBckwd)
	}
	if len(w.ParallelismArgs) < 2 {
		return 0, fmt.Errorf("workload %s: %s needs the model-parallel group after the keyword (e.g. %q)", w.Name, w.Parallelism, w.Parallelism+" model_parallel_NPU_group: 4")
	}
	s := w.ParallelismArgs[1]
	k, err := units.ParseInt(s)
	if err != nil {
		return 0, fmt.Errorf("workload %s: %s model-parallel group %q: not a whole number: %w", w.Name, w.Parallelism, s, err)
	}
	if k < 1 || k > 1<<20 { // 2^20: beyond any machine acemu builds, and safe as an int
		return 0, fmt.Errorf("workload %s: %s model-parallel group %d: give a number of NPUs from 1 (no model parallelism) to the machine's NPUs", w.Name, w.Parallelism, k)
	}
	if w.Parallelism == ParallelismHybridTransformer && len(w.ParallelismArgs) > 2 {
		return 0, fmt.Errorf("workload %s: %s header: unexpected %q after the model-parallel group; checkpoints are for %s", w.Name, w.Parallelism, w.ParallelismArgs[2], ParallelismHybridTransformerFwdInBckwd)
	}
	return int(k), nil
}

// Recompute is one recomputation of HYBRID_TRANSFORMER_FWD_IN_BCKWD:
// when back-prop reaches layer At, it first runs the forward pass of
// layers From to At−1 again (their compute and their forward
// collectives), From being the nearest checkpoint below At.
type Recompute struct{ From, At int }

// Recomputations returns a HYBRID_TRANSFORMER_FWD_IN_BCKWD workload's
// recomputations, in the order back-prop meets them (At descending),
// from its header: "model_parallel_NPU_group: k checkpoints: n c1 … cn
// checkpoint_initiates: m t1 … tm" (labels not checked, as ASTRA-sim 1.0
// ignores them), the layers 0-based. Each initiating layer t needs a
// checkpoint c < t with no other initiating layer between them; ASTRA-sim
// 1.0 runs past the layers otherwise (docs/parallelism.md).
func (w *Workload) Recomputations() ([]Recompute, error) {
	if w.Parallelism != ParallelismHybridTransformerFwdInBckwd {
		return nil, nil
	}
	example := fmt.Sprintf("e.g. %q", w.Parallelism+" model_parallel_NPU_group: 4 checkpoints: 2 2 11 checkpoint_initiates: 2 19 10")
	args := w.ParallelismArgs
	at := 2
	list := func(what string) ([]int, error) {
		if at+1 >= len(args) {
			return nil, fmt.Errorf("workload %s: %s header: the %s list is missing: give a label, a count and the layers (%s)", w.Name, w.Parallelism, what, example)
		}
		n, err := units.ParseInt(args[at+1])
		if err != nil || n < 0 || n > int64(len(w.Layers)) {
			return nil, fmt.Errorf("workload %s: %s header: %s count %q: give a whole number from 0 to the %d layers (%s)", w.Name, w.Parallelism, what, args[at+1], len(w.Layers), example)
		}
		at += 2
		out := make([]int, 0, n)
		for i := int64(0); i < n; i++ {
			if at >= len(args) {
				return nil, fmt.Errorf("workload %s: %s header: %s lists %d layers but gives %d", w.Name, w.Parallelism, what, n, i)
			}
			v, err := units.ParseInt(args[at])
			if err != nil || v < 0 || v >= int64(len(w.Layers)) {
				return nil, fmt.Errorf("workload %s: %s header: %s layer %q: give a layer index from 0 to %d", w.Name, w.Parallelism, what, args[at], len(w.Layers)-1)
			}
			out = append(out, int(v))
			at++
		}
		return out, nil
	}
	ckpts, err := list("checkpoint")
	if err != nil {
		return nil, err
	}
	inits, err := list("checkpoint-initiating")
	if err != nil {
		return nil, err
	}
	if at < len(args) {
		return nil, fmt.Errorf("workload %s: %s header: unexpected %q after the checkpoint-initiating layers (%s)", w.Name, w.Parallelism, args[at], example)
	}
	slices.Sort(ckpts)
	slices.Sort(inits)
	inits = slices.Compact(inits)
	var out []Recompute
	for i := len(inits) - 1; i >= 0; i-- {
		t := inits[i]
		c := -1
		for _, x := range ckpts {
			if x <= t {
				c = x
			}
		}
		name := w.Layers[t].Name
		switch {
		case c < 0:
			return nil, fmt.Errorf("workload %s: %s header: layer %d (%s) initiates a recomputation but no checkpoint is at or below it; add one below it", w.Name, w.Parallelism, t, name)
		case c == t:
			return nil, fmt.Errorf("workload %s: %s header: layer %d (%s) initiates a recomputation and is its own nearest checkpoint, so nothing below it would be recomputed (ASTRA-sim 1.0 then recomputes the layers above it); put the checkpoint below it", w.Name, w.Parallelism, t, name)
		case i > 0 && inits[i-1] > c:
			return nil, fmt.Errorf("workload %s: %s header: layer %d initiates a recomputation from checkpoint %d, but layer %d between them initiates one too and would end it early; give each initiating layer its own checkpoint", w.Name, w.Parallelism, t, c, inits[i-1])
		}
		out = append(out, Recompute{From: c, At: t})
	}
	return out, nil
}

// Package gen writes Chakra execution traces (package chakra) for acemu
// to run: the microbenchmarks of Chakra's own trace generator (one
// collective per rank, compute alone, compute chains), and a
// data-parallel trace from an ASTRA-sim 1.0 DATA workload with the
// dependences of acemu's training loop, so that a trace and the file it
// came from can be compared (docs/chakra.md, "The generator").
package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/chakra"
	"github.com/acemu/acemu/chakra/runner"
	"github.com/acemu/acemu/workload"
)

// Version is the GlobalMetadata version the generator writes: the
// schema's, as Chakra's own generator writes it.
const Version = "1.0.0"

// Kinds lists the microbenchmarks Micro makes, by name.
func Kinds() []string {
	return []string{"one-comp", "two-comp-independent", "two-comp-dependent", "one-coll", "comm-comp-chain"}
}

// MicroOptions is a microbenchmark.
type MicroOptions struct {
	Kind string // one of Kinds
	NPUs int    // ranks
	// Duration is each compute node's duration_micros (in the unit the
	// run reads it in, docs/chakra.md "Time").
	Duration uint64
	// Collective and Bytes are each collective's comm_type and comm_size.
	Collective chakra.CollectiveType
	Bytes      int64
	// Steps is the chain's compute–collective pairs (comm-comp-chain).
	Steps int
}

// MaxNPUs bounds the ranks a generator writes (as many files): 4096.
const MaxNPUs = 4096

// Micro makes a microbenchmark: the same trace for every rank.
//
//   - one-comp: one compute node;
//   - two-comp-independent: two compute nodes without dependences;
//   - two-comp-dependent: two, the second depending on the first;
//   - one-coll: one collective of Collective and Bytes on every NPU;
//   - comm-comp-chain: Steps times a compute node then a collective, each
//     node depending on the one before.
func Micro(o MicroOptions) (*chakra.Set, error) {
	if o.NPUs < 1 || o.NPUs > MaxNPUs {
		return nil, fmt.Errorf("%d ranks: give 1 to %d", o.NPUs, MaxNPUs)
	}
	comp := func(id uint64, name string, deps ...uint64) chakra.Node {
		return chakra.Node{ID: id, Name: name, Type: chakra.CompNode, DataDeps: deps, DurationMicros: o.Duration,
			Attrs: []chakra.Attr{chakra.BoolAttr("is_cpu_op", false)}}
	}
	coll := func(id uint64, name string, deps ...uint64) chakra.Node {
		return chakra.Node{ID: id, Name: name, Type: chakra.CommCollNode, DataDeps: deps,
			Attrs: []chakra.Attr{chakra.BoolAttr("is_cpu_op", false), chakra.IntAttr("comm_type", int64(o.Collective)), chakra.IntAttr("comm_size", o.Bytes)}}
	}
	needColl := o.Kind == "one-coll" || o.Kind == "comm-comp-chain"
	if needColl && o.Bytes < 1 {
		return nil, fmt.Errorf("%s: a collective of %d bytes; give its size (at least 1 byte)", o.Kind, o.Bytes)
	}
	if !needColl && o.Duration == 0 {
		return nil, fmt.Errorf("%s: compute of no duration; give a duration", o.Kind)
	}
	var nodes []chakra.Node
	switch o.Kind {
	case "one-comp":
		nodes = []chakra.Node{comp(0, "COMP_NODE")}
	case "two-comp-independent":
		nodes = []chakra.Node{comp(0, "COMP_NODE"), comp(1, "COMP_NODE")}
	case "two-comp-dependent":
		nodes = []chakra.Node{comp(0, "COMP_NODE"), comp(1, "COMP_NODE", 0)}
	case "one-coll":
		nodes = []chakra.Node{coll(0, o.Collective.String())}
	case "comm-comp-chain":
		if o.Steps < 1 || o.Steps > chakra.MaxNodes/2 {
			return nil, fmt.Errorf("comm-comp-chain of %d steps: give 1 to %d", o.Steps, chakra.MaxNodes/2)
		}
		for s := 0; s < o.Steps; s++ {
			id := uint64(2 * s)
			var deps []uint64
			if s > 0 {
				deps = []uint64{id - 1}
			}
			nodes = append(nodes, comp(id, fmt.Sprintf("COMP_NODE_%d", s), deps...), coll(id+1, fmt.Sprintf("%s_%d", o.Collective, s), id))
		}
	default:
		return nil, fmt.Errorf("microbenchmark %q: known: %s", o.Kind, strings.Join(Kinds(), ", "))
	}
	return replicate(o.Kind, o.NPUs, chakra.Metadata{Version: Version}, nodes)
}

// replicate is a set whose every rank has nodes; a set of more than
// chakra.MaxNodes nodes over its ranks, which the reader refuses, is
// refused here first.
func replicate(name string, npus int, md chakra.Metadata, nodes []chakra.Node) (*chakra.Set, error) {
	if total := int64(npus) * int64(len(nodes)); total > chakra.MaxNodes {
		return nil, fmt.Errorf("%s: %d ranks of %d nodes each is %d nodes, more than the %d a trace set may hold (docs/chakra.md); give fewer ranks, steps or iterations", name, npus, len(nodes), total, chakra.MaxNodes)
	}
	s := &chakra.Set{Name: name}
	for r := 0; r < npus; r++ {
		s.Ranks = append(s.Ranks, &chakra.Trace{Name: fmt.Sprintf("%s.%d.et", name, r), Metadata: md, Nodes: slices.Clone(nodes)})
	}
	return s, nil
}

// DataParallel makes the trace of w, a DATA workload (an ASTRA-sim 1.0
// file, or a built-in of data parallelism with timed passes), for npus
// ranks, iterations times, with the dependences of acemu's training loop
// under the layer-wise schedule (docs/training-loop.md, "One
// iteration"), every rank the same. Each compute pass is a COMP_NODE
// whose duration_micros is the workload's time unchanged (nanoseconds:
// run it with the ns reading, as Chakra's converter's traces), with the
// pass's shape as num_ops and tensor_size where the workload knows it;
// each collective a COMM_COLL_NODE on every NPU. Every compute node
// depends on the one the loop runs before it, so the NPU runs them in the
// loop's order; every dependence is a data dependence, as Chakra's
// converter writes them, so that a reader of data_deps alone keeps it:
//
//   - forward, layer 0 to L−1: from the second iteration, the layer's
//     update (its update delay), after the layer's weight-gradient
//     collective of the iteration before; then the forward pass, after
//     the forward collective of the layer before; then the layer's
//     forward collective;
//   - back-prop, layer L−1 to 0: the weight-gradient pass, after the
//     input-gradient collective of the layer after (and the last layer's
//     forward collective); its weight-gradient collective; then, but for
//     layer 0, the input-gradient pass and its collective.
//
// A pass of no time and an update of no delay are left out, as the loop
// skips them.
func DataParallel(w *workload.Workload, npus, iterations int) (*chakra.Set, error) {
	if w.Parallelism != workload.ParallelismData {
		return nil, fmt.Errorf("workload %s: parallelism %s; the data-parallel trace is of a %s workload", w.Name, w.Parallelism, workload.ParallelismData)
	}
	if w.CycleHz != 1e9 {
		return nil, fmt.Errorf("workload %s: its passes are not timed in nanoseconds (roofline work, or another clock); give an ASTRA-sim file or a built-in with the paper's times (--compute paper)", w.Name)
	}
	if npus < 1 || npus > MaxNPUs {
		return nil, fmt.Errorf("%d ranks: give 1 to %d", npus, MaxNPUs)
	}
	if iterations < 1 || int64(iterations)*int64(len(w.Layers))*8 > chakra.MaxNodes {
		return nil, fmt.Errorf("%d iterations of %d layers: give 1 to %d (at most %d nodes per rank)", iterations, len(w.Layers), max(1, chakra.MaxNodes/(8*len(w.Layers))), chakra.MaxNodes)
	}
	b := &builder{last: -1}
	L := len(w.Layers)
	prevWt := make([]int64, L) // the weight-gradient collective of the iteration before, or -1
	for it := 0; it < iterations; it++ {
		var pending []uint64 // collectives the next pass waits for
		for l := 0; l < L; l++ {
			layer := &w.Layers[l]
			if it > 0 && layer.UpdateCycles > 0 {
				var deps []uint64
				if prevWt[l] >= 0 {
					deps = append(deps, uint64(prevWt[l]))
				}
				u := layer.UpdateShape
				u.Cycles = layer.UpdateCycles
				b.compute(it, layer.Name, "UPDATE", u, deps)
			} else if it > 0 && prevWt[l] >= 0 { // nothing to run, but the wait stays
				pending = append(pending, uint64(prevWt[l]))
			}
			b.compute(it, layer.Name, "FWD", layer.Fwd, pending)
			pending = nil
			if c := layer.FwdComm; c.Type != workload.CommNone {
				pending = append(pending, b.coll(it, layer.Name, "FWD", c))
			}
		}
		for l := L - 1; l >= 0; l-- {
			layer := &w.Layers[l]
			b.compute(it, layer.Name, "BWD_WG", layer.WtGrad, pending)
			pending = nil
			prevWt[l] = -1
			if c := layer.WtGradComm; c.Type != workload.CommNone {
				prevWt[l] = int64(b.coll(it, layer.Name, "BWD_WG", c))
			}
			if l == 0 {
				break
			}
			b.compute(it, layer.Name, "BWD_IG", layer.InGrad, nil)
			if c := layer.InGradComm; c.Type != workload.CommNone {
				pending = append(pending, b.coll(it, layer.Name, "BWD_IG", c))
			}
		}
	}
	md := chakra.Metadata{Version: Version, Attrs: []chakra.Attr{chakra.StringAttr("acemu_source", w.Source), chakra.StringAttr("acemu_time_unit", "ns")}}
	return replicate(w.Name, npus, md, b.nodes)
}

// builder writes a rank's nodes.
type builder struct {
	nodes []chakra.Node
	last  int64    // the last compute node's id, -1 none
	carry []uint64 // the dependences of passes of no time, for the next
}

// compute adds a compute pass after the last one and deps, if it takes
// any time; a pass of none passes deps on to the next.
func (b *builder) compute(it int, layer, pass string, work workload.Work, deps []uint64) {
	if work.Cycles == 0 && work.FLOPs == 0 && work.Bytes == 0 {
		b.carry = append(b.carry, deps...)
		return
	}
	id := uint64(len(b.nodes))
	n := chakra.Node{ID: id, Name: fmt.Sprintf("COMP_NODE_%s_%s_%d", layer, pass, it), Type: chakra.CompNode, DurationMicros: uint64(work.Cycles),
		Attrs: []chakra.Attr{chakra.BoolAttr("is_cpu_op", false)}}
	if work.FLOPs > 0 || work.Bytes > 0 {
		n.Attrs = append(n.Attrs, chakra.UintAttr("num_ops", uint64(work.FLOPs)), chakra.UintAttr("tensor_size", uint64(work.Bytes)))
	}
	if b.last >= 0 {
		n.DataDeps = []uint64{uint64(b.last)}
	}
	n.DataDeps = append(append(n.DataDeps, b.carry...), deps...)
	b.carry = nil
	b.nodes = append(b.nodes, n)
	b.last = int64(id)
}

// coll adds a collective after the last compute pass and returns its id.
func (b *builder) coll(it int, layer, pass string, c workload.Comm) uint64 {
	id := uint64(len(b.nodes))
	n := chakra.Node{ID: id, Name: fmt.Sprintf("COMM_COLL_NODE_%s_%s_%s_%d", layer, pass, c.Type, it), Type: chakra.CommCollNode,
		Attrs: []chakra.Attr{chakra.BoolAttr("is_cpu_op", false), chakra.IntAttr("comm_type", int64(schemaCollective(c.Type))), chakra.IntAttr("comm_size", c.Bytes)}}
	if b.last >= 0 {
		n.DataDeps = []uint64{uint64(b.last)}
	}
	b.nodes = append(b.nodes, n)
	return id
}

// schemaCollective is the schema's comm_type of a workload's collective
// (runner.SchemaCollective; the builder is given none that has none).
func schemaCollective(t workload.CommType) chakra.CollectiveType {
	c, _ := runner.SchemaCollective(t)
	return c
}

package train

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/workload"
)

// Group is the communicator a collective runs over (docs/parallelism.md,
// "Groups"): every NPU when Span and Groups are both empty; else each
// NPU's group of the machine's dimensions named in Span, or the listed
// Groups (an equal partition of the NPUs, each in NPU order, the ring
// order the collective runs). Every group
// combines its own data; all groups run at once.
type Group struct {
	// Span names machine dimensions (machine.Dim.Name), in the machine's
	// order.
	Span []string
	// Groups lists the groups when a dimension is split (a Transformer's
	// model-parallel group of fewer NPUs than a dimension has).
	Groups [][]int
	// Size is the NPUs of one group.
	Size int
}

// All reports whether the group is every NPU.
func (g Group) All() bool { return len(g.Span) == 0 && g.Groups == nil }

// NPUs is how many NPUs one of the group's groups has on a machine of all
// NPUs.
func (g Group) NPUs(all int) int {
	if g.All() {
		return all
	}
	return g.Size
}

// String names the group for messages: "all NPUs", "local", "vertical,
// horizontal", "4 groups of 2 NPUs".
func (g Group) String() string {
	switch {
	case g.Groups != nil:
		return fmt.Sprintf("%d groups of %d NPUs", len(g.Groups), g.Size)
	case len(g.Span) > 0:
		return strings.Join(g.Span, ",")
	}
	return "all NPUs"
}

// Same reports whether g and h are the same communicator: the same
// dimensions, or the same listed groups.
func (g Group) Same(h Group) bool {
	return slices.Equal(g.Span, h.Span) && slices.EqualFunc(g.Groups, h.Groups, slices.Equal[[]int]) && (g.Groups == nil) == (h.Groups == nil)
}

// role is which of a layer's communicators a collective runs over.
type role uint8

const (
	roleNone  role = iota // not issued: the kind ignores the column, or its group is one NPU
	roleAll               // every NPU
	roleModel             // the model-parallel group
	roleData              // the data-parallel group
)

// Communicators are the groups a workload's collectives run over on a
// machine: per layer, its forward, input-gradient and weight-gradient
// collectives' (docs/parallelism.md).
type Communicators struct {
	layers [][3]Group
	active [][3]bool
}

// Of returns the group of layer l's collective of pass p (PassForward,
// PassInGrad, PassWtGrad) and whether the kind issues it at all: a
// column the kind ignores, or a group of one NPU, is not issued (as
// ASTRA-sim 1.0 issues no collective over no dimension).
func (c *Communicators) Of(l int, p Pass) (Group, bool) {
	i := passIndex(p)
	g := c.layers[l][i]
	return g, c.active[l][i] && (g.Size > 1 || g.Size == 0) // 0: no machine, every NPU however many
}

func passIndex(p Pass) int {
	switch p {
	case PassForward:
		return 0
	case PassInGrad:
		return 1
	}
	return 2
}

// roles returns the roles of a layer's forward, input-gradient and
// weight-gradient collectives under parallelism kind, with ASTRA-sim
// 1.0's involved dimensions for each (Workload.cc,
// decode_involved_dimensions): data parallelism (DATA, HYBRID_DLRM,
// MICRO) all-reduces weight gradients over every NPU and issues no
// forward or input-gradient collective of its own (HYBRID_DLRM's
// all-to-alls aside); model parallelism gathers activations and reduces
// input gradients over every NPU and has no weight-gradient collective;
// the hybrids do each over its own group.
func roles(kind string) [3]role {
	switch kind {
	case workload.ParallelismModel, workload.ParallelismDistributedInference:
		return [3]role{roleAll, roleAll, roleNone}
	case workload.ParallelismHybridDataModel, workload.ParallelismHybridModelData,
		workload.ParallelismHybridTransformer, workload.ParallelismHybridTransformerFwdInBckwd:
		return [3]role{roleModel, roleModel, roleData}
	case workload.ParallelismHybridDLRM:
		return [3]role{roleAll, roleAll, roleAll}
	}
	return [3]role{roleNone, roleNone, roleAll} // DATA, MICRO
}

// NewCommunicators finds the groups of w's collectives on m (nil: for
// kinds that need no dimensions, every collective over every NPU,
// however many). The model-parallel group is (ASTRA-sim 1.0's
// dimensions, the machine's in order, the first the innermost):
// HYBRID_DATA_MODEL's the first dimension, HYBRID_MODEL_DATA's the
// others, a Transformer's the first dimensions whose NPUs multiply to its
// ModelGroup k, splitting a dimension when k falls inside it; the
// data-parallel group is the rest.
func NewCommunicators(w *workload.Workload, m *machine.Machine) (*Communicators, error) {
	c := &Communicators{layers: make([][3]Group, len(w.Layers)), active: make([][3]bool, len(w.Layers))}
	n := 0
	if m != nil {
		n = m.N()
	}
	all := Group{Size: n}
	var model, data Group
	var err error
	needDims := func(kind string) error {
		if m == nil {
			return fmt.Errorf("parallelism %s: its groups are dimensions of the machine, and the loop was given none (train.Config.Machine)", kind)
		}
		return nil
	}
	groupsOf := func(kind string) error {
		if err := needDims(kind); err != nil {
			return err
		}
		ds := make([]int, len(m.Dims))
		for i := range ds {
			ds[i] = i
		}
		switch kind {
		case workload.ParallelismHybridDataModel:
			model, data = spanOf(m, ds[:1]), spanOf(m, ds[1:])
		case workload.ParallelismHybridModelData:
			model, data = spanOf(m, ds[1:]), spanOf(m, ds[:1])
		default:
			k, err := w.ModelGroup()
			if err != nil {
				return err
			}
			model, data, err = breakDimension(m, k)
			if err != nil {
				return fmt.Errorf("parallelism %s: %w", kind, err)
			}
		}
		return nil
	}
	kind := w.Parallelism
	if kind != workload.ParallelismHybridCustomized {
		r := roles(kind)
		if r[0] == roleModel {
			if err = groupsOf(kind); err != nil {
				return nil, err
			}
		}
		for l := range w.Layers {
			c.set(l, r, all, model, data)
		}
		return c, nil
	}
	for l := range w.Layers {
		lk := w.Layers[l].Parallelism
		r := roles(lk)
		if r[0] == roleModel {
			if err = groupsOf(lk); err != nil {
				return nil, fmt.Errorf("layer %d (%s): %w", l, w.Layers[l].Name, err)
			}
		}
		c.set(l, r, all, model, data)
	}
	return c, nil
}

func (c *Communicators) set(l int, r [3]role, all, model, data Group) {
	for i, ro := range r {
		switch ro {
		case roleAll:
			c.layers[l][i], c.active[l][i] = all, true
		case roleModel:
			c.layers[l][i], c.active[l][i] = model, true
		case roleData:
			c.layers[l][i], c.active[l][i] = data, true
		}
	}
}

// spanOf is the group of dimensions ds of m, skipping dimensions of one
// NPU: every NPU when they are all of m's NPUs.
func spanOf(m *machine.Machine, ds []int) Group {
	g := Group{Size: 1}
	for _, d := range ds {
		if m.Dims[d].Size > 1 {
			g.Span = append(g.Span, m.Dims[d].Name)
			g.Size *= m.Dims[d].Size
		}
	}
	if g.Size == m.N() {
		g.Span = nil
	}
	return g
}

// breakDimension finds a Transformer's model-parallel group of k NPUs
// and its data-parallel group on m, as ASTRA-sim 1.0's
// Sys::break_dimension does: the first dimensions while their NPUs
// multiply to less than k; the model group ends with the dimension that
// reaches k, split into a first part of k/P NPUs (P the NPUs of the
// dimensions before it) and a second when it overshoots. A split
// dimension's first part is consecutive places in its groups (place p =
// a + (k/P)·b, a its first part's digit: a [choice] taken from
// ASTRA-sim's mixed-radix numbering, innermost first, not checked against
// its topology code); the groups are then listed (docs/parallelism.md).
// k = 1 is no model parallelism.
func breakDimension(m *machine.Machine, k int) (model, data Group, err error) {
	n := m.N()
	ds := make([]int, len(m.Dims))
	for i := range ds {
		ds[i] = i
	}
	if k == 1 {
		return Group{Size: 1}, spanOf(m, ds), nil
	}
	if k > n || n%k != 0 {
		return Group{}, Group{}, fmt.Errorf("model-parallel group of %d NPUs: it must divide the machine's %d NPUs; give a divisor of %d", k, n, n)
	}
	p := 1
	for d := range m.Dims {
		size := m.Dims[d].Size
		switch {
		case p*size < k:
			p *= size
			continue
		case p*size == k:
			return spanOf(m, ds[:d+1]), spanOf(m, ds[d+1:]), nil
		}
		s := k / p
		if k%p != 0 || size%s != 0 {
			var sizes []string
			for _, dd := range m.Dims {
				sizes = append(sizes, fmt.Sprint(dd.Size))
			}
			return Group{}, Group{}, fmt.Errorf("model-parallel group of %d NPUs: the dimensions before %s have %d NPUs, so the group would take %d/%d of %s's %d NPUs, which does not divide them; give a group the machine's dimensions (%s NPUs) build up to: a product of whole dimensions times a divisor of the next", k, m.Dims[d].Name, p, k, p, m.Dims[d].Name, size, strings.Join(sizes, " × "))
		}
		return splitGroups(m, d, s, true), splitGroups(m, d, s, false), nil
	}
	return Group{}, Group{}, fmt.Errorf("model-parallel group of %d NPUs: larger than the machine's %d", k, n) // unreachable: k ≤ n
}

// splitGroups lists the model (first) or data groups when dimension d is
// split into a first part of s consecutive places: the model group of an
// NPU spans dimensions 0..d−1 and its first part of d; the data group its
// second part of d and the dimensions after. Members are in NPU order.
func splitGroups(m *machine.Machine, d, s int, first bool) Group {
	n := m.N()
	key := func(npu int) string {
		var b strings.Builder
		for j := range m.Dims {
			pos := m.Dims[j].Pos(npu) // the digits fixed within a group make its key
			switch {
			case j < d && first, j > d && !first:
				continue // a digit that varies within the group
			case j == d && first:
				pos /= s
			case j == d:
				pos %= s
			}
			fmt.Fprintf(&b, "%d:%d/", j, pos)
		}
		return b.String()
	}
	index := map[string]int{}
	var groups [][]int
	for npu := 0; npu < n; npu++ {
		k := key(npu)
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], npu)
	}
	size := len(groups[0])
	if size == n {
		return Group{Size: n}
	}
	if size == 1 {
		return Group{Size: 1}
	}
	return Group{Groups: groups, Size: size} // each group's NPUs in order, as built
}

// Issued is a collective the loop issues (LayerCollectives,
// FusedAllReduces).
type Issued struct {
	// Layer is its layer, -1 for a fused all-reduce; Pass its pass
	// (PassEndOfBackProp for a fused one).
	Layer int
	Pass  Pass
	Comm  workload.Comm
	Group Group
	// Fused is how many layers' all-reduces a fused one holds.
	Fused int
}

// issues returns the group of the collective a model, hybrid or MICRO
// kind issues for layer l's pass p, and whether it issues one: the pass
// has a collective, its kind reads it, its group is more than one NPU,
// and it is not layer 0's input-gradient collective outside the
// Transformer kinds (docs/parallelism.md).
func (c *Communicators) issues(w *workload.Workload, l int, p Pass) (Group, bool) {
	layer := &w.Layers[l]
	comm := [...]workload.Comm{layer.FwdComm, layer.InGradComm, layer.WtGradComm}[passIndex(p)]
	g, ok := c.Of(l, p)
	if !ok || comm.Type == workload.CommNone || p == PassInGrad && l == 0 && !w.Transformer() {
		return Group{}, false
	}
	return g, true
}

// dataLike reports whether kind runs the data-parallel program.
func dataLike(kind string) bool {
	return kind == workload.ParallelismData || kind == workload.ParallelismHybridDLRM
}

// LayerCollectives lists the collectives of w's layers the loop issues on
// m when every system issues them layer by layer, in layer and pass
// order, each with its group: DATA every collective the file gives but
// layer 0's input-gradient one, HYBRID_DLRM every one; the other kinds
// those their parallelism reads (docs/parallelism.md).
func LayerCollectives(w *workload.Workload, m *machine.Machine) ([]Issued, error) {
	comms, err := NewCommunicators(w, m)
	if err != nil {
		return nil, err
	}
	var out []Issued
	for l := range w.Layers {
		layer := &w.Layers[l]
		for _, p := range []Pass{PassForward, PassInGrad, PassWtGrad} {
			c := [...]workload.Comm{layer.FwdComm, layer.InGradComm, layer.WtGradComm}[passIndex(p)]
			if c.Type == workload.CommNone {
				continue
			}
			var g Group
			switch {
			case w.Parallelism == workload.ParallelismData && p == PassInGrad && l == 0:
				continue // layer 0 has no input gradient to send (docs/training-loop.md)
			case dataLike(w.Parallelism): // every NPU
			default:
				var ok bool
				if g, ok = comms.issues(w, l, p); !ok {
					continue
				}
			}
			out = append(out, Issued{Layer: l, Pass: p, Comm: c, Group: g})
		}
	}
	return out, nil
}

// FusedAllReduces lists the weight-gradient all-reduces a system without
// overlap (BaselineNoOverlap) issues at the end of back-prop instead of
// its layers' (Config.Overlap): one over every NPU of them all for DATA and
// HYBRID_DLRM (OneShotBytes), one per data-parallel group for the
// hybrids, none for kinds without weight-gradient all-reduces.
func FusedAllReduces(w *workload.Workload, m *machine.Machine) ([]Issued, error) {
	if dataLike(w.Parallelism) {
		if b := OneShotBytes(w); b > 0 {
			n := 0
			for l := range w.Layers {
				if w.Layers[l].WtGradComm.Type == workload.CommAllReduce {
					n++
				}
			}
			return []Issued{{Layer: -1, Pass: PassEndOfBackProp, Comm: workload.Comm{Type: workload.CommAllReduce, Bytes: b}, Fused: n}}, nil
		}
		return nil, nil
	}
	if w.Parallelism == workload.ParallelismMicro {
		return nil, nil
	}
	all, err := LayerCollectives(w, m)
	if err != nil {
		return nil, err
	}
	var out []Issued
	for _, c := range all {
		if c.Pass != PassWtGrad || c.Comm.Type != workload.CommAllReduce {
			continue
		}
		i := slices.IndexFunc(out, func(f Issued) bool { return f.Group.Same(c.Group) })
		if i < 0 {
			out = append(out, Issued{Layer: -1, Pass: PassEndOfBackProp, Comm: workload.Comm{Type: workload.CommAllReduce}, Group: c.Group})
			i = len(out) - 1
		}
		out[i].Comm.Bytes += c.Comm.Bytes
		out[i].Fused++
	}
	return out, nil
}

// Describe says, for a run's notes, how w's kind runs on m: its groups,
// and for MICRO how its collectives are issued (docs/parallelism.md); ""
// for DATA and HYBRID_DLRM, which every collective runs over every NPU.
func Describe(w *workload.Workload, m *machine.Machine, micro Micro) (string, error) {
	kind := w.Parallelism
	switch {
	case dataLike(kind):
		return "", nil
	case kind == workload.ParallelismMicro:
		if micro == MicroConcurrent {
			return "MICRO (docs/parallelism.md): every iteration's weight-gradient collectives over every NPU issued at once, as ASTRA-sim 1.0 does (training.micro concurrent); one iteration; each collective's time in --format json (micro_collective_cycles)", nil
		}
		return "MICRO (docs/parallelism.md): each layer's weight-gradient collective over every NPU, back to back, one iteration each (training.micro back-to-back; ASTRA-sim 1.0 issues them all at once: --set training.micro=concurrent)", nil
	}
	comms, err := NewCommunicators(w, m)
	if err != nil {
		return "", err
	}
	// The groups of each pass, in layer order, each named once.
	var parts [3][]string
	seen := map[string]bool{}
	for l := range w.Layers {
		for i, p := range []Pass{PassForward, PassInGrad, PassWtGrad} {
			g, ok := comms.Of(l, p)
			if !ok {
				continue
			}
			name := fmt.Sprintf("%s (%d NPUs)", g, g.Size)
			switch {
			case g.All():
				name = fmt.Sprintf("all %d NPUs", g.Size)
			case g.Groups != nil:
				name = g.String()
			}
			if k := fmt.Sprint(i, name); !seen[k] {
				seen[k] = true
				parts[i] = append(parts[i], name)
			}
		}
	}
	over := func(i int) string {
		if len(parts[i]) == 0 {
			return "none"
		}
		return strings.Join(parts[i], " or ")
	}
	s := fmt.Sprintf("%s (docs/parallelism.md): forward collectives over %s, input-gradient over %s, weight-gradient over %s", kind, over(0), over(1), over(2))
	if w.Transformer() {
		k, _ := w.ModelGroup()
		s += fmt.Sprintf("; model-parallel group %d", k)
	}
	if kind == workload.ParallelismHybridCustomized {
		s += "; each layer its own parallelism"
	}
	return s, nil
}

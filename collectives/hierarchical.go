package collectives

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/machine"
)

// HPhase is one phase of a hierarchical collective: a group collective in
// every group of a tier, with a per-phase algorithm.
type HPhase struct {
	Kind PhaseKind
	Tier Tier
	Algo string // a group algorithm name: "ring", "halving-doubling", …
}

func (p HPhase) String() string {
	return fmt.Sprintf("%s on %s (%s)", p.Kind, p.Tier.Name, p.Algo)
}

// Hierarchical is a multi-phase collective over tiers (torus dimensions or
// BlueConnect factors). A reduce-scatter narrows each NPU's view to the part
// it owns; an all-reduce keeps the view; an all-gather restores the view of
// its matching reduce-scatter (same tier and algorithm, nested like
// brackets). All-gathers at the start with no reduce-scatter to match (a
// standalone all-gather) start from the views a mirror chain of
// reduce-scatters would have left.
type Hierarchical struct {
	cfg    Config
	phases []HPhase
	lead   int // all-gathers at the start with no matching reduce-scatter
	groups []GroupAlgorithm
}

// NewHierarchical checks the phase list against the collective and returns
// the algorithm.
func NewHierarchical(cfg Config, phases []HPhase) (*Hierarchical, error) {
	for i, p := range phases {
		if p.Tier.dim == nil {
			return nil, fmt.Errorf("phase %d (%s): a tier with no groups; build tiers with DimTier or FactorTiers", i+1, p.Tier.Name)
		}
	}
	h := &Hierarchical{cfg: cfg, phases: phases}
	for h.lead < len(phases) && phases[h.lead].Kind == AllGather {
		h.lead++
	}
	var open []HPhase
	for i, p := range phases {
		if p.Tier.Size > MaxGroup {
			return nil, fmt.Errorf("phase %d (%s): a group of %d NPUs; acemu's analysis of a phase's programs grows as the cube of its group (512 NPUs: seconds, 1024: a minute, 4096: hours), so a group holds at most %d; use the hierarchical algorithm on a torus whose dimensions are at most %d",
				i+1, p, p.Tier.Size, MaxGroup, MaxGroup)
		}
		g, err := lookupGroup(p.Algo)
		if err != nil {
			return nil, fmt.Errorf("phase %d: %w", i+1, err)
		}
		h.groups = append(h.groups, g)
		if i < h.lead {
			continue
		}
		switch p.Kind {
		case ReduceScatter:
			open = append(open, p)
		case AllGather:
			if len(open) == 0 {
				return nil, fmt.Errorf("phase %d (%s): an all-gather after other phases must undo an open reduce-scatter", i+1, p)
			}
			top := open[len(open)-1]
			if top.Tier.Name != p.Tier.Name || top.Algo != p.Algo {
				return nil, fmt.Errorf("phase %d (%s) must undo the latest open reduce-scatter, %s: same tier, same algorithm", i+1, p, top)
			}
			open = open[:len(open)-1]
		}
	}
	switch cfg.Op {
	case OpAllReduce:
		if h.lead > 0 || len(open) > 0 {
			return nil, fmt.Errorf("phases %s do not make an all-reduce: every reduce-scatter needs its all-gather, and none may come first", h.describe())
		}
	case OpReduceScatter:
		if h.lead > 0 || len(open) == 0 {
			return nil, fmt.Errorf("phases %s do not make a reduce-scatter: it must end with reduce-scatters left open and start with none gathered", h.describe())
		}
	case OpAllGather:
		if h.lead == 0 || len(open) > 0 {
			return nil, fmt.Errorf("phases %s do not make an all-gather: it must start with all-gathers and leave nothing open", h.describe())
		}
	default:
		return nil, fmt.Errorf("hierarchical phases do not run %s", cfg.Op)
	}
	if len(phases) == 0 && len(cfg.Span) > 0 {
		return nil, fmt.Errorf("no phases: the group's dimensions (%s) have size 1 on %s, so its groups are single NPUs with nothing to combine; name a dimension of size above 1",
			strings.Join(cfg.Span, ","), cfg.Machine)
	}
	if len(phases) == 0 {
		return nil, fmt.Errorf("no phases: every dimension has size 1, so there is nothing to do; use a topology with at least 2 NPUs")
	}
	if err := h.checkSpan(); err != nil {
		return nil, err
	}
	return h, nil
}

// MaxGroup bounds the NPUs of one phase's group (a ring, a tree): the
// analysis of its programs grows as the cube of the group's size.
const MaxGroup = 512

// checkSpan requires the phases that combine NPUs' data to span every NPU
// once: the reducing phases (reduce-scatter, all-reduce) of an all-reduce
// or a reduce-scatter, the all-gathers of an all-gather (which may reduce
// nothing). Strided tiers, in order of place value, must be the digits
// of the NPU id: the first of place value 1, each next one's the product
// of the sizes before it, all together the NPU count (over a span, its
// dimensions: checkGroup); tiers of listed groups must reach each member
// of the communicator exactly once (checkCover). Otherwise some NPU's
// data would be summed twice, or never, and the result would not be the
// collective named.
func (h *Hierarchical) checkSpan() error {
	var tiers []Tier
	for _, p := range h.phases {
		reduces := p.Kind == ReduceScatter || p.Kind == AllReduce
		if h.cfg.Op == OpAllGather && reduces {
			return fmt.Errorf("phases %s do not make an all-gather: %s adds data together, which an all-gather never does; use all-gathers only", h.describe(), p)
		}
		if h.cfg.Op == OpReduceScatter && p.Kind == AllReduce {
			return fmt.Errorf("phases %s do not make a reduce-scatter: %s leaves the NPUs of its group with the same data, where a reduce-scatter leaves each its own part; use reduce-scatters", h.describe(), p)
		}
		if reduces || h.cfg.Op == OpAllGather {
			tiers = append(tiers, p.Tier)
		}
	}
	what := "reducing phases (rs, ar)"
	if h.cfg.Op == OpAllGather {
		what = "all-gathers"
	}
	for _, ph := range h.phases {
		if _, ok := ph.Tier.stride(); !ok || h.cfg.Groups != nil {
			if err := h.checkAligned(); err != nil {
				return err
			}
			return h.checkCover(tiers, what)
		}
	}
	slices.SortStableFunc(tiers, func(a, b Tier) int { return tierStride(a) - tierStride(b) })
	if len(h.cfg.Span) > 0 {
		return h.checkGroup(tiers, what)
	}
	place, n := 1, h.cfg.Machine.N()
	for i, t := range tiers {
		if tierStride(t) != place {
			if i > 0 && tierStride(t) == tierStride(tiers[i-1]) {
				return fmt.Errorf("phases %s do not make %s: their %s cover %s twice, so its NPUs' data would be counted twice; give each dimension one",
					h.describe(), article(h.cfg.Op), what, t.Name)
			}
			return fmt.Errorf("phases %s do not make %s: their %s leave out the NPUs %d apart (a dimension of place value %d), whose data would never be combined; give every dimension of size above 1 one such phase",
				h.describe(), article(h.cfg.Op), what, place, place)
		}
		place *= t.Size
	}
	if place != n {
		return fmt.Errorf("phases %s do not make %s: their %s span %d of the %d NPUs, so the rest's data would never be combined; give every dimension of size above 1 one such phase",
			h.describe(), article(h.cfg.Op), what, place, n)
	}
	return nil
}

// tierStride is a strided tier's place value.
func tierStride(t Tier) int {
	st, _ := t.stride()
	return st
}

// checkGroup requires the tiers (sorted by place value) of a collective
// over a span of dimensions to be exactly the span's dimensions of size
// above 1, each once: each group's data is then combined once, and no
// group's with another's.
func (h *Hierarchical) checkGroup(tiers []Tier, what string) error {
	want, err := h.wanted()
	if err != nil {
		return err
	}
	in := func(t Tier) bool {
		return slices.ContainsFunc(want, func(a machine.Dim) bool { return machine.SameGroups(&a, t.dim) })
	}
	for i, t := range tiers {
		switch {
		case i > 0 && tierStride(t) == tierStride(tiers[i-1]):
			return fmt.Errorf("phases %s do not make %s: their %s cover %s twice, so its NPUs' data would be counted twice; give each dimension one",
				h.describe(), article(h.cfg.Op), what, t.Name)
		case !in(t):
			return h.outside(t, what)
		}
	}
	if len(tiers) != len(want) {
		return fmt.Errorf("phases %s do not make %s over the group %s: their %s cover %d of its %d dimensions of size above 1, so the rest's data would never be combined; give each one such phase",
			h.describe(), article(h.cfg.Op), strings.Join(h.cfg.Span, ","), what, len(tiers), len(want))
	}
	return nil
}

// wanted are the dimensions of size above 1 the collective combines: its
// span's, or every dimension's.
func (h *Hierarchical) wanted() ([]machine.Dim, error) {
	span, err := h.cfg.spanAxes()
	if err != nil {
		return nil, err
	}
	var want []machine.Dim
	for _, a := range span {
		if a.Size > 1 {
			want = append(want, a)
		}
	}
	return want, nil
}

func (h *Hierarchical) outside(t Tier, what string) error {
	return fmt.Errorf("phases %s do not make %s over the group %s: their %s combine %s, outside the group, so different groups' data would be mixed; leave it out or add it to the group",
		h.describe(), article(h.cfg.Op), strings.Join(h.cfg.Span, ","), what, t.Name)
}

// checkAligned requires the phases' tiers of listed groups to form a
// grid: for phases i before j on different tiers, the members of each of
// tier j's groups hold one place in tier i. A reduce-scatter leaves each
// member of a tier-i group its own part of the chunk, by its place, so a
// later phase must combine NPUs holding the same part; strided tiers
// (mixed-radix digits) always do.
func (h *Hierarchical) checkAligned() error {
	for j, pj := range h.phases {
		for _, pi := range h.phases[:j] {
			if machine.SameGroups(pi.Tier.dim, pj.Tier.dim) {
				continue
			}
			for npu := 0; npu < h.cfg.Machine.N(); npu++ {
				members, _ := pj.Tier.Group(npu)
				for _, m := range members[1:] {
					if a, b := pi.Tier.dim.Pos(members[0]), pi.Tier.dim.Pos(m); a != b {
						return fmt.Errorf("phases %s do not make %s: NPUs %d and %d, in one group of %s, hold places %d and %d of %s's groups, so they would combine different parts of the data; give dimensions whose groups form a grid (each group of one dimension across the groups of the other at one place)",
							h.describe(), article(h.cfg.Op), members[0], m, pj.Tier.Name, a, b, pi.Tier.Name)
					}
				}
			}
		}
	}
	return nil
}

// checkCover is checkSpan for tiers of explicit groups (a DGX-1 ring, a
// file's dimensions, listed groups), which have no place values to
// compare, and for any tiers over listed groups (Config.Groups): from
// every NPU, the tiers' groups in turn must reach each member of its
// communicator group exactly once (no NPU's data combined twice, none left
// out) and no NPU outside it. Over a span of dimensions, each tier must
// also be one of them.
func (h *Hierarchical) checkCover(tiers []Tier, what string) error {
	dims := make([]machine.Dim, len(tiers))
	prod := 1
	for i, t := range tiers {
		dims[i] = *t.dim
		prod *= t.Size
	}
	n := h.cfg.Machine.N()
	comm := func(npu int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if h.cfg.spanned() {
		want, err := h.wanted()
		if err != nil {
			return err
		}
		comm = func(npu int) []int { return spanMembers(want, npu) }
		for _, t := range tiers {
			if h.cfg.Groups != nil {
				break // any tiers whose groups together are the listed ones
			}
			if !slices.ContainsFunc(want, func(a machine.Dim) bool { return machine.SameGroups(&a, t.dim) }) {
				return h.outside(t, what)
			}
		}
	}
	seen := make([]bool, n)
	for npu := 0; npu < n; npu++ {
		if seen[npu] {
			continue
		}
		got, want := spanMembers(dims, npu), comm(npu)
		for _, m := range got {
			seen[m] = true
		}
		switch {
		case len(got) < prod:
			return fmt.Errorf("phases %s do not make %s: their %s reach %d NPUs from NPU %d where their groups' sizes multiply to %d, so some NPU's data would be counted twice; give each dimension one",
				h.describe(), article(h.cfg.Op), what, len(got), npu, prod)
		case !slices.Equal(got, want):
			for _, m := range got {
				if !slices.Contains(want, m) {
					return fmt.Errorf("phases %s do not make %s over %s: their %s combine NPU %d's data with NPU %d's, outside its group, so different groups' data would be mixed; combine each group's members only (dimension %s)",
						h.describe(), article(h.cfg.Op), h.cfg.spanDesc(), what, npu, m, GroupsName)
				}
			}
			fix := "give every dimension of size above 1 one such phase"
			if h.cfg.Groups != nil {
				fix = "combine over the listed groups (dimension " + GroupsName + ") or dimensions whose groups together are them"
			}
			return fmt.Errorf("phases %s do not make %s: their %s combine NPU %d's data with %d NPUs' where its group has %d, so some data would never be combined; %s",
				h.describe(), article(h.cfg.Op), what, npu, len(got), len(want), fix)
		}
	}
	return nil
}

// article is "an all-reduce", "a reduce-scatter" or "an all-gather".
func article(op CollectiveOp) string {
	return map[CollectiveOp]string{OpAllReduce: "an all-reduce", OpReduceScatter: "a reduce-scatter", OpAllGather: "an all-gather"}[op]
}

func (h *Hierarchical) describe() string {
	var s []string
	for _, p := range h.phases {
		s = append(s, p.String())
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Phases names the phases.
func (h *Hierarchical) Phases() []string {
	out := make([]string, len(h.phases))
	for i, p := range h.phases {
		out[i] = p.String()
	}
	return out
}

func (h *Hierarchical) spec(npu int, p HPhase, viewLen int64) GroupSpec {
	return p.Tier.Spec(npu, p.Kind, viewLen, h.cfg.MessageBytes, !h.cfg.Unidirectional)
}

// mirror returns the views of the reduce-scatter chain that the leading
// all-gathers undo (innermost last) and the view it ends with.
func (h *Hierarchical) mirror(npu int, chunkLen int64) ([][]Range, []Range, error) {
	view := []Range{{0, chunkLen}}
	var stack [][]Range
	for i := h.lead - 1; i >= 0; i-- {
		p := h.phases[i]
		rs := p
		rs.Kind = ReduceScatter
		prog, err := h.groups[i](h.spec(npu, rs, rangesLen(view)))
		if err != nil {
			return nil, nil, err
		}
		stack = append(stack, view)
		view = mapRanges(view, prog.Out)
	}
	return stack, view, nil
}

// Build returns every phase's program for npu and one chunk length.
func (h *Hierarchical) Build(npu int, chunkLen int64) ([]*Program, error) {
	stack, view, err := h.mirror(npu, chunkLen)
	if err != nil {
		return nil, err
	}
	out := make([]*Program, len(h.phases))
	for i, p := range h.phases {
		if p.Kind == AllGather {
			view = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		prog, err := h.groups[i](h.spec(npu, p, rangesLen(view)))
		if err != nil {
			return nil, fmt.Errorf("phase %d (%s): %w", i+1, p, err)
		}
		prog.View = view
		out[i] = prog
		if p.Kind == ReduceScatter {
			stack = append(stack, view)
			view = mapRanges(view, prog.Out)
		}
	}
	return out, nil
}

// Input is the view the leading all-gathers start from (nil: whole chunk).
func (h *Hierarchical) Input(npu int, chunkLen int64) []Range {
	if h.lead == 0 {
		return nil
	}
	_, view, err := h.mirror(npu, chunkLen)
	if err != nil {
		return nil
	}
	return view
}

// Output is the view left open at the end (nil: whole chunk).
func (h *Hierarchical) Output(npu int, chunkLen int64) []Range {
	if h.cfg.Op != OpReduceScatter {
		return nil
	}
	progs, err := h.Build(npu, chunkLen)
	if err != nil {
		return nil
	}
	last := progs[len(progs)-1]
	return mapRanges(last.View, last.Out)
}

// DefaultPhases returns the paper's hierarchical scheme for op over axes
// (the torus's: local, vertical, horizontal), ring algorithm in every
// phase; axes of size 1 are left out.
//
//	all-reduce:     RS first axis, AR each other axis, AG first axis (Section V:
//	                RS local, AR vertical, AR horizontal, AG local)
//	reduce-scatter: RS each axis in order
//	all-gather:     AG each axis in reverse order
func DefaultPhases(axes []machine.Dim, op CollectiveOp) []HPhase {
	type step struct {
		kind PhaseKind
		axis int
	}
	var steps []step
	switch op {
	case OpReduceScatter:
		for i := range axes {
			steps = append(steps, step{ReduceScatter, i})
		}
	case OpAllGather:
		for i := len(axes) - 1; i >= 0; i-- {
			steps = append(steps, step{AllGather, i})
		}
	default:
		steps = append(steps, step{ReduceScatter, 0})
		for i := 1; i < len(axes); i++ {
			steps = append(steps, step{AllReduce, i})
		}
		steps = append(steps, step{AllGather, 0})
	}
	var out []HPhase
	for _, st := range steps {
		if a := axes[st.axis]; a.Size > 1 {
			out = append(out, HPhase{Kind: st.kind, Tier: DimTier(a), Algo: "ring"})
		}
	}
	return out
}

// ParsePhases reads a phase list such as
// "rs:local:ring,ar:vertical,ar:horizontal:halving-doubling,ag:local:ring":
// kind (rs, ag, ar), axis (on the torus local, vertical, horizontal or l,
// v, h), and optionally the per-phase algorithm (default ring). where
// names the NPUs' arrangement in messages.
func ParsePhases(axes []machine.Dim, where string, spec string) ([]HPhase, error) {
	var out []HPhase
	for i, item := range strings.Split(spec, ",") {
		f := strings.Split(strings.TrimSpace(item), ":")
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("phase %d %q: want kind:dimension[:algorithm], e.g. rs:local:ring", i+1, item)
		}
		var p HPhase
		switch strings.ToLower(f[0]) {
		case "rs", "reduce-scatter":
			p.Kind = ReduceScatter
		case "ag", "all-gather":
			p.Kind = AllGather
		case "ar", "all-reduce":
			p.Kind = AllReduce
		default:
			return nil, fmt.Errorf("phase %d %q: kind %q is not rs, ag or ar", i+1, item, f[0])
		}
		a := -1
		var names []string
		for j, x := range axes {
			if strings.EqualFold(f[1], x.Name) || strings.EqualFold(f[1], x.Short) {
				a = j
			}
			names = append(names, x.Name)
		}
		if a < 0 {
			return nil, fmt.Errorf("phase %d %q: dimension %q is not %s", i+1, item, f[1], orList(names))
		}
		if axes[a].Size < 2 {
			return nil, fmt.Errorf("phase %d %q: the %s dimension of %s has size 1, so it has no links; leave the phase out", i+1, item, axes[a].Name, where)
		}
		p.Tier = DimTier(axes[a])
		p.Algo = "ring"
		if len(f) == 3 {
			p.Algo = f[2]
		}
		out = append(out, p)
	}
	return out, nil
}

// BlueConnectPhases returns BlueConnect's decomposition (Cho et al.): for an
// all-reduce, reduce-scatter up the tiers then all-gather down them, ring
// in each group.
func BlueConnectPhases(tiers []Tier, op CollectiveOp) []HPhase {
	var out []HPhase
	if op != OpAllGather {
		for _, t := range tiers {
			out = append(out, HPhase{Kind: ReduceScatter, Tier: t, Algo: "ring"})
		}
	}
	if op != OpReduceScatter {
		for i := len(tiers) - 1; i >= 0; i-- {
			out = append(out, HPhase{Kind: AllGather, Tier: tiers[i], Algo: "ring"})
		}
	}
	return out
}

func init() {
	Register("hierarchical", []CollectiveOp{OpAllReduce, OpReduceScatter, OpAllGather},
		"the paper's multi-phase scheme over the machine's dimensions (on a torus all-reduce: RS local, AR vertical, AR horizontal, AG local), ring in each phase; --phases picks the phases and per-phase algorithms",
		func(cfg Config) (Algorithm, error) {
			span, err := cfg.spanAxes()
			if err != nil {
				return nil, err
			}
			phases := DefaultPhases(span, cfg.Op)
			if cfg.PhaseSpec != "" {
				axes := cfg.dims()
				if cfg.Groups != nil { // the listed groups are one more dimension to name
					axes = append(slices.Clip(axes), span...)
				}
				if phases, err = ParsePhases(axes, cfg.Machine.String(), cfg.PhaseSpec); err != nil {
					return nil, err
				}
			}
			return NewHierarchical(cfg, phases)
		})
	Register("blueconnect", []CollectiveOp{OpAllReduce, OpReduceScatter, OpAllGather},
		"BlueConnect: reduce-scatter up the tiers of a factorisation of the NPU count, all-gather down them (--factors, default the machine's dimensions: a torus's L, V, H; a switch fabric's tiers, lowest first)",
		func(cfg Config) (Algorithm, error) {
			tiers, err := cfg.factorTiers()
			if err != nil {
				return nil, err
			}
			return NewHierarchical(cfg, BlueConnectPhases(tiers, cfg.Op))
		})
	Register("ring", []CollectiveOp{OpAllReduce, OpReduceScatter, OpAllGather},
		"one ring through all NPUs in id order (neighbouring ids need not be torus neighbours: messages are routed); on an Lx1x1 or 1xVx1 torus it is the ring of links",
		func(cfg Config) (Algorithm, error) {
			t := allTier(cfg)
			kind := map[CollectiveOp]PhaseKind{OpAllReduce: AllReduce, OpReduceScatter: ReduceScatter, OpAllGather: AllGather}[cfg.Op]
			return NewHierarchical(cfg, []HPhase{{Kind: kind, Tier: t, Algo: "ring"}})
		})
}

// factorTiers are the tiers of cfg's factorisation (Factors, default the
// machine's dimensions' sizes, lowest first): blueconnect's and
// two-level's.
func (cfg Config) factorTiers() ([]Tier, error) {
	factors := cfg.Factors
	if len(factors) == 0 {
		for _, d := range cfg.dims() {
			factors = append(factors, d.Size)
		}
	}
	return FactorTiers(cfg.dims(), cfg.Machine.N(), factors)
}

// allTier is the tier of all NPUs in id order: an axis's, when one axis
// holds them all (its ring), else routed.
func allTier(cfg Config) Tier {
	n := cfg.Machine.N()
	t := DimTier(machine.Strided("all NPUs", "", n, n, 1, false, 0, 0))
	for _, a := range cfg.dims() {
		if a.Size == n {
			t = DimTier(a)
		}
	}
	return t
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// PhaseTier returns the tier whose groups phase ph of the plan combines,
// and false for a plan whose algorithm is not hierarchical (it has no
// tiers) or a phase it does not have.
func (p *Plan) PhaseTier(ph int) (Tier, bool) {
	h, ok := p.Algo.(*Hierarchical)
	if !ok || ph < 0 || ph >= len(h.phases) {
		return Tier{}, false
	}
	return h.phases[ph].Tier, true
}

// SameGroups reports whether tiers t and u cut the NPUs into the same
// groups, each member at the same place (machine.SameGroups): a phase over
// a group of dimensions and the whole machine's phase over the same
// dimension use the same links.
func (t Tier) SameGroups(u Tier) bool {
	return t.dim != nil && u.dim != nil && machine.SameGroups(t.dim, u.dim)
}

package collectives

import (
	"fmt"
	"sort"
	"strings"

	"github.com/acemu/acemu/machine"
)

// GroupSpec describes one phase of a hierarchical collective for one member
// of one group: a set of NPUs that run a reduce-scatter, all-gather or
// all-reduce together on a view of the same size.
type GroupSpec struct {
	Kind    PhaseKind
	Members []int // NPU ids in group order
	Pos     int   // this NPU's index in Members
	// ViewLen is the bytes of the phase's view, the same on every member.
	ViewLen int64
	// MessageBytes is the largest message.
	MessageBytes int64
	// OnRing: Members are a ring of links in ring order, so
	// Members[(Pos+1)%p] is the neighbour this member reaches by its port
	// Plus, and Members[Pos-1] by its port Minus. Otherwise messages are
	// routed (RouteXYZ).
	OnRing      bool
	Plus, Minus int8
	// Bidirectional splits a ring algorithm's data over both directions.
	Bidirectional bool
}

// GroupAlgorithm builds a group phase's program. For a reduce-scatter,
// Program.Out is the view ranges the member owns afterwards; the
// all-gather of the same algorithm on the same spec must start from exactly
// those ranges.
type GroupAlgorithm func(GroupSpec) (*Program, error)

var groupAlgorithms = map[string]GroupAlgorithm{}

// RegisterGroup adds a per-phase algorithm for hierarchical collectives.
func RegisterGroup(name string, g GroupAlgorithm) {
	if _, dup := groupAlgorithms[name]; dup {
		panic("collectives: group algorithm " + name + " registered twice")
	}
	groupAlgorithms[name] = g
}

// GroupAlgorithmNames lists the per-phase algorithms.
func GroupAlgorithmNames() []string {
	var out []string
	for n := range groupAlgorithms {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func lookupGroup(name string) (GroupAlgorithm, error) {
	g, ok := groupAlgorithms[name]
	if !ok {
		return nil, fmt.Errorf("phase algorithm %q: want one of %s", name, strings.Join(GroupAlgorithmNames(), ", "))
	}
	return g, nil
}

func init() {
	RegisterGroup("ring", RingProgram)
}

// Tier is a way of cutting the NPUs into equal groups: every NPU belongs to
// exactly one group of the tier.
type Tier struct {
	Name   string
	Size   int
	OnRing bool // groups are rings of links, reached by each member's ring ports
	dim    *machine.Dim
}

// Group returns npu's group (ids in group order) and its position in it.
func (t Tier) Group(npu int) ([]int, int) { return t.dim.Group(npu) }

// stride is the place value of a strided tier's digit; ok is false for a
// tier of explicit groups.
func (t Tier) stride() (int, bool) { return t.dim.Stride() }

// FactorTiers cuts the n NPUs by a mixed-radix factorisation of their ids,
// lowest digit first (BlueConnect's tiers). Factors of 1 are dropped. Where
// a tier coincides with an axis (same size and place value), its groups are
// that axis's.
func FactorTiers(axes []machine.Dim, n int, factors []int) ([]Tier, error) {
	prod := 1
	var out []Tier
	for i, f := range factors {
		if f < 1 {
			return nil, fmt.Errorf("factor %d is %d: factors must be at least 1", i+1, f)
		}
		if prod > n {
			break
		}
		if f > 1 {
			t := DimTier(machine.Strided(fmt.Sprintf("tier %d (size %d)", len(out), f), "", n, f, prod, false, 0, 0))
			for _, a := range axes {
				if st, ok := a.Stride(); ok && a.Size == f && st == prod {
					t = DimTier(a)
					t.Name = fmt.Sprintf("tier %d (%s)", len(out), a.Name)
				}
			}
			out = append(out, t)
		}
		prod *= f
	}
	if prod != n {
		parts := make([]string, len(factors))
		for i, f := range factors {
			parts[i] = fmt.Sprint(f)
		}
		return nil, fmt.Errorf("factors %s multiply to %d, not the %d NPUs", strings.Join(parts, "x"), prod, n)
	}
	return out, nil
}

// Spec returns the group spec of npu in this tier.
func (t Tier) Spec(npu int, kind PhaseKind, viewLen, msg int64, bidir bool) GroupSpec {
	members, pos := t.Group(npu)
	plus, minus := t.dim.Ports(npu)
	return GroupSpec{Kind: kind, Members: members, Pos: pos, ViewLen: viewLen, MessageBytes: msg,
		OnRing: t.OnRing, Plus: plus, Minus: minus, Bidirectional: bidir}
}

package collectives

import (
	"testing"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/stretchr/testify/require"
)

// routed is a routing stub of n NPUs (collectives never route).
type routed struct{ n int }

func (r routed) N() int                            { return r.n }
func (r routed) String() string                    { return "routed" }
func (r routed) NextPort(cur, dst int) (int, bool) { return 0, cur != dst }
func (r routed) Arrived(_ *fabric.Network, _ *fabric.Link, p fabric.Packet) fabric.Packet {
	return p
}
func (r routed) PacketDst(p fabric.Packet) int { return int(p.Msg.Dst) }

// squares is 4 NPUs with two listed dimensions: rows {0,3}, {1,2} and
// columns {0,1}, {3,2} (no place values), plus rows again under another
// name.
func squares(t *testing.T) *machine.Machine {
	rows, err := machine.Explicit("rows", "r", 4, [][]int{{0, 3}, {1, 2}}, nil)
	require.NoError(t, err)
	cols, err := machine.Explicit("cols", "c", 4, [][]int{{0, 1}, {3, 2}}, nil)
	require.NoError(t, err)
	again, err := machine.Explicit("again", "a", 4, [][]int{{3, 0}, {2, 1}}, nil)
	require.NoError(t, err)
	m, err := machine.New("squares", routed{4}, []machine.Dim{rows, cols, again})
	require.NoError(t, err)
	return m
}

// A hierarchical collective over listed dimensions: rows then columns
// reach every NPU once from each (2 × 2 = 4 NPUs), so it is an
// all-reduce; rows then the same pairs in the other order ("again") do
// not line up (TestListedDimensionsMustFormAGrid); rows twice reach 2 of
// the 4, counting each twice; rows alone leave the columns out; over the
// group rows, a phase on columns mixes groups.
func TestHierarchicalOnListedDimensions(t *testing.T) {
	m := squares(t)
	for _, tc := range []struct {
		phases string
		span   []string
		want   string
	}{
		{"rs:rows,ar:cols,ag:rows", nil, ""},
		{"rs:rows,ar:again,ag:rows", nil, "NPUs 3 and 0, in one group of again, hold places 1 and 0 of rows's groups"},
		{"ar:rows,ar:rows", nil, "reach 2 NPUs from NPU 0 where their groups' sizes multiply to 4"},
		{"ar:rows", nil, "combine NPU 0's data with 2 NPUs' where its group has 4"},
		{"ar:rows", []string{"rows"}, ""},
		{"ar:cols", []string{"rows"}, "combine cols, outside the group"},
	} {
		t.Run(tc.phases, func(t *testing.T) {
			cfg := Config{Machine: m, Op: OpAllReduce, MessageBytes: 1024, PhaseSpec: tc.phases, Span: tc.span}
			plan, err := NewPlan(cfg, "hierarchical", 4096, 4096)
			if tc.want != "" {
				require.ErrorContains(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			members, pos := plan.Algo.(*Hierarchical).phases[0].Tier.Group(2)
			require.Equal(t, []int{1, 2}, members, "NPU 2's row")
			require.Equal(t, 1, pos)
			require.Error(t, CheckEquivariant(plan), "no symmetry: one NPU cannot stand for all")
		})
	}
}

// Listed dimensions must form a grid for a reduce-scatter's parts to meet
// again: with rows {0,1}, {2,3} and twisted columns {0,3}, {1,2}, NPUs 0
// and 3 share a column but hold places 0 and 1 of their rows, so after
// the reduce-scatter on rows they hold different halves, and an
// all-reduce over the columns would add unlike parts. Refused; the
// straight columns {0,2}, {1,3} are a grid.
func TestListedDimensionsMustFormAGrid(t *testing.T) {
	rows, err := machine.Explicit("rows", "r", 4, [][]int{{0, 1}, {2, 3}}, nil)
	require.NoError(t, err)
	twisted, err := machine.Explicit("twisted", "t", 4, [][]int{{0, 3}, {1, 2}}, nil)
	require.NoError(t, err)
	cols, err := machine.Explicit("cols", "c", 4, [][]int{{0, 2}, {1, 3}}, nil)
	require.NoError(t, err)
	m, err := machine.New("grid", routed{4}, []machine.Dim{rows, twisted, cols})
	require.NoError(t, err)
	_, err = NewPlan(Config{Machine: m, Op: OpAllReduce, MessageBytes: 1024, PhaseSpec: "rs:rows,ar:twisted,ag:rows"}, "hierarchical", 4096, 4096)
	require.ErrorContains(t, err, "NPUs 0 and 3, in one group of twisted, hold places 0 and 1 of rows's groups")
	_, err = NewPlan(Config{Machine: m, Op: OpAllReduce, MessageBytes: 1024, PhaseSpec: "rs:rows,ar:cols,ag:rows"}, "hierarchical", 4096, 4096)
	require.NoError(t, err)
	_, err = NewHierarchical(Config{Machine: m, Op: OpAllReduce, MessageBytes: 1024}, []HPhase{{Kind: AllReduce, Tier: Tier{Name: "bare", Size: 4}, Algo: "ring"}})
	require.ErrorContains(t, err, "a tier with no groups")
}

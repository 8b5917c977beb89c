package collectives

import (
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// diagonals are the 4x4x1 torus's diagonals (NPU l + 4v): {0,5,10,15} is
// (0,0), (1,1), (2,2), (3,3); each next group is the one before moved one
// along l. No dimension of the torus cuts the NPUs this way.
var diagonals = [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}

func groupsPlan(t *testing.T, topo string, op CollectiveOp, groups [][]int, phases string) (*Plan, error) {
	t.Helper()
	return commPlan(t, topo, op, phases, func(c *Config) { c.Groups = groups })
}

// Listed groups are one dimension, "group", of explicit groups with routed
// messages: the default phases are the paper's scheme over it alone, and
// each NPU's communicator is its listed group, in id order.
func TestCollectivesOverListedGroups(t *testing.T) {
	for _, tc := range []struct {
		op   CollectiveOp
		want []string
	}{
		{OpAllReduce, []string{"reduce-scatter on group (ring)", "all-gather on group (ring)"}},
		{OpReduceScatter, []string{"reduce-scatter on group (ring)"}},
		{OpAllGather, []string{"all-gather on group (ring)"}},
	} {
		p, err := groupsPlan(t, "4x4x1", tc.op, diagonals, "")
		require.NoError(t, err, "%s", tc.op)
		require.Equal(t, tc.want, p.Algo.Phases(), "%s", tc.op)
		require.Equal(t, []int{3, 4, 9, 14}, p.Members(9))
		require.Equal(t, []int{2, 7, 8, 13}, p.Members(13))
		require.Equal(t, 4, p.GroupSize())
	}
	// Each group's ring runs in the order listed: NPU 8 is third of
	// {2, 7, 8, 13}, and its messages are routed.
	p, err := groupsPlan(t, "4x4x1", OpAllReduce, diagonals, "rs:g,ag:group")
	require.NoError(t, err)
	spec := p.Algo.(*Hierarchical).spec(8, p.Algo.(*Hierarchical).phases[0], 1024)
	require.Equal(t, []int{2, 7, 8, 13}, spec.Members)
	require.Equal(t, 2, spec.Pos)
	require.False(t, spec.OnRing)
	// Groups that are a dimension's may be combined over it: on 4x4x1 the
	// listed groups {0..3}, {4..7}, … are local's rings.
	rows := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}
	_, err = groupsPlan(t, "4x4x1", OpAllReduce, rows, "rs:local,ag:local")
	require.NoError(t, err)
	// The caller's lists are not the plan's: changing them later changes
	// nothing.
	mine := [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}
	p, err = groupsPlan(t, "4x4x1", OpAllReduce, mine, "")
	require.NoError(t, err)
	mine[0][0], mine[1][0] = 1, 0
	require.Equal(t, []int{0, 5, 10, 15}, p.Members(0))
}

func TestListedGroupsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups [][]int
		phases string
		want   string
	}{
		{"overlap", [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 5}}, "", "communicator groups: dimension group: NPU 5 is in two groups (0 and 3); each NPU belongs to one"},
		{"unequal sizes", [][]int{{0, 5, 10, 15, 1}, {6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}, "", "group 1 has 3 NPUs, group 0 has 5; its groups must be equally large"},
		{"out of range", [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 16}}, "", "group 3 names NPU 16; the NPUs are 0 to 15"},
		{"missing NPU", [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}}, "", "NPU 3 is in no group; each NPU belongs to one; list each of the 16 NPUs of 4x4x1 (0 to 15) in exactly one group"},
		{"none", [][]int{}, "", "communicator groups: dimension group: no groups"},
		{"single NPUs", [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}}, "", "groups of 1 NPU, so each is a single NPU with nothing to combine"},
		{"a phase mixing groups", diagonals, "rs:local,ag:local", "combine NPU 0's data with NPU 1's, outside its group, so different groups' data would be mixed"},
		{"a phase short of the groups", [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}, "rs:local,ag:local", "combine NPU 0's data with 4 NPUs' where its group has 8"},
		{"an unknown phase dimension", diagonals, "rs:z,ag:z", `dimension "z" is not local, vertical, horizontal or group`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := groupsPlan(t, "4x4x1", OpAllReduce, tc.groups, tc.phases)
			require.ErrorContains(t, err, tc.want)
		})
	}
	s, err := torus.Parse("4x4x1")
	require.NoError(t, err)
	_, err = NewPlan(Config{Machine: s.Machine(), Op: OpAllReduce, MessageBytes: 8 << 10, Span: []string{"v"}, Groups: diagonals}, "hierarchical", 64<<10, 64<<10)
	require.ErrorContains(t, err, "a communicator of dimensions (v) and one of listed groups of NPUs (0,5,10,15/1,6,11,12/2,7,8,13/3,4,9,14): name one or the other")
	for _, a := range Algorithms() {
		if a.Name == "hierarchical" || CheckAlgorithm(a.Name, OpAllReduce) != nil {
			continue
		}
		_, err = NewPlan(Config{Machine: s.Machine(), Op: OpAllReduce, MessageBytes: 8 << 10, Groups: diagonals}, a.Name, 64<<10, 64<<10)
		require.ErrorContains(t, err, "a collective over listed groups of NPUs (0,5,10,15/1,6,11,12/2,7,8,13/3,4,9,14) runs the hierarchical", a.Name)
	}
	_, err = NewPlan(Config{Machine: s.Machine(), Op: OpAllToAll, MessageBytes: 8 << 10, Groups: diagonals}, "direct", 64<<10, 64<<10)
	require.ErrorContains(t, err, "so leave the groups out")
}

func TestFormatGroups(t *testing.T) {
	require.Equal(t, "0,5,10,15/1,6,11,12/2,7,8,13/3,4,9,14", FormatGroups(diagonals))
	require.Equal(t, "", FormatGroups(nil))
}

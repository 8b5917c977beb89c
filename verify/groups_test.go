package verify

import (
	"fmt"
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// diagonals are the 4x4x1 torus's diagonals (NPU l + 4v): no dimension's
// groups, every member two hops from the next.
var diagonals = [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}

// Collectives over listed groups of NPUs end with each group's own
// result: the diagonals of 4x4x1, groups of 6 in no pattern on 2x3x4
// (ring orders shuffled) with sizes that do not divide, and pairs of
// NPUs far apart on 4x2x2.
func TestListedGroupsCollectivesAreCorrect(t *testing.T) {
	for _, tc := range []struct {
		topo           string
		groups         [][]int
		payload, chunk int64
	}{
		{"4x4x1", diagonals, 8192, 4096},
		{"2x3x4", [][]int{{23, 0, 7, 12, 5, 18}, {1, 2, 3, 4, 6, 8}, {22, 21, 9, 10, 11, 13}, {14, 15, 16, 17, 19, 20}}, 10_007, 3000},
		{"4x2x2", [][]int{{0, 15}, {1, 14}, {2, 13}, {3, 12}, {4, 11}, {5, 10}, {6, 9}, {7, 8}}, 8192, 4096},
	} {
		for _, op := range []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather} {
			p := plan(t, tc.topo, op, "hierarchical", tc.payload, tc.chunk, 256, func(c *collectives.Config) { c.Groups = tc.groups })
			require.NoError(t, Check(p), "%s %v %s", tc.topo, tc.groups, op)
			require.NoError(t, CheckContributions(p), "%s %v %s", tc.topo, tc.groups, op)
		}
	}
}

// What an all-reduce over the diagonals must give, written out without
// Members: every byte i of chunk 0 on NPU 5 is the sum of NPUs 0, 5, 10
// and 15's InitialValue(·, 0, i), on NPU 4 that of 3, 4, 9 and 14's. The
// check of the same run against the rows' all-reduce (groups {0..3},
// {4..7}, …, the same size) fails: each group's sum is its own members'.
func TestListedGroupsExpectationByHand(t *testing.T) {
	p := plan(t, "4x4x1", collectives.OpAllReduce, "hierarchical", 1024, 1024, 256, func(c *collectives.Config) { c.Groups = diagonals })
	e, err := Expect(p, 0)
	require.NoError(t, err)
	for _, i := range []int64{0, 17, 1023} {
		d0 := InitialValue(0, 0, i) + InitialValue(5, 0, i) + InitialValue(10, 0, i) + InitialValue(15, 0, i)
		d3 := InitialValue(3, 0, i) + InitialValue(4, 0, i) + InitialValue(9, 0, i) + InitialValue(14, 0, i)
		for _, npu := range diagonals[0] {
			require.Equal(t, d0, e.Want[npu][i])
		}
		require.Equal(t, d3, e.Want[4][i])
		require.Equal(t, d3, e.Want[14][i])
	}
	got, err := RunChunk(p, 0, e.Init)
	require.NoError(t, err)
	require.NoError(t, e.Compare(got, 0))
	rows := plan(t, "4x4x1", collectives.OpAllReduce, "hierarchical", 1024, 1024, 256, func(c *collectives.Config) {
		c.Groups = [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}
	})
	er, err := Expect(rows, 0)
	require.NoError(t, err)
	require.Error(t, er.Compare(got, 0), "the diagonals' sums are not the rows'")
}

// An all-reduce over the diagonals of 4x4x1 and over the groups of 6 on
// 2x3x4 runs on the ideal endpoint, the SM-driven baseline and ACE, every
// message routed, every NPU's result exact.
func TestListedGroupsOnEveryEndpoint(t *testing.T) {
	for _, tc := range []struct {
		topo   string
		groups [][]int
	}{
		{"4x4x1", diagonals},
		{"2x3x4", [][]int{{23, 0, 7, 12, 5, 18}, {1, 2, 3, 4, 6, 8}, {22, 21, 9, 10, 11, 13}, {14, 15, 16, 17, 19, 20}}},
	} {
		spec, err := topology.Parse(tc.topo)
		require.NoError(t, err)
		p, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce,
			MessageBytes: 2048, Groups: tc.groups}, "hierarchical", 20_000, 8192)
		require.NoError(t, err)
		for _, endpoint := range testEndpoints {
			t.Run(fmt.Sprintf("%s/%s", tc.topo, endpoint), func(t *testing.T) {
				checkOnMachine(t, spec, p, endpoint)
			})
		}
	}
}

// Two communicators' collectives in flight at once through one
// afi.Interface on 4x4x1: an all-reduce over the diagonals (listed
// groups, IssueOptions.Groups) issued at cycle 0 and one over local (a
// dimension, IssueOptions.Group: the rows) at cycle 40, sharing links, on
// every endpoint; each checked against its own groups. Handing the checks
// the plans in the other order fails: the check tells them apart.
func TestListedAndDimensionGroupsInFlight(t *testing.T) {
	shape, err := torus.Parse("4x4x1")
	require.NoError(t, err)
	cfg := afi.DefaultConfig(shape.Machine())
	cfg.ChunkBytes, cfg.MessageBytes = 4096, 1024
	diag, err := cfg.PlanOn(collectives.OpAllReduce, 8192, nil, diagonals)
	require.NoError(t, err)
	local, err := cfg.PlanOn(collectives.OpAllReduce, 8192, []string{"l"}, nil)
	require.NoError(t, err)
	require.Equal(t, []int{0, 5, 10, 15}, diag.Members(5))
	require.Equal(t, []int{4, 5, 6, 7}, local.Members(5))
	checkTwoInFlight(t, shape, diag, local, func(t *testing.T, e testEngine, ends *[2]rtl.Cycle) {
		a, err := afi.New(cfg, e)
		require.NoError(t, err)
		_, err = a.IssueWith(0, collectives.OpAllReduce, 8192, afi.IssueOptions{Groups: diagonals, Done: func(now rtl.Cycle) { ends[0] = now }})
		require.NoError(t, err)
		_, err = a.IssueWith(40, collectives.OpAllReduce, 8192, afi.IssueOptions{Group: []string{"l"}, Done: func(now rtl.Cycle) { ends[1] = now }})
		require.NoError(t, err)
		require.Equal(t, 2, a.InFlight())
	})
}

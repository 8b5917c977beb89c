package gen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acemu/acemu/chakra"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// node summarises a node: its id, name, duration and dependences.
type node struct {
	ID       uint64
	Name     string
	Dur      uint64
	Data     []uint64
	Ctrl     []uint64
	Coll     string
	CollSize uint64
}

func summary(t *testing.T, tr *chakra.Trace) []node {
	var out []node
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		s := node{ID: n.ID, Name: n.Name, Dur: n.DurationMicros, Data: n.DataDeps, Ctrl: n.CtrlDeps}
		if n.Type == chakra.CommCollNode {
			ct, _, err := n.Integer("comm_type")
			require.NoError(t, err)
			s.Coll = chakra.CollectiveType(ct).String()
			s.CollSize, _, err = n.Integer("comm_size")
			require.NoError(t, err)
		}
		out = append(out, s)
	}
	return out
}

func TestMicrobenchmarks(t *testing.T) {
	for _, tc := range []struct {
		o    MicroOptions
		want []node
	}{
		{MicroOptions{Kind: "one-comp", NPUs: 2, Duration: 5}, []node{{ID: 0, Name: "COMP_NODE", Dur: 5}}},
		{MicroOptions{Kind: "two-comp-independent", NPUs: 2, Duration: 5}, []node{{ID: 0, Name: "COMP_NODE", Dur: 5}, {ID: 1, Name: "COMP_NODE", Dur: 5}}},
		{MicroOptions{Kind: "two-comp-dependent", NPUs: 2, Duration: 5}, []node{{ID: 0, Name: "COMP_NODE", Dur: 5}, {ID: 1, Name: "COMP_NODE", Dur: 5, Data: []uint64{0}}}},
		{MicroOptions{Kind: "one-coll", NPUs: 2, Collective: chakra.AllToAll, Bytes: 65536}, []node{{ID: 0, Name: "ALL_TO_ALL", Coll: "ALL_TO_ALL", CollSize: 65536}}},
		{MicroOptions{Kind: "comm-comp-chain", NPUs: 2, Duration: 3, Collective: chakra.AllReduce, Bytes: 8, Steps: 2}, []node{
			{ID: 0, Name: "COMP_NODE_0", Dur: 3},
			{ID: 1, Name: "ALL_REDUCE_0", Data: []uint64{0}, Coll: "ALL_REDUCE", CollSize: 8},
			{ID: 2, Name: "COMP_NODE_1", Dur: 3, Data: []uint64{1}},
			{ID: 3, Name: "ALL_REDUCE_1", Data: []uint64{2}, Coll: "ALL_REDUCE", CollSize: 8},
		}},
	} {
		t.Run(tc.o.Kind, func(t *testing.T) {
			s, err := Micro(tc.o)
			require.NoError(t, err)
			require.Len(t, s.Ranks, tc.o.NPUs)
			for _, tr := range s.Ranks {
				var b bytes.Buffer // what is written reads back the same
				require.NoError(t, chakra.Write(&b, tr))
				back, err := chakra.Read(&b, tr.Name)
				require.NoError(t, err)
				require.Equal(t, tc.want, summary(t, back))
			}
		})
	}
	for _, tc := range []struct {
		o    MicroOptions
		want string
	}{
		{MicroOptions{Kind: "one-coll", NPUs: 2}, "one-coll: a collective of 0 bytes"},
		{MicroOptions{Kind: "one-comp", NPUs: 2}, "one-comp: compute of no duration"},
		{MicroOptions{Kind: "one-comp", NPUs: 0, Duration: 1}, "0 ranks: give 1 to 4096"},
		{MicroOptions{Kind: "nope", NPUs: 1, Duration: 1}, `microbenchmark "nope": known: one-comp`},
		{MicroOptions{Kind: "comm-comp-chain", NPUs: 1, Duration: 1, Bytes: 1}, "comm-comp-chain of 0 steps"},
	} {
		_, err := Micro(tc.o)
		require.ErrorContains(t, err, tc.want)
	}
}

// Two layers, a and b, with the loop's program written out (docs/
// training-loop.md, "One iteration"), two iterations: forward a, b;
// back-prop b's weight gradient, its all-reduce, b's input gradient, a's
// weight gradient and all-reduce (layer 0 has no input gradient); the
// second iteration's updates wait for the first's all-reduces.
func TestDataParallelFollowsTheLoop(t *testing.T) {
	w, err := workload.ParseAstraSim(strings.NewReader("DATA\n2\n"+
		"a\t-1\t10\tNONE\t0\t11\tNONE\t0\t12\tALLREDUCE\t100\t13\n"+
		"b\t-1\t20\tNONE\t0\t21\tNONE\t0\t22\tALLREDUCE\t200\t0\n"), "two.txt")
	require.NoError(t, err)
	s, err := DataParallel(w, 3, 2)
	require.NoError(t, err)
	require.Len(t, s.Ranks, 3)
	want := []node{
		{ID: 0, Name: "COMP_NODE_a_FWD_0", Dur: 10},
		{ID: 1, Name: "COMP_NODE_b_FWD_0", Dur: 20, Data: []uint64{0}},
		{ID: 2, Name: "COMP_NODE_b_BWD_WG_0", Dur: 22, Data: []uint64{1}},
		{ID: 3, Name: "COMM_COLL_NODE_b_BWD_WG_ALLREDUCE_0", Data: []uint64{2}, Coll: "ALL_REDUCE", CollSize: 200},
		{ID: 4, Name: "COMP_NODE_b_BWD_IG_0", Dur: 21, Data: []uint64{2}},
		{ID: 5, Name: "COMP_NODE_a_BWD_WG_0", Dur: 12, Data: []uint64{4}},
		{ID: 6, Name: "COMM_COLL_NODE_a_BWD_WG_ALLREDUCE_0", Data: []uint64{5}, Coll: "ALL_REDUCE", CollSize: 100},
		// Iteration 2: a's update (13 ns) after a's all-reduce; b has
		// no update delay, so its forward pass waits for b's all-reduce.
		{ID: 7, Name: "COMP_NODE_a_UPDATE_1", Dur: 13, Data: []uint64{5, 6}},
		{ID: 8, Name: "COMP_NODE_a_FWD_1", Dur: 10, Data: []uint64{7}},
		{ID: 9, Name: "COMP_NODE_b_FWD_1", Dur: 20, Data: []uint64{8, 3}},
		{ID: 10, Name: "COMP_NODE_b_BWD_WG_1", Dur: 22, Data: []uint64{9}},
		{ID: 11, Name: "COMM_COLL_NODE_b_BWD_WG_ALLREDUCE_1", Data: []uint64{10}, Coll: "ALL_REDUCE", CollSize: 200},
		{ID: 12, Name: "COMP_NODE_b_BWD_IG_1", Dur: 21, Data: []uint64{10}},
		{ID: 13, Name: "COMP_NODE_a_BWD_WG_1", Dur: 12, Data: []uint64{12}},
		{ID: 14, Name: "COMM_COLL_NODE_a_BWD_WG_ALLREDUCE_1", Data: []uint64{13}, Coll: "ALL_REDUCE", CollSize: 100},
	}
	for _, tr := range s.Ranks {
		require.Equal(t, want, summary(t, tr))
	}
	_, err = DataParallel(&workload.Workload{Name: "d", Parallelism: workload.ParallelismHybridDLRM, CycleHz: 1e9}, 2, 1)
	require.ErrorContains(t, err, "parallelism HYBRID_DLRM; the data-parallel trace is of a DATA workload")
	_, err = DataParallel(&workload.Workload{Name: "r", Parallelism: workload.ParallelismData}, 2, 1)
	require.ErrorContains(t, err, "not timed in nanoseconds")
}

// A set the reader would refuse for its size over all ranks is refused
// when made: 16 ranks of a 40000-step chain are 16 × 80000 = 1.28 × 10^6
// nodes, over 10^6; 12 ranks (960000) are made.
func TestSetTooLargeOverItsRanks(t *testing.T) {
	_, err := Micro(MicroOptions{Kind: "comm-comp-chain", NPUs: 16, Steps: 40000, Collective: chakra.AllReduce, Bytes: 1024, Duration: 1})
	require.ErrorContains(t, err, "16 ranks of 80000 nodes each is 1280000 nodes, more than the 1000000")
	s, err := Micro(MicroOptions{Kind: "comm-comp-chain", NPUs: 12, Steps: 40000, Collective: chakra.AllReduce, Bytes: 1024, Duration: 1})
	require.NoError(t, err)
	require.Len(t, s.Ranks, 12)
}

package collectives

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The chain schedules, written out by hand for a group of 4: in the gather
// member r sends block r+t to r−1 in step t (so block q reaches the master
// in step q−1 after q hops); in the scatter the master sends blocks 3, 2, 1
// in steps 0, 1, 2 and each member passes on, the step after, every block
// above its own. Each is p−1 = 3 steps, one block per link per step.
func TestTwoLevelChainSchedules(t *testing.T) {
	tests := []struct {
		name string
		got  []chainMsg
		want []chainMsg
	}{
		{"gather p=4", gatherSchedule(4), []chainMsg{
			{1, 0, 0, 1}, {2, 1, 0, 2}, {3, 2, 0, 3},
			{1, 0, 1, 2}, {2, 1, 1, 3},
			{1, 0, 2, 3},
		}},
		{"scatter p=4", scatterSchedule(4), []chainMsg{
			{0, 1, 0, 3},
			{0, 1, 1, 2}, {1, 2, 1, 3},
			{0, 1, 2, 1}, {1, 2, 2, 2}, {2, 3, 2, 3},
		}},
		{"gather p=2", gatherSchedule(2), []chainMsg{{1, 0, 0, 1}}},
		{"scatter p=2", scatterSchedule(2), []chainMsg{{0, 1, 0, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.got)
		})
	}
}

// Two-level on a 3x2x2 torus (factors 3, 2, 2; the BlueConnect paper's
// Fig. 1 grouping): the masters are the NPUs of local position 0 (0, 3, 6,
// 9). Bytes each role sends for a chunk of N = 1200 (one direction, messages
// of 400 B so a block of N/3 is one message):
//
//	             RS ring  gather   masters' AR      scatter  AG ring  total
//	master (0)   800      0        2·(3/4)·1200=1800 800     800      4200
//	member 1     800      800      0                400      800      2800
//	member 2     800      400      0                0        800      2000
//
// (RS and AG: (p0−1)/p0·N = 800; gather: member r passes blocks r..2, 400
// each; scatter: the master sends blocks 2 and 1, member 1 passes block 2.)
// The average, (4200+2800+2000)/3 = 3000 = 2.5 N, is Eq. (4)'s traffic:
// more than BlueConnect's and the flat ring's 2(P−1)/P·N = 2200.
func TestTwoLevelPhasesAndBytes(t *testing.T) {
	c := cfg("3x2x2", OpAllReduce)
	c.MessageBytes, c.Unidirectional = 400, true
	const n = 1200
	plan, err := NewPlan(c, "two-level", n, n)
	require.NoError(t, err)
	require.Equal(t, []string{
		"reduce-scatter on tier 0 (local) (ring)",
		"gather to the master on tier 0 (local) (chain)",
		"all-reduce among the 4 masters (ring)",
		"scatter from the master on tier 0 (local) (chain)",
		"all-gather on tier 0 (local) (ring)",
	}, plan.Algo.Phases())
	want := map[int][]int64{
		0: {800, 0, 1800, 800, 800},
		1: {800, 800, 0, 400, 800},
		2: {800, 400, 0, 0, 800},
	}
	var total int64
	for npu := 0; npu < 12; npu++ {
		var got []int64
		for ph := 0; ph < plan.NumPhases(); ph++ {
			b := plan.Program(npu, ph, n).SentBytes()
			got = append(got, b)
			total += b
		}
		require.Equal(t, want[npu%3], got, "NPU %d", npu)
	}
	require.Equal(t, int64(12*3000), total)
}

// With one tier (a 4x1x1 torus) there are no masters to join: reduce and
// broadcast within the one group, four phases. By hand, N = 4096 B in
// blocks of 1024: the ring reduce-scatter and all-gather send 3/4·N =
// 3072 B from every NPU; the chain gather to the master, NPU 0, carries
// NPU 3's block to 2 (1024 B), 2's and 3's to 1 (2048) and three to 0
// (3072), and the scatter the same back.
func TestTwoLevelOneTier(t *testing.T) {
	plan, err := NewPlan(cfg("4x1x1", OpAllReduce), "two-level", 4096, 4096)
	require.NoError(t, err)
	require.Len(t, plan.Algo.Phases(), 4)
	want := [][4]int64{ // per NPU: RS, gather, scatter, AG
		{3072, 0, 3072, 3072},
		{3072, 3072, 2048, 3072},
		{3072, 2048, 1024, 3072},
		{3072, 1024, 0, 3072},
	}
	for npu, w := range want {
		for ph := range 4 {
			require.Equal(t, w[ph], plan.Program(npu, ph, 4096).SentBytes(), "NPU %d phase %d", npu, ph)
		}
	}
}

func TestTwoLevelRefusals(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"reduce-scatter", cfg("4x2x2", OpReduceScatter), "does not run reduce-scatter"},
		{"factors", func() Config { c := cfg("4x2x2", OpAllReduce); c.Factors = []int{3, 5}; return c }(), "multiply to 15"},
		{"masters' ring too large", func() Config { c := cfg("2x32x32", OpAllReduce); c.Factors = []int{2, 1024}; return c }(), "ring of masters of 1024 NPUs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPlan(tc.cfg, "two-level", 4096, 4096)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

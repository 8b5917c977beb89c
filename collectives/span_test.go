package collectives

import (
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func spanPlan(t *testing.T, topo string, op CollectiveOp, span []string, phases string) (*Plan, error) {
	t.Helper()
	return commPlan(t, topo, op, phases, func(c *Config) { c.Span = span })
}

// commPlan is the hierarchical plan of 64 KiB of op on the torus topo, in
// one chunk, with phases (empty: the default) and a communicator that comm
// sets.
func commPlan(t *testing.T, topo string, op CollectiveOp, phases string, comm func(*Config)) (*Plan, error) {
	t.Helper()
	s, err := torus.Parse(topo)
	require.NoError(t, err)
	cfg := Config{Machine: s.Machine(), Op: op, MessageBytes: 8 << 10, PhaseSpec: phases}
	comm(&cfg)
	return NewPlan(cfg, "hierarchical", 64<<10, 64<<10)
}

// A torus NPU's id is l + 4v + 16h on 4x4x4. NPU 5 is (l 1, v 1, h 0); its
// group of v,h is every NPU with l = 1: 1 + 4v + 16h for v, h in 0..3, 16
// NPUs. Its group of l is 4..7 (v 1, h 0); of l,h: 4 + l + 16h.
func TestMembersOfASpan(t *testing.T) {
	for _, tc := range []struct {
		span []string
		want []int
	}{
		{[]string{"v", "h"}, []int{1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61}},
		{[]string{"horizontal", "vertical"}, []int{1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61}},
		{[]string{"l"}, []int{4, 5, 6, 7}},
		{[]string{"l", "h"}, []int{4, 5, 6, 7, 20, 21, 22, 23, 36, 37, 38, 39, 52, 53, 54, 55}},
	} {
		p, err := spanPlan(t, "4x4x4", OpAllReduce, tc.span, "")
		require.NoError(t, err, "%v", tc.span)
		require.Equal(t, tc.want, p.Members(5), "%v", tc.span)
		require.Equal(t, len(tc.want), p.GroupSize())
	}
	whole, err := spanPlan(t, "4x2x2", OpAllReduce, nil, "")
	require.NoError(t, err)
	require.Len(t, whole.Members(3), 16)
}

// The paper's scheme over the group's dimensions only: an all-reduce over
// v,h is RS vertical, AR horizontal, AG vertical; a reduce-scatter RS each,
// an all-gather AG each in reverse.
func TestDefaultPhasesOverASpan(t *testing.T) {
	for _, tc := range []struct {
		op   CollectiveOp
		want []string
	}{
		{OpAllReduce, []string{"reduce-scatter on vertical (ring)", "all-reduce on horizontal (ring)", "all-gather on vertical (ring)"}},
		{OpReduceScatter, []string{"reduce-scatter on vertical (ring)", "reduce-scatter on horizontal (ring)"}},
		{OpAllGather, []string{"all-gather on horizontal (ring)", "all-gather on vertical (ring)"}},
	} {
		p, err := spanPlan(t, "4x4x4", tc.op, []string{"v", "h"}, "")
		require.NoError(t, err, "%s", tc.op)
		require.Equal(t, tc.want, p.Algo.Phases(), "%s", tc.op)
	}
}

func TestSpanRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		span   []string
		phases string
		want   string
	}{
		{"unknown dimension", []string{"v", "z"}, "", `group dimension "z" is not local, vertical or horizontal`},
		{"twice", []string{"v", "vertical"}, "", "vertical is given twice"},
		{"a phase outside the group", []string{"v", "h"}, "rs:local,ar:vertical,ar:horizontal,ag:local", "combine local, outside the group"},
		{"a dimension of the group left out", []string{"v", "h"}, "ar:vertical", "cover 1 of its 2 dimensions"},
		{"a dimension twice", []string{"v", "h"}, "ar:vertical,ar:vertical,ar:horizontal", "cover vertical twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := spanPlan(t, "4x4x4", OpAllReduce, tc.span, tc.phases)
			require.ErrorContains(t, err, tc.want)
		})
	}
	s, err := torus.Parse("4x4x4")
	require.NoError(t, err)
	for _, alg := range []string{"ring", "blueconnect"} {
		_, err = NewPlan(Config{Machine: s.Machine(), Op: OpAllReduce, MessageBytes: 8 << 10, Span: []string{"v"}}, alg, 64<<10, 64<<10)
		require.ErrorContains(t, err, "runs the hierarchical", alg)
	}
	_, err = NewPlan(Config{Machine: s.Machine(), Op: OpAllToAll, MessageBytes: 8 << 10, Span: []string{"v"}}, "direct", 64<<10, 64<<10)
	require.ErrorContains(t, err, "runs the hierarchical")
}

package collectives

import (
	"fmt"
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func hdGroup(p int) []int {
	g := make([]int, p)
	for i := range g {
		g[i] = 10 + i
	}
	return g
}

func TestHalvingDoublingStepsAndBytes(t *testing.T) {
	tests := []struct {
		name      string
		kind      PhaseKind
		p         int
		view, msg int64
		steps     int
		ops       int   // send+receive ops of one NPU
		sent      int64 // bytes sent by one NPU
	}{
		// All-reduce on 8 NPUs: 2·log2 8 = 6 steps. Halving sends 4096 +
		// 2048 + 1024 = 7168 = (P-1)/P·N, doubling the same back: 14336 =
		// 2(P-1)/P·8192. One message per exchange: 6 sends + 6 receives.
		{"all-reduce p=8", AllReduce, 8, 8192, 8192, 6, 12, 14336},
		// All-reduce on 4 NPUs: 2·log2 4 = 4 steps; 4096 + 2048 twice =
		// 12288 = 2·3/4·8192.
		{"all-reduce p=4", AllReduce, 4, 8192, 8192, 4, 8, 12288},
		// Messages of 1000 B: the 4096 B halves go as ceil(4096/1000) = 5
		// messages, the 2048 B quarters as 3: (5+3+3+5) sends and as many
		// receives = 32 ops; bytes unchanged.
		{"all-reduce p=4 small messages", AllReduce, 4, 8192, 1000, 4, 32, 12288},
		// Reduce-scatter on 8: log2 8 = 3 steps, 7168 B.
		{"reduce-scatter p=8", ReduceScatter, 8, 8192, 8192, 3, 6, 7168},
		// All-gather on 8: 3 steps, 1024 + 2048 + 4096 = 7168 B.
		{"all-gather p=8", AllGather, 8, 8192, 8192, 3, 6, 7168},
		// A pair: one step each way, half the view: 4096 B.
		{"reduce-scatter p=2", ReduceScatter, 2, 8192, 8192, 1, 2, 4096},
		// A group of one does nothing.
		{"all-reduce p=1", AllReduce, 1, 8192, 8192, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for pos := 0; pos < tc.p; pos++ {
				prog, err := HalvingDoublingProgram(GroupSpec{Kind: tc.kind, Members: hdGroup(tc.p), Pos: pos,
					ViewLen: tc.view, MessageBytes: tc.msg})
				require.NoError(t, err)
				require.NoError(t, prog.Validate())
				require.Equal(t, tc.steps, prog.Steps)
				require.Len(t, prog.Ops, tc.ops)
				require.Equal(t, tc.sent, prog.SentBytes())
				for _, op := range prog.Ops {
					require.LessOrEqual(t, op.Data.Len, tc.msg)
					require.Less(t, int(op.Step), tc.steps)
				}
			}
		})
	}
}

// Member 5 of 8 over 8 blocks of 1 KB: step 0 (distance 4) keeps the upper
// half, blocks 4-7, and sends blocks 0-3 to member 1; step 1 (distance 2)
// keeps blocks 4-5 and sends 6-7 to member 7; step 2 (distance 1) keeps
// block 5 and sends block 4 to member 4. It ends owning block 5.
func TestHalvingScheme(t *testing.T) {
	g := hdGroup(8)
	prog, err := HalvingDoublingProgram(GroupSpec{Kind: ReduceScatter, Members: g, Pos: 5, ViewLen: 8192, MessageBytes: 8192})
	require.NoError(t, err)
	require.Equal(t, []Range{{5120, 1024}}, prog.Out)
	want := []struct {
		kind       Kind
		peer       int
		data       Range
		step       int32
		deps       []int32
		reduce     bool
		matchIndex int32
	}{
		{Send, g[1], Range{0, 4096}, 0, nil, false, 1},
		{Recv, g[1], Range{4096, 4096}, 0, nil, true, 0},
		{Send, g[7], Range{6144, 2048}, 1, []int32{1}, false, 3},
		{Recv, g[7], Range{4096, 2048}, 1, []int32{1}, true, 0},
		{Send, g[4], Range{4096, 1024}, 2, []int32{3}, false, 5},
		{Recv, g[4], Range{5120, 1024}, 2, []int32{3}, true, 0},
	}
	require.Len(t, prog.Ops, len(want))
	for i, w := range want {
		op := prog.Ops[i]
		require.Equal(t, w.kind, op.Kind, "op %d", i)
		require.Equal(t, int32(w.peer), op.Peer, "op %d", i)
		require.Equal(t, w.data, op.Data, "op %d", i)
		require.Equal(t, w.step, op.Step, "op %d", i)
		require.Equal(t, w.deps, op.Deps, "op %d", i)
		require.Equal(t, w.reduce, op.Reduce, "op %d", i)
		if op.Kind == Send {
			require.Equal(t, w.matchIndex, op.Match, "op %d", i)
		}
	}
	// The all-gather starts from that block: step 0 sends block 5 to member
	// 4 and stores block 4 from it.
	ag, err := HalvingDoublingProgram(GroupSpec{Kind: AllGather, Members: g, Pos: 5, ViewLen: 8192, MessageBytes: 8192})
	require.NoError(t, err)
	require.Equal(t, Range{5120, 1024}, ag.Ops[0].Data)
	require.Equal(t, int32(g[4]), ag.Ops[0].Peer)
	require.Equal(t, Range{4096, 1024}, ag.Ops[1].Data)
	require.False(t, ag.Ops[1].Reduce)
}

// Every send's Match is a receive on the peer, from this NPU, of the same
// range, in the same step; reduce-scatter outputs partition the view and an
// all-gather of member r sends block r first. Sizes that do not divide.
func TestHalvingDoublingMatches(t *testing.T) {
	for _, kind := range []PhaseKind{ReduceScatter, AllGather, AllReduce} {
		for _, p := range []int{2, 4, 8, 16} {
			for _, sz := range []struct{ view, msg int64 }{{10007, 100}, {13, 4}, {5, 8192}} {
				t.Run(fmt.Sprintf("%s/p=%d/%d/%d", kind, p, sz.view, sz.msg), func(t *testing.T) {
					g := hdGroup(p)
					progs := make([]*Program, p)
					for pos := range progs {
						var err error
						progs[pos], err = HalvingDoublingProgram(GroupSpec{Kind: kind, Members: g, Pos: pos, ViewLen: sz.view, MessageBytes: sz.msg})
						require.NoError(t, err)
						require.NoError(t, progs[pos].Validate())
					}
					owned := int64(0)
					for pos, prog := range progs {
						for _, op := range prog.Ops {
							require.Greater(t, op.Data.Len, int64(0))
							if op.Kind == Recv {
								continue
							}
							peer := progs[op.Peer-10]
							require.Less(t, int(op.Match), len(peer.Ops))
							r := peer.Ops[op.Match]
							require.Equal(t, Recv, r.Kind)
							require.Equal(t, int32(g[pos]), r.Peer)
							require.Equal(t, op.Data, r.Data)
							require.Equal(t, op.Step, r.Step)
						}
						if kind == ReduceScatter {
							owned += rangesLen(prog.Out)
						}
						if b := split(0, sz.view, p)[pos]; kind == AllGather && b.Len > 0 {
							require.Equal(t, b.Off, prog.Ops[0].Data.Off)
						}
					}
					if kind == ReduceScatter {
						require.Equal(t, sz.view, owned)
					}
				})
			}
		}
	}
}

// On a ring, only partners next to each other use ring ports: on a ring of
// 4, distance 2 is routed, distance 1 leaves by Plus towards the next member
// and Minus towards the previous one; on a ring of 2 the partner is both and
// Plus is used.
func TestHalvingDoublingPorts(t *testing.T) {
	plus := int8(torus.Port{Dim: torus.Vertical, Dir: torus.Plus}.Index())
	minus := int8(torus.Port{Dim: torus.Vertical, Dir: torus.Minus}.Index())
	tests := []struct {
		p, pos int
		onRing bool
		want   []int8 // port of each step's send (one message per step)
	}{
		{4, 0, true, []int8{RouteXYZ, plus}},
		{4, 1, true, []int8{RouteXYZ, minus}},
		{4, 3, true, []int8{RouteXYZ, minus}},
		{4, 0, false, []int8{RouteXYZ, RouteXYZ}},
		{2, 1, true, []int8{plus}},
		{8, 6, true, []int8{RouteXYZ, RouteXYZ, plus}},
	}
	for _, tc := range tests {
		prog, err := HalvingDoublingProgram(GroupSpec{Kind: ReduceScatter, Members: hdGroup(tc.p), Pos: tc.pos, OnRing: tc.onRing,
			Plus: int8(torus.Port{Dim: torus.Vertical, Dir: torus.Plus}.Index()), Minus: int8(torus.Port{Dim: torus.Vertical, Dir: torus.Minus}.Index()),
			ViewLen: 1 << 10, MessageBytes: 1 << 20})
		require.NoError(t, err)
		var got []int8
		for _, op := range prog.Ops {
			if op.Kind == Send {
				got = append(got, op.Port)
			}
		}
		require.Equal(t, tc.want, got, "p=%d pos=%d ring=%v", tc.p, tc.pos, tc.onRing)
	}
}

// In an all-reduce, the all-gather's last step stores into the half the
// reduce-scatter's first step sent: those receives wait for those sends.
func TestHalvingDoublingAllReduceWaitsBeforeOverwriting(t *testing.T) {
	prog, err := HalvingDoublingProgram(GroupSpec{Kind: AllReduce, Members: hdGroup(4), Pos: 0, ViewLen: 4096, MessageBytes: 8192})
	require.NoError(t, err)
	// Ops: RS step 0 send [2048,4096) (0), recv [0,2048) (1); RS step 1 send
	// [1024,2048) (2), recv [0,1024) (3); AG step 0 send [0,1024) (4), recv
	// [1024,2048) (5); AG step 1 send [0,2048) (6), recv [2048,4096) (7).
	require.Equal(t, Range{2048, 2048}, prog.Ops[7].Data)
	require.Equal(t, []int32{0}, prog.Ops[7].Deps) // never written before, sent by op 0
	// Block 1 was reduced into by op 1 and sent by op 2 before it is stored.
	require.Equal(t, []int32{1, 2}, prog.Ops[5].Deps)
	require.Equal(t, []int32{3, 5}, prog.Ops[6].Deps) // block 0 reduced by op 3, block 1 stored by op 5
}

func TestHalvingDoublingErrors(t *testing.T) {
	_, err := HalvingDoublingProgram(GroupSpec{Members: []int{0, 1, 2}, Pos: 0, ViewLen: 10, MessageBytes: 1})
	require.ErrorContains(t, err, "not 3")
	require.ErrorContains(t, err, "ring")
	_, err = HalvingDoublingProgram(GroupSpec{Members: []int{0, 1}, Pos: 2, ViewLen: 10, MessageBytes: 1})
	require.ErrorContains(t, err, "position out of range")
	_, err = HalvingDoublingProgram(GroupSpec{Members: []int{0, 1}, Pos: 0, ViewLen: 10})
	require.ErrorContains(t, err, "message size")

	tests := []struct {
		name, topo, alg, phases string
		want                    []string
	}{
		{"whole collective on 3 NPUs", "3x1x1", "halving-doubling", "", []string{"3", "power-of-two", "ring"}},
		{"whole collective on 12 NPUs", "3x2x2", "halving-doubling", "", []string{"12"}},
		{"phase on a dimension of 3", "3x2x2", "hierarchical", "rs:local:halving-doubling,ar:vertical,ar:horizontal,ag:local:halving-doubling", []string{"not 3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg(tc.topo, OpAllReduce)
			c.PhaseSpec = tc.phases
			_, err := NewPlan(c, tc.alg, 4096, 4096)
			require.Error(t, err)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

// The registered algorithm is one phase over all NPUs; phases can name the
// group algorithm.
func TestHalvingDoublingRegistered(t *testing.T) {
	plan, err := NewPlan(cfg("8x1x1", OpAllReduce), "halving-doubling", 8192, 8192)
	require.NoError(t, err)
	require.Equal(t, 1, plan.NumPhases())
	require.Equal(t, "all-reduce on local (halving-doubling)", plan.PhaseName(0))
	for npu := 0; npu < 8; npu++ {
		prog := plan.Program(npu, 0, 8192)
		require.Equal(t, 6, prog.Steps)
		require.Equal(t, int64(14336), prog.SentBytes())
	}
	c := cfg("4x4x4", OpAllReduce)
	c.PhaseSpec = "rs:local:halving-doubling,ar:vertical:ring,ar:horizontal:ring,ag:local:halving-doubling"
	plan, err = NewPlan(c, "hierarchical", 64<<10, 64<<10)
	require.NoError(t, err)
	// Same bytes as the ring in the local phases: 3/4 · 64 KB = 48 KB.
	require.Equal(t, int64(48<<10), plan.Program(0, 0, 64<<10).SentBytes())
	require.Equal(t, int64(48<<10), plan.Program(0, 3, 64<<10).SentBytes())
	require.Contains(t, GroupAlgorithmNames(), "halving-doubling")
}

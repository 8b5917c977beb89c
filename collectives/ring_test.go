package collectives

import (
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func TestRingProgramStepsAndBytes(t *testing.T) {
	tests := []struct {
		name      string
		kind      PhaseKind
		p         int
		view, msg int64
		bidir     bool
		steps     int
		ops       int   // send+receive ops
		sent      int64 // bytes sent by one NPU
	}{
		// Ring all-reduce on 4 NPUs, one direction, one round of 4 blocks of
		// 1 KB: 2(P-1) = 6 steps, 6 sends + 6 receives; sends 6 × 1 KB =
		// 2(P-1)/P · 4 KB = 6 KB.
		{"all-reduce p=4 uni", AllReduce, 4, 4096, 8192, false, 6, 12, 6144},
		// Bidirectional: two lanes of 2 KB, blocks of 512 B: 2 × 6 sends of
		// 512 B = 6 KB, still 2(P-1)/P · 4 KB.
		{"all-reduce p=4 bidir", AllReduce, 4, 4096, 8192, true, 6, 24, 6144},
		// The paper's local phase: 64 KB chunk, both directions, 8 KB
		// messages: a lane of 32 KB is one round of 4 × 8 KB; reduce-scatter
		// sends 3 × 8 KB per lane, 48 KB = 3/4 · 64 KB.
		{"reduce-scatter local 64KB", ReduceScatter, 4, 65536, 8192, true, 3, 12, 49152},
		// A ring of 2 with 64 KB: a lane of 32 KB needs 32768/(2·8192) = 2
		// serial rounds of two 8 KB blocks; all-gather sends 1 block per
		// round: 2 lanes × 2 rounds × 8 KB = 32 KB = (P-1)/P · 64 KB.
		{"all-gather p=2 two rounds", AllGather, 2, 65536, 8192, true, 1, 8, 32768},
		// Ring all-reduce on 3 NPUs, 3 messages (Fig. 8): 4 steps.
		{"fig8 ring of 3", AllReduce, 3, 3 * 8192, 8192, false, 4, 8, 4 * 8192},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ring := make([]int, tc.p)
			for i := range ring {
				ring[i] = 10 + i
			}
			for pos := 0; pos < tc.p; pos++ {
				prog, err := RingProgram(GroupSpec{Kind: tc.kind, OnRing: true, Plus: localPlus, Minus: localMinus, Members: ring, Pos: pos,
					ViewLen: tc.view, MessageBytes: tc.msg, Bidirectional: tc.bidir})
				require.NoError(t, err)
				require.NoError(t, prog.Validate())
				require.Equal(t, tc.steps, prog.Steps)
				require.Len(t, prog.Ops, tc.ops)
				require.Equal(t, tc.sent, prog.SentBytes())
				for i, op := range prog.Ops {
					require.LessOrEqual(t, op.Data.Len, tc.msg)
					if op.Kind == Send {
						require.Equal(t, int32(i+1), op.Match)
						require.NotEqual(t, int32(ring[pos]), op.Peer)
					}
				}
			}
		})
	}
}

// Reduce-scatter leaves NPU r owning block r of each lane and round: on a
// uni-directional ring of 4 over 4 KB, NPU 2 owns bytes [2048, 3072).
func TestRingReduceScatterOwnsBlockR(t *testing.T) {
	prog, err := RingProgram(GroupSpec{Kind: ReduceScatter, OnRing: true, Plus: localPlus, Minus: localMinus, Members: []int{0, 1, 2, 3}, Pos: 2,
		ViewLen: 4096, MessageBytes: 8192})
	require.NoError(t, err)
	require.Equal(t, []Range{{2048, 1024}}, prog.Out)
	// Step 0 sends block r-1 = 1 to NPU 3 and receives block r-2 = 0 from NPU 1.
	require.Equal(t, Op{Kind: Send, Peer: 3, Port: int8(torus.Port{Dim: torus.Local, Dir: torus.Plus}.Index()), Match: 1, Data: Range{1024, 1024}}, prog.Ops[0])
	require.Equal(t, int32(1), prog.Ops[1].Peer)
	require.Equal(t, Range{0, 1024}, prog.Ops[1].Data)
	require.True(t, prog.Ops[1].Reduce)
}

func TestRingProgramErrors(t *testing.T) {
	_, err := RingProgram(GroupSpec{Members: []int{0, 1}, Pos: 2, ViewLen: 10, MessageBytes: 1})
	require.ErrorContains(t, err, "position out of range")
	_, err = RingProgram(GroupSpec{Members: []int{0, 1}, Pos: 0, ViewLen: 10})
	require.ErrorContains(t, err, "message size")
}

func TestMapRanges(t *testing.T) {
	view := []Range{{100, 10}, {200, 10}, {300, 10}}
	require.Equal(t, []Range{{105, 5}, {200, 3}}, mapRanges(view, []Range{{5, 8}}))
	require.Equal(t, []Range{{300, 10}}, mapRanges(view, []Range{{20, 10}}))
}

// The local ring's ports, as the torus's machine gives them.
var localPlus, localMinus = int8(torus.Port{Dim: torus.Local, Dir: torus.Plus}.Index()), int8(torus.Port{Dim: torus.Local, Dir: torus.Minus}.Index())

package collectives

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDirectAllToAllBytes(t *testing.T) {
	tests := []struct {
		name       string
		topo       string
		chunk, msg int64
		q          int64 // block: floor(chunk/P)
		sends      int   // messages sent by one NPU
		sent       int64 // bytes sent by one NPU
	}{
		// 16 NPUs, 16 KiB: q = 16384/16 = 1024; 15 other NPUs × 1 KiB =
		// 15 KiB, one message each.
		{"4x2x2 16KiB", "4x2x2", 16 << 10, 8192, 1024, 15, 15 << 10},
		// 1000 B on 16 NPUs: q = floor(1000/16) = 62 (16 × 62 = 992), so the
		// 8-byte tail [992, 1000) stays; 15 × 62 = 930 B sent.
		{"4x2x2 1000B", "4x2x2", 1000, 8192, 62, 15, 930},
		// 500 B messages: a 1 KiB block is ceil(1024/500) = 3 messages,
		// 15 × 3 = 45 sends, still 15 KiB.
		{"4x2x2 small messages", "4x2x2", 16 << 10, 500, 1024, 45, 15 << 10},
		// 27 NPUs, 3001 B: q = 111, tail 3001 - 27 × 111 = 4; 26 × 111 = 2886.
		{"3x3x3", "3x3x3", 3001, 100, 111, 26 * 2, 2886},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg(tc.topo, OpAllToAll)
			c.MessageBytes = tc.msg
			plan, err := NewPlan(c, "direct", tc.chunk, tc.chunk)
			require.NoError(t, err)
			require.Equal(t, 1, plan.NumPhases())
			p := c.Machine.N()
			require.Equal(t, tc.q, AllToAllBlock(tc.chunk, p))
			progs := make([]*Program, p)
			for npu := range progs {
				progs[npu] = plan.Program(npu, 0, tc.chunk)
			}
			for npu, prog := range progs {
				require.Equal(t, 1, prog.Steps)
				require.Equal(t, []Range{{0, tc.chunk}}, prog.View)
				require.Equal(t, tc.sent, prog.SentBytes())
				sends := 0
				for i, op := range prog.Ops {
					require.LessOrEqual(t, op.Data.Len, tc.msg)
					require.Equal(t, int8(RouteXYZ), op.Port)
					require.LessOrEqual(t, op.Data.End(), int64(p)*tc.q, "the tail stays")
					require.NotEqual(t, int32(npu), op.Peer)
					if op.Kind == Recv {
						// Into the block of the source, after sending it.
						require.False(t, op.Reduce)
						require.Equal(t, int64(op.Peer), op.Data.Off/tc.q)
						require.Len(t, op.Deps, 1)
						s := prog.Ops[op.Deps[0]]
						require.Equal(t, Send, s.Kind)
						require.Equal(t, op.Peer, s.Peer)
						require.Equal(t, op.Data, s.Data)
						continue
					}
					sends++
					// Block j goes to NPU j, into block npu there.
					require.Equal(t, int64(op.Peer), op.Data.Off/tc.q)
					r := progs[op.Peer].Ops[op.Match]
					require.Equal(t, Recv, r.Kind, "NPU %d op %d", npu, i)
					require.Equal(t, int32(npu), r.Peer)
					require.Equal(t, op.Data.Len, r.Data.Len)
					require.Equal(t, int64(npu)*tc.q+op.Data.Off%tc.q, r.Data.Off)
				}
				require.Equal(t, tc.sends, sends)
			}
		})
	}
}

// NPU i sends to i+1, i+2, … mod P in that order, and receives from i-1,
// i-2, … in that order.
func TestDirectAllToAllOrder(t *testing.T) {
	plan, err := NewPlan(cfg("4x1x1", OpAllToAll), "direct", 4096, 4096)
	require.NoError(t, err)
	prog := plan.Program(2, 0, 4096)
	var to, from []int32
	for _, op := range prog.Ops {
		if op.Kind == Send {
			to = append(to, op.Peer)
		} else {
			from = append(from, op.Peer)
		}
	}
	require.Equal(t, []int32{3, 0, 1}, to)
	require.Equal(t, []int32{1, 0, 3}, from)
	require.Equal(t, Range{3072, 1024}, prog.Ops[0].Data)
	require.Equal(t, int32(3), prog.Ops[0].Match) // NPU 3 receives from 2 first: its op 3
	require.Nil(t, plan.Algo.Input(2, 4096))
	require.Nil(t, plan.Algo.Output(2, 4096))
}

func TestDirectOnlyAllToAll(t *testing.T) {
	_, err := NewPlan(cfg("4x1x1", OpAllReduce), "direct", 4096, 4096)
	require.ErrorContains(t, err, "does not run allreduce")
	require.Equal(t, "direct", DefaultAlgorithm(OpAllToAll))
}

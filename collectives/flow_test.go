package collectives

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flowPlan builds a plan for the flow tests (its own helper, so these tests
// do not depend on other files' helpers).
func flowPlan(t *testing.T, shape torus.Shape, op CollectiveOp, alg string, payload, chunk, msg int64) *Plan {
	t.Helper()
	p, err := NewPlan(Config{Machine: shape.Machine(), Op: op, MessageBytes: msg}, alg, payload, chunk)
	require.NoError(t, err)
	return p
}

// flowWant is a program's expected flow, by op index.
type flowWant struct {
	forwardOf []int32 // -1: not a forward
	store     []bool  // sends: false
	read      int64
	write     int64
}

func checkFlow(t *testing.T, p *Program, w flowWant) {
	t.Helper()
	require.Len(t, p.Ops, len(w.forwardOf))
	f := Analyze(p)
	assert.Equal(t, w.forwardOf, f.ForwardOf, "ForwardOf")
	assert.Equal(t, w.store, f.Store, "Store")
	read, write := f.SRAMBytes(p)
	assert.Equal(t, w.read, read, "SRAM read bytes")
	assert.Equal(t, w.write, write, "SRAM write bytes")
	checkFlowConsistent(t, p, f)
}

// checkFlowConsistent checks what holds for any program: Forwards is the
// inverse of ForwardOf, a forward has exactly its Recv's data and depends on
// it alone, and a Recv that does not store has forwards.
func checkFlowConsistent(t *testing.T, p *Program, f Flow) {
	t.Helper()
	n := len(p.Ops)
	require.Len(t, f.ForwardOf, n)
	require.Len(t, f.Forwards, n)
	require.Len(t, f.Store, n)
	for i, op := range p.Ops {
		if r := f.ForwardOf[i]; r >= 0 {
			require.Equal(t, Send, op.Kind, "op %d", i)
			require.Equal(t, Recv, p.Ops[r].Kind, "op %d forwards op %d", i, r)
			require.Equal(t, p.Ops[r].Data, op.Data, "op %d", i)
			for _, d := range op.Deps {
				require.Equal(t, r, d, "op %d", i)
			}
			require.Contains(t, f.Forwards[r], int32(i))
		}
		for _, s := range f.Forwards[i] {
			require.Equal(t, int32(i), f.ForwardOf[s])
		}
		if op.Kind == Send {
			require.False(t, f.Store[i], "op %d is a send", i)
			require.Empty(t, f.Forwards[i], "op %d is a send", i)
		} else if len(f.Forwards[i]) == 0 {
			require.True(t, f.Store[i], "op %d has no forwards", i)
		}
	}
}

// Ring of 4, one direction, one round, 4 KB view: blocks of 1 KB, NPU at
// position 0 (r = 0, so block r-k is block (4-k) mod 4). Op 2t is the send of
// step t, op 2t+1 its receive; every send but the first depends on the
// previous receive alone.
//
//	RS step 0: send blk 3 (no deps: from SRAM), recv blk 2 +
//	RS step 1: send blk 2 ← forward of op 1, recv blk 1 +
//	RS step 2: send blk 1 ← forward of op 3, recv blk 0 + (own block)
//	AG step 0: send blk 0 ← forward of op 5, recv blk 3 (store)
//	AG step 1: send blk 3 ← forward of op 7, recv blk 2 (store)
//	AG step 2: send blk 2 ← forward of op 9, recv blk 1 (store)
//
// All-reduce: op 1 (blk 2) is read again only by its forward and is
// overwritten by op 9 (AG store of blk 2) before op 10 sends blk 2 again:
// dead. Op 3 (blk 1) likewise, overwritten by op 11: dead. Op 5 (blk 0) is
// never overwritten and is in Out (the whole view): live. Every AG receive
// lands in Out and is never overwritten: live.
// Reads: op 0 (1 KB) + 3 reduces × 1 KB = 4 KB; writes: op 5 + ops 7, 9, 11 =
// 4 KB. (Counting every send and receive it would be 6 + 3 KB read and 6 KB
// written.)
//
// Reduce-scatter: ops 0..5 as above; Out is block 0. Op 1 and op 3 are
// forwarded and never read again, not in Out: dead. Op 5 has no forward (no
// all-gather follows in the program): stores. Reads 1 + 3 KB; writes 1 KB.
//
// All-gather: send blk 0 (from SRAM), recv blk 3; send blk 3 ← op 1, recv
// blk 2; send blk 2 ← op 3, recv blk 1. Every receive is in Out: stores.
// Reads 1 KB (op 0); writes 3 KB.
//
// Bidirectional all-reduce: two lanes of 2 KB (blocks of 512 B), each the
// same pattern: reads 2 × 2 KB, writes 2 × 2 KB.
func TestAnalyzeRing(t *testing.T) {
	const n = -1
	tests := []struct {
		name  string
		kind  PhaseKind
		bidir bool
		want  flowWant
	}{
		{"all-reduce", AllReduce, false, flowWant{
			forwardOf: []int32{n, n, 1, n, 3, n, 5, n, 7, n, 9, n},
			store:     []bool{false, false, false, false, false, true, false, true, false, true, false, true},
			read:      4096, write: 4096,
		}},
		{"reduce-scatter", ReduceScatter, false, flowWant{
			forwardOf: []int32{n, n, 1, n, 3, n},
			store:     []bool{false, false, false, false, false, true},
			read:      4096, write: 1024,
		}},
		{"all-gather", AllGather, false, flowWant{
			forwardOf: []int32{n, n, 1, n, 3, n},
			store:     []bool{false, true, false, true, false, true},
			read:      1024, write: 3072,
		}},
		{"all-reduce bidirectional", AllReduce, true, flowWant{
			forwardOf: []int32{n, n, 1, n, 3, n, 5, n, 7, n, 9, n,
				n, n, 13, n, 15, n, 17, n, 19, n, 21, n},
			store: []bool{false, false, false, false, false, true, false, true, false, true, false, true,
				false, false, false, false, false, true, false, true, false, true, false, true},
			read: 4096, write: 4096,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for pos := 0; pos < 4; pos++ {
				prog, err := RingProgram(GroupSpec{Kind: tc.kind, Members: []int{0, 1, 2, 3}, Pos: pos,
					ViewLen: 4096, MessageBytes: 8192, OnRing: true, Bidirectional: tc.bidir})
				require.NoError(t, err)
				checkFlow(t, prog, tc.want)
			}
		})
	}
}

// Ring of 3 over three 8 KB messages (Fig. 8): RS step 1's send forwards
// step 0's reduce (2.2 → 2.3), AG step 0 forwards the last reduce (3.2 →
// 4.1), AG step 1 forwards the AG receive (5.2). Step 0's reduce is dead
// (overwritten by the last AG receive); the rest store. Reads: 8 KB (first
// send) + 2 × 8 KB (reduces) = 24 KB; writes: 8 KB (last reduce) + 2 × 8 KB.
func TestAnalyzeRingFig8(t *testing.T) {
	const n = -1
	prog, err := RingProgram(GroupSpec{Kind: AllReduce, Members: []int{0, 1, 2}, Pos: 1,
		ViewLen: 3 * 8192, MessageBytes: 8192, OnRing: true})
	require.NoError(t, err)
	checkFlow(t, prog, flowWant{
		forwardOf: []int32{n, n, 1, n, 3, n, 5, n},
		store:     []bool{false, false, false, true, false, true, false, true},
		read:      3 * 8192, write: 3 * 8192,
	})
}

// The paper's hierarchical all-reduce on 4x4x4, one 64 KB chunk (N = 65536),
// 8 KB messages, rings both ways (two lanes per phase). Per phase and NPU:
//
//	1 RS local, view 64 KB: a lane of 32 KB = 4 blocks of 8 KB, 3 steps.
//	  Per lane the step-0 send reads 8 KB, steps 1-2 are forwards; 3 reduces
//	  read 8 KB each; reduces 0-1 are forwarded and dead, reduce 2 (own
//	  block, no forward in this program) stores 8 KB.
//	  reads 2 × (8 + 24) = 64 KB, writes 2 × 8 = 16 KB.
//	2 AR vertical, view 16 KB (the two owned 8 KB blocks): lanes of 8 KB,
//	  blocks of 2 KB, the ring all-reduce pattern of TestAnalyzeRing: per
//	  lane reads 2 + 3 × 2 = 8 KB, writes 2 + 3 × 2 = 8 KB.
//	  reads 16 KB, writes 16 KB.
//	3 AR horizontal, the same: reads 16 KB, writes 16 KB.
//	4 AG local, view 64 KB: per lane the step-0 send reads 8 KB, steps 1-2
//	  are forwards; 3 receives store 8 KB each (in Out).
//	  reads 2 × 8 = 16 KB, writes 2 × 24 = 48 KB.
//
// Total reads 112 KB = 1.75 N: reduce operands 2×24 + 2×6 + 2×6 = 72 KB =
// 1.125 N and sends that start a lane 16 + 4 + 4 + 16 = 40 KB = 0.625 N;
// writes 16 + 16 + 16 + 48 = 96 KB = 1.5 N. Exactly docs/ace-model.md's
// estimate (reads 1.125 N + 0.625 N, writes 1.5 N, both without DMA), on
// every NPU.
func TestAnalyzeHierarchical4x4x4(t *testing.T) {
	const chunk = 65536
	plan := flowPlan(t, torus.Shape{L: 4, V: 4, H: 4}, OpAllReduce, "hierarchical", chunk, chunk, 8192)
	require.Equal(t, 4, plan.NumPhases())
	type rw struct{ read, write int64 }
	want := []rw{{65536, 16384}, {16384, 16384}, {16384, 16384}, {16384, 49152}}
	for npu := 0; npu < 64; npu++ {
		var total rw
		var reduceOperands, sendReads, naiveRead, naiveWrite int64
		for ph := range want {
			prog := plan.Program(npu, ph, chunk)
			f := Analyze(prog)
			checkFlowConsistent(t, prog, f)
			r, w := f.SRAMBytes(prog)
			require.Equal(t, want[ph], rw{r, w}, "NPU %d phase %d", npu, ph+1)
			total.read += r
			total.write += w
			for i, op := range prog.Ops {
				switch {
				case op.Kind == Send:
					naiveRead += op.Data.Len
					if f.ForwardOf[i] < 0 {
						sendReads += op.Data.Len
					}
				default:
					naiveWrite += op.Data.Len
					if op.Reduce {
						reduceOperands += op.Data.Len
						naiveRead += op.Data.Len
					}
				}
			}
		}
		require.Equal(t, rw{114688, 98304}, total, "NPU %d", npu)
		require.Equal(t, int64(chunk*9/8), reduceOperands, "1.125 N")
		require.Equal(t, int64(chunk*5/8), sendReads, "0.625 N")
		require.Equal(t, int64(chunk*7/4), total.read, "1.75 N")
		require.Equal(t, int64(chunk*3/2), total.write, "1.5 N")
		// Without the analysis: every send reads and every receive writes,
		// 2.25 N each, plus the reduce operands (the doc's first bullet).
		require.Equal(t, int64(chunk*9/4+chunk*9/8), naiveRead)
		require.Equal(t, int64(chunk*9/4), naiveWrite)
	}
}

// Tree all-reduce on 4x1x1 (tree 0 → 2 → {1, 3}), a 16 KB chunk in 8 KB
// messages: K = 2 pieces, [0, 8K) and [8K, 16K). Ops are ordered by step,
// receives first (tree.go):
//
//	NPU 2 (interior):
//	 0 recv p0 from 1 +        1 recv p0 from 3 +
//	 2 recv p1 from 1 +        3 recv p1 from 3 +
//	 4 send p0 to 0, deps {0,1}: two receives, not a forward
//	 5 send p1 to 0, deps {2,3,4}: not a forward
//	 6 recv p0 from 0 (store)  7 recv p1 from 0 (store)
//	 8 send p0 to 1, deps {6}: forward of 6
//	 9 send p0 to 3, deps {6}: forward of 6 (two forwards of one receive)
//	10 send p1 to 1, deps {7, 8}: also waits for the previous send on the
//	   link, so not a forward
//	11 send p1 to 3, deps {7, 9}: not a forward
//	Every receive stores: the reduces have no forward, 6 is in Out.
//	Reads: 4 reduces + sends 4, 5, 10, 11 = 8 × 8 KB; writes: 6 receives ×
//	8 KB.
//	NPU 0 (root, conventional): 0 recv p0 +, 1 recv p1 + (deps {0}),
//	2 send p0, deps {1}: one receive, but of p1, so not a forward;
//	3 send p1, deps {1, 2}. Reads 2 reduces + 2 sends, writes 2 receives.
//	NPU 1 and 3 (leaves): 0 send p0 (no deps), 1 send p1 (deps {0}),
//	2 and 3 receive and store. Reads 2 sends, writes 2 receives.
//
// With one piece (8 KB chunk) the root's down-send depends on its one
// receive, of the same piece: a forward, but that receive is in Out, so it
// still stores; NPU 2's two down-sends forward its receive from 0.
func TestAnalyzeTree(t *testing.T) {
	const n = -1
	const k8 = 8192
	tests := []struct {
		name  string
		chunk int64
		want  []flowWant // by NPU
	}{
		{"two pieces", 2 * k8, []flowWant{
			{forwardOf: []int32{n, n, n, n}, store: []bool{true, true, false, false}, read: 4 * k8, write: 2 * k8},
			{forwardOf: []int32{n, n, n, n}, store: []bool{false, false, true, true}, read: 2 * k8, write: 2 * k8},
			{
				forwardOf: []int32{n, n, n, n, n, n, n, n, 6, 6, n, n},
				store:     []bool{true, true, true, true, false, false, true, true, false, false, false, false},
				read:      8 * k8, write: 6 * k8,
			},
			{forwardOf: []int32{n, n, n, n}, store: []bool{false, false, true, true}, read: 2 * k8, write: 2 * k8},
		}},
		// NPU 0: 0 recv +, 1 send (forward of 0). NPU 1, 3: 0 send, 1 recv.
		// NPU 2: 0, 1 recv +, 2 send up (deps {0,1}), 3 recv, 4 and 5
		// forwards of 3.
		{"one piece", k8, []flowWant{
			{forwardOf: []int32{n, 0}, store: []bool{true, false}, read: k8, write: k8},
			{forwardOf: []int32{n, n}, store: []bool{false, true}, read: k8, write: k8},
			{forwardOf: []int32{n, n, n, n, 3, 3}, store: []bool{true, true, false, true, false, false}, read: 3 * k8, write: 3 * k8},
			{forwardOf: []int32{n, n}, store: []bool{false, true}, read: k8, write: k8},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := flowPlan(t, torus.Shape{L: 4, V: 1, H: 1}, OpAllReduce, "tree", tc.chunk, tc.chunk, k8)
			for npu, w := range tc.want {
				t.Run(fmt.Sprint("NPU ", npu), func(t *testing.T) {
					checkFlow(t, plan.Program(npu, 0, tc.chunk), w)
				})
			}
		})
	}
	// The fan-out: NPU 2's receive from the root has two forwards.
	plan := flowPlan(t, torus.Shape{L: 4, V: 1, H: 1}, OpAllReduce, "tree", 2*k8, 2*k8, k8)
	assert.Equal(t, []int32{8, 9}, Analyze(plan.Program(2, 0, 2*k8)).Forwards[6])
}

// Recursive halving-doubling all-reduce, p = 4, 4 KB view (blocks of 1 KB),
// position 0; every step is one message:
//
//	0 RS d=2: send blks 2-3, no deps                         read 2 KB
//	1         recv blks 0-1 +                               read 2 KB
//	2 RS d=1: send blk 1, deps {1}: part of op 1, not a forward  read 1 KB
//	3         recv blk 0 +, deps {1}                         read 1 KB
//	4 AG d=1: send blk 0, deps {3}: forward of op 3
//	5         recv blk 1, deps {1, 2}
//	6 AG d=2: send blks 0-1, deps {3, 5}: not a forward       read 2 KB
//	7         recv blks 2-3, deps {0}
//
// Op 3 is forwarded but op 6 reads blk 0 again (and it is in Out): live. Op
// 1 has no forward. Every receive stores: writes 2 + 1 + 1 + 2 = 6 KB;
// reads 2 + 2 + 1 + 1 + 2 = 8 KB. Halving-doubling gains one forward and no
// dead result here.
func TestAnalyzeHalvingDoubling(t *testing.T) {
	const n = -1
	prog, err := HalvingDoublingProgram(GroupSpec{Kind: AllReduce, Members: []int{0, 1, 2, 3}, Pos: 0,
		ViewLen: 4096, MessageBytes: 8192, OnRing: true})
	require.NoError(t, err)
	checkFlow(t, prog, flowWant{
		forwardOf: []int32{n, n, n, n, 3, n, n, n},
		store:     []bool{false, true, false, true, false, true, false, true},
		read:      8192, write: 6144,
	})
	// The other positions have the same shape (mirrored blocks).
	for pos := 1; pos < 4; pos++ {
		prog, err := HalvingDoublingProgram(GroupSpec{Kind: AllReduce, Members: []int{0, 1, 2, 3}, Pos: pos,
			ViewLen: 4096, MessageBytes: 8192, OnRing: true})
		require.NoError(t, err)
		f := Analyze(prog)
		checkFlowConsistent(t, prog, f)
		r, w := f.SRAMBytes(prog)
		assert.Equal(t, [2]int64{8192, 6144}, [2]int64{r, w}, "position %d", pos)
	}
}

// Direct all-to-all on 4 NPUs, 4 KB chunk, 512 B messages: blocks of 1 KB,
// two messages each; 6 sends with no deps (none is a forward: each reads
// SRAM) and 6 receives that depend on a send, not a receive: all store.
// Reads 3 KB, writes 3 KB.
func TestAnalyzeDirect(t *testing.T) {
	plan := flowPlan(t, torus.Shape{L: 4, V: 1, H: 1}, OpAllToAll, "direct", 4096, 4096, 512)
	for npu := 0; npu < 4; npu++ {
		prog := plan.Program(npu, 0, 4096)
		require.Len(t, prog.Ops, 12)
		f := Analyze(prog)
		for i, op := range prog.Ops {
			assert.Equal(t, int32(-1), f.ForwardOf[i], "op %d", i)
			assert.Equal(t, op.Kind == Recv, f.Store[i], "op %d", i)
		}
		checkFlowConsistent(t, prog, f)
		r, w := f.SRAMBytes(prog)
		assert.Equal(t, [2]int64{3072, 3072}, [2]int64{r, w}, "NPU %d", npu)
	}
}

// Hand-built programs for each rule. View of 100 bytes; A = [0, 10),
// B = [10, 20), A1 = [0, 5).
func TestAnalyzeRules(t *testing.T) {
	a, b, a1 := Range{0, 10}, Range{10, 10}, Range{0, 5}
	send := func(d Range, deps ...int32) Op { return Op{Kind: Send, Data: d, Deps: deps} }
	recv := func(d Range, deps ...int32) Op { return Op{Kind: Recv, Data: d, Deps: deps} }
	reduce := func(d Range, deps ...int32) Op { return Op{Kind: Recv, Reduce: true, Data: d, Deps: deps} }
	const n = -1
	tests := []struct {
		name      string
		ops       []Op
		out       []Range
		forwardOf []int32
		store     []bool
	}{
		{"forwarded, never read again, not in Out: dead",
			[]Op{reduce(a), send(a, 0)}, nil,
			[]int32{n, 0}, []bool{false, false}},
		{"no forward: stores even if dead",
			[]Op{reduce(a)}, nil,
			[]int32{n}, []bool{true}},
		{"store (not Reduce) forwarded and dead: no write",
			[]Op{recv(a), send(a, 0)}, nil,
			[]int32{n, 0}, []bool{false, false}},
		{"in Out: live",
			[]Op{reduce(a), send(a, 0)}, []Range{{5, 1}},
			[]int32{n, 0}, []bool{true, false}},
		{"Out elsewhere: dead",
			[]Op{reduce(a), send(a, 0)}, []Range{b},
			[]int32{n, 0}, []bool{false, false}},
		{"overwritten before Out: dead",
			[]Op{reduce(a), send(a, 0), recv(a)}, []Range{{0, 100}},
			[]int32{n, 0, n}, []bool{false, false, true}},
		{"half overwritten, other half in Out: live",
			[]Op{reduce(a), send(a, 0), recv(a1)}, []Range{{0, 100}},
			[]int32{n, 0, n}, []bool{true, false, true}},
		{"two stores cover it: dead",
			[]Op{reduce(a), send(a, 0), recv(a1), recv(Range{5, 5})}, []Range{{0, 100}},
			[]int32{n, 0, n, n}, []bool{false, false, true, true}},
		{"later send of part: live",
			[]Op{reduce(a), send(a, 0), send(a1)}, nil,
			[]int32{n, 0, n}, []bool{true, false, false}},
		{"later send after overwrite: dead",
			[]Op{reduce(a), send(a, 0), recv(a), send(a1, 2)}, nil,
			[]int32{n, 0, n, n}, []bool{false, false, true, false}},
		{"later reduce into it: live",
			[]Op{reduce(a), send(a, 0), reduce(Range{9, 2})}, nil,
			[]int32{n, 0, n}, []bool{true, false, true}},
		{"later reduce after overwrite: dead",
			[]Op{reduce(a), send(a, 0), recv(a), reduce(a)}, nil,
			[]int32{n, 0, n, n}, []bool{false, false, true, true}},
		{"later ops on other bytes: dead",
			[]Op{reduce(a), send(a, 0), send(b), reduce(b)}, nil,
			[]int32{n, 0, n, n}, []bool{false, false, false, true}},
		{"earlier send not preceding it may run later: live",
			[]Op{send(a), reduce(a), send(a, 1)}, nil,
			[]int32{n, n, 1}, []bool{false, true, false}},
		{"earlier send preceding it directly: dead",
			[]Op{send(a), reduce(a, 0), send(a, 1)}, nil,
			[]int32{n, n, 1}, []bool{false, false, false}},
		{"earlier send preceding it transitively: dead",
			[]Op{send(a), send(b, 0), reduce(a, 1), send(a, 2)}, nil,
			[]int32{n, n, n, 2}, []bool{false, false, false, false}},
		{"earlier reduce not preceding it: live",
			[]Op{reduce(a), reduce(a), send(a, 1)}, nil,
			[]int32{n, n, 1}, []bool{true, true, false}},
		{"earlier store not preceding it is no read: dead",
			[]Op{recv(a), reduce(a), send(a, 1)}, nil,
			[]int32{n, n, 1}, []bool{true, false, false}},
		{"earlier store not preceding it is no overwrite: live",
			[]Op{recv(a), reduce(a), send(a, 1)}, []Range{a},
			[]int32{n, n, 1}, []bool{true, true, false}},
		{"two forwards",
			[]Op{reduce(a), send(a, 0), send(a, 0)}, nil,
			[]int32{n, 0, 0}, []bool{false, false, false}},
		{"repeated dependence is still one",
			[]Op{reduce(a), send(a, 0, 0)}, nil,
			[]int32{n, 0}, []bool{false, false}},
		{"other range: not a forward",
			[]Op{reduce(a), send(a1, 0)}, nil,
			[]int32{n, n}, []bool{true, false}},
		{"second dependence: not a forward",
			[]Op{send(b), reduce(a), send(a, 0, 1)}, nil,
			[]int32{n, n, n}, []bool{false, true, false}},
		{"depends on a send: not a forward",
			[]Op{send(a), send(a, 0)}, nil,
			[]int32{n, n}, []bool{false, false}},
		{"bad dependence ignored",
			[]Op{reduce(a, 5), send(a, 7)}, nil,
			[]int32{n, n}, []bool{true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Program{View: []Range{{0, 100}}, Ops: tc.ops, Out: tc.out}
			f := Analyze(p)
			assert.Equal(t, tc.forwardOf, f.ForwardOf)
			assert.Equal(t, tc.store, f.Store)
			if p.Validate() == nil {
				checkFlowConsistent(t, p, f)
			}
		})
	}
}

func TestSRAMBytesRules(t *testing.T) {
	// op 0: reduce 10 B, forwarded, dead: read 10, no write.
	// op 1: its forward: nothing.
	// op 2: send 7 B from SRAM: read 7.
	// op 3: store 5 B, no forward: write 5.
	// op 4: reduce 3 B, no forward: read 3, write 3.
	p := &Program{View: []Range{{0, 100}}, Ops: []Op{
		{Kind: Recv, Reduce: true, Data: Range{0, 10}},
		{Kind: Send, Data: Range{0, 10}, Deps: []int32{0}},
		{Kind: Send, Data: Range{20, 7}},
		{Kind: Recv, Data: Range{30, 5}},
		{Kind: Recv, Reduce: true, Data: Range{40, 3}},
	}}
	r, w := Analyze(p).SRAMBytes(p)
	assert.Equal(t, int64(10+7+3), r)
	assert.Equal(t, int64(5+3), w)
	r, w = Analyze(&Program{}).SRAMBytes(&Program{})
	assert.Zero(t, r)
	assert.Zero(t, w)
}

// flowOracleStore is Analyze's Store rule byte by byte, written
// independently of the range arithmetic, for small programs.
func flowOracleStore(p *Program, forwardOf []int32) []bool {
	n := len(p.Ops)
	store := make([]bool, n)
	var anc func(i int, seen map[int]bool)
	anc = func(i int, seen map[int]bool) {
		for _, d := range p.Ops[i].Deps {
			if !seen[int(d)] {
				seen[int(d)] = true
				anc(int(d), seen)
			}
		}
	}
	covers := func(r Range, b int64) bool { return r.Off <= b && b < r.End() }
	reads := func(op Op) bool { return op.Kind == Send || op.Reduce }
	for r, op := range p.Ops {
		if op.Kind != Recv {
			continue
		}
		hasFwd := false
		for _, x := range forwardOf {
			hasFwd = hasFwd || x == int32(r)
		}
		if !hasFwd {
			store[r] = true
			continue
		}
		seen := map[int]bool{}
		anc(r, seen)
		for b := op.Data.Off; b < op.Data.End() && !store[r]; b++ {
			for j := 0; j < r; j++ {
				if !seen[j] && reads(p.Ops[j]) && covers(p.Ops[j].Data, b) {
					store[r] = true
				}
			}
			over := false
			for j := r + 1; j < n && !over && !store[r]; j++ {
				o := p.Ops[j]
				switch {
				case !covers(o.Data, b) || forwardOf[j] == int32(r):
				case reads(o):
					store[r] = true
				default:
					over = true
				}
			}
			if !over {
				for _, o := range p.Out {
					store[r] = store[r] || covers(o, b)
				}
			}
		}
	}
	return store
}

// Every algorithm on small chunks (odd sizes, short messages, several
// rounds and pieces): the flow is consistent and Store agrees with a
// byte-by-byte reading of the rule.
func TestAnalyzeMatchesByteOracle(t *testing.T) {
	tests := []struct {
		shape torus.Shape
		op    CollectiveOp
		alg   string
	}{
		{torus.Shape{L: 4, V: 2, H: 2}, OpAllReduce, "hierarchical"},
		{torus.Shape{L: 4, V: 2, H: 2}, OpReduceScatter, "hierarchical"},
		{torus.Shape{L: 4, V: 2, H: 2}, OpAllGather, "hierarchical"},
		{torus.Shape{L: 3, V: 3, H: 1}, OpAllReduce, "hierarchical"},
		{torus.Shape{L: 2, V: 2, H: 2}, OpAllReduce, "blueconnect"},
		{torus.Shape{L: 5, V: 1, H: 1}, OpAllReduce, "ring"},
		{torus.Shape{L: 8, V: 1, H: 1}, OpAllReduce, "halving-doubling"},
		{torus.Shape{L: 4, V: 2, H: 1}, OpReduceScatter, "halving-doubling"},
		{torus.Shape{L: 4, V: 2, H: 1}, OpAllGather, "halving-doubling"},
		{torus.Shape{L: 6, V: 1, H: 1}, OpAllReduce, "tree"},
		{torus.Shape{L: 7, V: 1, H: 1}, OpAllReduce, "tree-overlapped"},
		{torus.Shape{L: 6, V: 1, H: 1}, OpAllReduce, "double-tree"},
		{torus.Shape{L: 3, V: 2, H: 1}, OpAllToAll, "direct"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tc.alg, tc.op, tc.shape), func(t *testing.T) {
			for _, msg := range []int64{7, 64} {
				plan := flowPlan(t, tc.shape, tc.op, tc.alg, 250, 250, msg)
				for npu := 0; npu < tc.shape.N(); npu++ {
					for ph := 0; ph < plan.NumPhases(); ph++ {
						prog := plan.Program(npu, ph, 250)
						f := Analyze(prog)
						checkFlowConsistent(t, prog, f)
						require.Equal(t, flowOracleStore(prog, f.ForwardOf), f.Store, "msg %d NPU %d phase %d", msg, npu, ph+1)
					}
				}
			}
		})
	}
}

// Random programs (ranges of mixed lengths that overlap partly, random
// dependences, sends that forward and sends that do not): Store agrees
// with the byte-by-byte rule, whatever Analyze's search for the ops that
// overlap a Recv's data skips.
func TestAnalyzeRandomMatchesByteOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 3000; trial++ {
		n := 1 + rng.IntN(24)
		p := &Program{Ops: make([]Op, n)}
		for i := range p.Ops {
			op := &p.Ops[i]
			op.Kind = Kind(rng.IntN(2))
			op.Reduce = op.Kind == Recv && rng.IntN(2) == 0
			op.Data = Range{int64(rng.IntN(40)), int64(rng.IntN(17))}
			if i > 0 && rng.IntN(3) > 0 {
				d := int32(rng.IntN(i))
				op.Deps = append(op.Deps, d)
				if op.Kind == Send && p.Ops[d].Kind == Recv && rng.IntN(2) == 0 {
					op.Data = p.Ops[d].Data // a forward
				}
				if rng.IntN(4) == 0 {
					op.Deps = append(op.Deps, int32(rng.IntN(i)))
				}
			}
		}
		for k := rng.IntN(3); k > 0; k-- {
			p.Out = append(p.Out, Range{int64(rng.IntN(50)), int64(1 + rng.IntN(12))})
		}
		f := Analyze(p)
		require.Equal(t, flowOracleStore(p, f.ForwardOf), f.Store, "trial %d: %+v", trial, p)
	}
}

// BenchmarkAnalyzeChunk analyses NPU 0's programs for one chunk of a
// 4x2x2 all-reduce cut into 8 KiB messages: the cost per byte stays flat
// from 16 MiB to 256 MiB (it grew with the chunk's size before Analyze
// looked only at the ops overlapping each Recv's data).
func BenchmarkAnalyzeChunk(b *testing.B) {
	for _, mib := range []int64{16, 64, 256} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			size := mib << 20
			p, err := NewPlan(Config{Machine: torus.Shape{L: 4, V: 2, H: 2}.Machine(), Op: OpAllReduce, MessageBytes: 8 << 10}, "hierarchical", size, size)
			require.NoError(b, err)
			progs, err := p.Algo.Build(0, size)
			require.NoError(b, err)
			b.SetBytes(size)
			b.ResetTimer()
			for range b.N {
				for _, prog := range progs {
					Analyze(prog)
				}
			}
		})
	}
}

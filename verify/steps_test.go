package verify

import (
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepPlan builds a one-chunk plan (payload = chunk).
func stepPlan(t *testing.T, topo string, op collectives.CollectiveOp, alg string, chunk, msg int64, mod func(*collectives.Config)) *collectives.Plan {
	t.Helper()
	return plan(t, topo, op, alg, chunk, chunk, msg, mod)
}

func stepSentPerNPU(p *collectives.Plan, chunk int64) []int64 {
	out := make([]int64, p.Machine.N())
	for npu := range out {
		for ph := 0; ph < p.NumPhases(); ph++ {
			out[npu] += p.Program(npu, ph, chunk).SentBytes()
		}
	}
	return out
}

var stepUni = func(c *collectives.Config) { c.Unidirectional = true }

// Golden step counts and bytes of the ring, hierarchical and BlueConnect
// algorithms (C-Cube paper Section II-C; BlueConnect paper Sections 2 and 3),
// counted by hand, one message per ring block.
func TestStepCountGoldens(t *testing.T) {
	tests := []struct {
		name       string
		topo       string
		alg        string
		chunk, msg int64
		mod        func(*collectives.Config)
		steps      int
		phaseSteps []int
		sent       int64 // bytes sent by every NPU
	}{
		// Ring all-reduce, P=4, one round of 4 blocks of 1 KB: 2(P-1) = 6
		// steps (3 reduce-scatter + 3 all-gather); sends 2(P-1)/P·N =
		// 2·3/4·4096 = 6144.
		{"ring P=4", "4x1x1", "ring", 4096, 1024, stepUni, 6, []int{6}, 6144},
		// P=8: 2·7 = 14 steps, 2·7/8·N = 1.75 N = 1.75·8192 = 14336.
		{"ring P=8", "8x1x1", "ring", 8192, 1024, stepUni, 14, []int{14}, 14336},
		// Both directions, half the data each: the lanes use different
		// channels, so still 6 steps and 1.5 N.
		{"ring P=4 bidirectional", "4x1x1", "ring", 4096, 512, nil, 6, []int{6}, 6144},
		// Hierarchical on 4x4x4 (Section VI-A): RS local 3/4 N, AR vertical
		// and horizontal 2·(3/4)·N/4 = 3/8 N each, AG local 3/4 N: 2.25 N =
		// 2.25·4096 = 9216. Steps 3 + 6 + 6 + 3 = 18.
		{"hierarchical 4x4x4", "4x4x4", "hierarchical", 4096, 8192, nil, 18, []int{3, 6, 6, 3}, 9216},
		// BlueConnect on 3x2x2 (factors 3, 2, 2), ring stages, one message per
		// block: 2·((3-1)+(2-1)+(2-1)) = 8 steps. Bytes: RS 2/3·1200 +
		// 1/2·400 + 1/2·200 = 800+200+100 = 1100, AG the same: 2200 =
		// 2(P-1)/P·N = 2·11/12·1200.
		{"blueconnect 3x2x2", "3x2x2", "blueconnect", 1200, 400, stepUni, 8, []int{2, 1, 1, 1, 1, 2}, 2200},
		// 4x4x4: 2·(3+3+3) = 18 steps, 2·63/64·4096 = 8064 bytes.
		{"blueconnect 4x4x4", "4x4x4", "blueconnect", 4096, 1024, stepUni, 18, []int{3, 3, 3, 3, 3, 3}, 8064},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := stepPlan(t, tc.topo, collectives.OpAllReduce, tc.alg, tc.chunk, tc.msg, tc.mod)
			rep, err := StepCount(p, tc.chunk)
			require.NoError(t, err)
			assert.Equal(t, tc.steps, rep.Steps)
			assert.Equal(t, tc.phaseSteps, rep.PhaseSteps)
			for npu, b := range stepSentPerNPU(p, tc.chunk) {
				assert.Equal(t, tc.sent, b, "NPU %d", npu)
				assert.Equal(t, tc.steps, rep.NPUDone[npu], "NPU %d", npu)
			}
			// The ring programs' own Program.Steps agree with the model.
			for ph, s := range rep.PhaseSteps {
				assert.Equal(t, s, p.Program(0, ph, tc.chunk).Steps, "phase %d", ph)
			}
		})
	}
}

// Two rounds of a ring run one after the other: 2 × 6 steps.
func TestStepCountRingRounds(t *testing.T) {
	p := stepPlan(t, "4x1x1", collectives.OpAllReduce, "ring", 8192, 1024, stepUni)
	rep, err := StepCount(p, 8192)
	require.NoError(t, err)
	assert.Equal(t, 12, rep.Steps)
}

// programs of a two-NPU plan replaced by hand-written ones.
func handPlan(t *testing.T, progs0, progs1 []collectives.Op) *collectives.Plan {
	t.Helper()
	p := stepPlan(t, "2x1x1", collectives.OpAllReduce, "ring", 4, 8192, stepUni)
	view := []collectives.Range{{Off: 0, Len: 4}}
	require.NoError(t, p.SetProgram(0, 4, []*collectives.Program{{NPU: 0, Ops: progs0, View: view, Out: view}}))
	require.NoError(t, p.SetProgram(1, 4, []*collectives.Program{{NPU: 1, Ops: progs1, View: view, Out: view}}))
	return p
}

func handSend(peer, match int32, deps ...int32) collectives.Op {
	return collectives.Op{Kind: collectives.Send, Peer: peer, Port: collectives.RouteXYZ, Match: match, Data: collectives.Range{Len: 1}, Deps: deps}
}

func handRecv(peer int32, deps ...int32) collectives.Op {
	return collectives.Op{Kind: collectives.Recv, Peer: peer, Port: collectives.RouteXYZ, Data: collectives.Range{Len: 1}, Deps: deps}
}

// The model on hand-written programs.
func TestStepModel(t *testing.T) {
	tests := []struct {
		name   string
		p0, p1 []collectives.Op
		steps  int
		done0  []int
		done1  []int
	}{
		// One message per channel per step: three sends 0→1 take 3 steps.
		{"one message per channel per step",
			[]collectives.Op{handSend(1, 0), handSend(1, 1), handSend(1, 2)},
			[]collectives.Op{handRecv(0), handRecv(0), handRecv(0)},
			3, []int{1, 2, 3}, []int{1, 2, 3}},
		// Full duplex: 0→1 and 1→0 in the same step.
		{"full duplex",
			[]collectives.Op{handSend(1, 1), handRecv(1)},
			[]collectives.Op{handSend(0, 1), handRecv(0)},
			1, []int{1, 1}, []int{1, 1}},
		// A message received in step s is forwarded from step s+1.
		{"forward next step",
			[]collectives.Op{handSend(1, 0), handRecv(1)},
			[]collectives.Op{handRecv(0), handSend(0, 1, 0)},
			2, []int{1, 2}, []int{1, 2}},
		// NPU 0's op 2 is eligible in step 1 and overtakes op 1, which waits
		// for the message received in step 1.
		{"eligible sends overtake",
			[]collectives.Op{handRecv(1), handSend(1, 0, 0), handSend(1, 1)},
			[]collectives.Op{handRecv(0), handRecv(0), handSend(0, 0)},
			2, []int{1, 2, 1}, []int{2, 1, 1}},
		// A receive completes when both its message and its dependences are
		// there: NPU 1's op 1 has its message in step 1 but waits for op 0
		// (step 2).
		{"receive waits for its dependences",
			[]collectives.Op{handSend(1, 1), handSend(1, 0)},
			[]collectives.Op{handRecv(0), handRecv(0, 0)},
			2, []int{1, 2}, []int{2, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := handPlan(t, tc.p0, tc.p1)
			rep, err := StepCount(p, 4)
			require.NoError(t, err)
			assert.Equal(t, tc.steps, rep.Steps)
			assert.Equal(t, [][]int{tc.done0, tc.done1}, rep.OpDone[0])
			assert.Equal(t, []int{tc.steps, tc.steps}, rep.NPUDone)
		})
	}
}

func TestStepModelErrors(t *testing.T) {
	tests := []struct {
		name   string
		p0, p1 []collectives.Op
		want   string
	}{
		{"deadlock", []collectives.Op{handRecv(1), handSend(1, 0, 0)}, []collectives.Op{handRecv(0), handSend(0, 0, 0)}, "never completes"},
		{"missing send", []collectives.Op{handRecv(1)}, nil, "never completes"},
		{"match is a send", []collectives.Op{handSend(1, 0)}, []collectives.Op{handSend(0, 0)}, "not a receive"},
		{"match out of range", []collectives.Op{handSend(1, 3)}, []collectives.Op{handRecv(0)}, "not a receive"},
		{"received twice", []collectives.Op{handSend(1, 0), handSend(1, 0)}, []collectives.Op{handRecv(0)}, "receives twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := StepCount(handPlan(t, tc.p0, tc.p1), 4)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// RangeDone follows the last receive into a range, through the phase's view.
func TestRangeDone(t *testing.T) {
	// Ring on 4 NPUs, one direction, blocks of 1 byte: NPU r's reduce-scatter
	// ends with block r fully reduced (step 3) and the all-gather brings the
	// other blocks in steps 4, 5, 6.
	p := stepPlan(t, "4x1x1", collectives.OpAllReduce, "ring", 4, 1, stepUni)
	rep, err := StepCount(p, 4)
	require.NoError(t, err)
	for r := 0; r < 4; r++ {
		assert.Equal(t, 3, rep.RangeDoneAt(r, collectives.Range{Off: int64(r), Len: 1}), "NPU %d own block", r)
		assert.Equal(t, 6, rep.RangeDoneAt(r, collectives.Range{Off: 0, Len: 4}), "NPU %d whole chunk", r)
	}
	assert.Equal(t, 6, rep.RangeDone(collectives.Range{Off: 0, Len: 1}))
	// Views: after hierarchical's local reduce-scatter, the vertical phase's
	// view is a quarter of the chunk, and its receives map back into it.
	h := stepPlan(t, "4x4x1", collectives.OpAllReduce, "hierarchical", 1024, 8192, nil)
	hr, err := StepCount(h, 1024)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 6, 3}, hr.PhaseSteps)
	assert.Equal(t, 12, hr.RangeDone(collectives.Range{Off: 0, Len: 1024}))
	owned := h.Program(0, 1, 1024).View // NPU 0's quarter
	assert.Equal(t, 9, hr.RangeDoneAt(0, owned[0]), "final after the vertical all-reduce")
}

package verify

import (
	"container/heap"
	"fmt"

	"github.com/acemu/acemu/collectives"
)

// The step model (the C-Cube paper's, Sections II-C and III),
// independent of the algorithms' own Op.Step and Program.Steps:
//
//   - A channel is a directed NPU-to-NPU pair (the source and destination of
//     a message), whatever route the message takes through the torus. Links
//     are full duplex: a→b and b→a are different channels. Every channel of
//     every NPU works at once.
//   - In one step every channel carries at most one message, whatever its
//     size.
//   - A Send is eligible in step s when every op it depends on completed in
//     a step before s. Each step, each channel carries its lowest-indexed
//     (in the sending program) eligible Send not yet sent; a later Send may
//     overtake an earlier one that is not yet eligible. The Send completes
//     in step s.
//   - The message of a Send in step s has arrived at the end of step s. A
//     Recv completes in the step in which it has both its message and its
//     dependences (max of the two): what it brings can be used (reduced into
//     or forwarded) from step s+1. Reduction and copying are free.
//   - Phases are separated by a barrier: phase ph+1 starts in the step after
//     the last op of phase ph completed on any NPU.
//
// Steps are numbered from 1, so "done in step s" reads as "by the end of
// step s" and the total is the number of steps.

// StepReport is what StepCount finds for one chunk.
type StepReport struct {
	// Steps is the total number of steps, all phases.
	Steps int
	// PhaseSteps is the number of steps of each phase.
	PhaseSteps []int
	// NPUDone[npu] is the step in which the NPU's last op completed (0 when
	// it has none).
	NPUDone []int
	// OpDone[ph][npu][i] is the step in which op i of the NPU's program of
	// phase ph completed, counted over all phases.
	OpDone [][][]int

	progs [][]*collectives.Program // [phase][npu]
}

// RangeDoneAt returns the last step in which NPU npu received any byte of
// chunk range r (0 when it never does). For a correct all-reduce (see Check)
// that is the step from which the NPU holds r's final values.
func (r StepReport) RangeDoneAt(npu int, rg collectives.Range) int {
	last := 0
	for ph, progs := range r.progs {
		p := progs[npu]
		for i, op := range p.Ops {
			if op.Kind != collectives.Recv {
				continue
			}
			for _, c := range chunkRanges(p.View, op.Data) {
				if c.Off < rg.End() && rg.Off < c.End() {
					last = max(last, r.OpDone[ph][npu][i])
				}
			}
		}
	}
	return last
}

// RangeDone returns the step in which chunk range r is complete at every NPU:
// the largest RangeDoneAt. For the first piece of a tree all-reduce this is
// C-Cube's "gradient turnaround".
func (r StepReport) RangeDone(rg collectives.Range) int {
	last := 0
	for npu := range r.NPUDone {
		last = max(last, r.RangeDoneAt(npu, rg))
	}
	return last
}

// chunkRanges maps a range of a view back to ranges of the chunk.
func chunkRanges(view []collectives.Range, r collectives.Range) []collectives.Range {
	var out []collectives.Range
	off, left := r.Off, r.Len
	for _, v := range view {
		if left == 0 {
			break
		}
		if off >= v.Len {
			off -= v.Len
			continue
		}
		n := min(v.Len-off, left)
		out = append(out, collectives.Range{Off: v.Off + off, Len: n})
		left -= n
		off = 0
	}
	return out
}

// StepCount runs every phase of plan's programs for one chunk of chunkLen
// bytes in the step model above. It fails when a Send names no matching
// Recv, a Recv is matched twice, sizes disagree, or ops can never complete.
func StepCount(plan *collectives.Plan, chunkLen int64) (StepReport, error) {
	n := plan.Machine.N()
	rep := StepReport{NPUDone: make([]int, n)}
	base := 0
	for ph := 0; ph < plan.NumPhases(); ph++ {
		progs := make([]*collectives.Program, n)
		for npu := range progs {
			progs[npu] = plan.Program(npu, ph, chunkLen)
			if err := progs[npu].Validate(); err != nil {
				return StepReport{}, fmt.Errorf("phase %d: %w", ph+1, err)
			}
		}
		done, steps, err := stepPhase(progs)
		if err != nil {
			return StepReport{}, fmt.Errorf("phase %d (%s): %w", ph+1, plan.PhaseName(ph), err)
		}
		for npu := range done {
			for i := range done[npu] {
				done[npu][i] += base
				rep.NPUDone[npu] = max(rep.NPUDone[npu], done[npu][i])
			}
		}
		rep.OpDone = append(rep.OpDone, done)
		rep.progs = append(rep.progs, progs)
		rep.PhaseSteps = append(rep.PhaseSteps, steps)
		base += steps
	}
	rep.Steps = base
	return rep, nil
}

// sendQueue holds a channel's eligible Sends, lowest op index first.
type sendQueue []int32

func (q sendQueue) Len() int           { return len(q) }
func (q sendQueue) Less(i, j int) bool { return q[i] < q[j] }
func (q sendQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *sendQueue) Push(x any)        { *q = append(*q, x.(int32)) }
func (q *sendQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

type stepChannel struct {
	src   int
	ready sendQueue
}

// stepPhase runs one phase and returns each op's completion step (from 1)
// and the phase's number of steps.
func stepPhase(progs []*collectives.Program) ([][]int, int, error) {
	n := len(progs)
	done := make([][]int, n)
	arrived := make([][]bool, n)
	unmet := make([][]int, n)          // dependences not yet complete
	dependents := make([][][]int32, n) // ops waiting on each op
	chanOf := make([][]int, n)         // a Send's channel
	matched := make([][]bool, n)
	var chans []*stepChannel
	total := 0
	for npu, p := range progs {
		done[npu] = make([]int, len(p.Ops))
		arrived[npu] = make([]bool, len(p.Ops))
		unmet[npu] = make([]int, len(p.Ops))
		dependents[npu] = make([][]int32, len(p.Ops))
		chanOf[npu] = make([]int, len(p.Ops))
		matched[npu] = make([]bool, len(p.Ops))
		total += len(p.Ops)
	}
	byPair := map[[2]int]int{}
	for npu, p := range progs {
		for i, op := range p.Ops {
			unmet[npu][i] = len(op.Deps)
			for _, d := range op.Deps {
				dependents[npu][d] = append(dependents[npu][d], int32(i))
			}
			if op.Kind != collectives.Send {
				continue
			}
			peer := int(op.Peer)
			if peer < 0 || peer >= n {
				return nil, 0, fmt.Errorf("NPU %d op %d sends to NPU %d, which does not exist", npu, i, peer)
			}
			m := int(op.Match)
			if m < 0 || m >= len(progs[peer].Ops) || progs[peer].Ops[m].Kind != collectives.Recv {
				return nil, 0, fmt.Errorf("NPU %d op %d sends to NPU %d op %d, which is not a receive", npu, i, peer, m)
			}
			rv := progs[peer].Ops[m]
			switch {
			case matched[peer][m]:
				return nil, 0, fmt.Errorf("NPU %d op %d: NPU %d op %d receives twice", npu, i, peer, m)
			case int(rv.Peer) != npu:
				return nil, 0, fmt.Errorf("NPU %d op %d sends to NPU %d op %d, which receives from NPU %d", npu, i, peer, m, rv.Peer)
			case rv.Data.Len != op.Data.Len:
				return nil, 0, fmt.Errorf("NPU %d op %d sends %d bytes to NPU %d op %d, which receives %d", npu, i, op.Data.Len, peer, m, rv.Data.Len)
			}
			matched[peer][m] = true
			key := [2]int{npu, peer}
			c, ok := byPair[key]
			if !ok {
				c = len(chans)
				byPair[key] = c
				chans = append(chans, &stepChannel{src: npu})
			}
			chanOf[npu][i] = c
		}
	}
	for npu, p := range progs {
		for i, op := range p.Ops {
			if op.Kind == collectives.Send && unmet[npu][i] == 0 {
				heap.Push(&chans[chanOf[npu][i]].ready, int32(i))
			}
		}
	}

	completed := 0
	// complete finishes op i of npu in step s and releases what waited on
	// it: Sends become eligible from step s+1, Recvs with their message
	// complete now.
	var complete func(npu int, i int32, s int)
	complete = func(npu int, i int32, s int) {
		done[npu][i] = s
		completed++
		for _, d := range dependents[npu][i] {
			unmet[npu][d]--
			if unmet[npu][d] > 0 {
				continue
			}
			switch progs[npu].Ops[d].Kind {
			case collectives.Send:
				heap.Push(&chans[chanOf[npu][d]].ready, d)
			case collectives.Recv:
				if arrived[npu][d] {
					complete(npu, d, s)
				}
			}
		}
	}
	type fire struct {
		npu int
		op  int32
	}
	var fired []fire
	s := 0
	for completed < total {
		s++
		fired = fired[:0]
		for _, c := range chans {
			if c.ready.Len() > 0 {
				fired = append(fired, fire{c.src, heap.Pop(&c.ready).(int32)})
			}
		}
		if len(fired) == 0 {
			return nil, 0, stuckError(progs, done)
		}
		for _, f := range fired {
			complete(f.npu, f.op, s)
			op := progs[f.npu].Ops[f.op]
			peer, m := int(op.Peer), op.Match
			arrived[peer][m] = true
			if unmet[peer][m] == 0 {
				complete(peer, m, s)
			}
		}
	}
	return done, s, nil
}

// stuckError names the first op that can never complete.
func stuckError(progs []*collectives.Program, done [][]int) error {
	for npu, p := range progs {
		for i, op := range p.Ops {
			if done[npu][i] == 0 {
				return fmt.Errorf("NPU %d op %d (%s %v with NPU %d) never completes: deadlock or a missing send", npu, i, op.Kind, op.Data, op.Peer)
			}
		}
	}
	return fmt.Errorf("no progress")
}

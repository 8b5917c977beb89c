package collectives

import (
	"fmt"
)

// RingProgram returns the ring algorithm for one group member (the group is
// taken as a ring in Members order): the view is split into
// lanes (one per direction used), each lane into serial rounds of p blocks
// (p = ring size) no larger than MessageBytes, and each round runs the
// standard ring schedule. In the Plus lane at ring position r:
//
//	reduce-scatter step t (0..p-2): send block r-(t+1), receive block r-(t+2) from r-1 and add it;
//	  after p-1 steps block r is fully reduced here;
//	all-gather step t (0..p-2): send block r-t, receive block r-(t+1) and keep it.
//
// The Minus lane mirrors it (r+… and neighbour r+1). All-reduce is
// reduce-scatter then all-gather: 2(p-1) steps. A round starts when the
// previous round of its lane has received its last message.
//
// Ops are laid out in the same order on every ring member (lane, round, step,
// send then receive), so the receive matching a send at index i is at index
// i+1 in the peer's program. Out holds block r of every lane and round after
// a reduce-scatter, the whole view otherwise; an all-gather assumes the NPU
// starts with exactly those blocks.
func RingProgram(s GroupSpec) (*Program, error) {
	p := len(s.Members)
	if p < 1 || s.Pos < 0 || s.Pos >= p {
		return nil, fmt.Errorf("ring of %d NPUs, position %d: position out of range", p, s.Pos)
	}
	if s.MessageBytes < 1 {
		return nil, fmt.Errorf("message size %d: must be at least 1 byte", s.MessageBytes)
	}
	prog := &Program{NPU: s.Members[s.Pos], View: []Range{{0, s.ViewLen}}}
	if p == 1 {
		prog.Out = []Range{{0, s.ViewLen}}
		return prog, nil
	}
	var rsSteps, agSteps int
	switch s.Kind {
	case ReduceScatter:
		rsSteps = p - 1
	case AllGather:
		agSteps = p - 1
	case AllReduce:
		rsSteps, agSteps = p-1, p-1
	}
	dirs := []int{+1}
	if s.Bidirectional {
		dirs = append(dirs, -1)
	}
	mod := func(i int) int { return ((i % p) + p) % p }
	r := s.Pos
	for li, lane := range split(0, s.ViewLen, len(dirs)) {
		dir := dirs[li]
		sigma := dir
		next := int32(s.Members[mod(r+sigma)])
		prev := int32(s.Members[mod(r-sigma)])
		port := int8(RouteXYZ)
		if s.OnRing {
			port = s.Plus
			if dir < 0 {
				port = s.Minus
			}
		}
		rounds := int((lane.Len + int64(p)*s.MessageBytes - 1) / (int64(p) * s.MessageBytes))
		if rounds < 1 {
			rounds = 1
		}
		lastRecv := int32(-1)
		for _, round := range split(lane.Off, lane.Len, rounds) {
			blocks := split(round.Off, round.Len, p)
			for st := 0; st < rsSteps+agSteps; st++ {
				var sendBlk, recvBlk int
				reduce := st < rsSteps
				if reduce {
					sendBlk, recvBlk = mod(r-sigma*(st+1)), mod(r-sigma*(st+2))
				} else {
					t := st - rsSteps
					sendBlk, recvBlk = mod(r-sigma*t), mod(r-sigma*(t+1))
				}
				var deps []int32
				if lastRecv >= 0 {
					deps = []int32{lastRecv}
				}
				si := int32(len(prog.Ops))
				prog.Ops = append(prog.Ops,
					Op{Kind: Send, Peer: next, Port: port, Match: si + 1, Data: blocks[sendBlk], Deps: deps, Step: int32(st)},
					Op{Kind: Recv, Peer: prev, Port: port, Reduce: reduce, Data: blocks[recvBlk], Step: int32(st)})
				lastRecv = si + 1
			}
			if s.Kind == ReduceScatter {
				prog.Out = appendRange(prog.Out, blocks[r])
			}
		}
	}
	if s.Kind != ReduceScatter {
		prog.Out = []Range{{0, s.ViewLen}}
	}
	prog.Steps = rsSteps + agSteps
	return prog, nil
}

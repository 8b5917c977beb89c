package collectives

import (
	"fmt"
	"sort"
)

// HalvingDoublingProgram returns recursive halving-doubling (Thakur,
// Rabenseifner and Gropp) for one member of a group of p = 2^L members. The
// view is cut into p near-equal blocks (split), numbered 0..p-1; a member at
// position r works on a contiguous, aligned range of blocks.
//
//	reduce-scatter, recursive halving, step k = 0..L-1, distance d = p/2^(k+1)
//	(p/2, p/4, …, 1), partner r XOR d: the member's range of 2d blocks is cut
//	in two halves; the member whose bit d is 0 keeps the lower half, its
//	partner the upper one. Each sends the half it gives up and receives the
//	partner's copy of the half it keeps, adding it. After L steps member r
//	keeps block r, fully reduced: Program.Out is block r.
//	all-gather, recursive doubling, the exact reverse: step k = 0..L-1,
//	distance d = 2^k (1, 2, …, p/2), partner r XOR d: the member owns the 2^k
//	aligned blocks around block r (block r alone at the start, which is what
//	the reduce-scatter leaves), sends them and receives, storing, the
//	partner's 2^k blocks next to them.
//	all-reduce: reduce-scatter then all-gather in one program, 2L steps.
//
// Each NPU sends (p-1)/p of the view in a reduce-scatter or all-gather,
// 2(p-1)/p in an all-reduce. A step's exchange is cut into messages of at
// most MessageBytes (split of the range into ceil(len/MessageBytes) parts),
// each issued as soon as the bytes it carries are final (see below), so a
// step's messages pipeline behind the previous step's; the partner cuts the
// same range the same way, so the k-th message a member sends in a step is
// the partner's k-th receive of that step.
//
// Ops are laid out step by step, the step's sends (by offset) then its
// receives (by offset); members differ in how many messages a step has (block
// sizes differ by a byte), so Match is found by laying out the partner's
// steps. Dependences follow the data, byte range by byte range, over all
// earlier steps: a send waits for the receives that last wrote the bytes it
// sends (the reductions or copies it must include); a receive waits for the
// receives that last wrote its bytes (no two reductions into the same bytes
// at once, and a later send that waits for the last writer has all earlier
// ones too) and for the sends that read them since (no overwriting before
// sending: in an all-reduce the all-gather stores into bytes the
// reduce-scatter sent). Within a step the bytes sent and received are
// disjoint, so a step's ops do not wait for each other.
//
// Peers at distance d are torus neighbours only when the group is a ring and
// the partner is the next or previous member (d = 1, or d = p/2 = 1 on a
// ring of 2); then the message leaves by that ring port, otherwise it is
// routed (RouteXYZ).
func HalvingDoublingProgram(s GroupSpec) (*Program, error) {
	p := len(s.Members)
	if p < 1 || s.Pos < 0 || s.Pos >= p {
		return nil, fmt.Errorf("halving-doubling group of %d NPUs, position %d: position out of range", p, s.Pos)
	}
	if p&(p-1) != 0 {
		return nil, fmt.Errorf("halving-doubling needs a power-of-two group size, not %d; use ring for a group of %d", p, p)
	}
	if s.MessageBytes < 1 {
		return nil, fmt.Errorf("message size %d: must be at least 1 byte", s.MessageBytes)
	}
	prog := &Program{NPU: s.Members[s.Pos], View: []Range{{0, s.ViewLen}}}
	if p == 1 {
		prog.Out = []Range{{0, s.ViewLen}}
		return prog, nil
	}
	blocks := split(0, s.ViewLen, p)
	steps := hdSteps(s.Kind, p, s.Pos, blocks)
	msgs := func(r Range) []Range { return messageRanges(r, s.MessageBytes) }

	// recvStart[k] of a member: index of its first receive of step k.
	recvStarts := func(pos int) []int32 {
		out := make([]int32, len(steps))
		n := int32(0)
		for k, st := range hdSteps(s.Kind, p, pos, blocks) {
			n += int32(len(msgs(st.send)))
			out[k] = n
			n += int32(len(msgs(st.recv)))
		}
		return out
	}
	var hist []hdLog
	for k, st := range steps {
		peer := s.Members[st.partner]
		match := recvStarts(st.partner)[k]
		var lg hdLog
		for m, r := range msgs(st.send) {
			i := int32(len(prog.Ops))
			prog.Ops = append(prog.Ops, Op{Kind: Send, Peer: int32(peer), Port: hdPort(s, s.Pos, st.partner),
				Match: match + int32(m), Data: r, Deps: hdDeps(hist, r, false), Step: int32(k)})
			lg.sends = append(lg.sends, hdAccess{r, i})
		}
		for _, r := range msgs(st.recv) {
			i := int32(len(prog.Ops))
			prog.Ops = append(prog.Ops, Op{Kind: Recv, Peer: int32(peer), Port: hdPort(s, st.partner, s.Pos),
				Reduce: st.reduce, Data: r, Deps: hdDeps(hist, r, true), Step: int32(k)})
			lg.recvs = append(lg.recvs, hdAccess{r, i})
		}
		hist = append(hist, lg)
	}
	prog.Steps = len(steps)
	if s.Kind == ReduceScatter {
		prog.Out = []Range{blocks[s.Pos]}
	} else {
		prog.Out = []Range{{0, s.ViewLen}}
	}
	return prog, nil
}

// hdStep is one step of halving-doubling for one member: the view range it
// sends to its partner and the one it receives.
type hdStep struct {
	partner    int
	send, recv Range
	reduce     bool
}

// hdSteps lays out the steps of member pos of a group of p (a power of two).
func hdSteps(kind PhaseKind, p, pos int, blocks []Range) []hdStep {
	span := func(lo, n int) Range { // blocks [lo, lo+n)
		return Range{blocks[lo].Off, blocks[lo+n-1].End() - blocks[lo].Off}
	}
	var out []hdStep
	if kind != AllGather { // recursive halving
		lo := 0
		for d := p / 2; d >= 1; d /= 2 {
			keep, give := lo, lo+d
			if pos&d != 0 {
				keep, give = lo+d, lo
			}
			out = append(out, hdStep{partner: pos ^ d, send: span(give, d), recv: span(keep, d), reduce: true})
			lo = keep
		}
	}
	if kind != ReduceScatter { // recursive doubling
		for d := 1; d < p; d *= 2 {
			lo := pos &^ (d - 1)
			out = append(out, hdStep{partner: pos ^ d, send: span(lo, d), recv: span(lo^d, d)})
		}
	}
	return out
}

// hdPort is the port member from sends to member to by: a ring port when
// the group is a ring and to is from's next or previous member, else routed.
func hdPort(s GroupSpec, from, to int) int8 {
	p := len(s.Members)
	if s.OnRing {
		switch to {
		case (from + 1) % p:
			return s.Plus
		case (from - 1 + p) % p:
			return s.Minus
		}
	}
	return RouteXYZ
}

// messageRanges cuts r into ceil(r.Len/msg) near-equal messages; none for an
// empty range.
func messageRanges(r Range, msg int64) []Range {
	if r.Len <= 0 {
		return nil
	}
	return split(r.Off, r.Len, int((r.Len+msg-1)/msg))
}

// hdAccess is an op touching a view range.
type hdAccess struct {
	r  Range
	op int32
}

// hdLog is what one step read (sends) and wrote (receives), each list
// sorted by offset and non-overlapping.
type hdLog struct{ sends, recvs []hdAccess }

// hdOverlapping returns the accesses of a sorted, non-overlapping list that
// overlap x.
func hdOverlapping(list []hdAccess, x Range) []hdAccess {
	i := sort.Search(len(list), func(i int) bool { return list[i].r.End() > x.Off })
	j := i
	for j < len(list) && list[j].r.Off < x.End() {
		j++
	}
	return list[i:j]
}

// hdDeps returns, for an op reading (write false) or writing range x
// after the steps in hist, the earlier ops it must wait for: for every byte
// of x the receive that last wrote it and, for a write, the sends of that
// step or later that read it. Sorted, without duplicates.
func hdDeps(hist []hdLog, x Range, write bool) []int32 {
	seen := map[int32]bool{}
	left := []Range{x}
	for k := len(hist) - 1; k >= 0 && len(left) > 0; k-- {
		var next []Range
		for _, u := range left {
			if write {
				for _, a := range hdOverlapping(hist[k].sends, u) {
					seen[a.op] = true
				}
			}
			off := u.Off
			for _, a := range hdOverlapping(hist[k].recvs, u) {
				seen[a.op] = true
				if a.r.Off > off {
					next = append(next, Range{off, a.r.Off - off})
				}
				off = a.r.End()
			}
			if off < u.End() {
				next = append(next, Range{off, u.End() - off})
			}
		}
		left = next
	}
	if len(seen) == 0 {
		return nil
	}
	deps := make([]int32, 0, len(seen))
	for d := range seen {
		deps = append(deps, d)
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i] < deps[j] })
	return deps
}

func init() {
	RegisterGroup("halving-doubling", HalvingDoublingProgram)
	Register("halving-doubling", []CollectiveOp{OpAllReduce, OpReduceScatter, OpAllGather},
		"recursive halving (reduce-scatter) and doubling (all-gather) over all NPUs in id order: log2 P steps each, partners at distance P/2, P/4, …, 1 (routed unless ring neighbours); needs a power-of-two NPU count",
		func(cfg Config) (Algorithm, error) {
			n := cfg.Machine.N()
			if n&(n-1) != 0 {
				return nil, fmt.Errorf("halving-doubling needs a power-of-two number of NPUs; %s has %d: use ring", cfg.Machine, n)
			}
			t := allTier(cfg)
			kind := map[CollectiveOp]PhaseKind{OpAllReduce: AllReduce, OpReduceScatter: ReduceScatter, OpAllGather: AllGather}[cfg.Op]
			return NewHierarchical(cfg, []HPhase{{Kind: kind, Tier: t, Algo: "halving-doubling"}})
		})
}

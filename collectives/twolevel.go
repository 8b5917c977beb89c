package collectives

import (
	"fmt"
	"sort"
)

// Two-level all-reduce: the baseline of "BlueConnect: Novel Hierarchical
// All-Reduce on Multi-tired Network for Deep Learning" (Section 2, Eq. (4),
// the scheme of GLOO): reduce within each group of the lowest tier to its
// master, ring all-reduce among the masters (one per lowest-tier group) over
// the tiers above, broadcast within each lowest-tier group. Eq. (4) prices a
// reduce, and a broadcast, as T_c + T_r: a reduce-scatter and one more
// ring-like pass. acemu builds them so [choice, docs/collectives.md
// "Two-level"]:
//
//	1 reduce-scatter on tier 0 (ring)       member r owns block r, reduced over the group
//	2 gather to the master on tier 0 (chain) block q travels q hops down the chain to member 0
//	3 all-reduce among the masters (ring)   the masters alone, on the whole chunk; the others idle
//	4 scatter from the master on tier 0 (chain) block q travels back up to member q
//	5 all-gather on tier 0 (ring)
//
// The chain is the group in its order, member r passing to member r−1
// (gather) or r+1 (scatter): in chain step t member r (r ≥ 1) sends block
// r+t to member r−1, which received it in step t−1 (its own block in step
// 0); the master (member 0) takes block 1+t in step t. The scatter is its
// mirror: the master sends block p−1−t to member 1 in step t, and member r
// forwards each block above r the step after it came. Each is p−1 steps of
// one block per link, (p−1)α + ((p−1)/p)·n/w: Eq. (1)'s T_r. Blocks are
// the ring reduce-scatter's (Program.Out of each member), cut into
// messages of at most MessageBytes.
//
// With a single tier (the NPU count is the lowest tier's size) there is no
// third phase: reduce and broadcast within the one group.
type twoLevel struct {
	cfg     Config
	low     Tier  // the lowest tier: the groups that reduce to a master
	masters []int // the masters in id order: position 0 of each low group
}

func newTwoLevel(cfg Config) (*twoLevel, error) {
	if cfg.Op != OpAllReduce {
		return nil, fmt.Errorf("two-level runs an all-reduce only, not %s", cfg.Op)
	}
	tiers, err := cfg.factorTiers()
	if err != nil {
		return nil, err
	}
	if len(tiers) == 0 {
		return nil, fmt.Errorf("no tiers: every factor is 1, so there is nothing to do; use a topology with at least 2 NPUs")
	}
	t := &twoLevel{cfg: cfg, low: tiers[0]}
	for npu := 0; npu < cfg.Machine.N(); npu++ {
		if _, pos := t.low.Group(npu); pos == 0 {
			t.masters = append(t.masters, npu)
		}
	}
	for _, g := range []struct {
		what string
		size int
	}{{"lowest tier's group", t.low.Size}, {"ring of masters", len(t.masters)}} {
		if g.size > MaxGroup {
			return nil, fmt.Errorf("a %s of %d NPUs; acemu's analysis of a phase's programs grows as the cube of its group, so a group holds at most %d; give --factors whose first factor, and the NPU count divided by it, are at most %d",
				g.what, g.size, MaxGroup, MaxGroup)
		}
	}
	return t, nil
}

// Phases names the phases.
func (t *twoLevel) Phases() []string {
	out := []string{
		fmt.Sprintf("reduce-scatter on %s (ring)", t.low.Name),
		fmt.Sprintf("gather to the master on %s (chain)", t.low.Name),
	}
	if len(t.masters) > 1 {
		out = append(out, fmt.Sprintf("all-reduce among the %d masters (ring)", len(t.masters)))
	}
	return append(out,
		fmt.Sprintf("scatter from the master on %s (chain)", t.low.Name),
		fmt.Sprintf("all-gather on %s (ring)", t.low.Name))
}

// Build returns npu's programs: every phase works on the whole chunk.
func (t *twoLevel) Build(npu int, chunkLen int64) ([]*Program, error) {
	bidir := !t.cfg.Unidirectional
	ring := func(kind PhaseKind) (*Program, error) {
		return RingProgram(t.low.Spec(npu, kind, chunkLen, t.cfg.MessageBytes, bidir))
	}
	members, pos := t.low.Group(npu)
	blocks := make([][]Range, len(members))
	for q := range members {
		s := t.low.Spec(members[q], ReduceScatter, chunkLen, t.cfg.MessageBytes, bidir)
		prog, err := RingProgram(s)
		if err != nil {
			return nil, err
		}
		blocks[q] = prog.Out
	}
	rs, err := ring(ReduceScatter)
	if err != nil {
		return nil, err
	}
	gather := chainPrograms(members, blocks, chunkLen, t.cfg.MessageBytes, gatherSchedule(len(members)))[pos]
	if pos == 0 {
		gather.Out = []Range{{0, chunkLen}}
	}
	progs := []*Program{rs, gather}
	if len(t.masters) > 1 {
		top := &Program{View: []Range{{0, chunkLen}}}
		if pos == 0 {
			i := sort.SearchInts(t.masters, npu)
			if top, err = RingProgram(GroupSpec{Kind: AllReduce, Members: t.masters, Pos: i, ViewLen: chunkLen,
				MessageBytes: t.cfg.MessageBytes, Bidirectional: bidir}); err != nil {
				return nil, err
			}
		}
		progs = append(progs, top)
	}
	scatter := chainPrograms(members, blocks, chunkLen, t.cfg.MessageBytes, scatterSchedule(len(members)))[pos]
	scatter.Out = append([]Range(nil), blocks[pos]...)
	ag, err := ring(AllGather)
	if err != nil {
		return nil, err
	}
	return append(progs, scatter, ag), nil
}

// Input is the whole chunk; Output too (an all-reduce).
func (t *twoLevel) Input(int, int64) []Range  { return nil }
func (t *twoLevel) Output(int, int64) []Range { return nil }

// chainMsg is one block moved one hop in a chain phase: from member from to
// member to (positions in the group) in chain step step.
type chainMsg struct{ from, to, step, block int }

// gatherSchedule lists the gather's moves on a group of p: in step t,
// member r ≥ 1 sends block r+t to r−1 while r+t < p.
func gatherSchedule(p int) []chainMsg {
	var out []chainMsg
	for st := 0; st < p-1; st++ {
		for r := 1; r+st < p; r++ {
			out = append(out, chainMsg{r, r - 1, st, r + st})
		}
	}
	return out
}

// scatterSchedule lists the scatter's moves on a group of p: in step t the
// master sends block p−1−t to member 1, and member r ≥ 1 sends block
// p−1−t+r to r+1 while that is above r (it came in step t−1).
func scatterSchedule(p int) []chainMsg {
	var out []chainMsg
	for st := 0; st < p-1; st++ {
		for r := 0; r < p-1; r++ {
			if b := p - 1 - st + r; b > r && b < p && (r == 0 || st >= r) {
				out = append(out, chainMsg{r, r + 1, st, b})
			}
		}
	}
	return out
}

// chainPrograms builds every member's program of a chain phase (schedule
// ms, in step order) over a view of the whole chunk: each block's ranges
// cut into messages of at most msg bytes, one Send and one Recv (storing)
// per message, a member's Send of a block it received in this phase
// depending on that Recv. Ops are listed by step, a step's Recvs before its
// Sends, so dependences point backwards and a Send's Match is known.
func chainPrograms(members []int, blocks [][]Range, chunkLen, msg int64, ms []chainMsg) []*Program {
	progs := make([]*Program, len(members))
	steps := 0
	for i := range progs {
		progs[i] = &Program{NPU: members[i], View: []Range{{0, chunkLen}}}
	}
	for _, m := range ms {
		steps = max(steps, m.step+1)
	}
	recvAt := make([]map[int64]int32, len(members)) // per member: piece offset → its Recv
	for i := range recvAt {
		recvAt[i] = map[int64]int32{}
	}
	for lo := 0; lo < len(ms); {
		hi := lo
		for hi < len(ms) && ms[hi].step == ms[lo].step {
			hi++
		}
		for _, m := range ms[lo:hi] {
			for _, pc := range pieces(blocks[m.block], msg) {
				p := progs[m.to]
				recvAt[m.to][pc.Off] = int32(len(p.Ops))
				p.Ops = append(p.Ops, Op{Kind: Recv, Peer: int32(members[m.from]), Port: RouteXYZ, Data: pc, Step: int32(m.step)})
			}
		}
		for _, m := range ms[lo:hi] {
			for _, pc := range pieces(blocks[m.block], msg) {
				p := progs[m.from]
				var deps []int32
				if r, ok := recvAt[m.from][pc.Off]; ok {
					deps = []int32{r}
				}
				p.Ops = append(p.Ops, Op{Kind: Send, Peer: int32(members[m.to]), Port: RouteXYZ,
					Match: recvAt[m.to][pc.Off], Data: pc, Deps: deps, Step: int32(m.step)})
			}
		}
		lo = hi
	}
	for _, p := range progs {
		p.Steps = steps
	}
	return progs
}

// pieces cuts ranges into messages of at most msg bytes.
func pieces(rs []Range, msg int64) []Range {
	var out []Range
	for _, r := range rs {
		for off := r.Off; off < r.End(); off += msg {
			out = append(out, Range{off, min(msg, r.End()-off)})
		}
	}
	return out
}

func init() {
	Register("two-level", []CollectiveOp{OpAllReduce},
		"two-level all-reduce (the BlueConnect paper's Eq. (4) baseline, GLOO-like): reduce within each lowest-tier group to its master (ring reduce-scatter, chain gather), ring all-reduce among the masters, broadcast back (chain scatter, ring all-gather); tiers as blueconnect's (--factors)",
		func(cfg Config) (Algorithm, error) { return newTwoLevel(cfg) })
}

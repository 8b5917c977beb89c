package collectives

import (
	"cmp"
	"slices"
)

// Flow is what the ACE data path needs to know about each op of a program.
// Analyze computes it; it depends on nothing but the program, so every
// algorithm gets the same treatment (docs/ace-model.md, "Why forwarding and
// dead results matter").
type Flow struct {
	// ForwardOf[i] >= 0 for a Send i that forwards the data a Recv just
	// brought in: its only dependence is that Recv and its Data range equals
	// the Recv's. -1 otherwise. ACE sends such data from the ALU / input
	// buffer as the Recv processes it, without an SRAM read (Fig. 8(c) 2.3,
	// 4.1, 5.2).
	ForwardOf []int32
	// Forwards[r] lists the Sends that forward Recv r (usually 0 or 1), in
	// index order; nil for a Recv without forwards and for every Send.
	Forwards [][]int32
	// Store[r] for a Recv r: whether its result must be written to SRAM.
	// False only for a Recv whose result is dead after its forwards: no
	// later op of the program reads those bytes (a Send that is not one of
	// r's forwards, or a Recv with Reduce that adds into them) before they
	// are overwritten by a store (a Recv without Reduce covering them), and
	// they are not in Program.Out (the phase's result) unless overwritten
	// first. "Later" is conservative: every op with index > r, and every op
	// with index < r that does not (transitively) precede r through Deps,
	// may run after r. A Recv with no forwards always stores. Store is false
	// for every Send.
	Store []bool
}

// Analyze computes the Flow of a program.
//
// Forwards: Send i forwards Recv r when i's dependences, without
// duplicates, are exactly {r} (r < i) and i.Data == r.Data. A dependence on
// anything else, even one implied by r, makes i an ordinary send: the
// tree's down-sends after the first piece also wait for the previous
// down-send on their link, so only the first piece is forwarded.
//
// Dead results: for a Recv r with at least one forward, the bytes of r.Data
// are followed through the program:
//
//   - an op with index < r that is not an ancestor of r through Deps may run
//     after r; if it reads any of the bytes (a Send, or a Recv with Reduce)
//     r is live. Such an op is never taken to overwrite them: it may as
//     well run first.
//   - the ops with index > r are taken in index order, the order in which
//     a program writes the same bytes (ring and halving-doubling programs
//     order their writes through Deps or through the peers' messages): a
//     Send that is not a forward of r, or a Recv with Reduce, that reads a
//     byte not yet overwritten makes r live; a Recv without Reduce
//     overwrites the bytes it covers.
//   - bytes never overwritten that lie in Program.Out make r live.
//
// Otherwise r's result only feeds its forwards and Store[r] is false.
//
// Dependences that do not point to an earlier op are ignored (Validate
// reports them); Analyze does not fail.
func Analyze(p *Program) Flow {
	n := len(p.Ops)
	f := Flow{
		ForwardOf: make([]int32, n),
		Forwards:  make([][]int32, n),
		Store:     make([]bool, n),
	}
	for i := range p.Ops {
		f.ForwardOf[i] = -1
		op := &p.Ops[i]
		if op.Kind != Send {
			continue
		}
		r := flowSoleDep(op.Deps, i)
		if r < 0 {
			continue
		}
		if src := &p.Ops[r]; src.Kind == Recv && src.Data == op.Data {
			f.ForwardOf[i] = r
			f.Forwards[r] = append(f.Forwards[r], int32(i))
		}
	}
	data := make([]Range, n)
	for i := range p.Ops {
		data[i] = p.Ops[i].Data
	}
	a := flowAnalyzer{p: p, f: &f, mark: make([]int32, n), ops: newRangeIndex(data), out: newRangeIndex(p.Out)}
	for r := range p.Ops {
		if p.Ops[r].Kind != Recv {
			continue
		}
		f.Store[r] = len(f.Forwards[r]) == 0 || a.live(r)
	}
	return f
}

// flowSoleDep returns the one op deps name (duplicates allowed), or -1 when they
// name none, several, or an op that is not earlier than i.
func flowSoleDep(deps []int32, i int) int32 {
	if len(deps) == 0 {
		return -1
	}
	d := deps[0]
	for _, x := range deps[1:] {
		if x != d {
			return -1
		}
	}
	if d < 0 || int(d) >= i {
		return -1
	}
	return d
}

// flowAnalyzer holds the scratch space of Analyze's liveness checks.
type flowAnalyzer struct {
	p *Program
	f *Flow
	// mark[j] == stamp: op j is an ancestor of the Recv being checked.
	mark  []int32
	stamp int32
	stack []int32
	// ops indexes the ops' data and out the program's result (Program.Out):
	// only the ops whose data overlaps a Recv's can make its result live or
	// overwrite it, so each Recv's check costs what overlaps its bytes, not
	// the whole program, and Analyze grows with the program's length rather
	// than its square (a chunk of 256 MiB cut into 8 KiB messages has 10^5
	// ops, its reduce-scatter's result 10^4 ranges).
	ops, out rangeIndex
	near     []int32 // scratch: the ops overlapping the Recv checked
}

// rangeIndex finds the ranges of a list that share a byte with a given one.
type rangeIndex struct {
	rs []Range
	// byOff lists the indices of the ranges of rs that hold bytes, by
	// offset, then index; maxLen is the longest range.
	byOff  []int32
	maxLen int64
}

// newRangeIndex indexes rs.
func newRangeIndex(rs []Range) rangeIndex {
	x := rangeIndex{rs: rs}
	for j, r := range rs {
		if r.Len > 0 {
			x.byOff = append(x.byOff, int32(j))
			x.maxLen = max(x.maxLen, r.Len)
		}
	}
	slices.SortFunc(x.byOff, func(i, j int32) int {
		return cmp.Or(cmp.Compare(rs[i].Off, rs[j].Off), cmp.Compare(i, j))
	})
	return x
}

// each calls f with the index of every range that shares a byte with x,
// in order of offset, until f returns false; it reports whether f always
// returned true. The ranges that can are those starting in
// (x.Off-maxLen, x.End()).
func (x *rangeIndex) each(r Range, f func(j int32) bool) bool {
	if r.Len <= 0 {
		return true
	}
	from, _ := slices.BinarySearchFunc(x.byOff, r.Off-x.maxLen+1, func(j int32, off int64) int {
		return cmp.Compare(x.rs[j].Off, off)
	})
	for _, j := range x.byOff[from:] {
		if x.rs[j].Off >= r.End() {
			break
		}
		if flowOverlaps(x.rs[j], r) && !f(j) {
			return false
		}
	}
	return true
}

// ancestors marks the ops from index lo on that precede r through Deps,
// transitively (a path from r to such an op stays at indices >= lo, as
// every dependence points to an earlier op).
func (a *flowAnalyzer) ancestors(r, lo int) {
	a.stamp++
	a.stack = append(a.stack[:0], int32(r))
	for len(a.stack) > 0 {
		j := a.stack[len(a.stack)-1]
		a.stack = a.stack[:len(a.stack)-1]
		for _, d := range a.p.Ops[j].Deps {
			if d < int32(lo) || d >= j || a.mark[d] == a.stamp {
				continue
			}
			a.mark[d] = a.stamp
			a.stack = append(a.stack, d)
		}
	}
}

// live reports whether the result of Recv r may be read after r other than
// by its forwards (see Analyze). Only the ops whose data overlaps r's are
// looked at: an op that shares no byte with r's data neither reads nor
// overwrites any of it.
func (a *flowAnalyzer) live(r int) bool {
	ops := a.p.Ops
	x := ops[r].Data
	if x.Len <= 0 {
		return false
	}
	isForward := func(j int32) bool { return a.f.ForwardOf[j] == int32(r) }
	reads := func(op *Op) bool { return op.Kind == Send || op.Reduce }
	a.near = a.near[:0]
	a.ops.each(x, func(j int32) bool {
		a.near = append(a.near, j)
		return true
	})
	slices.Sort(a.near)
	later, _ := slices.BinarySearch(a.near, int32(r+1))

	// Earlier ops that may run after r.
	// r's ancestors are marked only as far down as the first of them.
	first := -1
	for _, j := range a.near[:later] {
		if int(j) != r && reads(&ops[j]) {
			first = int(j)
			break
		}
	}
	if first >= 0 {
		a.ancestors(r, first)
		for _, j := range a.near[:later] {
			if int(j) != r && a.mark[j] != a.stamp && reads(&ops[j]) {
				return true
			}
		}
	}
	// Later ops, in order, against the bytes not yet overwritten.
	left := []Range{x}
	for _, j := range a.near[later:] {
		if len(left) == 0 {
			break
		}
		op := &ops[j]
		switch {
		case op.Kind == Send && isForward(j):
		case reads(op):
			if flowAnyOverlap(left, op.Data) {
				return true
			}
		default: // a store
			left = flowSubtract(left, op.Data)
		}
	}
	for _, l := range left {
		if !a.out.each(l, func(int32) bool { return false }) {
			return true // l is in the result
		}
	}
	return false
}

// flowOverlaps reports whether two ranges share a byte.
func flowOverlaps(a, b Range) bool {
	return a.Len > 0 && b.Len > 0 && a.Off < b.End() && b.Off < a.End()
}

// flowAnyOverlap reports whether x shares a byte with any of rs.
func flowAnyOverlap(rs []Range, x Range) bool {
	for _, r := range rs {
		if flowOverlaps(r, x) {
			return true
		}
	}
	return false
}

// flowSubtract removes x from the disjoint ranges rs.
func flowSubtract(rs []Range, x Range) []Range {
	if x.Len <= 0 || !flowAnyOverlap(rs, x) {
		return rs
	}
	out := make([]Range, 0, len(rs)+1)
	for _, r := range rs {
		if !flowOverlaps(r, x) {
			out = append(out, r)
			continue
		}
		if x.Off > r.Off {
			out = append(out, Range{r.Off, x.Off - r.Off})
		}
		if x.End() < r.End() {
			out = append(out, Range{x.End(), r.End() - x.End()})
		}
	}
	return out
}

// SRAMBytes counts, for one program, the bytes ACE would read from and write
// to SRAM for its ops under this analysis: sends that are not forwards read
// their bytes; Recvs with Reduce read their bytes (local operand); Recvs
// with Store write their bytes. (DMA traffic is not included.) f must be
// Analyze(p).
func (f Flow) SRAMBytes(p *Program) (read, write int64) {
	for i := range p.Ops {
		op := &p.Ops[i]
		switch {
		case op.Kind == Send:
			if f.ForwardOf[i] < 0 {
				read += op.Data.Len
			}
		default:
			if op.Reduce {
				read += op.Data.Len
			}
			if f.Store[i] {
				write += op.Data.Len
			}
		}
	}
	return read, write
}

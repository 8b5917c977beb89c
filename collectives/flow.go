package collectives

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
	a := flowAnalyzer{p: p, f: &f, mark: make([]int32, n)}
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
}

// ancestors marks the ops that precede r through Deps, transitively.
func (a *flowAnalyzer) ancestors(r int) {
	a.stamp++
	a.stack = append(a.stack[:0], int32(r))
	for len(a.stack) > 0 {
		j := a.stack[len(a.stack)-1]
		a.stack = a.stack[:len(a.stack)-1]
		for _, d := range a.p.Ops[j].Deps {
			if d < 0 || d >= j || a.mark[d] == a.stamp {
				continue
			}
			a.mark[d] = a.stamp
			a.stack = append(a.stack, d)
		}
	}
}

// live reports whether the result of Recv r may be read after r other than
// by its forwards (see Analyze).
func (a *flowAnalyzer) live(r int) bool {
	ops := a.p.Ops
	x := ops[r].Data
	if x.Len <= 0 {
		return false
	}
	isForward := func(j int) bool { return a.f.ForwardOf[j] == int32(r) }
	reads := func(op *Op) bool { return op.Kind == Send || op.Reduce }

	// Earlier ops that may run after r.
	a.ancestors(r)
	for j := 0; j < r; j++ {
		if a.mark[j] != a.stamp && reads(&ops[j]) && flowOverlaps(ops[j].Data, x) {
			return true
		}
	}
	// Later ops, in order, against the bytes not yet overwritten.
	left := []Range{x}
	for j := r + 1; j < len(ops) && len(left) > 0; j++ {
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
	for _, o := range a.p.Out {
		if flowAnyOverlap(left, o) {
			return true
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

package collectives

import "fmt"

// Kind is what an operation does.
type Kind uint8

// Operation kinds.
const (
	// Send sends Data to Peer, where it is taken by the Recv at index Match
	// of Peer's program for the same chunk and phase.
	Send Kind = iota
	// Recv takes a message from Peer into Data, adding it to the local
	// values (Reduce) or overwriting them.
	Recv
)

func (k Kind) String() string {
	if k == Send {
		return "send"
	}
	return "recv"
}

// Range is a span of bytes [Off, Off+Len).
type Range struct{ Off, Len int64 }

// End returns Off+Len.
func (r Range) End() int64 { return r.Off + r.Len }

// RouteXYZ in Op.Port means the message goes by dimension-order routing
// rather than out of one named port.
const RouteXYZ = -1

// Op is one step of a program.
type Op struct {
	Kind Kind
	// Peer is the NPU sent to or received from.
	Peer int32
	// Port is the sender's outgoing port (torus.Port.Index) for a Send to a
	// neighbour, or RouteXYZ.
	Port int8
	// Reduce: a Recv adds into the local data; otherwise it stores.
	Reduce bool
	// Match is, for a Send, the index of the matching Recv in Peer's program.
	Match int32
	// Data is the bytes moved, as a range of the phase's view.
	Data Range
	// Deps are indices of ops of the same program that must finish first.
	// A Send may start once they have; a Recv completes once they have and
	// its message has arrived.
	Deps []int32
	// Step is the algorithm step this op belongs to (for traces and step
	// counts), counted from 0 within the phase.
	Step int32
}

// Program is what one NPU does for one chunk in one phase.
type Program struct {
	NPU int
	Ops []Op
	// View lists the chunk's byte ranges this phase works on, concatenated
	// in order into the phase's view (offsets of Op.Data are in the view).
	View []Range
	// Out lists the view ranges that hold this NPU's result when the
	// phase ends.
	Out []Range
	// Steps is the number of algorithm steps of the phase.
	Steps int
	// Finals, where the program declares them, are parts of the view that
	// hold their final values on this NPU before the phase ends, in the
	// order of their offsets: each once every op of its Ops has completed
	// (a pipelined tree's pieces, which the C-Cube paper's gradient
	// queuing consumes one by one). Nil: none before the phase ends.
	Finals []Final
}

// Final is a part of a program's view whose values are final once its
// ops have completed; an op counts toward one Final at most.
type Final struct {
	Data Range
	Ops  []int32
}

// ViewLen returns the size of the phase's view.
func (p *Program) ViewLen() int64 { return rangesLen(p.View) }

// SentBytes returns the bytes this program sends.
func (p *Program) SentBytes() int64 {
	var n int64
	for i := range p.Ops {
		if p.Ops[i].Kind == Send {
			n += p.Ops[i].Data.Len
		}
	}
	return n
}

// Validate checks the program's internal consistency: dependences point
// backwards to existing ops, data ranges lie inside the view.
func (p *Program) Validate() error {
	n := p.ViewLen()
	for i, op := range p.Ops {
		if op.Data.Off < 0 || op.Data.Len < 0 || op.Data.End() > n {
			return fmt.Errorf("NPU %d op %d: data %v outside the view of %d bytes", p.NPU, i, op.Data, n)
		}
		for _, d := range op.Deps {
			if d < 0 || int(d) >= i {
				return fmt.Errorf("NPU %d op %d: dependence on op %d, which is not an earlier op", p.NPU, i, d)
			}
		}
	}
	return nil
}

func rangesLen(rs []Range) int64 {
	var n int64
	for _, r := range rs {
		n += r.Len
	}
	return n
}

// mapRanges maps ranges of a view (the concatenation of view) back to the
// underlying space, splitting where a range crosses pieces of the view.
func mapRanges(view []Range, rs []Range) []Range {
	var out []Range
	for _, r := range rs {
		off, left := r.Off, r.Len
		base := int64(0)
		for _, v := range view {
			if left == 0 {
				break
			}
			if off < base+v.Len && off+left > base {
				start := off - base
				n := v.Len - start
				if n > left {
					n = left
				}
				out = appendRange(out, Range{v.Off + start, n})
				off += n
				left -= n
			}
			base += v.Len
		}
	}
	return out
}

// appendRange appends r, merging it with the last range when contiguous.
func appendRange(rs []Range, r Range) []Range {
	if r.Len == 0 {
		return rs
	}
	if n := len(rs); n > 0 && rs[n-1].End() == r.Off {
		rs[n-1].Len += r.Len
		return rs
	}
	return append(rs, r)
}

// split cuts n into k near-equal parts, the first n%k one byte larger.
func split(off, n int64, k int) []Range {
	out := make([]Range, k)
	q, r := n/int64(k), n%int64(k)
	for i := range out {
		l := q
		if int64(i) < r {
			l++
		}
		out[i] = Range{off, l}
		off += l
	}
	return out
}

// DepGraph returns, for every op of p, how many dependences it has and
// which ops depend on it: what an executor needs to release ops as others
// complete.
func (p *Program) DepGraph() (ndeps []int16, dependents [][]int32) {
	ndeps = make([]int16, len(p.Ops))
	dependents = make([][]int32, len(p.Ops))
	for i, op := range p.Ops {
		ndeps[i] = int16(len(op.Deps))
		for _, d := range op.Deps {
			dependents[d] = append(dependents[d], int32(i))
		}
	}
	return ndeps, dependents
}

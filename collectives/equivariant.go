package collectives

import (
	"fmt"
	"slices"

	"github.com/acemu/acemu/machine"
)

// CheckEquivariant reports whether every NPU of the plan's machine runs NPU
// 0's programs translated: for every phase and chunk length, NPU q's
// program has NPU 0's ops in the same order with the same kind, port,
// reduction, matching op, data length, dependences and step, and a peer
// displaced by q (machine.Folder.Displace), the same view and output sizes,
// and the same data flow (Analyze: which sends forward which receives,
// which receives store). Data offsets may differ: they say which bytes
// move, not when.
//
// Such a plan looks the same from every NPU, so one NPU on a folded
// network (fabric.NewFoldedNetwork) runs it as every NPU would. It fails
// when, for instance, a near-equal split gives NPUs blocks of different
// sizes; the error names the first difference. The plan keeps the answer
// (NewPlan finds it) until SetProgram changes a program.
func CheckEquivariant(p *Plan) error {
	if !p.equivKnown {
		p.equiv, p.equivKnown = checkEquivariant(p), true
	}
	return p.equiv
}

// checkEquivariant is CheckEquivariant, NPU by NPU.
func checkEquivariant(p *Plan) error {
	s, folds := p.Machine.Folder()
	if !folds {
		return noSymmetry(p)
	}
	lens := []int64{p.ChunkLen(0)}
	if last := p.ChunkLen(p.NumChunks() - 1); last != lens[0] {
		lens = append(lens, last)
	}
	// NPU 0's programs are kept (a folded run uses them); the others are
	// built for the comparison and let go, so that checking a plan holds one
	// NPU's programs, not every NPU's.
	for _, l := range lens {
		for q := 1; q < s.N(); q++ {
			progs, _, err := p.look(q, l)
			if err != nil {
				return fmt.Errorf("%s %s on %s, chunk of %d bytes, NPU %d: %w", p.Algorithm, p.Op, s, l, q, err)
			}
			if err := p.translatesFrom0(s, true, q, l, progs); err != nil {
				return err
			}
		}
	}
	return nil
}

// translatesFrom0 compares NPU q's programs for chunk length l with NPU
// 0's translated by q.
func (p *Plan) translatesFrom0(s machine.Folder, folds bool, q int, l int64, progs []*Program) error {
	if !folds {
		return noSymmetry(p)
	}
	for ph := 0; ph < p.NumPhases(); ph++ {
		ref := p.Program(0, ph, l)
		if err := translates(ref, p.flow(ref), progs[ph], func(peer int32) int32 { return int32(s.Displace(int(peer), q)) }); err != nil {
			return fmt.Errorf("%s %s on %s, phase %d, chunk of %d bytes: NPU %d does not run NPU 0's program translated: %w",
				p.Algorithm, p.Op, p.Machine, ph+1, l, q, err)
		}
	}
	return nil
}

// translates compares b with a moved (peer maps a's peers to b's).
func translates(a *Program, af *Flow, b *Program, peer func(int32) int32) error {
	switch {
	case len(a.Ops) != len(b.Ops):
		return fmt.Errorf("%d ops against %d", len(b.Ops), len(a.Ops))
	case a.ViewLen() != b.ViewLen():
		return fmt.Errorf("a view of %d bytes against %d", b.ViewLen(), a.ViewLen())
	case rangesLen(a.Out) != rangesLen(b.Out):
		return fmt.Errorf("a result of %d bytes against %d", rangesLen(b.Out), rangesLen(a.Out))
	case a.Steps != b.Steps:
		return fmt.Errorf("%d steps against %d", b.Steps, a.Steps)
	}
	for i := range a.Ops {
		x, y := &a.Ops[i], &b.Ops[i]
		if x.Kind != y.Kind || x.Port != y.Port || x.Reduce != y.Reduce || x.Match != y.Match ||
			x.Data.Len != y.Data.Len || x.Step != y.Step || !slices.Equal(x.Deps, y.Deps) {
			return fmt.Errorf("op %d is %s of %d bytes (port %d, match %d, step %d) against %s of %d bytes (port %d, match %d, step %d)",
				i, y.Kind, y.Data.Len, y.Port, y.Match, y.Step, x.Kind, x.Data.Len, x.Port, x.Match, x.Step)
		}
		if want := peer(x.Peer); y.Peer != want {
			return fmt.Errorf("op %d's peer is NPU %d, not NPU %d", i, y.Peer, want)
		}
	}
	bf := Analyze(b)
	if !slices.Equal(af.ForwardOf, bf.ForwardOf) || !slices.Equal(af.Store, bf.Store) {
		return fmt.Errorf("its data flow (forwards, stores) differs")
	}
	return nil
}

// byPosition decides CheckEquivariant for a hierarchical plan from the
// members of NPU 0's groups alone, without building every NPU's programs
// (a folded run of 65536 NPUs would otherwise build them all for each
// collective size). ref is NPU 0's programs for chunk length l. It applies
// (decided) when every phase's tier is a dimension of the torus; otherwise,
// or when a program fails to build, the caller compares every NPU.
//
// Why the members of NPU 0's groups suffice, phase by phase:
//
//   - On a torus dimension, NPU q's group is NPU q′'s group displaced by
//     q − q′, member by member, where q′ is the member of NPU 0's group at
//     q's position (its coordinate on the dimension).
//   - A group algorithm uses Members only as the NPUs they name (its peers
//     and its own id; GroupAlgorithm): NPU q's program is NPU q′'s with
//     every peer displaced by q − q′, provided both have the same view
//     length.
//   - So if NPU q′'s program is NPU 0's displaced by q′ (checked here, for
//     every q′ of NPU 0's group: translates), NPU q's is NPU 0's displaced
//     by q, flow included (Analyze does not look at peers).
//   - View lengths are the same on every NPU by induction: the chunk's at
//     the start; a reduce-scatter leaves a view of its result's length,
//     which translates compares; an all-gather restores an earlier view.
//     Leading all-gathers start from the views a mirror chain of
//     reduce-scatters would leave: their result's length is checked at
//     every position.
//
// TestEquivariantByPositionAgreesWithEveryNPU compares the answer with
// the NPU-by-NPU comparison on many shapes, algorithms and lengths.
func (h *Hierarchical) byPosition(p *Plan, s machine.Folder, l int64, ref []*Program) (decided bool, err error) {
	for _, ph := range h.phases {
		if !onDimension(ph.Tier, p.Machine.Dims) {
			return false, nil
		}
	}
	view := l
	for i := h.lead - 1; i >= 0; i-- {
		rs := h.phases[i]
		rs.Kind = ReduceScatter
		members, _ := rs.Tier.Group(0)
		out := int64(-1)
		for _, q := range members {
			prog, err := h.groups[i](h.spec(q, rs, view))
			if err != nil {
				return false, nil
			}
			n := rangesLen(prog.Out)
			if out >= 0 && n != out {
				return true, fmt.Errorf("%s %s on %s, chunk of %d bytes: NPU %d starts phase %d from %d bytes, NPU %d from %d",
					p.Algorithm, p.Op, p.Machine, l, q, i+1, n, members[0], out)
			}
			out = n
		}
		view = out
	}
	for i, ph := range h.phases {
		a := ref[i]
		af := p.flow(a)
		members, _ := ph.Tier.Group(0)
		for _, q := range members[1:] {
			b, err := h.groups[i](h.spec(q, ph, a.ViewLen()))
			if err != nil {
				return false, nil
			}
			b.NPU = q
			if err := b.Validate(); err != nil {
				return false, nil
			}
			if err := translates(a, af, b, func(peer int32) int32 { return int32(s.Displace(int(peer), q)) }); err != nil {
				return true, fmt.Errorf("%s %s on %s, phase %d, chunk of %d bytes: NPU %d does not run NPU 0's program translated: %w",
					p.Algorithm, p.Op, p.Machine, i+1, l, q, err)
			}
		}
	}
	return true, nil
}

// onDimension reports whether tier t's groups are the lines of one of the
// machine's strided dimensions (on a folding machine, the torus's).
func onDimension(t Tier, dims []machine.Dim) bool {
	st, ok := t.stride()
	if !ok {
		return false
	}
	for _, a := range dims {
		if as, ok := a.Stride(); ok && a.Size == t.Size && as == st {
			return true
		}
	}
	return false
}

// noSymmetry is why a plan on a machine with no translation symmetry is
// not equivariant.
func noSymmetry(p *Plan) error {
	return fmt.Errorf("%s %s on %s: the machine has no symmetry taking any NPU to any other, so one NPU cannot stand for all", p.Algorithm, p.Op, p.Machine)
}

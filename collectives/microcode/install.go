package microcode

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/units"
)

// Install checks sections against a plan and, if every check passes,
// installs copies of their programs with plan.SetProgram, so that
// plan.Program returns them. It installs nothing when a check fails.
//
// Every section must be for an NPU of the plan's torus and for a chunk length
// the plan runs (ChunkLens), at most once, with one program per phase of the
// plan (names are not compared) whose NPU is the section's. Every program
// must pass Program.Validate and the checks Write makes. Then, for each
// chunk length with sections, in every phase, with the file's programs in
// place of the plan's (an NPU without a section keeps the plan's program):
//
//   - a send goes to an NPU that exists and is not the sender;
//   - a send out of a named port goes to the neighbour on that port, which
//     the torus must have (port=xyz routes the message instead);
//   - its match indexes a recv of the peer's program whose npu= is the
//     sender and whose data length equals the send's;
//   - every recv is matched by exactly one send.
//
// Each phase's out must name, through its view, the chunk bytes the plan's
// program of that phase names (checkOut); a parsed section's error names
// the out line.
//
// Errors name the section (npu, chunk), the phase and the op; "(built-in)"
// marks a plan program that a section's change left unmatched. Install does
// not run the programs: a deadlock or a wrong result shows in a run
// (acemu collective --check-data).
func Install(plan *collectives.Plan, secs []Section) error {
	n := plan.Machine.N()
	lens := ChunkLens(plan)
	type key struct {
		npu   int
		chunk int64
	}
	file := map[key]*Section{}
	touched := map[int64]bool{}
	for i := range secs {
		s := &secs[i]
		where := secName(*s)
		if s.NPU < 0 || s.NPU >= n {
			return fmt.Errorf("%s: NPU %d does not exist; %s has NPUs 0 to %d", where, s.NPU, plan.Machine, n-1)
		}
		if !containsLen(lens, s.ChunkLen) {
			return fmt.Errorf("%s: the plan never runs a chunk of %d bytes; it runs %s", where, s.ChunkLen, lensText(lens))
		}
		k := key{s.NPU, s.ChunkLen}
		if file[k] != nil {
			return fmt.Errorf("%s: two sections for the same NPU and chunk length; want one", where)
		}
		file[k] = s
		touched[s.ChunkLen] = true
		if len(s.Phases) != plan.NumPhases() {
			return fmt.Errorf("%s: %s, but the plan has %s: %s; want one program per phase", where, units.Count(len(s.Phases), "phase"), units.Count(plan.NumPhases(), "phase"), phaseList(plan))
		}
		for ph, p := range s.Phases {
			at := fmt.Sprintf("%s phase %d (%s)", where, ph+1, plan.PhaseName(ph))
			if p == nil {
				return fmt.Errorf("%s: no program (nil)", at)
			}
			if p.NPU != s.NPU {
				return fmt.Errorf("%s: the program is for NPU %d, not the section's NPU %d", at, p.NPU, s.NPU)
			}
			if err := checkProgram(p); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			if err := p.Validate(); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			if err := checkOut(plan, s, ph, at); err != nil {
				return err
			}
		}
	}
	for _, l := range lens {
		if !touched[l] {
			continue
		}
		prog := func(npu, ph int) (*collectives.Program, string) {
			if s := file[key{npu, l}]; s != nil {
				return s.Phases[ph], fmt.Sprintf("npu %d chunk %d phase %d (%s)", npu, l, ph+1, plan.PhaseName(ph))
			}
			return plan.Program(npu, ph, l), fmt.Sprintf("npu %d chunk %d (built-in) phase %d (%s)", npu, l, ph+1, plan.PhaseName(ph))
		}
		for ph := 0; ph < plan.NumPhases(); ph++ {
			if err := checkPhase(plan.Machine, ph, prog); err != nil {
				return err
			}
		}
	}
	for _, s := range secs {
		progs := make([]*collectives.Program, len(s.Phases))
		for i, p := range s.Phases {
			progs[i] = clone(p)
		}
		if err := plan.SetProgram(s.NPU, s.ChunkLen, progs); err != nil {
			return fmt.Errorf("%s: %w", secName(s), err)
		}
	}
	return nil
}

// checkPhase checks the sends and recvs of one phase of all NPUs against
// each other. prog returns an NPU's program and how to name it in errors.
func checkPhase(shape *machine.Machine, ph int, prog func(npu, ph int) (*collectives.Program, string)) error {
	n := shape.N()
	type opRef struct{ npu, op int }
	matchedBy := map[opRef]opRef{}
	for npu := 0; npu < n; npu++ {
		p, where := prog(npu, ph)
		for i, op := range p.Ops {
			if op.Kind != collectives.Send {
				continue
			}
			at := fmt.Sprintf("%s op %d: send to npu %d", where, i, op.Peer)
			peer := int(op.Peer)
			switch {
			case peer < 0 || peer >= n:
				return fmt.Errorf("%s: NPU %d does not exist; %s has NPUs 0 to %d", at, peer, shape, n-1)
			case peer == npu:
				return fmt.Errorf("%s: an NPU cannot send to itself; want another NPU", at)
			}
			if op.Port != collectives.RouteXYZ {
				port, _ := portName(op.Port)
				if shape.Ports == nil {
					return fmt.Errorf("%s: port %s: %s routes every message and names no ports; use xyz", at, port, shape)
				}
				nb, ok, why := shape.Ports.Neighbor(npu, int(op.Port))
				if !ok {
					return fmt.Errorf("%s: %s", at, why)
				}
				if nb != peer {
					return fmt.Errorf("%s: port %s leads to npu %d, not npu %d; want the port towards npu %d, or xyz to route the message", at, port, nb, peer, peer)
				}
			}
			pp, pwhere := prog(peer, ph)
			m := int(op.Match)
			if m >= len(pp.Ops) {
				return fmt.Errorf("%s: match=%d, but %s has %d ops (0 to %d); want the index of its recv from npu %d", at, m, pwhere, len(pp.Ops), len(pp.Ops)-1, npu)
			}
			r := pp.Ops[m]
			switch {
			case r.Kind != collectives.Recv:
				return fmt.Errorf("%s: match=%d is a send of %s, not a recv; want the index of its recv from npu %d", at, m, pwhere, npu)
			case int(r.Peer) != npu:
				return fmt.Errorf("%s: match=%d is a recv from npu %d of %s; want a recv from npu %d", at, m, r.Peer, pwhere, npu)
			case r.Data.Len != op.Data.Len:
				mode := "store"
				if r.Reduce {
					mode = "reduce"
				}
				return fmt.Errorf("%s: sends %d bytes, but match=%d (a %s of %s) takes %d; want the same length", at, op.Data.Len, m, mode, pwhere, r.Data.Len)
			}
			ref := opRef{peer, m}
			if first, dup := matchedBy[ref]; dup {
				return fmt.Errorf("%s: match=%d, a recv of %s that op %d of npu %d also sends to; want each recv matched by one send", at, m, pwhere, first.op, first.npu)
			}
			matchedBy[ref] = opRef{npu, i}
		}
	}
	for npu := 0; npu < n; npu++ {
		p, where := prog(npu, ph)
		for i, op := range p.Ops {
			if op.Kind == collectives.Recv {
				if peer := int(op.Peer); peer < 0 || peer >= n || peer == npu {
					return fmt.Errorf("%s op %d: recv from npu %d: want another NPU of %s (0 to %d)", where, i, op.Peer, shape, n-1)
				}
				if _, ok := matchedBy[opRef{npu, i}]; !ok {
					return fmt.Errorf("%s op %d: recv from npu %d is matched by no send; want a send of npu %d with match=%d", where, i, op.Peer, op.Peer, i)
				}
			}
		}
	}
	return nil
}

func containsLen(lens []int64, l int64) bool {
	for _, x := range lens {
		if x == l {
			return true
		}
	}
	return false
}

func lensText(lens []int64) string {
	if len(lens) == 1 {
		return fmt.Sprintf("chunks of %d bytes only", lens[0])
	}
	return fmt.Sprintf("chunks of %d bytes and a last chunk of %d", lens[0], lens[1])
}

func phaseList(plan *collectives.Plan) string {
	var s []string
	for ph := 0; ph < plan.NumPhases(); ph++ {
		s = append(s, fmt.Sprintf("%d %q", ph+1, plan.PhaseName(ph)))
	}
	return strings.Join(s, ", ")
}

// checkOut checks that phase ph of section s leaves its result where the
// plan's phase does: its out ranges, read through its view, must name the
// same chunk bytes as the plan's program's. Which NPU ends a phase with
// which bytes is the algorithm's: the next phase's view starts from them,
// the data check takes a reduce-scatter's result from them and ACE sizes
// its partitions by them, so an out naming other bytes would be ignored by
// some and believed by others (docs/microcode.md, "How user programs are
// checked"). The error names the out line when the section was parsed.
func checkOut(plan *collectives.Plan, s *Section, ph int, at string) error {
	p, ref := s.Phases[ph], plan.Program(s.NPU, ph, s.ChunkLen)
	got, want := chunkBytes(p.View, p.Out), chunkBytes(ref.View, ref.Out)
	if slices.Equal(got, want) {
		return nil
	}
	msg := fmt.Sprintf("%s: out names chunk bytes %s, but the phase leaves this NPU's result in chunk bytes %s; want out ranges of the view that hold exactly those (acemu microcode prints the plan's)",
		at, bytesText(got), bytesText(want))
	if ph < len(s.OutLines) && s.OutLines[ph] > 0 {
		return &Error{File: s.File, Line: s.OutLines[ph], Msg: msg}
	}
	return errors.New(msg)
}

// chunkBytes returns the chunk bytes that ranges rs of a view denote, sorted
// and merged.
func chunkBytes(view, rs []collectives.Range) []collectives.Range {
	var out []collectives.Range
	for _, r := range rs {
		off, end := r.Off, r.Off+r.Len
		pos := int64(0) // view offset of v's first byte
		for _, v := range view {
			lo, hi := max(off, pos), min(end, pos+v.Len)
			if lo < hi {
				out = append(out, collectives.Range{Off: v.Off + lo - pos, Len: hi - lo})
			}
			pos += v.Len
		}
	}
	slices.SortFunc(out, func(a, b collectives.Range) int { return cmp.Compare(a.Off, b.Off) })
	var merged []collectives.Range
	for _, r := range out {
		if n := len(merged); n > 0 && merged[n-1].Off+merged[n-1].Len >= r.Off {
			merged[n-1].Len = max(merged[n-1].Off+merged[n-1].Len, r.Off+r.Len) - merged[n-1].Off
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// bytesText writes chunk ranges as off+len, "none" for none.
func bytesText(rs []collectives.Range) string {
	if len(rs) == 0 {
		return "none"
	}
	return strings.TrimSpace(rangesText(rs))
}

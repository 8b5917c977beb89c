package microcode

import (
	"bytes"
	"fmt"

	"github.com/acemu/acemu/collectives"
)

// Section is the microcode of one NPU for chunks of one length: the NPU's
// program for every phase of the collective, in phase order.
type Section struct {
	// NPU is the NPU the programs run on.
	NPU int
	// ChunkLen is the length in bytes of the chunks the programs are for.
	ChunkLen int64
	// Names are the phase names, one per phase (informational: Install does
	// not compare them with the plan's).
	Names []string
	// Phases are the programs, one per phase. Their NPU field is NPU.
	Phases []*collectives.Program
	// File and OutLines say where Parse read the section: the file's name
	// and, per phase, the line of its out directive, so that Install can
	// name the line of an out it refuses. Empty for a compiled section.
	File     string
	OutLines []int
}

// Compile takes NPU npu's programs for chunks of chunkLen bytes from a plan,
// with the plan's phase names. The programs are deep copies: changing them
// does not change the plan. Empty Deps, View and Out are nil, as Parse
// returns them. Compile panics where plan.Program does (an NPU or chunk
// length the plan cannot build).
func Compile(plan *collectives.Plan, npu int, chunkLen int64) Section {
	sec := Section{NPU: npu, ChunkLen: chunkLen}
	for ph := 0; ph < plan.NumPhases(); ph++ {
		sec.Names = append(sec.Names, plan.PhaseName(ph))
		sec.Phases = append(sec.Phases, clone(plan.Program(npu, ph, chunkLen)))
	}
	return sec
}

// ChunkLens returns the chunk lengths a run of plan uses: the full chunk
// length and, when it differs, the last chunk's.
func ChunkLens(plan *collectives.Plan) []int64 {
	lens := []int64{plan.ChunkLen(0)}
	if last := plan.ChunkLen(plan.NumChunks() - 1); last != lens[0] {
		lens = append(lens, last)
	}
	return lens
}

// CompilePlan compiles every NPU of plan for every chunk length it uses
// (ChunkLens), ordered by chunk length (as ChunkLens) then NPU: a complete
// listing, which Install accepts as it is.
func CompilePlan(plan *collectives.Plan) []Section {
	var secs []Section
	for _, l := range ChunkLens(plan) {
		for npu := 0; npu < plan.Machine.N(); npu++ {
			secs = append(secs, Compile(plan, npu, l))
		}
	}
	return secs
}

// Sections returns NPU npu's sections of plan: one for the full chunk
// length and, when the last chunk is shorter, one for its length.
func Sections(plan *collectives.Plan, npu int) ([]Section, error) {
	if n := plan.Machine.N(); npu < 0 || npu >= n {
		return nil, fmt.Errorf("NPU %d: %s has NPUs 0 to %d", npu, plan.Machine, n-1)
	}
	var secs []Section
	for _, l := range ChunkLens(plan) {
		secs = append(secs, Compile(plan, npu, l))
	}
	return secs, nil
}

// Text returns the listing of NPU npu of plan (Sections). It is what the
// acemu microcode command prints.
func Text(plan *collectives.Plan, npu int) (string, error) {
	secs, err := Sections(plan, npu)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := Write(&b, secs); err != nil {
		return "", err
	}
	return b.String(), nil
}

// clone deep-copies a program, normalising empty slices to nil.
func clone(p *collectives.Program) *collectives.Program {
	q := &collectives.Program{NPU: p.NPU, Steps: p.Steps}
	q.View = cloneRanges(p.View)
	q.Out = cloneRanges(p.Out)
	if len(p.Ops) > 0 {
		q.Ops = make([]collectives.Op, len(p.Ops))
		for i, op := range p.Ops {
			op.Deps = cloneDeps(op.Deps)
			q.Ops[i] = op
		}
	}
	return q
}

func cloneRanges(rs []collectives.Range) []collectives.Range {
	if len(rs) == 0 {
		return nil
	}
	return append([]collectives.Range(nil), rs...)
}

func cloneDeps(ds []int32) []int32 {
	if len(ds) == 0 {
		return nil
	}
	return append([]int32(nil), ds...)
}

// isaPorts are the microcode's port names, by port index: a torus NPU's
// ports in its port order (local, vertical, horizontal; plus then minus,
// docs/microcode.md), which TestPortNamesAreTheTorus keeps equal to the
// torus's.
var isaPorts = []string{"local+", "local-", "vertical+", "vertical-", "horizontal+", "horizontal-"}

// portNames lists the port names in port index order, then "xyz".
func portNames() []string {
	return append(append([]string(nil), isaPorts...), "xyz")
}

// portWant is the list of valid port names for error messages.
func portWant() string {
	names := portNames()
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " or "
		default:
			s += ", "
		}
		s += n
	}
	return s
}

// portName writes Op.Port: a torus port name or "xyz" for RouteXYZ.
func portName(p int8) (string, bool) {
	if p == collectives.RouteXYZ {
		return "xyz", true
	}
	if p < 0 || int(p) >= len(isaPorts) {
		return "", false
	}
	return isaPorts[p], true
}

// parsePort reads a port name or "xyz".
func parsePort(s string) (int8, bool) {
	if s == "xyz" {
		return collectives.RouteXYZ, true
	}
	for i, n := range isaPorts {
		if n == s {
			return int8(i), true
		}
	}
	return 0, false
}

// rangeText writes a range as off+len.
func rangeText(r collectives.Range) string { return fmt.Sprintf("%d+%d", r.Off, r.Len) }

package microcode

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/acemu/acemu/collectives"
)

// Header is the comment Write puts on a listing's first line.
const Header = "; acemu microcode v1"

// Write prints sections in the text form (the disassembler): Header, then
// each section after a blank line, in the order given. The output is
// deterministic and Parse reads it back to equal sections (Write of that
// gives the same bytes). Sends that forward data just received (as
// collectives.Analyze finds them: the ACE sends them from the ALU without an
// SRAM read) carry a "; forward" comment.
//
// Write refuses, before writing anything, what Parse would refuse or what the
// text cannot express: a section with no phases, two sections for the same
// NPU and chunk length, a nil program, negative numbers, data or out ranges
// outside the view, a dependence that is not on an earlier op, a port that
// is neither a torus port nor RouteXYZ, a recv with a match or a send with
// reduce set. Phases without a name (Names shorter than Phases) are written
// with the name "".
func Write(w io.Writer, secs []Section) error {
	seen := map[[2]int64]bool{}
	for _, s := range secs {
		key := [2]int64{int64(s.NPU), s.ChunkLen}
		if seen[key] {
			return fmt.Errorf("%s: two sections for the same NPU and chunk length", secName(s))
		}
		seen[key] = true
		if err := checkSection(s); err != nil {
			return err
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header)
	for _, s := range secs {
		fmt.Fprintf(bw, "\nnpu %d chunk %d\n", s.NPU, s.ChunkLen)
		for ph, p := range s.Phases {
			name := ""
			if ph < len(s.Names) {
				name = s.Names[ph]
			}
			fmt.Fprintf(bw, "phase %d %s\n", ph+1, strconv.Quote(name))
			writeProgram(bw, p, ph == 0, ph == len(s.Phases)-1)
		}
	}
	return bw.Flush()
}

func writeProgram(w *bufio.Writer, p *collectives.Program, first, last bool) {
	fmt.Fprintf(w, "  view%s\n", rangesText(p.View))
	fmt.Fprintf(w, "  out%s\n", rangesText(p.Out))
	fmt.Fprintf(w, "  steps %d\n", p.Steps)
	if first {
		fmt.Fprintln(w, "  dma-in")
	}
	flow := collectives.Analyze(p)
	for i, op := range p.Ops {
		fmt.Fprintf(w, "  %s\n", opText(i, op, flow.ForwardOf[i] >= 0))
	}
	if last {
		fmt.Fprintln(w, "  dma-out")
		fmt.Fprintln(w, "  signal")
	} else {
		fmt.Fprintln(w, "  next")
	}
}

func rangesText(rs []collectives.Range) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteByte(' ')
		b.WriteString(rangeText(r))
	}
	return b.String()
}

// opText is one op's line, without indentation. The port is known valid.
func opText(i int, op collectives.Op, forward bool) string {
	var b strings.Builder
	port, _ := portName(op.Port)
	fmt.Fprintf(&b, "%d: %s npu=%d", i, op.Kind, op.Peer)
	if op.Kind == collectives.Send || op.Port != collectives.RouteXYZ {
		fmt.Fprintf(&b, " port=%s", port)
	}
	fmt.Fprintf(&b, " data=%s", rangeText(op.Data))
	if op.Kind == collectives.Send {
		fmt.Fprintf(&b, " match=%d", op.Match)
	} else if op.Reduce {
		b.WriteString(" reduce")
	} else {
		b.WriteString(" store")
	}
	fmt.Fprintf(&b, " step=%d", op.Step)
	if len(op.Deps) > 0 {
		b.WriteString(" after=")
		for k, d := range op.Deps {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(d)))
		}
	}
	if forward {
		b.WriteString("  ; forward")
	}
	return b.String()
}

func secName(s Section) string { return fmt.Sprintf("npu %d chunk %d", s.NPU, s.ChunkLen) }

// checkSection refuses what the text form cannot carry or Parse would reject.
func checkSection(s Section) error {
	switch {
	case s.NPU < 0:
		return fmt.Errorf("%s: negative NPU id", secName(s))
	case s.ChunkLen < 1:
		return fmt.Errorf("%s: chunk length must be at least 1 byte", secName(s))
	case len(s.Phases) == 0:
		return fmt.Errorf("%s: no phases; a section needs at least one", secName(s))
	case len(s.Names) > len(s.Phases):
		return fmt.Errorf("%s: %d phase names for %d phases", secName(s), len(s.Names), len(s.Phases))
	}
	for ph, p := range s.Phases {
		if err := checkProgram(p); err != nil {
			return fmt.Errorf("%s phase %d: %w", secName(s), ph+1, err)
		}
	}
	return nil
}

// checkProgram checks one program for what the text form needs: the checks
// Parse makes, without line numbers.
func checkProgram(p *collectives.Program) error {
	if p == nil {
		return fmt.Errorf("no program (nil)")
	}
	if p.Steps < 0 {
		return fmt.Errorf("steps %d is negative", p.Steps)
	}
	var n int64
	for _, r := range p.View {
		if r.Off < 0 || r.Len < 0 {
			return fmt.Errorf("view range %s is negative", rangeText(r))
		}
		if r.Len > math.MaxInt64-n {
			return fmt.Errorf("view ranges add up to more than %d bytes", int64(math.MaxInt64))
		}
		n += r.Len
	}
	for _, r := range p.Out {
		if !inside(r, n) {
			return fmt.Errorf("out range %s is outside the view of %d bytes", rangeText(r), n)
		}
	}
	for i, op := range p.Ops {
		if err := checkOp(op, i, n); err != nil {
			return fmt.Errorf("op %d: %w", i, err)
		}
	}
	return nil
}

func checkOp(op collectives.Op, i int, viewLen int64) error {
	if op.Kind != collectives.Send && op.Kind != collectives.Recv {
		return fmt.Errorf("kind %d is neither send nor recv", op.Kind)
	}
	if _, ok := portName(op.Port); !ok {
		return fmt.Errorf("port %d is not a port; want a torus port index 0 to 5 or RouteXYZ", op.Port)
	}
	switch {
	case op.Peer < 0:
		return fmt.Errorf("peer %d is negative", op.Peer)
	case op.Step < 0:
		return fmt.Errorf("step %d is negative", op.Step)
	case !inside(op.Data, viewLen):
		return fmt.Errorf("data %s is outside the view of %d bytes", rangeText(op.Data), viewLen)
	case op.Kind == collectives.Send && op.Match < 0:
		return fmt.Errorf("match %d is negative", op.Match)
	case op.Kind == collectives.Send && op.Reduce:
		return fmt.Errorf("a send with reduce set; reduce is for recv")
	case op.Kind == collectives.Recv && op.Match != 0:
		return fmt.Errorf("a recv with match %d; match is for send", op.Match)
	}
	for _, d := range op.Deps {
		if d < 0 || int(d) >= i {
			return fmt.Errorf("after=%d is not an earlier op", d)
		}
	}
	return nil
}

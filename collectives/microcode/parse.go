package microcode

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/internal/lines"
	"github.com/acemu/acemu/units"
)

// Error is a syntax or placement error in a listing, at a line of a file.
type Error struct {
	File string
	Line int
	// Msg says what is wrong and what was expected.
	Msg string
}

// Error is "file:line: message".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// MaxLineBytes is the longest line Parse reads.
const MaxLineBytes = 1 << 24

// Parse reads the text form (the assembler). name is the file name used in
// errors. It returns the sections in file order, or the first error, an
// *Error naming the file and line, what is wrong and what was expected.
//
// Parse checks the syntax and the placement of every instruction within a
// section: unknown instructions, missing, duplicate or unknown fields, bad
// numbers, ports and ranges, op indices out of order, after= naming the op
// itself or a later one, data and out ranges outside the view, dma-in, next,
// dma-out and signal missing or misplaced, instructions outside a section or
// a phase, phase numbers out of order, sections with no phases, two sections
// for the same NPU and chunk length, and a file with no sections. Whether
// the programs fit a plan (peers, matches, phase count) is Install's job.
func Parse(name string, r io.Reader) ([]Section, error) {
	p := &parser{file: name, secLine: map[[2]int64]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	sc.Split(lines.Split) // LF, CR LF or a lone CR
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, p.errAt(p.line+1, "a line longer than %d bytes", MaxLineBytes)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := p.endSection(); err != nil {
		return nil, err
	}
	if len(p.secs) == 0 {
		return nil, &Error{name, max(p.line, 1), `no sections; want "npu <id> chunk <bytes>" followed by the section's phases`}
	}
	return p.secs, nil
}

type parser struct {
	file    string
	line    int
	secs    []Section
	secLine map[[2]int64]int // first line of each section by (npu, chunk)
	sec     *Section
	ph      *phaseState
	secAt   int // line of the current section's npu line
}

// phaseState is the phase being read. Line numbers of 0 mean "not seen".
type phaseState struct {
	num      int
	lastLine int
	prog     *collectives.Program
	viewLen  int64

	view, out, steps               int
	body                           bool
	dmaIn, next, dmaOut, signalled int
}

func (p *parser) errf(format string, args ...any) error {
	return p.errAt(p.line, format, args...)
}

func (p *parser) errAt(line int, format string, args ...any) error {
	return &Error{p.file, line, fmt.Sprintf(format, args...)}
}

func (p *parser) parseLine(text string) error {
	toks, err := tokenize(text)
	if err != nil {
		return p.errf("%v", err)
	}
	if len(toks) == 0 {
		return nil
	}
	kw := toks[0]
	if p.ph != nil && kw != "npu" && kw != "phase" {
		p.ph.lastLine = p.line
	}
	if i := strings.IndexByte(kw, ':'); i >= 0 {
		// "N: kind …", also written "N:kind …".
		rest := toks[1:]
		if kw[i+1:] != "" {
			rest = append([]string{kw[i+1:]}, rest...)
		}
		return p.parseOp(kw[:i], rest)
	}
	switch kw {
	case "npu":
		return p.parseSection(toks)
	case "phase":
		return p.parsePhase(toks)
	case "view", "out", "steps":
		return p.parseHeader(kw, toks[1:])
	case "dma-in", "next", "dma-out", "signal":
		if len(toks) > 1 {
			return p.errf("%s: unexpected %q; %s takes no operands", kw, toks[1], kw)
		}
		return p.parseFrame(kw)
	case "send", "recv":
		want := 0
		if p.ph != nil {
			want = len(p.ph.prog.Ops)
		}
		return p.errf("%s: missing op index; want %d: %s …", kw, want, kw)
	}
	return p.errf("unknown instruction %q; want npu, phase, view, out, steps, dma-in, N: send, N: recv, next, dma-out or signal (lower-case)", kw)
}

// parseSection reads "npu <id> chunk <bytes>".
func (p *parser) parseSection(toks []string) error {
	const want = "want npu <id> chunk <bytes>, e.g. npu 5 chunk 65536"
	if len(toks) != 4 || toks[2] != "chunk" {
		return p.errf("npu: %s", want)
	}
	id, err := number(toks[1], 31)
	if err != nil {
		return p.errf("npu: id %v; %s", err, want)
	}
	chunk, err := number(toks[3], 63)
	if err != nil {
		return p.errf("npu: chunk %v; %s", err, want)
	}
	if chunk < 1 {
		return p.errf("npu: chunk 0; want a chunk length of at least 1 byte")
	}
	if err := p.endSection(); err != nil {
		return err
	}
	key := [2]int64{id, chunk}
	if first, dup := p.secLine[key]; dup {
		return p.errf("npu %d chunk %d: duplicate section (the first is at line %d); want one section per NPU and chunk length", id, chunk, first)
	}
	p.secLine[key] = p.line
	p.sec = &Section{NPU: int(id), ChunkLen: chunk, File: p.file}
	p.secAt = p.line
	return nil
}

// endSection closes the current section, if any.
func (p *parser) endSection() error {
	if p.sec == nil {
		return nil
	}
	if err := p.endPhase(true, 0); err != nil {
		return err
	}
	if len(p.sec.Phases) == 0 {
		return p.errAt(p.secAt, `npu %d chunk %d: the section has no phases; want phase 1 "<name>" and its instructions after the npu line`, p.sec.NPU, p.sec.ChunkLen)
	}
	p.secs = append(p.secs, *p.sec)
	p.sec, p.ph = nil, nil
	return nil
}

// endPhase closes the current phase, if any: last says whether the section
// ends with it; otherwise the next phase starts at line at.
func (p *parser) endPhase(last bool, at int) error {
	ph := p.ph
	if ph == nil {
		return nil
	}
	p.ph = nil
	if last {
		switch {
		case ph.next != 0:
			return p.errAt(ph.next, "next: phase %d is the section's last phase (no phase %d follows); want dma-out and signal instead of next", ph.num, ph.num+1)
		case ph.dmaOut == 0:
			return p.errAt(ph.lastLine, "phase %d ends without dma-out and signal; the last phase wants dma-out then signal after its ops", ph.num)
		case ph.signalled == 0:
			return p.errAt(ph.lastLine, "phase %d: dma-out without signal; want signal after dma-out", ph.num)
		}
		return nil
	}
	switch {
	case ph.dmaOut != 0:
		return p.errAt(at, "phase %d: phase %d ended with dma-out (line %d), which only the last phase may; end phase %d with next", ph.num+1, ph.num, ph.dmaOut, ph.num)
	case ph.next == 0:
		return p.errAt(ph.lastLine, "phase %d ends without next; want next as its last instruction (phase %d follows)", ph.num, ph.num+1)
	}
	return nil
}

// parsePhase reads `phase <n> "<name>"`.
func (p *parser) parsePhase(toks []string) error {
	const want = `want phase <n> "<name>", e.g. phase 1 "reduce-scatter on local (ring)"`
	if p.sec == nil {
		return p.errf("phase: outside a section; want npu <id> chunk <bytes> first")
	}
	if len(toks) < 2 || len(toks) > 3 {
		return p.errf("phase: %s", want)
	}
	n, err := number(toks[1], 31)
	if err != nil {
		return p.errf("phase: number %v; %s", err, want)
	}
	if want := len(p.sec.Phases) + 1; n != int64(want) {
		return p.errf("phase %d out of order; want phase %d (phases are numbered 1, 2, … within a section)", n, want)
	}
	name := ""
	if len(toks) == 3 {
		if !strings.HasPrefix(toks[2], `"`) {
			return p.errf("phase: name %s must be in double quotes; %s", toks[2], want)
		}
		if name, err = strconv.Unquote(toks[2]); err != nil {
			return p.errf("phase: name %s is not a quoted string; %s", toks[2], want)
		}
	}
	if err := p.endPhase(false, p.line); err != nil {
		return err
	}
	prog := &collectives.Program{NPU: p.sec.NPU}
	p.sec.Names = append(p.sec.Names, name)
	p.sec.Phases = append(p.sec.Phases, prog)
	p.sec.OutLines = append(p.sec.OutLines, 0)
	p.ph = &phaseState{num: int(n), lastLine: p.line, prog: prog}
	return nil
}

// inPhase checks that an instruction is inside a phase.
func (p *parser) inPhase(kw string) error {
	if p.sec == nil {
		return p.errf("%s: outside a section; want npu <id> chunk <bytes> and a phase line first", kw)
	}
	if p.ph == nil {
		return p.errf(`%s: outside a phase; want phase %d "<name>" first`, kw, len(p.sec.Phases)+1)
	}
	return nil
}

// parseHeader reads view, out and steps.
func (p *parser) parseHeader(kw string, args []string) error {
	if err := p.inPhase(kw); err != nil {
		return err
	}
	ph := p.ph
	if ph.body {
		return p.errf("%s: after the phase's instructions; want view, out and steps before dma-in and the ops", kw)
	}
	seen := map[string]*int{"view": &ph.view, "out": &ph.out, "steps": &ph.steps}[kw]
	if *seen != 0 {
		return p.errf("%s: duplicate (the first is at line %d); a phase has one %s line", kw, *seen, kw)
	}
	switch kw {
	case "view":
		var n int64
		for _, a := range args {
			r, err := parseRange(a)
			if err != nil {
				return p.errf("view: %v", err)
			}
			if r.Len > math.MaxInt64-n {
				return p.errf("view: the ranges add up to more than %d bytes", int64(math.MaxInt64))
			}
			n += r.Len
			ph.prog.View = append(ph.prog.View, r)
		}
		ph.viewLen = n
	case "out":
		if ph.view == 0 {
			return p.errf("out: before view; want the view line first (out ranges are view offsets)")
		}
		for _, a := range args {
			r, err := parseRange(a)
			if err != nil {
				return p.errf("out: %v", err)
			}
			if !inside(r, ph.viewLen) {
				return p.errf("out: range %s is outside the view of %d bytes; want off+len ending at most at %d", a, ph.viewLen, ph.viewLen)
			}
			ph.prog.Out = append(ph.prog.Out, r)
		}
		p.sec.OutLines[len(p.sec.OutLines)-1] = p.line
	case "steps":
		if len(args) != 1 {
			return p.errf("steps: want steps <n>, the phase's number of algorithm steps")
		}
		n, err := number(args[0], 31)
		if err != nil {
			return p.errf("steps: %v; want steps <n>, the phase's number of algorithm steps", err)
		}
		ph.prog.Steps = int(n)
	}
	*seen = p.line
	return nil
}

// startBody checks that instruction kw may come next in the phase's body.
func (p *parser) startBody(kw string) error {
	if err := p.inPhase(kw); err != nil {
		return err
	}
	ph := p.ph
	for _, h := range []struct {
		name string
		line int
	}{{"view", ph.view}, {"out", ph.out}, {"steps", ph.steps}} {
		if h.line == 0 {
			return p.errf("%s: phase %d has no %s line; want view, out and steps before dma-in and the ops", kw, ph.num, h.name)
		}
	}
	switch {
	case ph.signalled != 0:
		return p.errf("%s: after signal (line %d); signal is the section's last instruction", kw, ph.signalled)
	case ph.next != 0:
		return p.errf("%s: after next (line %d); next is the phase's last instruction", kw, ph.next)
	case ph.dmaOut != 0 && kw != "signal":
		return p.errf("%s: after dma-out (line %d); only signal may follow dma-out", kw, ph.dmaOut)
	case ph.num == 1 && ph.dmaIn == 0 && kw != "dma-in":
		return p.errf("%s: phase 1 must start with dma-in (the TX DMA loads the chunk into the phase-1 partition); want dma-in before the ops", kw)
	}
	ph.body = true
	return nil
}

// parseFrame reads dma-in, next, dma-out and signal.
func (p *parser) parseFrame(kw string) error {
	if err := p.inPhase(kw); err != nil {
		return err
	}
	ph := p.ph
	if kw == "dma-in" {
		switch {
		case ph.num != 1:
			return p.errf("dma-in: only phase 1 loads the chunk from memory; phase %d gets its data from phase %d's next", ph.num, ph.num-1)
		case ph.dmaIn != 0:
			return p.errf("dma-in: duplicate (the first is at line %d); phase 1 has one dma-in", ph.dmaIn)
		}
	}
	if err := p.startBody(kw); err != nil {
		return err
	}
	switch kw {
	case "dma-in":
		ph.dmaIn = p.line
	case "next":
		ph.next = p.line
	case "dma-out":
		ph.dmaOut = p.line
	case "signal":
		if ph.dmaOut == 0 {
			return p.errf("signal: without dma-out; want dma-out first (the RX DMA writes the result, then signal raises the interrupt)")
		}
		ph.signalled = p.line
	}
	return nil
}

// field descriptions for error messages.
var fieldWant = map[string]string{
	"npu":   "npu=<peer NPU id>",
	"port":  "port=<" + portWant() + ">",
	"data":  "data=<off>+<len> (view offsets)",
	"match": "match=<index of the peer's matching recv>",
	"step":  "step=<algorithm step, from 0>",
	"after": "after=<earlier op indices, comma-separated>",
}

// parseOp reads "N: send …" or "N: recv …" (idx is N, args the rest).
func (p *parser) parseOp(idx string, args []string) error {
	kw := "op"
	if len(args) > 0 {
		kw = args[0]
	}
	if len(args) == 0 || (kw != "send" && kw != "recv") {
		got := "nothing"
		if len(args) > 0 {
			got = strconv.Quote(kw)
		}
		return p.errf("op %s: %s after the op index; want send or recv", idx, got)
	}
	if err := p.startBody(kw); err != nil {
		return err
	}
	prog := p.ph.prog
	i := len(prog.Ops)
	n, err := number(idx, 31)
	if err != nil {
		return p.errf("%s: op index %v; want %d: (ops are numbered 0, 1, 2, … within a phase)", kw, err, i)
	}
	if n != int64(i) {
		return p.errf("%s: op index %d out of order; want %d (ops are numbered 0, 1, 2, … within a phase)", kw, n, i)
	}
	op := collectives.Op{Port: collectives.RouteXYZ}
	required := []string{"npu", "port", "data", "match", "step"}
	allowed := "npu=, port=, data=, match=, step= and optionally after="
	if kw == "recv" {
		op.Kind = collectives.Recv
		required = []string{"npu", "data", "step"}
		allowed = "npu=, data=, reduce or store, step= and optionally port= and after="
	}
	seen := map[string]bool{}
	mode := ""
	for _, a := range args[1:] {
		key, val, hasEq := strings.Cut(a, "=")
		if !hasEq {
			if kw == "recv" && (a == "reduce" || a == "store") {
				if mode != "" {
					if mode == a {
						return p.errf("recv: duplicate %s", a)
					}
					return p.errf("recv: both reduce and store; want one of them")
				}
				mode = a
				op.Reduce = a == "reduce"
				continue
			}
			return p.errf("%s: unexpected %q; want %s", kw, a, allowed)
		}
		if _, known := fieldWant[key]; !known || (kw == "recv" && key == "match") {
			return p.errf("%s: unknown field %q; want %s", kw, a, allowed)
		}
		if seen[key] {
			return p.errf("%s: duplicate %s= (each field appears once)", kw, key)
		}
		seen[key] = true
		if err := p.setField(kw, &op, i, key, val); err != nil {
			return err
		}
	}
	for _, key := range required {
		if !seen[key] {
			return p.errf("%s: missing %s; want %s", kw, key+"=", fieldWant[key])
		}
	}
	if kw == "recv" && mode == "" {
		return p.errf("recv: missing reduce or store; want reduce (add into the local data) or store (overwrite it)")
	}
	prog.Ops = append(prog.Ops, op)
	return nil
}

func (p *parser) setField(kw string, op *collectives.Op, i int, key, val string) error {
	bad := func(err error) error {
		return p.errf("%s: %s %v; want %s", kw, key, err, fieldWant[key])
	}
	switch key {
	case "npu", "match", "step":
		n, err := number(val, 31)
		if err != nil {
			return bad(err)
		}
		switch key {
		case "npu":
			op.Peer = int32(n)
		case "match":
			op.Match = int32(n)
		case "step":
			op.Step = int32(n)
		}
	case "port":
		port, ok := parsePort(val)
		if !ok {
			return p.errf("%s: port %q is not a port; want %s", kw, val, portWant())
		}
		op.Port = port
	case "data":
		r, err := parseRange(val)
		if err != nil {
			return p.errf("%s: data %v", kw, err)
		}
		if n := p.ph.viewLen; !inside(r, n) {
			return p.errf("%s: data %s ends at %d, outside the view of %d bytes; want off+len ending at most at %d", kw, val, r.Off+min(r.Len, math.MaxInt64-r.Off), n, n)
		}
		op.Data = r
	case "after":
		if val == "" {
			return p.errf("%s: after= names no op; want %s, or no after=", kw, fieldWant["after"])
		}
		for _, s := range strings.Split(val, ",") {
			d, err := number(s, 31)
			if err != nil {
				return bad(err)
			}
			switch {
			case d == int64(i):
				return p.errf("%s: after=%d names op %d itself; want earlier ops only%s", kw, d, i, earlier(i))
			case d > int64(i):
				return p.errf("%s: after=%d names a later op; want earlier ops only%s", kw, d, earlier(i))
			}
			op.Deps = append(op.Deps, int32(d))
		}
	}
	return nil
}

// earlier describes the ops op i may depend on.
func earlier(i int) string {
	switch i {
	case 0:
		return " (op 0 has none: leave after= out)"
	case 1:
		return " (op 0)"
	}
	return fmt.Sprintf(" (0 to %d)", i-1)
}

// number reads a non-negative decimal number of at most bits bits, as
// every number acemu reads (units.ParseInt; docs/cli.md, "Numbers"):
// decimal digits only, so that 010, 0x10, 1_6, +5 and 1e3 are refused
// with what to write instead.
func number(s string, bits int) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("is empty, not a whole number")
	}
	most := int64(1)<<bits - 1
	n, err := units.ParseInt(s)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && n > most:
		return 0, fmt.Errorf("%s is too large (at most %d)", s, most)
	case err != nil:
		return 0, err
	case n < 0:
		return 0, fmt.Errorf("%q is negative; give 0 or more", s)
	}
	return n, nil
}

// parseRange reads off+len.
func parseRange(s string) (collectives.Range, error) {
	offS, lenS, ok := strings.Cut(s, "+")
	if !ok {
		return collectives.Range{}, fmt.Errorf("%q is not off+len; want e.g. 0+8192", s)
	}
	off, err := number(offS, 63)
	if err != nil {
		return collectives.Range{}, fmt.Errorf("%q: offset %v; want off+len, e.g. 0+8192", s, err)
	}
	n, err := number(lenS, 63)
	if err != nil {
		return collectives.Range{}, fmt.Errorf("%q: length %v; want off+len, e.g. 0+8192", s, err)
	}
	return collectives.Range{Off: off, Len: n}, nil
}

// inside reports whether r lies in [0, n), without overflow.
func inside(r collectives.Range, n int64) bool {
	return r.Off >= 0 && r.Len >= 0 && r.Off <= n && r.Len <= n-r.Off
}

// tokenize splits a line into whitespace-separated tokens, a double-quoted
// string (Go syntax) being one token, and drops a ';' comment.
func tokenize(line string) ([]string, error) {
	var toks []string
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == ';':
			return toks, nil
		case c == '"':
			q, err := strconv.QuotedPrefix(line[i:])
			if err != nil {
				return nil, fmt.Errorf("unterminated or malformed quoted string %s; want a double-quoted string, e.g. \"all-gather on local (ring)\"", line[i:])
			}
			toks = append(toks, q)
			i += len(q)
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t\r;\"", rune(line[j])) {
				j++
			}
			toks = append(toks, line[i:j])
			i = j
		}
	}
	return toks, nil
}

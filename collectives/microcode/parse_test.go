package microcode

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// base is a valid two-phase listing; the error cases edit its lines.
var base = []string{
	"; test",         // 1
	"npu 0 chunk 16", // 2
	`phase 1 "rs"`,   // 3
	"  view 0+16",    // 4
	"  out 0+8",      // 5
	"  steps 1",      // 6
	"  dma-in",       // 7
	"  0: send npu=1 port=local+ data=8+8 match=1 step=0", // 8
	"  1: recv npu=1 data=0+8 reduce step=0",              // 9
	"  next",                                              // 10
	`phase 2 "ag"`,                                        // 11
	"  view 0+16",                                         // 12
	"  out 0+16",                                          // 13
	"  steps 1",                                           // 14
	"  0: send npu=1 port=local+ data=0+8 match=1 step=0", // 15
	"  1: recv npu=1 data=8+8 store step=0 after=0",       // 16
	"  dma-out", // 17
	"  signal",  // 18
}

// edit returns base with line n (from 1) replaced by each of repl in turn
// (pairs of line number and text). A text of "" blanks the line, keeping the
// numbering; a text with newlines inserts lines. Line 19 appends.
func edit(repl ...any) string {
	lines := append([]string(nil), base...)
	for i := 0; i < len(repl); i += 2 {
		n, s := repl[i].(int), repl[i+1].(string)
		if n == len(lines)+1 {
			lines = append(lines, s)
		} else {
			lines[n-1] = s
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestParseBase(t *testing.T) {
	secs, err := Parse("prog.ucode", strings.NewReader(edit()))
	require.NoError(t, err)
	require.Len(t, secs, 1)
	require.Len(t, secs[0].Phases, 2)
	require.Equal(t, []string{"rs", "ag"}, secs[0].Names)
}

func TestParseErrors(t *testing.T) {
	const send = "  0: send npu=1 port=local+ data=8+8 match=1 step=0"
	tests := []struct {
		name string
		text string
		line int
		msg  string
	}{
		// Unknown instructions.
		{"unknown instruction", edit(10, "  nxt"), 10, `unknown instruction "nxt"; want npu, phase, view, out, steps, dma-in, N: send, N: recv, next, dma-out or signal`},
		{"upper case", edit(10, "  NEXT"), 10, `unknown instruction "NEXT"`},
		{"unknown op kind", edit(8, "  0: sned npu=1"), 8, `op 0: "sned" after the op index; want send or recv`},
		{"op without kind", edit(8, "  0:"), 8, "op 0: nothing after the op index"},
		{"op without index", edit(8, "  send npu=1 port=local+ data=8+8 match=1 step=0"), 8, "send: missing op index; want 0: send"},
		{"operand on next", edit(10, "  next 1"), 10, `next: unexpected "1"; next takes no operands`},

		// Fields.
		{"bad port", edit(8, "  0: send npu=1 port=local* data=8+8 match=1 step=0"), 8,
			`send: port "local*" is not a port; want local+, local-, vertical+, vertical-, horizontal+, horizontal- or xyz`},
		{"missing match", edit(8, "  0: send npu=1 port=local+ data=8+8 step=0"), 8, "send: missing match=; want match=<index of the peer's matching recv>"},
		{"missing port", edit(8, "  0: send npu=1 data=8+8 match=1 step=0"), 8, "send: missing port=; want port=<local+"},
		{"missing data", edit(9, "  1: recv npu=1 reduce step=0"), 9, "recv: missing data="},
		{"missing step", edit(9, "  1: recv npu=1 data=0+8 reduce"), 9, "recv: missing step="},
		{"duplicate field", edit(8, send+" step=0"), 8, "send: duplicate step= (each field appears once)"},
		{"missing reduce or store", edit(9, "  1: recv npu=1 data=0+8 step=0"), 9, "recv: missing reduce or store; want reduce (add into the local data) or store (overwrite it)"},
		{"reduce and store", edit(9, "  1: recv npu=1 data=0+8 reduce store step=0"), 9, "recv: both reduce and store; want one of them"},
		{"match on recv", edit(9, "  1: recv npu=1 data=0+8 reduce step=0 match=0"), 9, `recv: unknown field "match=0"; want npu=, data=, reduce or store, step= and optionally port= and after=`},
		{"unknown field", edit(8, send+" colour=red"), 8, `send: unknown field "colour=red"; want npu=, port=, data=, match=, step= and optionally after=`},
		{"bare word on send", edit(8, send+" reduce"), 8, `send: unexpected "reduce"`},

		// Numbers and ranges.
		{"bad number", edit(8, "  0: send npu=x port=local+ data=8+8 match=1 step=0"), 8, `send: npu "x" is not a whole number in decimal digits; write e.g. 16 (digits 0-9 only); want npu=<peer NPU id>`},
		{"negative number", edit(8, "  0: send npu=1 port=local+ data=8+8 match=1 step=-1"), 8, `send: step "-1" is negative; give 0 or more; want step=`},
		// Numbers are read as units.ParseInt reads them: decimal digits
		// only, each other form refused with what to write.
		{"leading zero", edit(8, "  0: send npu=010 port=local+ data=8+8 match=1 step=0"), 8, `send: npu "010" has a leading zero, which some readers take as octal; write 10 (or 8 if octal was meant)`},
		{"base prefix", edit(8, "  0: send npu=0x1 port=local+ data=8+8 match=1 step=0"), 8, `send: npu "0x1" is not a whole number in decimal digits: no base prefix`},
		{"underscore", edit(8, "  0: send npu=1 port=local+ data=8+8 match=1_0 step=0"), 8, `send: match "1_0" is not a whole number in decimal digits: no underscores; write 10`},
		{"plus sign", edit(8, "  0: send npu=+1 port=local+ data=8+8 match=1 step=0"), 8, `send: npu "+1" is not a whole number in decimal digits: no plus sign; write 1`},
		{"exponent in a range", edit(8, "  0: send npu=1 port=local+ data=8+8e0 match=1 step=0"), 8, `send: data "8+8e0": length "8e0" is not a whole number in decimal digits: no decimal point or exponent; write 8`},
		{"empty number", edit(8, "  0: send npu= port=local+ data=8+8 match=1 step=0"), 8, "send: npu is empty, not a whole number"},
		{"number too large", edit(8, "  0: send npu=99999999999 port=local+ data=8+8 match=1 step=0"), 8, "send: npu 99999999999 is too large (at most 2147483647)"},
		{"bad range", edit(8, "  0: send npu=1 port=local+ data=8-8 match=1 step=0"), 8, `send: data "8-8" is not off+len; want e.g. 0+8192`},
		{"bad range length", edit(8, "  0: send npu=1 port=local+ data=8+y match=1 step=0"), 8, `send: data "8+y": length "y" is not a whole number`},
		{"bad view", edit(4, "  view 0+16 x"), 4, `view: "x" is not off+len`},
		{"steps without number", edit(6, "  steps"), 6, "steps: want steps <n>"},

		// Op indices and dependences.
		{"op index out of order", edit(9, "  2: recv npu=1 data=0+8 reduce step=0"), 9, "recv: op index 2 out of order; want 1 (ops are numbered 0, 1, 2, … within a phase)"},
		{"op index not a number", edit(9, "  b: recv npu=1 data=0+8 reduce step=0"), 9, `recv: op index "b" is not a whole number in decimal digits; write e.g. 16 (digits 0-9 only); want 1:`},
		{"after itself", edit(9, "  1: recv npu=1 data=0+8 reduce step=0 after=1"), 9, "recv: after=1 names op 1 itself; want earlier ops only (op 0)"},
		{"after later op", edit(8, send+" after=1"), 8, "send: after=1 names a later op; want earlier ops only (op 0 has none: leave after= out)"},
		{"after empty", edit(16, "  1: recv npu=1 data=8+8 store step=0 after="), 16, "recv: after= names no op"},
		{"after bad list", edit(16, "  1: recv npu=1 data=8+8 store step=0 after=0,,"), 16, "recv: after is empty, not a whole number"},

		// Ranges against the view.
		{"data outside view", edit(9, "  1: recv npu=1 data=12+8 reduce step=0"), 9, "recv: data 12+8 ends at 20, outside the view of 16 bytes; want off+len ending at most at 16"},
		{"out outside view", edit(5, "  out 0+8 8+9"), 5, "out: range 8+9 is outside the view of 16 bytes"},
		{"out before view", edit(4, "  out 0+8", 5, "  view 0+16"), 4, "out: before view; want the view line first"},

		// Phase headers.
		{"missing steps", edit(6, ""), 7, "dma-in: phase 1 has no steps line; want view, out and steps before dma-in and the ops"},
		{"missing view in phase 2", edit(12, ""), 13, "out: before view"},
		{"missing out in phase 2", edit(13, ""), 15, "send: phase 2 has no out line"},
		{"duplicate view", edit(5, "  view 0+16"), 5, "view: duplicate (the first is at line 4); a phase has one view line"},
		{"view after the ops", edit(10, "  view 0+16"), 10, "view: after the phase's instructions; want view, out and steps before dma-in and the ops"},

		// dma-in, next, dma-out, signal.
		{"missing dma-in", edit(7, ""), 8, "send: phase 1 must start with dma-in (the TX DMA loads the chunk into the phase-1 partition); want dma-in before the ops"},
		{"dma-in in phase 2", edit(14, "  steps 1\n  dma-in"), 15, "dma-in: only phase 1 loads the chunk from memory; phase 2 gets its data from phase 1's next"},
		{"duplicate dma-in", edit(7, "  dma-in\n  dma-in"), 8, "dma-in: duplicate (the first is at line 7)"},
		{"missing next", edit(10, ""), 9, "phase 1 ends without next; want next as its last instruction (phase 2 follows)"},
		{"op after next", edit(10, "  next\n  2: send npu=1 port=local+ data=8+8 match=1 step=0"), 11, "send: after next (line 10); next is the phase's last instruction"},
		{"next in the last phase", edit(17, "  next", 18, ""), 17, "next: phase 2 is the section's last phase (no phase 3 follows); want dma-out and signal instead of next"},
		{"missing dma-out and signal", edit(17, "", 18, ""), 16, "phase 2 ends without dma-out and signal; the last phase wants dma-out then signal after its ops"},
		{"missing signal", edit(18, ""), 17, "phase 2: dma-out without signal; want signal after dma-out"},
		{"signal without dma-out", edit(17, ""), 18, "signal: without dma-out; want dma-out first"},
		{"op after dma-out", edit(17, "  dma-out\n  2: send npu=1 port=local+ data=8+8 match=1 step=0"), 18, "send: after dma-out (line 17); only signal may follow dma-out"},
		{"instruction after signal", edit(19, "  dma-out"), 19, "dma-out: after signal (line 18); signal is the section's last instruction"},
		{"dma-out in a middle phase", edit(10, "  dma-out\n  signal"), 12, "phase 2: phase 1 ended with dma-out (line 10), which only the last phase may; end phase 1 with next"},

		// Placement of sections and phases.
		{"op outside a phase", edit(2, "npu 0 chunk 16\n"+send), 3, `send: outside a phase; want phase 1 "<name>" first`},
		{"phase outside a section", edit(2, ""), 3, "phase: outside a section; want npu <id> chunk <bytes> first"},
		{"op outside a section", edit(1, send), 1, "send: outside a section"},
		{"phase out of order", edit(11, `phase 3 "ag"`), 11, "phase 3 out of order; want phase 2 (phases are numbered 1, 2, … within a section)"},
		{"first phase not 1", edit(3, `phase 2 "rs"`), 3, "phase 2 out of order; want phase 1"},
		{"section with no phases", edit(19, "npu 1 chunk 16"), 19, `npu 1 chunk 16: the section has no phases; want phase 1 "<name>" and its instructions after the npu line`},
		{"empty section then another", edit(2, "npu 1 chunk 16\nnpu 0 chunk 16"), 2, "npu 1 chunk 16: the section has no phases"},
		{"duplicate section", edit(19, strings.Join(base[1:], "\n")), 19, "npu 0 chunk 16: duplicate section (the first is at line 2); want one section per NPU and chunk length"},
		{"no sections", "; nothing here\n\n", 2, `no sections; want "npu <id> chunk <bytes>" followed by the section's phases`},
		{"empty file", "", 1, "no sections"},

		// Section and phase lines.
		{"npu line", edit(2, "npu 0 chunk"), 2, "npu: want npu <id> chunk <bytes>, e.g. npu 5 chunk 65536"},
		{"npu id", edit(2, "npu x chunk 16"), 2, `npu: id "x" is not a whole number`},
		{"zero chunk", edit(2, "npu 0 chunk 0"), 2, "npu: chunk 0; want a chunk length of at least 1 byte"},
		{"unquoted phase name", edit(3, "phase 1 rs"), 3, `phase: name rs must be in double quotes; want phase <n> "<name>"`},
		{"unterminated phase name", edit(3, `phase 1 "rs`), 3, "unterminated or malformed quoted string"},
		{"phase line", edit(3, "phase"), 3, `phase: want phase <n> "<name>"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("prog.ucode", strings.NewReader(tc.text))
			require.Error(t, err)
			var perr *Error
			require.True(t, errors.As(err, &perr), "%v is an *Error", err)
			require.Equal(t, tc.line, perr.Line, "%v", err)
			require.Equal(t, "prog.ucode", perr.File)
			require.Contains(t, err.Error(), tc.msg)
			require.True(t, strings.HasPrefix(err.Error(), "prog.ucode:"), err.Error())
		})
	}
}

// A whole message: file:line, what is wrong, what is wanted.
func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("prog.ucode", strings.NewReader(edit(8, "  0: send npu=1 port=local* data=8+8 match=1 step=0")))
	require.EqualError(t, err, `prog.ucode:8: send: port "local*" is not a port; want local+, local-, vertical+, vertical-, horizontal+, horizontal- or xyz`)
}

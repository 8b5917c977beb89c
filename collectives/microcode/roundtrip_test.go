package microcode

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func newPlan(t *testing.T, shape torus.Shape, op collectives.CollectiveOp, alg string, payload, chunk int64) *collectives.Plan {
	t.Helper()
	plan, err := collectives.NewPlan(collectives.Config{Machine: shape.Machine(), Op: op, MessageBytes: 8192}, alg, payload, chunk)
	require.NoError(t, err)
	return plan
}

// writeText is Write into a string.
func writeText(t *testing.T, secs []Section) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Write(&b, secs))
	return b.String()
}

// requireSamePrograms compares ops, views, outs and steps (and NPUs), with
// empty and nil slices equal.
func requireSamePrograms(t *testing.T, want, got *collectives.Program, msg string) {
	t.Helper()
	require.Equal(t, want.NPU, got.NPU, "%s: NPU", msg)
	require.Equal(t, want.Steps, got.Steps, "%s: steps", msg)
	require.Equal(t, len(want.View), len(got.View), "%s: view", msg)
	if len(want.View) > 0 {
		require.Equal(t, want.View, got.View, "%s: view", msg)
	}
	require.Equal(t, len(want.Out), len(got.Out), "%s: out", msg)
	if len(want.Out) > 0 {
		require.Equal(t, want.Out, got.Out, "%s: out", msg)
	}
	require.Len(t, got.Ops, len(want.Ops), "%s: ops", msg)
	for i := range want.Ops {
		w, g := want.Ops[i], got.Ops[i]
		require.Equal(t, len(w.Deps), len(g.Deps), "%s op %d: deps", msg, i)
		w.Deps, g.Deps = cloneDeps(w.Deps), cloneDeps(g.Deps)
		require.Equal(t, w, g, "%s op %d", msg, i)
	}
}

// Compile → Write → Parse gives back the plan's programs, and Write of the
// parsed sections gives the same bytes.
func TestRoundTripPlans(t *testing.T) {
	tests := []struct {
		name    string
		shape   torus.Shape
		op      collectives.CollectiveOp
		alg     string
		payload int64
		chunk   int64
		npus    []int // nil: all
		lens    int   // chunk lengths the plan uses
	}{
		{"hierarchical allreduce 4x4x4 NPU 5", torus.Shape{L: 4, V: 4, H: 4}, collectives.OpAllReduce, "hierarchical", 1 << 20, 64 << 10, []int{5}, 1},
		// 100003 bytes: a last chunk of 34467 bytes, and blocks that do not
		// divide evenly among 2, 3 or 4 NPUs.
		{"hierarchical allreduce 2x3x4 uneven", torus.Shape{L: 2, V: 3, H: 4}, collectives.OpAllReduce, "hierarchical", 100_003, 64 << 10, nil, 2},
		{"ring reduce-scatter 8x1x1", torus.Shape{L: 8, V: 1, H: 1}, collectives.OpReduceScatter, "ring", 50_000, 32 << 10, nil, 2},
		// Neighbouring ids are not all torus neighbours: port=xyz.
		{"ring reduce-scatter 2x3x4 routed", torus.Shape{L: 2, V: 3, H: 4}, collectives.OpReduceScatter, "ring", 24 * 1000, 64 << 10, []int{0, 1, 23}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := newPlan(t, tc.shape, tc.op, tc.alg, tc.payload, tc.chunk)
			lens := ChunkLens(plan)
			require.Len(t, lens, tc.lens)
			npus := tc.npus
			if npus == nil {
				for npu := 0; npu < tc.shape.N(); npu++ {
					npus = append(npus, npu)
				}
			}
			var secs []Section
			for _, l := range lens {
				for _, npu := range npus {
					secs = append(secs, Compile(plan, npu, l))
				}
			}
			text := writeText(t, secs)
			got, err := Parse("plan.ucode", strings.NewReader(text))
			require.NoError(t, err)
			require.Len(t, got, len(secs))
			for i, sec := range got {
				require.Equal(t, secs[i].NPU, sec.NPU)
				require.Equal(t, secs[i].ChunkLen, sec.ChunkLen)
				require.Len(t, sec.Phases, plan.NumPhases())
				for ph, p := range sec.Phases {
					require.Equal(t, plan.PhaseName(ph), sec.Names[ph])
					msg := secName(sec) + " phase " + plan.PhaseName(ph)
					requireSamePrograms(t, plan.Program(sec.NPU, ph, sec.ChunkLen), p, msg)
					requireSamePrograms(t, secs[i].Phases[ph], p, msg)
				}
			}
			require.Equal(t, secs, withoutPositions(t, got, "plan.ucode"), "Compile and Parse give identical sections")
			require.Equal(t, text, writeText(t, got), "Write(Parse(text)) == text")
			if tc.op == collectives.OpReduceScatter && tc.shape.L == 8 {
				require.Contains(t, text, "port=local+")
			}
			if tc.shape.V == 3 && tc.alg == "ring" {
				require.Contains(t, text, "port=xyz")
			}
		})
	}
}

// canonical is a listing exactly as Write prints it.
const canonical = `; acemu microcode v1

npu 0 chunk 16
phase 1 "reduce-scatter on local (ring)"
  view 0+16
  out 0+8
  steps 1
  dma-in
  0: send npu=1 port=local+ data=8+8 match=1 step=0
  1: recv npu=1 port=local+ data=0+8 reduce step=0
  next
phase 2 "all-gather; \"quoted\""
  view 0+16
  out 0+16
  steps 1
  0: send npu=1 port=xyz data=0+8 match=1 step=0
  1: recv npu=1 data=8+8 store step=0
  2: send npu=1 port=local- data=8+8 match=2 step=0 after=1  ; forward
  dma-out
  signal

npu 1 chunk 16
phase 1 ""
  view 8+8 0+8
  out
  steps 0
  dma-in
  next
phase 2 "empty view"
  view
  out
  steps 0
  dma-out
  signal
`

func TestWriteParseIsIdentity(t *testing.T) {
	secs, err := Parse("canonical.ucode", strings.NewReader(canonical))
	require.NoError(t, err)
	require.Len(t, secs, 2)
	require.Equal(t, `all-gather; "quoted"`, secs[0].Names[1])
	require.Equal(t, []collectives.Range{{Off: 8, Len: 8}, {Off: 0, Len: 8}}, secs[1].Phases[0].View)
	require.Empty(t, secs[1].Phases[0].Ops)
	require.Equal(t, canonical, writeText(t, secs))
}

// Comments, spacing, field order and "N:kind" are accepted and normalised.
func TestParseLenientForms(t *testing.T) {
	text := "  ; a comment\n" +
		"npu 0   chunk 16 ; section\n" +
		"\n" +
		"phase 1 \"reduce-scatter on local (ring)\"; name\n" +
		"\tview 0+16\n" +
		"steps 1\n" +
		"out 0+8 ; out before steps is fine\n" +
		"dma-in\n" +
		"0:send step=0 match=1 data=8+8 port=local+ npu=1\n" +
		"1: recv reduce npu=1 data=0+8 step=0 port=local+\n" +
		"next\n" +
		"phase 2 \"all-gather; \\\"quoted\\\"\"\n" +
		"view 0+16\nout 0+16\nsteps 1\n" +
		"0: send npu=1 port=xyz data=0+8 match=1 step=0\n" +
		"1: recv npu=1 data=8+8 store step=0 port=xyz\n" +
		"2: send npu=1 port=local- data=8+8 match=2 step=0 after=1\n" +
		"dma-out\nsignal\n" +
		"npu 1 chunk 16\nphase 1\nview 8+8 0+8\nout\nsteps 0\ndma-in\nnext\n" +
		"phase 2 \"empty view\"\nview\nout\nsteps 0\ndma-out\nsignal"
	secs, err := Parse("lenient.ucode", strings.NewReader(text))
	require.NoError(t, err)
	require.Equal(t, canonical, writeText(t, secs))
	op := secs[0].Phases[0].Ops[0]
	require.Equal(t, collectives.Op{Kind: collectives.Send, Peer: 1, Port: int8(torus.Port{Dim: torus.Local, Dir: torus.Plus}.Index()), Match: 1, Data: collectives.Range{Off: 8, Len: 8}}, op)
	require.Equal(t, int8(collectives.RouteXYZ), secs[0].Phases[1].Ops[1].Port, "a recv without port= is RouteXYZ")
	require.Equal(t, []int32{1}, secs[0].Phases[1].Ops[2].Deps)
}

// A one-phase collective: dma-in first, dma-out and signal last, no next.
func TestOnePhaseCollective(t *testing.T) {
	plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "ring", 4096, 4096)
	require.Equal(t, 1, plan.NumPhases())
	text, err := Text(plan, 2)
	require.NoError(t, err)
	require.NotContains(t, text, "next")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.Equal(t, "  dma-in", lines[7])
	require.Equal(t, []string{"  dma-out", "  signal"}, lines[len(lines)-2:])
	secs, err := Parse("one.ucode", strings.NewReader(text))
	require.NoError(t, err)
	require.Equal(t, text, writeText(t, secs))
}

func TestTextChunkLengths(t *testing.T) {
	even := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 8192, 4096)
	text, err := Text(even, 0)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(text, "\nnpu "))
	require.Contains(t, text, "\nnpu 0 chunk 4096\n")

	uneven := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 10000, 4096)
	text, err = Text(uneven, 3)
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(text, "\nnpu "))
	require.Contains(t, text, "\nnpu 3 chunk 4096\n")
	require.Contains(t, text, "\nnpu 3 chunk 1808\n")
	require.True(t, strings.HasPrefix(text, Header+"\n"))

	_, err = Text(uneven, 4)
	require.ErrorContains(t, err, "NPU 4: 4x1x1 has NPUs 0 to 3")
}

// Compile returns copies: changing them leaves the plan alone.
func TestCompileCopies(t *testing.T) {
	plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 4096, 4096)
	sec := Compile(plan, 1, 4096)
	before := *plan.Program(1, 0, 4096)
	sec.Phases[0].Ops[0].Data.Len = 1
	sec.Phases[0].View[0].Len = 1
	sec.Phases[0].Ops[2].Deps[0] = 0
	after := plan.Program(1, 0, 4096)
	require.Equal(t, before.Ops[0].Data.Len, after.Ops[0].Data.Len)
	require.Equal(t, before.View[0].Len, after.View[0].Len)
	require.Equal(t, int32(1), after.Ops[2].Deps[0])
	require.Len(t, CompilePlan(plan), 4)
}

func TestWriteRefuses(t *testing.T) {
	good := func() Section {
		return Section{NPU: 0, ChunkLen: 16, Names: []string{"x"}, Phases: []*collectives.Program{{
			View: []collectives.Range{{Off: 0, Len: 16}},
			Ops: []collectives.Op{
				{Kind: collectives.Send, Peer: 1, Port: collectives.RouteXYZ, Match: 1, Data: collectives.Range{Off: 0, Len: 8}},
				{Kind: collectives.Recv, Peer: 1, Port: collectives.RouteXYZ, Data: collectives.Range{Off: 8, Len: 8}, Deps: []int32{0}},
			},
		}}}
	}
	tests := []struct {
		name   string
		mutate func(s *Section) []Section
		msg    string
	}{
		{"no phases", func(s *Section) []Section { s.Phases, s.Names = nil, nil; return []Section{*s} }, "npu 0 chunk 16: no phases"},
		{"duplicate", func(s *Section) []Section { return []Section{*s, *s} }, "two sections for the same NPU and chunk length"},
		{"nil program", func(s *Section) []Section { s.Phases[0] = nil; return []Section{*s} }, "phase 1: no program"},
		{"bad port", func(s *Section) []Section { s.Phases[0].Ops[0].Port = 6; return []Section{*s} }, "op 0: port 6 is not a port"},
		{"data outside view", func(s *Section) []Section { s.Phases[0].Ops[1].Data.Off = 9; return []Section{*s} }, "op 1: data 9+8 is outside the view of 16 bytes"},
		{"later dependence", func(s *Section) []Section { s.Phases[0].Ops[1].Deps = []int32{1}; return []Section{*s} }, "op 1: after=1 is not an earlier op"},
		{"recv with match", func(s *Section) []Section { s.Phases[0].Ops[1].Match = 3; return []Section{*s} }, "a recv with match 3"},
		{"send with reduce", func(s *Section) []Section { s.Phases[0].Ops[0].Reduce = true; return []Section{*s} }, "a send with reduce set"},
		{"negative step", func(s *Section) []Section { s.Phases[0].Ops[0].Step = -1; return []Section{*s} }, "step -1 is negative"},
		{"out outside view", func(s *Section) []Section {
			s.Phases[0].Out = []collectives.Range{{Off: 8, Len: 9}}
			return []Section{*s}
		}, "out range 8+9 is outside the view"},
		{"chunk length", func(s *Section) []Section { s.ChunkLen = 0; return []Section{*s} }, "chunk length must be at least 1 byte"},
		{"too many names", func(s *Section) []Section { s.Names = append(s.Names, "y"); return []Section{*s} }, "2 phase names for 1 phases"},
	}
	s := good()
	require.NoError(t, Write(&bytes.Buffer{}, []Section{s}))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := good()
			var b bytes.Buffer
			err := Write(&b, tc.mutate(&s))
			require.ErrorContains(t, err, tc.msg)
			require.Zero(t, b.Len(), "nothing written")
		})
	}
}

// docs/microcode.md shows the real listing of NPU 0 of a 4x1x1 all-reduce of
// 4096 bytes with 8192-byte messages.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/microcode.md")
	require.NoError(t, err)
	plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 4096, collectives.DefaultChunkBytes)
	text, err := Text(plan, 0)
	require.NoError(t, err)
	require.Contains(t, string(doc), "```\n"+text+"```\n", "docs/microcode.md's example is Text(plan, 0)")
}

// The microcode's port names are the torus's, port by port (a torus
// NPU's ports in its port order).
func TestPortNamesAreTheTorus(t *testing.T) {
	require.Len(t, isaPorts, torus.NumPorts)
	for i, n := range isaPorts {
		require.Equal(t, torus.PortFromIndex(i).String(), n, "port %d", i)
	}
}

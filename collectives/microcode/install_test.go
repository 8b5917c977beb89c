package microcode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

// listing is plan's complete listing, written and parsed back.
func listing(t *testing.T, plan *collectives.Plan) []Section {
	t.Helper()
	secs, err := Parse("plan.ucode", strings.NewReader(writeText(t, CompilePlan(plan))))
	require.NoError(t, err)
	return secs
}

// The plan's own listing of all NPUs installs, and the plan still computes
// its collective.
func TestInstallOwnListing(t *testing.T) {
	tests := []struct {
		name    string
		shape   torus.Shape
		op      collectives.CollectiveOp
		alg     string
		payload int64
	}{
		{"hierarchical allreduce 4x4x4", torus.Shape{L: 4, V: 4, H: 4}, collectives.OpAllReduce, "hierarchical", 64 << 10},
		{"hierarchical allreduce 2x3x4 uneven", torus.Shape{L: 2, V: 3, H: 4}, collectives.OpAllReduce, "hierarchical", 100_003},
		{"ring reduce-scatter 2x3x4", torus.Shape{L: 2, V: 3, H: 4}, collectives.OpReduceScatter, "ring", 50_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := newPlan(t, tc.shape, tc.op, tc.alg, tc.payload, 64<<10)
			secs := listing(t, plan)
			before := plan.Program(1, 0, plan.ChunkLen(0))
			require.NoError(t, Install(plan, secs))
			after := plan.Program(1, 0, plan.ChunkLen(0))
			require.NotSame(t, before, after, "the installed copy replaces the built-in program")
			requireSamePrograms(t, before, after, "npu 1 phase 1")
			require.NoError(t, verify.Check(plan))
		})
	}
}

// Installing one NPU's section checks it against the other NPUs' built-in
// programs.
func TestInstallOneSection(t *testing.T) {
	plan := newPlan(t, torus.Shape{L: 4, V: 4, H: 4}, collectives.OpAllReduce, "hierarchical", 64<<10, 64<<10)
	text, err := Text(plan, 5)
	require.NoError(t, err)
	secs, err := Parse("npu5.ucode", strings.NewReader(text))
	require.NoError(t, err)
	require.NoError(t, Install(plan, secs))
	require.NoError(t, verify.Check(plan))
}

func TestInstallErrors(t *testing.T) {
	const (
		rs = "phase 1 (reduce-scatter on local (ring))"
		ag = "phase 2 (all-gather on local (ring))"
	)
	tests := []struct {
		name string
		all  bool // the listing of every NPU; otherwise NPU 0's only
		edit func(secs []Section) []Section
		msg  string
	}{
		{"match at a store of the wrong length", false, func(s []Section) []Section {
			s[0].Phases[1].Ops[0].Data.Len = 256
			return s
		}, "npu 0 chunk 4096 " + ag + " op 0: send to npu 1: sends 256 bytes, but match=1 (a store of npu 1 chunk 4096 (built-in) " + ag + ") takes 512; want the same length"},
		{"match at a reduce of the wrong length, in the file", true, func(s []Section) []Section {
			s[1].Phases[0].Ops[1].Data.Len = 500
			return s
		}, "npu 0 chunk 4096 " + rs + " op 0: send to npu 1: sends 512 bytes, but match=1 (a reduce of npu 1 chunk 4096 " + rs + ") takes 500"},
		{"match at a send", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[0].Match = 0
			return s
		}, "npu 0 chunk 4096 " + rs + " op 0: send to npu 1: match=0 is a send of npu 1 chunk 4096 (built-in) " + rs + ", not a recv; want the index of its recv from npu 0"},
		{"match past the peer's ops", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[0].Match = 12
			return s
		}, "match=12, but npu 1 chunk 4096 (built-in) " + rs + " has 12 ops (0 to 11)"},
		{"match at a recv from another NPU", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[0].Match = 7 // NPU 1's recv from NPU 2
			return s
		}, "match=7 is a recv from npu 2 of npu 1 chunk 4096 (built-in) " + rs + "; want a recv from npu 0"},
		{"recv from the wrong NPU", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[1].Peer = 2
			return s
		}, "npu 3 chunk 4096 (built-in) " + rs + " op 0: send to npu 0: match=1 is a recv from npu 2 of npu 0 chunk 4096 " + rs},
		{"two sends match one recv", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[2].Match = 1
			return s
		}, "op 2: send to npu 1: match=1, a recv of npu 1 chunk 4096 (built-in) " + rs + " that op 0 of npu 0 also sends to; want each recv matched by one send"},
		{"recv matched by no send", false, func(s []Section) []Section {
			p := s[0].Phases[0]
			p.Ops = append(p.Ops, collectives.Op{Kind: collectives.Recv, Peer: 3, Port: collectives.RouteXYZ, Data: collectives.Range{Len: 8}})
			return s
		}, "npu 0 chunk 4096 " + rs + " op 12: recv from npu 3 is matched by no send; want a send of npu 3 with match=12"},
		{"recv from no NPU", false, func(s []Section) []Section {
			p := s[0].Phases[0]
			p.Ops = append(p.Ops, collectives.Op{Kind: collectives.Recv, Peer: 9, Port: collectives.RouteXYZ})
			return s
		}, "op 12: recv from npu 9: want another NPU of 4x1x1 (0 to 3)"},
		{"phase missing", false, func(s []Section) []Section {
			s[0].Phases, s[0].Names = s[0].Phases[:1], s[0].Names[:1]
			return s
		}, `npu 0 chunk 4096: 1 phase, but the plan has 2 phases: 1 "reduce-scatter on local (ring)", 2 "all-gather on local (ring)"; want one program per phase`},
		{"peer does not exist", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[0].Peer = 7
			s[0].Phases[0].Ops[0].Port = collectives.RouteXYZ
			return s
		}, "npu 0 chunk 4096 " + rs + " op 0: send to npu 7: NPU 7 does not exist; 4x1x1 has NPUs 0 to 3"},
		{"send to itself", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[0].Peer = 0
			s[0].Phases[0].Ops[0].Port = collectives.RouteXYZ
			return s
		}, "op 0: send to npu 0: an NPU cannot send to itself"},
		{"port to another neighbour", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[0].Peer = 2
			return s
		}, "op 0: send to npu 2: port local+ leads to npu 1, not npu 2; want the port towards npu 2, or xyz to route the message"},
		{"port on a dimension of size 1", false, func(s []Section) []Section {
			s[0].Phases[0].Ops[0].Port = int8(torus.Port{Dim: torus.Vertical, Dir: torus.Plus}.Index())
			return s
		}, "port vertical+ does not exist on 4x1x1 (the vertical dimension has size 1); want a port of local+, local- or xyz"},
		{"section NPU does not exist", false, func(s []Section) []Section {
			s[0].NPU = 4
			return s
		}, "npu 4 chunk 4096: NPU 4 does not exist; 4x1x1 has NPUs 0 to 3"},
		{"chunk length never run", false, func(s []Section) []Section {
			s[0].ChunkLen = 1000
			return s
		}, "npu 0 chunk 1000: the plan never runs a chunk of 1000 bytes; it runs chunks of 4096 bytes only"},
		{"duplicate section", false, func(s []Section) []Section { return append(s, s[0]) }, "npu 0 chunk 4096: two sections for the same NPU and chunk length"},
		{"nil program", false, func(s []Section) []Section {
			s[0].Phases[1] = nil
			return s
		}, "npu 0 chunk 4096 " + ag + ": no program (nil)"},
		{"program of another NPU", false, func(s []Section) []Section {
			s[0].Phases[1].NPU = 3
			return s
		}, "npu 0 chunk 4096 " + ag + ": the program is for NPU 3, not the section's NPU 0"},
		{"data outside the view", false, func(s []Section) []Section {
			s[0].Phases[1].Ops[0].Data.Off = 4000
			return s
		}, "npu 0 chunk 4096 " + ag + ": op 0: data 4000+512 is outside the view of 4096 bytes"},
		{"later dependence", false, func(s []Section) []Section {
			s[0].Phases[1].Ops[0].Deps = []int32{3}
			return s
		}, ag + ": op 0: after=3 is not an earlier op"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 4096, 4096)
			var secs []Section
			if tc.all {
				secs = listing(t, plan)
			} else {
				text, err := Text(plan, 0)
				require.NoError(t, err)
				secs, err = Parse("npu0.ucode", strings.NewReader(text))
				require.NoError(t, err)
			}
			var before [][]*collectives.Program
			for npu := 0; npu < 4; npu++ {
				before = append(before, []*collectives.Program{plan.Program(npu, 0, 4096), plan.Program(npu, 1, 4096)})
			}
			err := Install(plan, tc.edit(secs))
			require.ErrorContains(t, err, tc.msg)
			for npu := 0; npu < 4; npu++ {
				require.Same(t, before[npu][0], plan.Program(npu, 0, 4096), "nothing installed")
				require.Same(t, before[npu][1], plan.Program(npu, 1, 4096), "nothing installed")
			}
		})
	}
}

// A listing whose only phase ends the collective parses, but does not fit a
// two-phase plan.
func TestInstallPhaseMissingFromText(t *testing.T) {
	plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 4096, 4096)
	text, err := Text(plan, 0)
	require.NoError(t, err)
	text = text[:strings.Index(text, "  next\n")] + "  dma-out\n  signal\n"
	secs, err := Parse("short.ucode", strings.NewReader(text))
	require.NoError(t, err)
	require.ErrorContains(t, Install(plan, secs), "npu 0 chunk 4096: 1 phase, but the plan has 2 phases")
}

// A modified but valid program is what the plan runs after Install.
func TestInstallModifiedProgram(t *testing.T) {
	plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 4096, 4096)
	text, err := Text(plan, 0)
	require.NoError(t, err)
	// Serialise the first ops of the reduce-scatter: the first recv waits
	// for the first send, and the minus lane's first send for the plus
	// lane's last recv.
	for _, r := range [][2]string{
		{"1: recv npu=3 port=local+ data=1024+512 reduce step=0\n", "1: recv npu=3 port=local+ data=1024+512 reduce step=0 after=0\n"},
		{"6: send npu=3 port=local- data=2560+512 match=7 step=0\n", "6: send npu=3 port=local- data=2560+512 match=7 step=0 after=5\n"},
	} {
		require.Contains(t, text, r[0])
		text = strings.Replace(text, r[0], r[1], 1)
	}
	secs, err := Parse("serial.ucode", strings.NewReader(text))
	require.NoError(t, err)
	require.Nil(t, plan.Program(0, 0, 4096).Ops[1].Deps)
	require.NoError(t, Install(plan, secs))
	got := plan.Program(0, 0, 4096)
	require.Equal(t, []int32{0}, got.Ops[1].Deps)
	require.Equal(t, []int32{5}, got.Ops[6].Deps)
	requireSamePrograms(t, secs[0].Phases[0], got, "installed")
	require.NoError(t, verify.Check(plan), "still an all-reduce")

	// Installing a copy: later changes to the sections leave the plan alone.
	secs[0].Phases[0].Ops[1].Deps[0] = 42
	require.Equal(t, []int32{0}, plan.Program(0, 0, 4096).Ops[1].Deps)

	// The plan's listing now shows the change.
	text2, err := Text(plan, 0)
	require.NoError(t, err)
	require.Contains(t, text2, "after=0\n")
}

// Sections for the last, shorter chunk are checked and installed for that
// length only.
func TestInstallLastChunk(t *testing.T) {
	plan := newPlan(t, torus.Shape{L: 2, V: 3, H: 4}, collectives.OpAllReduce, "hierarchical", 100_003, 64<<10)
	last := plan.ChunkLen(plan.NumChunks() - 1)
	require.Equal(t, int64(34467), last)
	sec := Compile(plan, 7, last)
	sec.Phases[0].Ops[1].Deps = append(sec.Phases[0].Ops[1].Deps, 0)
	require.NoError(t, Install(plan, []Section{sec}))
	require.Contains(t, plan.Program(7, 0, last).Ops[1].Deps, int32(0))
	require.NotContains(t, plan.Program(7, 0, 64<<10).Ops[1].Deps, int32(0))
	require.NoError(t, verify.Check(plan))

	sec.ChunkLen = 1000
	require.ErrorContains(t, Install(plan, []Section{sec}), "it runs chunks of 65536 bytes and a last chunk of 34467")
}

// An out naming other bytes than those the phase leaves its result in is
// refused at its line, whatever phase it is in and whether or not the view
// reorders it; reordering the same bytes within the view is no change.
func TestInstallRefusesAWrongOut(t *testing.T) {
	plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 16<<10, 16<<10)
	text, err := Text(plan, 0)
	require.NoError(t, err)
	lines := strings.Split(text, "\n")
	var outs []int // indices of the out lines
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "out ") {
			outs = append(outs, i)
		}
	}
	require.Len(t, outs, 2, text)
	tests := []struct {
		name string
		line int    // index into outs
		out  string // the new out line
		msg  string // "" if it installs
	}{
		{"reduce-scatter's out on the wrong block", 0, "  out 2048+2048 10240+2048", "plan.ucode:%d: npu 0 chunk 16384 phase 1 (reduce-scatter on local (ring)): out names chunk bytes 2048+2048 10240+2048, but the phase leaves this NPU's result in chunk bytes 0+2048 8192+2048"},
		{"reduce-scatter's out, half of it", 0, "  out 8192+2048", "plan.ucode:%d: "},
		{"reduce-scatter's out, its lanes the other way round", 0, "  out 8192+2048 0+2048", ""},
		{"all-gather's out short of the chunk", 1, "  out 0+8192", "out names chunk bytes 0+8192, but the phase leaves this NPU's result in chunk bytes 0+16384"},
		{"all-gather's out as two ranges", 1, "  out 8192+8192 0+8192", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			edited := append([]string(nil), lines...)
			edited[outs[tc.line]] = tc.out
			secs, err := Parse("plan.ucode", strings.NewReader(strings.Join(edited, "\n")))
			require.NoError(t, err)
			plan := newPlan(t, torus.Shape{L: 4, V: 1, H: 1}, collectives.OpAllReduce, "hierarchical", 16<<10, 16<<10)
			err = Install(plan, secs)
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			want := tc.msg
			if strings.Contains(want, "%d") {
				want = fmt.Sprintf(want, outs[tc.line]+1)
			}
			require.ErrorContains(t, err, want)
		})
	}
}

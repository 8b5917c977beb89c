package collectives

import (
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func cfg(topo string, op CollectiveOp) Config {
	s, err := torus.Parse(topo)
	if err != nil {
		panic(err)
	}
	return Config{Machine: s.Machine(), Op: op, MessageBytes: DefaultMessageBytes}
}

func TestDefaultPhasesDropSizeOneDims(t *testing.T) {
	names := func(ps []HPhase) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.String())
		}
		return out
	}
	require.Equal(t, []string{"reduce-scatter on local (ring)", "all-reduce on vertical (ring)", "all-reduce on horizontal (ring)", "all-gather on local (ring)"},
		names(DefaultPhases(torus.Shape{L: 4, V: 4, H: 4}.Machine().Dims, OpAllReduce)))
	require.Equal(t, []string{"reduce-scatter on local (ring)", "all-gather on local (ring)"},
		names(DefaultPhases(torus.Shape{L: 8, V: 1, H: 1}.Machine().Dims, OpAllReduce)))
	require.Equal(t, []string{"all-reduce on vertical (ring)"},
		names(DefaultPhases(torus.Shape{L: 1, V: 4, H: 1}.Machine().Dims, OpAllReduce)))
	require.Equal(t, []string{"all-gather on horizontal (ring)", "all-gather on vertical (ring)", "all-gather on local (ring)"},
		names(DefaultPhases(torus.Shape{L: 2, V: 2, H: 2}.Machine().Dims, OpAllGather)))
}

// On 4x4x4 one NPU sends, per 64 KB chunk, 3/4·64 KB in the local
// reduce-scatter (48 KB), 2·3/4·16 KB = 24 KB in each of the vertical and
// horizontal all-reduces, and 48 KB in the local all-gather: 144 KB = 2.25 ×
// 64 KB (Section VI-A).
func TestHierarchicalBytesPerChunk(t *testing.T) {
	c := cfg("4x4x4", OpAllReduce)
	plan, err := NewPlan(c, "hierarchical", 64<<10, DefaultChunkBytes)
	require.NoError(t, err)
	want := []int64{48 << 10, 24 << 10, 24 << 10, 48 << 10}
	for npu := 0; npu < c.Machine.N(); npu++ {
		for ph := 0; ph < plan.NumPhases(); ph++ {
			require.Equal(t, want[ph], plan.Program(npu, ph, 64<<10).SentBytes(), "npu %d phase %d", npu, ph)
		}
		// The vertical phase works on the 16 KB this NPU owns after the
		// local reduce-scatter: two 8 KB blocks at local index l.
		prog := plan.Program(npu, 1, 64<<10)
		require.Equal(t, int64(16<<10), prog.ViewLen())
		l := int64(torus.ShapeOf(c.Machine).Coord(npu)[torus.Local])
		require.Equal(t, []Range{{l * 8192, 8192}, {32768 + l*8192, 8192}}, prog.View)
	}
}

func TestNewPlanErrors(t *testing.T) {
	c := cfg("4x2x2", OpAllReduce)
	tests := []struct {
		name    string
		cfg     Config
		alg     string
		payload int64
		chunk   int64
		msg     string
	}{
		{"size", c, "hierarchical", 0, 10, "collective size"},
		{"chunk", c, "hierarchical", 10, 0, "chunk size"},
		{"too many chunks", c, "hierarchical", 1 << 40, 1, "more than"},
		{"unknown algorithm", c, "magic", 100, 100, "want one of"},
		{"op not supported", cfg("4x2x2", OpAllToAll), "hierarchical", 100, 100, "does not run all-to-all"},
		{"open reduce-scatter", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "rs:local"}, "hierarchical", 100, 100, "do not make an all-reduce"},
		{"unmatched all-gather", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "rs:local,ag:vertical"}, "hierarchical", 100, 100, "must undo"},
		// Phases that nest rightly but do not combine every NPU's data once.
		{"all-reduce of one dimension", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "ar:local"}, "hierarchical", 100, 100, "span 4 of the 16 NPUs"},
		{"dimension reduced twice", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "rs:local,rs:local,ag:local,ag:local"}, "hierarchical", 100, 100, "cover local twice"},
		{"rs then ar on one dimension", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "rs:local,ar:local,ar:vertical,ar:horizontal,ag:local"}, "hierarchical", 100, 100, "cover local twice"},
		{"local never reduced", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "ar:vertical,ar:horizontal"}, "hierarchical", 100, 100, "leave out the NPUs 1 apart"},
		{"reduce-scatter of one dimension", Config{Machine: c.Machine, Op: OpReduceScatter, MessageBytes: 8192, PhaseSpec: "rs:local"}, "hierarchical", 100, 100, "do not make a reduce-scatter"},
		{"reduce-scatter with all-reduces", Config{Machine: c.Machine, Op: OpReduceScatter, MessageBytes: 8192, PhaseSpec: "rs:local,ar:vertical,ar:horizontal"}, "hierarchical", 100, 100, "leaves the NPUs of its group with the same data"},
		{"all-gather that reduces", Config{Machine: c.Machine, Op: OpAllGather, MessageBytes: 8192, PhaseSpec: "ag:horizontal,ag:vertical,ag:local,rs:local,ag:local"}, "hierarchical", 100, 100, "adds data together"},
		{"all-gather of two dimensions", Config{Machine: c.Machine, Op: OpAllGather, MessageBytes: 8192, PhaseSpec: "ag:vertical,ag:local"}, "hierarchical", 100, 100, "span 8 of the 16 NPUs"},
		{"bad phase kind", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "xx:local"}, "hierarchical", 100, 100, "not rs, ag or ar"},
		{"size-1 dim", Config{Machine: torus.Shape{L: 4, V: 1, H: 1}.Machine(), Op: OpAllReduce, MessageBytes: 8192, PhaseSpec: "ar:vertical"}, "hierarchical", 100, 100, "size 1"},
		{"bad factors", Config{Machine: c.Machine, Op: OpAllReduce, MessageBytes: 8192, Factors: []int{3, 5}}, "blueconnect", 100, 100, "multiply to 15"},
		{"message", Config{Machine: c.Machine, Op: OpAllReduce}, "hierarchical", 100, 100, "message size"},
		{"all-to-all too small", cfg("4x2x2", OpAllToAll), "direct", 100, 8, "one per NPU"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPlan(tc.cfg, tc.alg, tc.payload, tc.chunk)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestChunking(t *testing.T) {
	plan, err := NewPlan(cfg("2x1x1", OpAllReduce), "hierarchical", 100_000, 65536)
	require.NoError(t, err)
	require.Equal(t, 2, plan.NumChunks())
	require.Equal(t, int64(65536), plan.ChunkLen(0))
	require.Equal(t, int64(100_000-65536), plan.ChunkLen(1))
}

// BlueConnect on 12 NPUs factored (3,2,2) (a 3x2x2 torus): stage i runs
// 12/p_i groups: 4, 6, 6 (BlueConnect paper, Section 3), on N, N/3, N/6 bytes.
func TestBlueConnectGroups(t *testing.T) {
	c := cfg("3x2x2", OpAllReduce)
	tiers, err := FactorTiers(c.Machine.Dims, c.Machine.N(), []int{3, 2, 2})
	require.NoError(t, err)
	require.Len(t, tiers, 3)
	for i, want := range []int{4, 6, 6} {
		groups := map[int]bool{}
		for npu := 0; npu < 12; npu++ {
			g, _ := tiers[i].Group(npu)
			groups[g[0]] = true
		}
		require.Len(t, groups, want, "tier %d", i)
		require.True(t, tiers[i].OnRing, "3x2x2's factors are its dimensions")
	}
	plan, err := NewPlan(c, "blueconnect", 12*1024, 12*1024)
	require.NoError(t, err)
	require.Equal(t, 6, plan.NumPhases())
	const n = 12 * 1024
	for i, want := range []int64{n, n / 3, n / 6} {
		require.Equal(t, want, plan.Program(0, i, n).ViewLen(), "stage %d", i)
	}
}

// CheckSimulated refuses chunk×NPU pairs past MaxChunkNPUs, and only
// those: at the bound a run goes on, one more pair is refused, with the
// folded case (one NPU) said as chunks.
func TestCheckSimulatedBound(t *testing.T) {
	for _, tc := range []struct {
		chunks int64
		npus   int
		want   string
	}{
		{MaxChunkNPUs, 1, ""},
		{MaxChunkNPUs + 1, 1, "2097153 chunks, more than the 2097152 a run simulates"},
		{MaxChunkNPUs / 64, 64, ""},
		{MaxChunkNPUs/64 + 1, 64, "32769 chunks on each of 64 NPUs simulated one by one is 2097216 chunk×NPU pairs, more than 2097152"},
	} {
		err := CheckSimulated("x", tc.chunks, tc.npus)
		if tc.want == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, tc.want)
	}
}

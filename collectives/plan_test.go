package collectives

import (
	"testing"

	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func TestHierarchicalPhasesDropSizeOneDims(t *testing.T) {
	require.Equal(t, []Phase{{ReduceScatter, torus.Local}, {AllReduce, torus.Vertical}, {AllReduce, torus.Horizontal}, {AllGather, torus.Local}},
		HierarchicalPhases(torus.Shape{L: 4, V: 4, H: 4}))
	require.Equal(t, []Phase{{ReduceScatter, torus.Local}, {AllGather, torus.Local}},
		HierarchicalPhases(torus.Shape{L: 8, V: 1, H: 1}))
	require.Equal(t, []Phase{{AllReduce, torus.Vertical}},
		HierarchicalPhases(torus.Shape{L: 1, V: 4, H: 1}))
}

// On 4x4x4 one NPU sends, per 64 KB chunk, 3/4·64 KB in the local
// reduce-scatter (48 KB), 2·3/4·16 KB = 24 KB in each of the vertical and
// horizontal all-reduces, and 48 KB in the local all-gather: 144 KB = 2.25 ×
// 64 KB (Section VI-A).
func TestHierarchicalBytesPerChunk(t *testing.T) {
	s := torus.Shape{L: 4, V: 4, H: 4}
	plan, err := NewPlan(s, HierarchicalPhases(s), 64<<10, DefaultChunkBytes, DefaultMessageBytes)
	require.NoError(t, err)
	want := []int64{48 << 10, 24 << 10, 24 << 10, 48 << 10}
	for npu := 0; npu < s.N(); npu++ {
		for ph := range plan.Phases {
			require.Equal(t, want[ph], plan.Program(npu, ph, 64<<10).SentBytes(), "npu %d phase %d", npu, ph)
		}
		// The vertical phase works on the 16 KB this NPU owns after the
		// local reduce-scatter: two 8 KB blocks at local index l.
		prog := plan.Program(npu, 1, 64<<10)
		require.Equal(t, int64(16<<10), prog.ViewLen())
		l := int64(s.Coord(npu)[torus.Local])
		require.Equal(t, []Range{{l * 8192, 8192}, {32768 + l*8192, 8192}}, prog.View)
	}
}

func TestNewPlanErrors(t *testing.T) {
	s := torus.Shape{L: 4, V: 2, H: 2}
	_, err := NewPlan(s, []Phase{{ReduceScatter, torus.Local}}, 100, 10, 10)
	require.ErrorContains(t, err, "never undone")
	_, err = NewPlan(s, []Phase{{AllGather, torus.Local}}, 100, 10, 10)
	require.ErrorContains(t, err, "must undo")
	_, err = NewPlan(s, HierarchicalPhases(s), 0, 10, 10)
	require.ErrorContains(t, err, "collective size")
	_, err = NewPlan(torus.Shape{L: 0, V: 1, H: 1}, nil, 10, 10, 10)
	require.Error(t, err)
}

func TestChunking(t *testing.T) {
	s := torus.Shape{L: 2, V: 1, H: 1}
	plan, err := NewPlan(s, HierarchicalPhases(s), 100_000, 65536, 8192)
	require.NoError(t, err)
	require.Equal(t, 2, plan.NumChunks())
	require.Equal(t, int64(65536), plan.ChunkLen(0))
	require.Equal(t, int64(100_000-65536), plan.ChunkLen(1))
}
